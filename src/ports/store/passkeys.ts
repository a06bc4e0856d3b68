import type { Passkey, PasskeyChallenge } from '../../domain/identity/passkey.js';
import type { Instant } from '../../domain/time/instant.js';

/** People's passkeys, and the challenges of ceremonies under way (kept in the store so any instance can finish them). */
export interface PasskeyStore {
  /** False when a passkey with that credential id exists already. */
  insert(passkey: Passkey): Promise<boolean>;
  /** The passkey with this credential id, whoever's it is (any tenant); null when there is none. */
  get(id: string): Promise<Passkey | null>;
  /** A person's passkeys, oldest first. */
  listOf(personId: string): Promise<Passkey[]>;
  /**
   * Records a sign-in with the counter the authenticator reported; false when the stored
   * counter is already there or beyond (a clone, or a concurrent sign-in that won). Counters of
   * 0 (authenticators that keep none) always record.
   */
  recordUse(id: string, counter: number, now: Instant): Promise<boolean>;
  /** False when the person has no such passkey. */
  remove(personId: string, id: string): Promise<boolean>;

  /** Challenges of that purpose stored and not expired at `now`: ceremonies under way, for a cap. */
  countOpenChallenges(purpose: PasskeyChallenge['purpose'], now: Instant): Promise<number>;
  /** Stores a challenge, and forgets the expired ones. */
  insertChallenge(challenge: PasskeyChallenge, now: Instant): Promise<void>;
  /** Removes and returns an unexpired challenge of that purpose; null when there is none (spent, expired, unknown). */
  spendChallenge(
    challenge: string,
    purpose: PasskeyChallenge['purpose'],
    now: Instant,
  ): Promise<PasskeyChallenge | null>;
}
