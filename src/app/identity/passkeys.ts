import { DomainError } from '../../domain/errors.js';
import type { Passkey, RelyingParty } from '../../domain/identity/passkey.js';
import {
  MAX_PASSKEYS_PER_PERSON,
  PASSKEY_CHALLENGE_TTL_MS,
  passkeyName,
} from '../../domain/identity/passkey.js';
import type { AppDeps } from '../deps.js';
import type { SignedIn } from './sessions.js';
import { LOGIN_LIMITS, LOGIN_WINDOW_MS, openSession, tooMany } from './sessions.js';

const refused = () => new DomainError('FORBIDDEN', 'That passkey did not sign you in.', {});

/** Options for the browser to create a passkey for the signed-in person, at this site. */
export async function beginPasskeyRegistration(
  deps: AppDeps,
  signed: SignedIn,
  rp: RelyingParty,
): Promise<unknown> {
  const existing = await deps.store.read((tx) => tx.passkeys.listOf(signed.person.id));
  if (existing.length >= MAX_PASSKEYS_PER_PERSON)
    throw new DomainError('QUOTA_EXCEEDED', `At most ${MAX_PASSKEYS_PER_PERSON} passkeys per person.`, {
      quota: 'passkeys_per_person',
      limit: MAX_PASSKEYS_PER_PERSON,
    });
  const { options, challenge } = await deps.webAuthn.registrationOptions(
    rp,
    { id: signed.person.id, email: signed.person.email, displayName: signed.person.displayName },
    existing,
  );
  const now = deps.clock.now();
  await deps.store.write((tx) =>
    tx.passkeys.insertChallenge(
      {
        challenge,
        purpose: 'register',
        personId: signed.person.id,
        rpId: rp.id,
        expiresAt: now + PASSKEY_CHALLENGE_TTL_MS,
      },
      now,
    ),
  );
  return options;
}

/**
 * Keeps the passkey the browser created, if it answers a challenge this person was given at
 * this site (a challenge handed to someone else, or spent, proves nothing).
 */
export async function finishPasskeyRegistration(
  deps: AppDeps,
  signed: SignedIn,
  rp: RelyingParty,
  input: { response: unknown; name: string },
): Promise<Passkey> {
  const name = passkeyName(input.name);
  const claimed = deps.webAuthn.claimsOf(input.response);
  const now = deps.clock.now();
  const challenge =
    claimed &&
    (await deps.store.write((tx) => tx.passkeys.spendChallenge(claimed.challenge, 'register', now)));
  const verified =
    challenge &&
    challenge.personId === signed.person.id &&
    challenge.rpId === rp.id &&
    (await deps.webAuthn.verifyRegistration(rp, input.response, challenge.challenge));
  if (!verified)
    throw new DomainError('INVALID_ARGUMENTS', 'The passkey could not be verified; try adding it again.', {
      field: 'response',
    });
  const passkey: Passkey = {
    ...verified,
    tenantId: signed.person.tenantId,
    personId: signed.person.id,
    name,
    rpId: rp.id,
    createdAt: now,
    lastUsedAt: null,
  };
  const added = await deps.store.write(async (tx) => {
    await tx.serialize(`passkeys:${signed.person.id}`);
    if ((await tx.passkeys.listOf(signed.person.id)).length >= MAX_PASSKEYS_PER_PERSON) return false;
    return tx.passkeys.insert(passkey);
  });
  if (!added)
    throw new DomainError('INVALID_ARGUMENTS', 'That passkey is registered already, or there are too many.', {
      field: 'response',
    });
  return passkey;
}

/** Sign-in challenges waiting at once, across everyone: the table stays bounded whatever arrives. */
export const MAX_OPEN_SIGN_IN_CHALLENGES = 10_000;

/** Options for the browser to ask for any passkey of this site (the person picks one; no email first). */
export async function beginPasskeySignIn(deps: AppDeps, rp: RelyingParty, address: string): Promise<unknown> {
  // Each request is a stored challenge until it is answered or swept: a budget per address,
  // and a cap on all of them together.
  const taken = await deps.rateLimits.take(`passkey-options:${address}`, 60, 60_000);
  if (!taken.ok) throw tooMany(taken.retryAfterMs);
  const now = deps.clock.now();
  const open = await deps.store.read((tx) => tx.passkeys.countOpenChallenges('sign-in', now));
  if (open >= MAX_OPEN_SIGN_IN_CHALLENGES) throw tooMany(60_000);
  const { options, challenge } = await deps.webAuthn.signInOptions(rp);
  await deps.store.write((tx) =>
    tx.passkeys.insertChallenge(
      {
        challenge,
        purpose: 'sign-in',
        personId: null,
        rpId: rp.id,
        expiresAt: now + PASSKEY_CHALLENGE_TTL_MS,
      },
      now,
    ),
  );
  return options;
}

/**
 * Signs in the person whose passkey signed a challenge this site handed out and nobody spent;
 * a fresh session, like a password sign-in. Failures count against the address, but a locked
 * address does not stop a valid passkey: nothing can be guessed with one, and on a shared
 * address (loopback, a proxy) somebody else's failures must not lock a person out.
 */
export async function finishPasskeySignIn(
  deps: AppDeps,
  rp: RelyingParty,
  input: { response: unknown; address: string },
): Promise<SignedIn & { secret: string }> {
  const claimed = deps.webAuthn.claimsOf(input.response);
  const now = deps.clock.now();
  const found =
    claimed &&
    (await deps.store.write(async (tx) => {
      const challenge = await tx.passkeys.spendChallenge(claimed.challenge, 'sign-in', now);
      const passkey = challenge && (await tx.passkeys.get(claimed.credentialId));
      const person = passkey && (await tx.people.getPerson(passkey.personId));
      return challenge && passkey && person ? { challenge, passkey, person } : null;
    }));
  const verified =
    found &&
    found.challenge.rpId === rp.id &&
    found.passkey.rpId === rp.id &&
    found.person.disabledAt === null &&
    (await deps.webAuthn.verifySignIn(rp, input.response, found.challenge.challenge, found.passkey));
  // The counter only moves forward: of two sign-ins with one counter value, one is refused.
  const recorded =
    found &&
    verified &&
    (await deps.store.write((tx) => tx.passkeys.recordUse(found.passkey.id, verified.counter, now)));
  if (!found || !recorded) {
    await deps.rateLimits.take(`login:address:${input.address}`, LOGIN_LIMITS.perAddress, LOGIN_WINDOW_MS);
    throw refused();
  }
  return openSession(deps, found.person, 'passkey');
}

export function passkeysOf(deps: AppDeps, personId: string): Promise<Passkey[]> {
  return deps.store.read((tx) => tx.passkeys.listOf(personId));
}

export async function removePasskey(deps: AppDeps, signed: SignedIn, id: string): Promise<void> {
  const removed = await deps.store.write((tx) => tx.passkeys.remove(signed.person.id, id.slice(0, 1400)));
  if (!removed) throw new DomainError('NOT_FOUND', 'You have no such passkey.', { field: 'id' });
}
