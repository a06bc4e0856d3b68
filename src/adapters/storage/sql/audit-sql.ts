import type { AuditEntry, AuditHead, AuditRecord, PendingAuditEntry } from '../../../ports/audit.js';
import type { AuditStore } from '../../../ports/store/index.js';
import type { AuditRow, PendingAuditRow } from '../audit-rows.js';
import {
  auditColumns,
  auditEntryColumns,
  auditEntryValues,
  auditRecordOf,
  auditRecordValues,
  pendingEntryOf,
} from '../audit-rows.js';
import type { SqlRunner } from './sql-runner.js';
import { placeholders } from './sql-runner.js';

export const APPEND_PENDING = `INSERT INTO audit_pending (${auditEntryColumns.join(', ')}, entry_mac)
  VALUES (${placeholders(auditEntryColumns.length + 1)})`;

export class AuditSql implements AuditStore {
  constructor(private readonly db: SqlRunner) {}

  async append(entry: AuditEntry, mac: string): Promise<void> {
    await this.db.run(APPEND_PENDING, [...auditEntryValues(entry), mac]);
  }

  async pending(limit: number): Promise<PendingAuditEntry[]> {
    const rows = await this.db.all<PendingAuditRow>('SELECT * FROM audit_pending ORDER BY id LIMIT ?', [
      limit,
    ]);
    return rows.map(pendingEntryOf);
  }

  async countPending(): Promise<number> {
    const [row] = await this.db.all<{ n: number | string }>('SELECT count(*) AS n FROM audit_pending');
    return Number(row?.n ?? 0);
  }

  async removePending(pendingIds: readonly number[]): Promise<void> {
    if (pendingIds.length === 0) return;
    await this.db.run(
      `DELETE FROM audit_pending WHERE id IN (${placeholders(pendingIds.length)})`,
      pendingIds,
    );
  }

  async head(): Promise<AuditHead | null> {
    const [row] = await this.db.all<Pick<AuditRow, 'seq' | 'hash' | 'mac_version' | 'key_id'>>(
      'SELECT seq, hash, mac_version, key_id FROM audit_log ORDER BY seq DESC LIMIT 1',
    );
    return row
      ? {
          seq: Number(row.seq),
          hash: row.hash,
          macVersion: Number(row.mac_version) === 1 ? 1 : 2,
          keyId: row.key_id,
        }
      : null;
  }

  /** One statement for the whole batch. */
  async insertRecords(records: readonly AuditRecord[]): Promise<void> {
    if (records.length === 0) return;
    const row = `(${placeholders(auditColumns.length)})`;
    await this.db.run(
      `INSERT INTO audit_log (${auditColumns.join(', ')}) VALUES ${records.map(() => row).join(', ')}`,
      records.flatMap(auditRecordValues),
    );
  }

  async records(afterSeq: number, limit: number): Promise<AuditRecord[]> {
    const rows = await this.db.all<AuditRow>('SELECT * FROM audit_log WHERE seq > ? ORDER BY seq LIMIT ?', [
      afterSeq,
      limit,
    ]);
    return rows.map(auditRecordOf);
  }
}
