import type {
  AuditEntry,
  AuditHead,
  AuditRecord,
  PendingAuditEntry,
  SignedAuditEntry,
} from '../../../ports/audit.js';
import type { AuditStore } from '../../../ports/store/index.js';
import type { AuditFilter, AuditPage } from '../../../ports/store/audit.js';
import type { AuditRow, PendingAuditRow } from '../audit-rows.js';
import {
  auditColumns,
  auditEntryColumns,
  auditEntryValues,
  auditRecordOf,
  auditRecordValues,
  pendingEntryOf,
} from '../audit-rows.js';
import { containsPattern } from './like-pattern.js';
import type { SqlRunner } from './sql-runner.js';
import { placeholders } from './sql-runner.js';

const PENDING_ROW = `(${placeholders(auditEntryColumns.length + 1)})`;

export const APPEND_PENDING = `INSERT INTO audit_pending (${auditEntryColumns.join(', ')}, entry_mac) VALUES ${PENDING_ROW}`;

export class AuditSql implements AuditStore {
  constructor(private readonly db: SqlRunner) {}

  async append(entry: AuditEntry, mac: string): Promise<void> {
    await this.db.run(APPEND_PENDING, [...auditEntryValues(entry), mac]);
  }

  async appendAll(entries: readonly SignedAuditEntry[]): Promise<void> {
    if (entries.length === 0) return;
    await this.db.run(
      `INSERT INTO audit_pending (${auditEntryColumns.join(', ')}, entry_mac) VALUES ${entries.map(() => PENDING_ROW).join(', ')}`,
      entries.flatMap(({ entry, mac }) => [...auditEntryValues(entry), mac]),
    );
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

  /** The head check, the removal of the pending entries and one insert for all records. */
  async link(
    records: readonly AuditRecord[],
    pendingIds: readonly number[],
    expectedHead: Pick<AuditHead, 'seq' | 'hash'> | null,
  ): Promise<boolean> {
    const head = await this.head();
    if (head?.seq !== expectedHead?.seq || head?.hash !== expectedHead?.hash) return false;
    if (pendingIds.length > 0)
      await this.db.run(
        `DELETE FROM audit_pending WHERE id IN (${placeholders(pendingIds.length)})`,
        pendingIds,
      );
    if (records.length > 0) {
      const row = `(${placeholders(auditColumns.length)})`;
      await this.db.run(
        `INSERT INTO audit_log (${auditColumns.join(', ')}) VALUES ${records.map(() => row).join(', ')}`,
        records.flatMap(auditRecordValues),
      );
    }
    return true;
  }

  async records(afterSeq: number, limit: number): Promise<AuditRecord[]> {
    const rows = await this.db.all<AuditRow>('SELECT * FROM audit_log WHERE seq > ? ORDER BY seq LIMIT ?', [
      afterSeq,
      limit,
    ]);
    return rows.map(auditRecordOf);
  }

  async seqOfOperation(tenantId: string, operationId: string): Promise<number | null> {
    const [row] = await this.db.all<{ seq: number | string }>(
      // The partial index holds only confirming calls: every other record costs its insert nothing more.
      `SELECT seq FROM audit_log WHERE operation_id = ? AND tool IN ('confirm_booking', 'confirm_changes')
         AND tenant_id = ? ORDER BY seq LIMIT 1`,
      [operationId, tenantId],
    );
    return row ? Number(row.seq) : null;
  }

  /**
   * Walks the (tenant_id, seq) index from one end, so a page costs about its size plus the
   * records the filter skips. Every value is a parameter; `mentions` is a LIKE pattern whose own
   * wildcards match only themselves, lowercased on both sides so the engines agree.
   */
  async search(tenantId: string, filter: AuditFilter, page: AuditPage): Promise<AuditRecord[]> {
    const where = ['tenant_id = ?'];
    const params: unknown[] = [tenantId];
    const when = (condition: string, value: unknown) => {
      if (value === undefined) return;
      where.push(condition);
      params.push(value);
    };
    when('subject = ?', filter.subject);
    when('client_id = ?', filter.clientId);
    when('tool = ?', filter.tool);
    when('kind = ?', filter.kind);
    when('outcome = ?', filter.outcome);
    when('error_code = ?', filter.errorCode);
    when('at >= ?', filter.from);
    when('at < ?', filter.to);
    when(
      "lower(preview) LIKE ? ESCAPE '\\'",
      filter.mentions === undefined ? undefined : containsPattern(filter.mentions.toLowerCase()),
    );
    when('seq < ?', page.before);
    when('seq > ?', page.after);
    // Newer records are the oldest ones after the cursor: read upwards, answer newest first.
    const upwards = page.after !== undefined && page.before === undefined;
    const rows = await this.db.all<AuditRow>(
      `SELECT * FROM audit_log WHERE ${where.join(' AND ')} ORDER BY seq ${upwards ? 'ASC' : 'DESC'} LIMIT ?`,
      [...params, page.limit],
    );
    const records = rows.map(auditRecordOf);
    return upwards ? records.reverse() : records;
  }
}
