import { DomainError } from '../domain/errors.js';
import type { Principal } from '../domain/calendar.js';
import type { StoreTx } from '../ports/store.js';
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
  const replay = await findReplay<T>(deps, tx, principal, tool, key, args);
  if (replay) return replay;
  const scope = { tenantId: principal.tenantId, subject: principal.subject, tool, key };
  const argumentsDigest = deps.digest.ofJson(args);
  const now = deps.clock.now();
  const value = await effect();
  await tx.putIdempotency({
    ...scope,
    argumentsDigest,
    result: value,
    createdAt: now,
    expiresAt: now + deps.config.idempotencyTtlMs,
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
  if (existing.argumentsDigest !== deps.digest.ofJson(args)) {
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
