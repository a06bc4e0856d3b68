import type { Passkey, PasskeyChallenge } from '../../domain/identity/passkey.js';
import type { Instant } from '../../domain/time/instant.js';

/** People's passkeys, and the challenges of ceremonies under way (kept in the store so any instance can finish them). */
export interface PasskeyStore {
  /** False when a passkey with that credential id exists already. */
  insert(passkey: Passkey): Promise<boolean>;
  get(id: string): Promise<Passkey | null>;
  listOf(personId: string): Promise<Passkey[]>;
  recordUse(id: string, counter: number, now: Instant): Promise<void>;
  /** False when the person has no such passkey. */
  remove(personId: string, id: string): Promise<boolean>;

  /** Stores a challenge, and forgets the expired ones. */
  insertChallenge(challenge: PasskeyChallenge, now: Instant): Promise<void>;
  /** Removes and returns an unexpired challenge of that purpose; null when there is none (spent, expired, unknown). */
  spendChallenge(
    challenge: string,
    purpose: PasskeyChallenge['purpose'],
    now: Instant,
  ): Promise<PasskeyChallenge | null>;
}
