import { DomainError } from '../errors.js';
import { normalEmail } from './identity.js';

/**
 * Who an organisation's OpenID Connect provider says signed in, from its verified ID token
 * (and, where the ID token leaves them out, its userinfo answer for the same subject).
 */
export interface ProviderIdentity {
  readonly issuer: string;
  readonly subject: string;
  readonly claims: Readonly<Record<string, unknown>>;
}

export type ProviderEmail =
  | { readonly ok: true; readonly email: string }
  | { readonly ok: false; readonly reason: 'no_email' | 'email_unverified' };

/**
 * The email a provider vouches for, normalised: only one it says it verified. Otherwise
 * whoever can type an address into their profile at the provider would sign in here as the
 * Holdfast person who has it. Verified means `email_verified: true` (a few providers send
 * the string "true"), or Entra ID's `xms_edov: true` (the domain owner verified it), since
 * Entra issues no `email_verified`.
 */
export function providerEmail(identity: ProviderIdentity): ProviderEmail {
  const { email, email_verified: verified, xms_edov: domainVerified } = identity.claims;
  if (typeof email !== 'string' || email.length > 320) return { ok: false, reason: 'no_email' };
  let normal: string;
  try {
    normal = normalEmail(email);
  } catch (error) {
    if (error instanceof DomainError) return { ok: false, reason: 'no_email' };
    throw error;
  }
  const vouched = verified === true || verified === 'true' || domainVerified === true;
  return vouched ? { ok: true, email: normal } : { ok: false, reason: 'email_unverified' };
}
