import { isValidTimeZone } from '../../domain/time/instant.js';
import { createHmac, timingSafeEqual } from 'node:crypto';
import type { Context } from 'hono';
import { getCookie, setCookie } from 'hono/cookie';
import { getConnInfo } from '@hono/node-server/conninfo';
import type { SignedIn } from '../../app/identity/sessions.js';
import type { Session } from '../../domain/identity/identity.js';
import { SESSION_ABSOLUTE_MS } from '../../domain/identity/identity.js';
import type { RelyingParty } from '../../domain/identity/passkey.js';
import { relyingPartyOf } from '../../domain/identity/passkey.js';

/** How the human pages find who is signed in; bearer tokens are never looked at here. */
export interface HumanSessions {
  /** `__Host-` prefixed and Secure when people reach the server over https. */
  readonly cookieName: string;
  readonly secure: boolean;
  /** The client's address: the proxy's X-Forwarded-For entry only when told to trust it. */
  readonly trustProxy: boolean;
  /** The https URL people reach the server by, when a TLS proxy is in front. */
  readonly publicUrl: string | null;
  current(secret: string | undefined): Promise<SignedIn | null>;
  /** The injected clock: pages read the time through it, never from the machine directly. */
  now(): number;
}

export function sessionCookieName(secure: boolean): string {
  return secure ? '__Host-holdfast_session' : 'holdfast_session';
}

/** The zone the browser reports, written by the console's script (only ever a hint: validated). */
export const BROWSER_ZONE_COOKIE = 'holdfast_tz';

export async function signedInOf(c: Context, sessions: HumanSessions): Promise<SignedIn | null> {
  const signed = await sessions.current(getCookie(c, sessions.cookieName));
  if (!signed) return null;
  const hinted = getCookie(c, BROWSER_ZONE_COOKIE);
  const browser = hinted && hinted.length <= 64 && isValidTimeZone(hinted) ? hinted : null;
  const zone = signed.person.timeZone ?? browser;
  return zone ? { ...signed, zone } : signed;
}

/** A CSRF token for one form purpose, bound to the session (unknowable without its cookie). */
export function csrfToken(session: Session, purpose: string): string {
  return createHmac('sha256', session.csrfSecret).update(purpose).digest('base64url');
}

export function csrfOk(session: Session, purpose: string, given: unknown): boolean {
  if (typeof given !== 'string') return false;
  const expected = Buffer.from(csrfToken(session, purpose));
  const actual = Buffer.from(given);
  return actual.length === expected.length && timingSafeEqual(actual, expected);
}

/** The address sign-in attempts are counted against. */
export function clientAddress(c: Context, trustProxy: boolean): string {
  if (trustProxy) {
    // The proxy appends the address it saw last; anything before it came from the client.
    const forwarded = c.req.header('x-forwarded-for')?.split(',').pop()?.trim();
    if (forwarded) return forwarded.slice(0, 64);
  }
  try {
    return getConnInfo(c).remote.address ?? 'unknown';
  } catch {
    return 'unknown';
  }
}

/** Only a path on this site, never another origin (`//evil`, `https://…`, `/\evil`). */
export function safeNext(value: unknown): string {
  return typeof value === 'string' && /^\/(?![/\\])[\x21-\x7e]{0,500}$/.test(value) ? value : '/';
}

/** The login form's double-submit CSRF cookie: another site cannot sign a browser in as somebody else. */
export const LOGIN_CSRF_COOKIE = 'holdfast_login_csrf';

export function setPageCookie(
  c: Context,
  sessions: HumanSessions,
  name: string,
  value: string,
  maxAgeMs: number,
) {
  setCookie(c, name, value, {
    httpOnly: true,
    secure: sessions.secure,
    sameSite: 'Strict',
    path: '/',
    maxAge: Math.floor(maxAgeMs / 1000),
  });
}

/** A fresh session's cookie, set at every sign-in: a cookie planted before cannot ride along. */
export function setSessionCookie(c: Context, sessions: HumanSessions, secret: string) {
  setPageCookie(c, sessions, sessions.cookieName, secret, SESSION_ABSOLUTE_MS);
}

/**
 * The relying party of the page being served: the public URL when the request came by it, else
 * the loopback name in the Host header (already one of this server's names). Null at an IP address.
 */
export function relyingPartyFor(c: Context, sessions: HumanSessions): RelyingParty | null {
  const host = c.req.header('host')?.toLowerCase() ?? '';
  const publicUrl = sessions.publicUrl ? new URL(sessions.publicUrl) : null;
  const origin = publicUrl && publicUrl.host.toLowerCase() === host ? publicUrl.origin : `http://${host}`;
  try {
    return relyingPartyOf(origin);
  } catch {
    return null;
  }
}
