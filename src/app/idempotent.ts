import { DomainError } from '../domain/errors.js';
import type { Principal } from '../domain/calendar.js';
import type { IdempotencyRecord, StoreTx } from '../ports/store.js';
import type { AppDeps } from './deps.js';

export interface Outcome<T> {
  readonly value: T;
  readonly replayed: boolean;
}

/**
 * Runs `effect` once per (tenant, principal, tool, key), inside the caller's
 * write transaction so the record and the effect commit together. Same key and
 * same arguments replay the stored result; other arguments are a conflict.
 * Failures are not recorded: they changed nothing, so a retry runs again.
 */
export async function idempotent<T>(
  deps: AppDeps,
  tx: StoreTx,
  principal: Principal,
  tool: string,
  key: string,
  args: unknown,
  effect: () => Promise<T>,
): Promise<Outcome<T>> {
  const scope = { tenantId: principal.tenantId, subject: principal.subject, tool, key };
  const argumentsDigest = deps.digest.ofJson(args);
  const now = deps.clock.now();
  const expiresAt = now + deps.config.idempotencyTtlMs;
  const existing = await tx.claimIdempotency({
    ...scope,
    argumentsDigest,
    result: null,
    createdAt: now,
    expiresAt,
  });
  if (existing) return replayOf<T>(existing, argumentsDigest, tool, key);
  const value = await effect();
  await tx.putIdempotency({
    ...scope,
    argumentsDigest,
    result: value,
    createdAt: now,
    expiresAt,
  });
  return { value, replayed: false };
}

/** The stored answer for a retried call, read before any approval or payment work; null when there is none. */
export async function findReplay<T>(
  deps: AppDeps,
  tx: StoreTx,
  principal: Principal,
  tool: string,
  key: string,
  args: unknown,
): Promise<Outcome<T> | null> {
  const existing = await tx.getIdempotency({
    tenantId: principal.tenantId,
    subject: principal.subject,
    tool,
    key,
  });
  if (!existing || existing.expiresAt <= deps.clock.now()) return null;
  return replayOf<T>(existing, deps.digest.ofJson(args), tool, key);
}

function replayOf<T>(
  existing: IdempotencyRecord,
  argumentsDigest: string,
  tool: string,
  key: string,
): Outcome<T> {
  if (existing.argumentsDigest !== argumentsDigest) {
    throw new DomainError(
      'IDEMPOTENCY_CONFLICT',
      `idempotencyKey ${key} was already used for ${tool} with different arguments.`,
      {
        idempotencyKey: key,
        tool,
      },
    );
  }
  return { value: existing.result as T, replayed: true };
}
