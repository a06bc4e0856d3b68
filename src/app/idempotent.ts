import { DomainError } from '../domain/errors.js';
import type { Principal } from '../domain/identity/principal.js';
import type { CallEnd, EffectAudit } from '../ports/audit.js';
import type { IdempotencyRecord, StoreTx } from '../ports/store/index.js';
import type { AppDeps } from './deps.js';

/** What a write use case is told about the call it serves. */
export interface WriteCall {
  /** The call's audit record, to be written in the transaction that commits the effect. */
  readonly audit?: EffectAudit;
  /** The keyed digest of the arguments when the caller computed it already (the edge does, for the audit). */
  readonly argumentsDigest?: string;
}

export interface Outcome<T> {
  readonly value: T;
  readonly replayed: boolean;
}

/**
 * How a result is kept for replays: `persist` may leave out what the store already holds
 * (a booking's customer details), `revive` puts it back from there.
 */
export interface ResultStorage<T> {
  persist(value: T): unknown;
  revive(stored: unknown, tx: StoreTx): Promise<T>;
}

const asIs: ResultStorage<never> = {
  persist: (value) => value,
  revive: async (stored) => stored as never,
};

export interface IdempotentCall<T> {
  readonly principal: Principal;
  readonly tool: string;
  readonly key: string;
  /** The validated input; only its digest is kept. */
  readonly args: unknown;
  /** Its keyed digest, when already known. */
  readonly argumentsDigest?: string;
  /** The call's audit record, written with the effect. */
  readonly audit?: EffectAudit;
  /** When a committed effect is still answered as a failure (payment failed, money after lapse). */
  readonly endOf?: (value: T) => CallEnd | undefined;
  readonly storage?: ResultStorage<T>;
}

/**
 * Runs `effect` once per (tenant, principal, tool, key), inside the caller's write transaction,
 * so the idempotency record, the effect and the call's audit record commit together. Same key
 * and same arguments replay the stored result; other arguments are a conflict. Failures are
 * not recorded: they changed nothing, so a retry runs again.
 */
export async function idempotent<T>(
  deps: AppDeps,
  tx: StoreTx,
  call: IdempotentCall<T>,
  effect: () => Promise<T>,
): Promise<Outcome<T>> {
  const storage = storageOf(call);
  const claim = idempotencyRecord(deps, call, null);
  const existing = await tx.idempotency.claim(claim);
  if (existing) return replayOf(deps, existing, claim.argumentsDigest, call, storage, tx);
  const value = await effect();
  await tx.idempotency.put({ ...claim, result: storage.persist(value) });
  await call.audit?.recordIn(tx, call.endOf?.(value));
  return { value, replayed: false };
}

const digestOf = <T>(deps: AppDeps, call: IdempotentCall<T>) =>
  call.argumentsDigest ?? deps.requestDigest.ofJson(call.args);

const storageOf = <T>(call: IdempotentCall<T>) => (call.storage ?? asIs) as ResultStorage<T>;

/** The record a call keeps under its key, holding `result` (already in its stored form). */
export function idempotencyRecord<T>(
  deps: AppDeps,
  call: IdempotentCall<T>,
  result: unknown,
): IdempotencyRecord {
  const now = deps.clock.now();
  return {
    tenantId: call.principal.tenantId,
    subject: call.principal.subject,
    tool: call.tool,
    key: call.key,
    argumentsDigest: digestOf(deps, call),
    result,
    createdAt: now,
    expiresAt: now + deps.config.idempotencyTtlMs,
  };
}

/** The answer of a live record another call of this key stored: a replay, or a conflict when the arguments differ. */
export function replayOfRecord<T>(
  deps: AppDeps,
  tx: StoreTx,
  call: IdempotentCall<T>,
  existing: IdempotencyRecord,
): Promise<Outcome<T>> {
  return replayOf(deps, existing, digestOf(deps, call), call, storageOf(call), tx);
}

/** The stored answer for a retried call, read before any approval or payment work; null when there is none. */
export async function findReplay<T>(
  deps: AppDeps,
  tx: StoreTx,
  call: IdempotentCall<T>,
): Promise<Outcome<T> | null> {
  const existing = await tx.idempotency.get({
    tenantId: call.principal.tenantId,
    subject: call.principal.subject,
    tool: call.tool,
    key: call.key,
  });
  if (!existing || existing.expiresAt <= deps.clock.now()) return null;
  return replayOfRecord(deps, tx, call, existing);
}

async function replayOf<T>(
  deps: AppDeps,
  existing: IdempotencyRecord,
  argumentsDigest: string,
  call: IdempotentCall<T>,
  storage: ResultStorage<T>,
  tx: StoreTx,
): Promise<Outcome<T>> {
  // Records kept before digests were keyed (plain sha256, at most 24 h old) still replay.
  const sameRequest =
    existing.argumentsDigest === argumentsDigest ||
    (existing.argumentsDigest.startsWith('sha256:') &&
      existing.argumentsDigest === deps.digest.ofJson(call.args));
  if (!sameRequest) {
    throw new DomainError(
      'IDEMPOTENCY_CONFLICT',
      `idempotencyKey ${call.key} was already used for ${call.tool} with different arguments.`,
      { idempotencyKey: call.key, tool: call.tool },
    );
  }
  return { value: await storage.revive(existing.result, tx), replayed: true };
}
