import type { Instant } from '../../domain/time/instant.js';

export interface IdempotencyScope {
  readonly tenantId: string;
  readonly subject: string;
  readonly tool: string;
  readonly key: string;
}

export interface IdempotencyRecord extends IdempotencyScope {
  /** Keyed digest of the request's arguments: same key, other arguments is a conflict. */
  readonly argumentsDigest: string;
  /** The answer to replay (without what the store holds elsewhere, see ResultStorage). */
  readonly result: unknown;
  readonly createdAt: Instant;
  readonly expiresAt: Instant;
}

/** Retry safety: one effect per (tenant, principal, tool, key) for a day. */
export interface IdempotencyStore {
  /** The record of a key, live or expired. */
  get(scope: IdempotencyScope): Promise<IdempotencyRecord | null>;
  /**
   * Claims the key for this transaction before the effect runs, so concurrent first uses of
   * one key serialise on it: returns the live record another call already committed, or null
   * when this transaction now holds the key (an expired record is taken over).
   */
  claim(record: IdempotencyRecord): Promise<IdempotencyRecord | null>;
  /** Stores the answer for a claimed key. */
  put(record: IdempotencyRecord): Promise<void>;
  /** Forgets records past their retention; returns how many. */
  purge(now: Instant): Promise<number>;
}
