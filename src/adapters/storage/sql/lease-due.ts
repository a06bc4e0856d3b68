import type { Instant } from '../../../domain/time/instant.js';
import type { SqlDialect, SqlRunner } from './sql-runner.js';

/** Which rows a lease takes: those due by `now`, or the one named (due or not). */
export interface LeaseRequest {
  readonly owner: string;
  readonly now: Instant;
  readonly leaseUntil: Instant;
  readonly limit: number;
  readonly only?: { readonly tenantId: string; readonly id: string } | undefined;
}

/**
 * Leases scheduled rows (a table with next_run_at, lease_owner, lease_until) that no live lease
 * holds, in one statement; rows another transaction has locked are skipped where the engine can.
 * Several instances never take the same row at once. Returns the rows leased.
 */
export function leaseDue<Row>(
  db: SqlRunner,
  dialect: SqlDialect,
  table: string,
  r: LeaseRequest,
): Promise<Row[]> {
  const which = r.only ? 'tenant_id = ? AND id = ?' : 'next_run_at <= ?';
  return db.all<Row>(
    `UPDATE ${table} SET lease_owner = ?, lease_until = ?
     WHERE id IN (
       SELECT id FROM ${table} WHERE ${which} AND (lease_until IS NULL OR lease_until <= ?)
       ORDER BY next_run_at LIMIT ?${dialect.skipLocked})
     RETURNING *`,
    [r.owner, r.leaseUntil, ...(r.only ? [r.only.tenantId, r.only.id] : [r.now]), r.now, r.limit],
  );
}
