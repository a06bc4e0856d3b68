import type { ProviderIdentity } from '../../domain/identity/provider-login.js';
import { providerEmail } from '../../domain/identity/provider-login.js';
import type { AppDeps } from '../deps.js';
import type { SignedIn } from './sessions.js';
import { LOGIN_LIMITS, LOGIN_WINDOW_MS, openSession } from './sessions.js';

/** Why a provider's answer signed nobody in; kept in the audit, never shown to the browser. */
export type ProviderRefusal = 'no_email' | 'email_unverified' | 'unknown_person' | 'disabled_person';

export type ProviderSignIn =
  | { readonly ok: true; readonly signed: SignedIn & { secret: string } }
  | { readonly ok: false; readonly reason: ProviderRefusal };

/**
 * A failed sign-in through the provider (a refused identity, a forged or stale callback) counts
 * against the address like a wrong password does.
 */
export async function countProviderFailure(deps: AppDeps, address: string): Promise<void> {
  await deps.rateLimits.take(`login:address:${address}`, LOGIN_LIMITS.perAddress, LOGIN_WINDOW_MS);
}

/**
 * Signs in the existing, enabled Holdfast person whose email the provider verified: a fresh
 * session, like a password sign-in. Nobody is created: an account at the provider alone lets
 * nobody in. A locked address does not stop a good answer (nothing can be guessed through the
 * provider, and on a shared address somebody else's failures must not lock a person out).
 */
export async function signInThroughProvider(
  deps: AppDeps,
  input: { readonly identity: ProviderIdentity; readonly address: string },
): Promise<ProviderSignIn> {
  const refuse = async (reason: ProviderRefusal): Promise<ProviderSignIn> => {
    await countProviderFailure(deps, input.address);
    return { ok: false, reason };
  };
  const email = providerEmail(input.identity);
  if (!email.ok) return refuse(email.reason);
  const person = await deps.store.read((tx) => tx.people.getPersonByEmail(email.email));
  if (!person) return refuse('unknown_person');
  if (person.disabledAt !== null) return refuse('disabled_person');
  return { ok: true, signed: await openSession(deps, person, 'oidc') };
}
