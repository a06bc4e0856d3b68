import { createHmac, timingSafeEqual } from 'node:crypto';
import type { Context } from 'hono';
import { getCookie } from 'hono/cookie';
import { getConnInfo } from '@hono/node-server/conninfo';
import type { SignedIn } from '../../app/identity/sessions.js';
import type { Session } from '../../domain/identity/identity.js';

/** How the human pages find who is signed in; bearer tokens are never looked at here. */
export interface HumanSessions {
  /** `__Host-` prefixed and Secure when people reach the server over https. */
  readonly cookieName: string;
  readonly secure: boolean;
  /** The client's address: the proxy's X-Forwarded-For entry only when told to trust it. */
  readonly trustProxy: boolean;
  current(secret: string | undefined): Promise<SignedIn | null>;
}

export function sessionCookieName(secure: boolean): string {
  return secure ? '__Host-holdfast_session' : 'holdfast_session';
}

export async function signedInOf(c: Context, sessions: HumanSessions): Promise<SignedIn | null> {
  return sessions.current(getCookie(c, sessions.cookieName));
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
