import type { Child } from 'hono/jsx';
import { Frame } from '../page-frame.js';
import type { SignedIn } from '../../../app/identity/sessions.js';
import type { Role } from '../../../domain/identity/identity.js';
import { csrfToken } from '../human-session.js';

/**
 * The console's sections, in the order the navigation lists them; `for` names the roles that
 * see one (the routes check the same), `dev` the sections served only with --dev.
 */
export const SECTIONS = [
  { path: '/console/approvals', name: 'Approvals' },
  { path: '/console/inbox', name: 'Inbox', for: ['owner', 'approver'] },
  { path: '/console/bookings', name: 'Bookings' },
  { path: '/console/calendars', name: 'Calendars' },
  { path: '/console/connections', name: 'Connections' },
  { path: '/console/activity', name: 'Activity' },
  { path: '/console/people', name: 'People', for: ['owner'] },
  { path: '/console/payments', name: 'Payments', for: ['owner', 'approver'] },
  { path: '/console/standing-rules', name: 'Standing approvals', for: ['owner', 'approver'] },
] as const satisfies readonly { path: string; name: string; for?: readonly Role[]; dev?: boolean }[];

export type Section = (typeof SECTIONS)[number]['path'];

/** Sections are served or not for the whole process: --dev is known once, at start. */
let devSections = false;
export function showDevSections(on: boolean): void {
  devSections = on;
}

function visible(section: (typeof SECTIONS)[number], role: Role): boolean {
  if ('dev' in section && section.dev && !devSections) return false;
  return !('for' in section) || (section.for as readonly Role[]).includes(role);
}

/**
 * Headers of every console page: this site's own stylesheet and script only (no inline
 * script or style), no framing, nothing cached.
 */
export const CONSOLE_HEADERS = {
  'Content-Security-Policy':
    "default-src 'none'; script-src 'self'; connect-src 'self'; style-src 'self'; img-src 'self'; " +
    "form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
  'X-Frame-Options': 'DENY',
  'Referrer-Policy': 'same-origin',
  'Cache-Control': 'no-store',
  'X-Content-Type-Options': 'nosniff',
};

/** The frame of every console page: skip link, the sections, who is signed in, sign-out. */
export function Shell(props: { title: string; signed: SignedIn; section: Section; children?: Child }) {
  const { signed } = props;
  return (
    <Frame
      title={props.title}
      scripts={['/assets/console.js']}
      header={
        <>
          <nav class="sections" aria-label="Console sections">
            <ul>
              {SECTIONS.filter((s) => visible(s, signed.person.role)).map((s) => (
                <li>
                  <a href={s.path} aria-current={s.path === props.section ? 'page' : undefined}>
                    {s.name}
                  </a>
                </li>
              ))}
            </ul>
          </nav>
          <form class="who" method="post" action="/logout">
            <span>
              {signed.person.email} ({signed.person.role})
            </span>
            <a href="/account" id="account-link">
              Your account
            </a>
            <input type="hidden" name="csrf" value={csrfToken(signed.session, 'logout')} />
            <button type="submit">Sign out</button>
          </form>
        </>
      }
    >
      {props.children}
    </Frame>
  );
}

/** A status as a word with its colour (never colour alone). */
/** Statuses as a person says them (the class keeps the key, for colour). */
export const STATUS_WORDS: Readonly<Record<string, string>> = {
  HELD: 'held',
  CONFIRMED: 'confirmed',
  CANCELLED: 'cancelled',
  EXPIRED: 'expired',
  RELEASED: 'released',
  PAYMENT_FAILED: 'payment failed',
  PAYMENT_CLOSED: 'payment closed',
  APPROVED: 'approved',
  DENIED: 'denied',
  USED: 'approved, then used',
  PENDING_CONFIRMATION: 'waiting for confirmation',
};

export function Status(props: { status: string }) {
  const key = props.status.toUpperCase();
  return (
    <span class={`status ${props.status.toLowerCase()}`}>
      {STATUS_WORDS[key] ?? props.status.toLowerCase().replace(/_/g, ' ')}
    </span>
  );
}
