import { DomainError } from '../errors.js';
import type { Instant } from '../time/instant.js';

/** A WebAuthn credential a person signs in with; the private key never leaves their device. */
export interface Passkey {
  /** The credential id the authenticator chose, base64url. */
  readonly id: string;
  readonly tenantId: string;
  readonly personId: string;
  /** What the person called it ("work laptop"), so they can tell passkeys apart. */
  readonly name: string;
  /** COSE public key, base64url. */
  readonly publicKey: string;
  /** The authenticator's signature counter: a clone shows itself by going backwards. */
  readonly counter: number;
  readonly transports: readonly string[];
  /** The site name the credential is bound to; browsers never use it anywhere else. */
  readonly rpId: string;
  readonly createdAt: Instant;
  readonly lastUsedAt: Instant | null;
}

/** A challenge handed to a browser for one ceremony; spent by the answer, whatever it is. */
export interface PasskeyChallenge {
  readonly challenge: string;
  readonly purpose: 'register' | 'sign-in';
  /** Who is adding a passkey; null for a sign-in (nobody is known yet). */
  readonly personId: string | null;
  readonly rpId: string;
  readonly expiresAt: Instant;
}

/** The site a passkey belongs to: its name (the RP ID) and the exact origin pages are served on. */
export interface RelyingParty {
  readonly id: string;
  readonly origin: string;
  readonly name: string;
}

export const PASSKEY_CHALLENGE_TTL_MS = 5 * 60_000;
export const MAX_PASSKEYS_PER_PERSON = 10;

const IPV4 = /^\d{1,3}(\.\d{1,3}){3}$/;

/**
 * The relying party for pages served at `origin`, or null where passkeys cannot work: browsers
 * refuse an IP address as a relying party, so http://127.0.0.1 offers passwords only while
 * http://localhost (and any https name) offers passkeys too.
 */
export function relyingPartyOf(origin: string): RelyingParty | null {
  const url = new URL(origin);
  const host = url.hostname;
  if (IPV4.test(host) || host.startsWith('[')) return null;
  if (url.protocol !== 'https:' && host !== 'localhost') return null;
  return { id: host, origin: url.origin, name: 'Holdfast' };
}

export function passkeyName(value: string): string {
  const name = value.trim().replace(/\s+/g, ' ');
  if (name.length > 60)
    throw new DomainError('INVALID_ARGUMENTS', 'name: at most 60 characters', { field: 'name' });
  return name || 'Passkey';
}
