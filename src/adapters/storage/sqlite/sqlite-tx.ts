import type Database from 'better-sqlite3';
import type { Approval, ApprovalStatus } from '../../../domain/approval/approval.js';
import type { Availability } from '../../../domain/availability/availability.js';
import type { Booking } from '../../../domain/booking/booking.js';
import { occupiesTime } from '../../../domain/booking/booking.js';
import type { Calendar } from '../../../domain/calendar.js';
import { DomainError } from '../../../domain/errors.js';
import type { Instant } from '../../../domain/time/instant.js';
import type { Interval } from '../../../domain/time/interval.js';
import type {
  BookingQuery,
  IdempotencyRecord,
  IdempotencyScope,
  Page,
  StoreTx,
} from '../../../ports/store.js';
import type { ApprovalRow, BookingRow, CalendarRow } from '../rows.js';
import {
  approvalFromRow,
  approvalToRow,
  bookingFromRow,
  bookingToRow,
  calendarFromRow,
  calendarToRow,
  idempotencyValues,
} from '../rows.js';
import type { PaymentReport } from '../../../domain/payment/payment.js';
import type { AuditEntry, AuditHead, AuditRecord, PendingAuditEntry } from '../../../ports/audit.js';
import type { AuditRow, PendingAuditRow } from '../audit-rows.js';
import {
  auditColumns,
  auditEntryColumns,
  auditEntryValues,
  auditRecordOf,
  auditRecordValues,
  pendingEntryOf,
} from '../audit-rows.js';
import type { SqliteDb } from './sqlite-database.js';
import { mapSqliteError } from './sqlite-errors.js';

const WEEK_MS = 7 * 24 * 60 * 60 * 1000;
const placeholders = (n: number) => Array.from({ length: n }, () => '?').join(', ');

// Prepared statements are reused per connection: preparing costs more than running.
type Statement = Database.Statement<unknown[], unknown>;
const statementCache = new WeakMap<SqliteDb, Map<string, Statement>>();

/** StoreTx over one better-sqlite3 connection; the caller owns BEGIN/COMMIT. */
export class SqliteTx implements StoreTx {
  /** Run by the store once the transaction holding this unit of work committed. */
  readonly committed: (() => void)[] = [];

  constructor(private readonly db: SqliteDb) {}

  afterCommit(callback: () => void): void {
    this.committed.push(callback);
  }

  /** The one writer connection already serialises every write transaction. */
  async serialize(): Promise<void> {}

  private statement(sql: string): Statement {
    let cache = statementCache.get(this.db);
    if (!cache) statementCache.set(this.db, (cache = new Map()));
    let statement = cache.get(sql);
    if (!statement) cache.set(sql, (statement = this.db.prepare<unknown[], unknown>(sql)));
    return statement;
  }

  async listCalendars(tenantId: string, page: Page): Promise<{ items: Calendar[]; total: number }> {
    const rows = this.statement(
      'SELECT * FROM calendars WHERE tenant_id = ? ORDER BY created_at, id LIMIT ? OFFSET ?',
    ).all(tenantId, page.limit, page.offset) as CalendarRow[];
    return { items: rows.map(calendarFromRow), total: await this.countCalendars(tenantId) };
  }

  async countCalendars(tenantId: string): Promise<number> {
    return (
      this.statement('SELECT count(*) AS n FROM calendars WHERE tenant_id = ?').get(tenantId) as { n: number }
    ).n;
  }

  async getCalendars(tenantId: string, ids: readonly string[]): Promise<Calendar[]> {
    if (ids.length === 0) return [];
    const rows = this.statement(
      `SELECT * FROM calendars WHERE tenant_id = ? AND id IN (${placeholders(ids.length)})`,
    ).all(tenantId, ...ids) as CalendarRow[];
    const byId = new Map(rows.map((r) => [r.id, calendarFromRow(r)]));
    return ids.flatMap((id) => byId.get(id) ?? []);
  }

  async insertCalendar(calendar: Calendar): Promise<void> {
    this.statement(
      `INSERT INTO calendars (tenant_id, id, name, time_zone, price_amount, price_currency, availability, created_at)
       VALUES (@tenant_id, @id, @name, @time_zone, @price_amount, @price_currency, @availability, @created_at)`,
    ).run(calendarToRow(calendar));
  }

  async replaceAvailability(tenantId: string, calendarId: string, availability: Availability): Promise<void> {
    this.statement('UPDATE calendars SET availability = ? WHERE tenant_id = ? AND id = ?').run(
      JSON.stringify(availability),
      tenantId,
      calendarId,
    );
  }

  async getBooking(tenantId: string, id: string): Promise<Booking | null> {
    const row = this.statement('SELECT * FROM bookings WHERE tenant_id = ? AND id = ?').get(tenantId, id);
    return row ? bookingFromRow(row as BookingRow) : null;
  }

  async insertHold(booking: Booking): Promise<void> {
    try {
      this.insertBookingRow(booking);
    } catch (error) {
      throw mapSqliteError(error);
    }
    const allocate = this.statement(
      `INSERT INTO allocations (tenant_id, booking_id, calendar_id, start_at, end_at, active) VALUES (?, ?, ?, ?, ?, 1)`,
    );
    for (const calendarId of booking.calendarIds) {
      allocate.run(booking.tenantId, booking.id, calendarId, booking.start, booking.end);
    }
  }

  private insertBookingRow(booking: Booking): void {
    this.statement(
      `INSERT INTO bookings (tenant_id, id, reference, calendar_ids, start_at, end_at, status, version, created_at,
         updated_at, expires_at, customer, label, price_amount, price_currency, payment, owner_subject, owner_client,
         external_keys, payment_follow_up)
       VALUES (@tenant_id, @id, @reference, @calendar_ids, @start_at, @end_at, @status, @version, @created_at,
         @updated_at, @expires_at, @customer, @label, @price_amount, @price_currency, @payment, @owner_subject,
         @owner_client, @external_keys, @payment_follow_up)`,
    ).run(bookingToRow(booking));
  }

  async updateBooking(next: Booking): Promise<void> {
    const row = bookingToRow(next);
    const result = this.statement(
      `UPDATE bookings SET status = @status, version = @version, updated_at = @updated_at, expires_at = @expires_at,
         customer = @customer, label = @label, payment = @payment, external_keys = @external_keys,
         payment_follow_up = @payment_follow_up
       WHERE tenant_id = @tenant_id AND id = @id AND version = @version - 1`,
    ).run(row);
    if (result.changes !== 1) {
      const current = await this.getBooking(next.tenantId, next.id);
      throw new DomainError('VERSION_CONFLICT', `Booking ${next.id} changed concurrently.`, {
        bookingId: next.id,
        currentVersion: current?.version ?? null,
      });
    }
    this.statement('UPDATE allocations SET active = ? WHERE tenant_id = ? AND booking_id = ?').run(
      occupiesTime(next.status) ? 1 : 0,
      next.tenantId,
      next.id,
    );
  }

  async listBookings(tenantId: string, query: BookingQuery): Promise<{ items: Booking[]; total: number }> {
    const where = ['b.tenant_id = @tenantId'];
    const params: Record<string, unknown> = {
      tenantId,
      now: query.now,
      limit: query.limit,
      offset: query.offset,
    };
    if (query.calendarId !== undefined) {
      where.push(
        'EXISTS (SELECT 1 FROM allocations a WHERE a.tenant_id = b.tenant_id AND a.booking_id = b.id AND a.calendar_id = @calendarId)',
      );
      params.calendarId = query.calendarId;
    }
    if (query.status === 'HELD') where.push("b.status = 'HELD' AND b.expires_at > @now");
    else if (query.status === 'EXPIRED')
      where.push("(b.status = 'EXPIRED' OR (b.status = 'HELD' AND b.expires_at <= @now))");
    else if (query.status !== undefined) {
      where.push('b.status = @status');
      params.status = query.status;
    }
    if (query.from !== undefined) {
      where.push('b.end_at > @from');
      params.from = query.from;
    }
    if (query.to !== undefined) {
      where.push('b.start_at < @to');
      params.to = query.to;
    }
    const clause = where.join(' AND ');
    const total = (
      this.statement(`SELECT count(*) AS n FROM bookings b WHERE ${clause}`).get(params) as { n: number }
    ).n;
    const rows = this.statement(
      `SELECT b.* FROM bookings b WHERE ${clause} ORDER BY b.start_at, b.id LIMIT @limit OFFSET @offset`,
    ).all(params) as BookingRow[];
    return { items: rows.map(bookingFromRow), total };
  }

  async busyIntervals(
    tenantId: string,
    calendarIds: readonly string[],
    range: Interval,
    now: Instant,
  ): Promise<Map<string, Interval[]>> {
    const rows = this.statement(
      `SELECT a.calendar_id, a.start_at, a.end_at FROM allocations a
       JOIN bookings b ON b.tenant_id = a.tenant_id AND b.id = a.booking_id
       WHERE a.tenant_id = ? AND a.active = 1 AND a.calendar_id IN (${placeholders(calendarIds.length)})
         AND a.start_at < ? AND a.start_at > ? AND a.end_at > ?
         AND NOT (b.status = 'HELD' AND b.expires_at <= ?)`,
    ).all(tenantId, ...calendarIds, range.end, range.start - WEEK_MS, range.start, now) as {
      calendar_id: string;
      start_at: number;
      end_at: number;
    }[];
    const busy = new Map<string, Interval[]>();
    for (const row of rows) {
      const list = busy.get(row.calendar_id) ?? [];
      list.push({ start: row.start_at, end: row.end_at });
      busy.set(row.calendar_id, list);
    }
    return busy;
  }

  async expireLapsedHolds(now: Instant, tenantId?: string): Promise<number> {
    // Usually nothing has lapsed: one probe of the partial index on held bookings' deadlines.
    const lapsed = this.statement(
      tenantId === undefined
        ? "SELECT tenant_id, id FROM bookings WHERE status = 'HELD' AND expires_at <= ?"
        : "SELECT tenant_id, id FROM bookings WHERE status = 'HELD' AND expires_at <= ? AND tenant_id = ?",
    ).all(...(tenantId === undefined ? [now] : [now, tenantId])) as { tenant_id: string; id: string }[];
    const free = this.statement('UPDATE allocations SET active = 0 WHERE tenant_id = ? AND booking_id = ?');
    const expire = this.statement(
      `UPDATE bookings SET status = 'EXPIRED', version = version + 1, updated_at = ?,
         payment_follow_up = (price_amount IS NOT NULL)
       WHERE tenant_id = ? AND id = ? AND status = 'HELD'`,
    );
    for (const row of lapsed) {
      free.run(row.tenant_id, row.id);
      expire.run(now, row.tenant_id, row.id);
    }
    return lapsed.length;
  }

  async paymentFollowUps(limit: number): Promise<Booking[]> {
    const rows = this.statement(
      'SELECT * FROM bookings WHERE payment_follow_up = 1 ORDER BY updated_at LIMIT ?',
    ).all(limit) as BookingRow[];
    return rows.map(bookingFromRow);
  }

  async insertApproval(approval: Approval, pageTokenHash: string): Promise<void> {
    this.statement(
      `INSERT INTO approvals (tenant_id, id, subject, client_id, action, booking_id, intent, intent_hash, status,
         created_at, expires_at, decided_at, decided_by, burned_reason, page_token_hash)
       VALUES (@tenant_id, @id, @subject, @client_id, @action, @booking_id, @intent, @intent_hash, @status,
         @created_at, @expires_at, @decided_at, @decided_by, @burned_reason, @page_token_hash)`,
    ).run({ ...approvalToRow(approval), page_token_hash: pageTokenHash });
  }

  async getApproval(tenantId: string, id: string): Promise<Approval | null> {
    const row = this.statement('SELECT * FROM approvals WHERE tenant_id = ? AND id = ?').get(tenantId, id);
    return row ? approvalFromRow(row as ApprovalRow) : null;
  }

  async getApprovalByPageToken(pageTokenHash: string): Promise<Approval | null> {
    const row = this.statement('SELECT * FROM approvals WHERE page_token_hash = ?').get(pageTokenHash);
    return row ? approvalFromRow(row as ApprovalRow) : null;
  }

  async updateApproval(next: Approval, expected: ApprovalStatus): Promise<boolean> {
    const row = approvalToRow(next);
    return (
      this.statement(
        `UPDATE approvals SET status = @status, decided_at = @decided_at, decided_by = @decided_by,
           burned_reason = @burned_reason WHERE tenant_id = @tenant_id AND id = @id AND status = @expected`,
      ).run({ ...row, expected }).changes === 1
    );
  }

  async spendPageToken(tenantId: string, approvalId: string): Promise<void> {
    this.statement('UPDATE approvals SET page_token_hash = NULL WHERE tenant_id = ? AND id = ?').run(
      tenantId,
      approvalId,
    );
  }

  async listApprovals(tenantId: string | null, status?: ApprovalStatus): Promise<Approval[]> {
    const rows = this.statement(
      `SELECT * FROM approvals WHERE (@tenantId IS NULL OR tenant_id = @tenantId) AND (@status IS NULL OR status = @status)
       ORDER BY created_at DESC LIMIT 200`,
    ).all({ tenantId, status: status ?? null }) as ApprovalRow[];
    return rows.map(approvalFromRow);
  }

  async countOpenApprovals(tenantId: string, now: Instant): Promise<number> {
    return (
      this.statement(
        "SELECT count(*) AS n FROM approvals WHERE tenant_id = ? AND status = 'PENDING' AND expires_at > ?",
      ).get(tenantId, now) as { n: number }
    ).n;
  }

  async recordAttestation(tenantId: string, approvalId: string, now: Instant): Promise<boolean> {
    return (
      this.statement(
        'INSERT INTO host_attestations (tenant_id, approval_id, used_at) VALUES (?, ?, ?) ON CONFLICT DO NOTHING',
      ).run(tenantId, approvalId, now).changes === 1
    );
  }

  async attestationSeen(tenantId: string, approvalId: string): Promise<boolean> {
    return !!this.statement('SELECT 1 FROM host_attestations WHERE tenant_id = ? AND approval_id = ?').get(
      tenantId,
      approvalId,
    );
  }

  async bookingsToReconcile(tenantId: string): Promise<Booking[]> {
    const rows = this.statement(
      `SELECT * FROM bookings WHERE tenant_id = ? AND json_extract(payment, '$.reconciliationRequired') = 1 ORDER BY updated_at`,
    ).all(tenantId) as BookingRow[];
    return rows.map(bookingFromRow);
  }

  async simulatedPayment(bookingId: string): Promise<PaymentReport | null> {
    const row = this.statement('SELECT * FROM simulated_payments WHERE booking_id = ?').get(bookingId) as
      | {
          booking_id: string;
          status: PaymentReport['status'];
          amount: string | null;
          currency: string | null;
          paid_at: number | null;
        }
      | undefined;
    return row
      ? {
          bookingId: row.booking_id,
          status: row.status,
          amount: row.amount,
          currency: row.currency,
          paidAt: row.paid_at,
        }
      : null;
  }

  async setSimulatedPayment(report: PaymentReport, now: Instant): Promise<void> {
    this.statement(
      `INSERT INTO simulated_payments (booking_id, status, amount, currency, paid_at, updated_at) VALUES (?, ?, ?, ?, ?, ?)
       ON CONFLICT (booking_id) DO UPDATE SET status = excluded.status, amount = excluded.amount,
         currency = excluded.currency, paid_at = excluded.paid_at, updated_at = excluded.updated_at`,
    ).run(report.bookingId, report.status, report.amount, report.currency, report.paidAt, now);
  }

  async appendAudit(entry: AuditEntry, mac: string): Promise<void> {
    this.statement(
      `INSERT INTO audit_pending (${auditEntryColumns.join(', ')}, entry_mac) VALUES (${placeholders(auditEntryColumns.length + 1)})`,
    ).run(...auditEntryValues(entry), mac);
  }

  async pendingAudit(limit: number): Promise<PendingAuditEntry[]> {
    const rows = this.statement('SELECT * FROM audit_pending ORDER BY id LIMIT ?').all(limit);
    return (rows as PendingAuditRow[]).map(pendingEntryOf);
  }

  async countPendingAudit(): Promise<number> {
    return (this.statement('SELECT count(*) AS n FROM audit_pending').get() as { n: number }).n;
  }

  async removePendingAudit(pendingIds: readonly number[]): Promise<void> {
    const remove = this.statement('DELETE FROM audit_pending WHERE id = ?');
    for (const id of pendingIds) remove.run(id);
  }

  async auditHead(): Promise<AuditHead | null> {
    const row = this.statement(
      'SELECT seq, hash, mac_version, key_id FROM audit_log ORDER BY seq DESC LIMIT 1',
    ).get() as Pick<AuditRow, 'seq' | 'hash' | 'mac_version' | 'key_id'> | undefined;
    return row
      ? { seq: Number(row.seq), hash: row.hash, macVersion: row.mac_version === 1 ? 1 : 2, keyId: row.key_id }
      : null;
  }

  async insertAuditRecords(records: readonly AuditRecord[]): Promise<void> {
    const insert = this.statement(
      `INSERT INTO audit_log (${auditColumns.join(', ')}) VALUES (${placeholders(auditColumns.length)})`,
    );
    for (const record of records) insert.run(...auditRecordValues(record));
  }

  async auditRecords(afterSeq: number, limit: number): Promise<AuditRecord[]> {
    const rows = this.statement('SELECT * FROM audit_log WHERE seq > ? ORDER BY seq LIMIT ?').all(
      afterSeq,
      limit,
    ) as AuditRow[];
    return rows.map(auditRecordOf);
  }

  async getIdempotency(scope: IdempotencyScope): Promise<IdempotencyRecord | null> {
    const row = this.statement(
      'SELECT * FROM idempotency WHERE tenant_id = ? AND subject = ? AND tool = ? AND key = ?',
    ).get(scope.tenantId, scope.subject, scope.tool, scope.key) as
      { arguments_digest: string; result: string; created_at: number; expires_at: number } | undefined;
    if (!row) return null;
    return {
      ...scope,
      argumentsDigest: row.arguments_digest,
      result: JSON.parse(row.result) as unknown,
      createdAt: row.created_at,
      expiresAt: row.expires_at,
    };
  }

  async claimIdempotency(record: IdempotencyRecord): Promise<IdempotencyRecord | null> {
    this.statement(
      'DELETE FROM idempotency WHERE tenant_id = ? AND subject = ? AND tool = ? AND key = ? AND expires_at <= ?',
    ).run(record.tenantId, record.subject, record.tool, record.key, record.createdAt);
    const claimed = this.statement(
      `INSERT INTO idempotency (tenant_id, subject, tool, key, arguments_digest, result, created_at, expires_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING`,
    ).run(...idempotencyValues(record, 'null'));
    return claimed.changes === 1 ? null : this.getIdempotency(record);
  }

  async putIdempotency(record: IdempotencyRecord): Promise<void> {
    this.statement(
      `INSERT INTO idempotency (tenant_id, subject, tool, key, arguments_digest, result, created_at, expires_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?)
       ON CONFLICT (tenant_id, subject, tool, key) DO UPDATE SET arguments_digest = excluded.arguments_digest,
         result = excluded.result, created_at = excluded.created_at, expires_at = excluded.expires_at`,
    ).run(...idempotencyValues(record));
  }

  async purgeIdempotency(now: Instant): Promise<number> {
    return this.statement('DELETE FROM idempotency WHERE expires_at <= ?').run(now).changes;
  }
}
