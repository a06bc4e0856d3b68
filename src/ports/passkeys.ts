import type { Passkey, RelyingParty } from '../domain/identity/passkey.js';

/** A passkey a registration proved: what is stored of it. */
export interface RegisteredPasskey {
  readonly id: string;
  readonly publicKey: string;
  readonly counter: number;
  readonly transports: readonly string[];
}

/**
 * The WebAuthn ceremonies: options for the browser, and checks of what the authenticator
 * answered (signature, challenge, origin, RP ID, user verification, counter). Options are JSON
 * to hand to the browser as they are.
 */
export interface PasskeyCeremonies {
  /**
   * Options for the browser to create a passkey for `user` (not again on an authenticator holding one of
   * `existing`), and the challenge to keep for the answer.
   */
  registrationOptions(
    rp: RelyingParty,
    user: { readonly id: string; readonly email: string; readonly displayName: string },
    existing: readonly Passkey[],
  ): Promise<{ readonly options: unknown; readonly challenge: string }>;
  /** Null when the answer proves nothing (wrong challenge, origin, RP, no user verification…). */
  verifyRegistration(
    rp: RelyingParty,
    response: unknown,
    challenge: string,
  ): Promise<RegisteredPasskey | null>;
  /**
   * Options for the browser to sign in with any passkey of the site (none named), and the challenge to keep
   * for the answer.
   */
  signInOptions(rp: RelyingParty): Promise<{ readonly options: unknown; readonly challenge: string }>;
  /** The credential id and challenge an answer claims, before anything is verified; null when malformed. */
  claimsOf(response: unknown): { readonly credentialId: string; readonly challenge: string } | null;
  /** The new signature counter, or null when the answer is not that passkey's signature. */
  verifySignIn(
    rp: RelyingParty,
    response: unknown,
    challenge: string,
    passkey: Passkey,
  ): Promise<{ readonly counter: number } | null>;
}
