import type { Instant } from '../../../domain/time/instant.js';
import type { IdempotencyRecord, IdempotencyScope, IdempotencyStore } from '../../../ports/store/index.js';
import { idempotencyValues } from '../rows.js';
import type { SqlRunner } from './sql-runner.js';

interface IdempotencyRow {
  arguments_digest: string;
  result: string;
  created_at: number | string;
  expires_at: number | string;
}

const COLUMNS = 'tenant_id, subject, tool, key, arguments_digest, result, created_at, expires_at';

export class IdempotencySql implements IdempotencyStore {
  constructor(private readonly db: SqlRunner) {}

  async get(scope: IdempotencyScope): Promise<IdempotencyRecord | null> {
    const [row] = await this.db.all<IdempotencyRow>(
      'SELECT * FROM idempotency WHERE tenant_id = ? AND subject = ? AND tool = ? AND key = ?',
      [scope.tenantId, scope.subject, scope.tool, scope.key],
    );
    if (!row) return null;
    return {
      tenantId: scope.tenantId,
      subject: scope.subject,
      tool: scope.tool,
      key: scope.key,
      argumentsDigest: row.arguments_digest,
      result: JSON.parse(row.result) as unknown,
      createdAt: Number(row.created_at),
      expiresAt: Number(row.expires_at),
    };
  }

  /**
   * One statement: insert the claim, or take over a record that has expired. A concurrent first
   * use of the same key waits on the primary key until the other commits, then finds its record.
   */
  async claim(record: IdempotencyRecord): Promise<IdempotencyRecord | null> {
    const claimed = await this.db.run(CLAIM, idempotencyValues(record, 'null'));
    return claimed === 1 ? null : this.get(record);
  }

  async put(record: IdempotencyRecord): Promise<void> {
    await this.db.run(
      `INSERT INTO idempotency (${COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?)
       ON CONFLICT (tenant_id, subject, tool, key) DO UPDATE SET arguments_digest = excluded.arguments_digest,
         result = excluded.result, created_at = excluded.created_at, expires_at = excluded.expires_at`,
      idempotencyValues(record),
    );
  }

  async purge(now: Instant): Promise<number> {
    return this.db.run('DELETE FROM idempotency WHERE expires_at <= ?', [now]);
  }
}

/** Insert, or take over an expired record: affects one row exactly when the caller now holds the key. */
export const CLAIM = `INSERT INTO idempotency (${COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?)
  ON CONFLICT (tenant_id, subject, tool, key) DO UPDATE SET arguments_digest = excluded.arguments_digest,
    result = excluded.result, created_at = excluded.created_at, expires_at = excluded.expires_at
  WHERE idempotency.expires_at <= excluded.created_at`;
