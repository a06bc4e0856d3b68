import type { PoolClient } from 'pg';
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
import { mapPgError } from './pg-errors.js';

const MS = (column: string) => `(extract(epoch from ${column}) * 1000)::bigint`;

const bookingColumns: readonly (keyof BookingRow)[] = [
  'tenant_id',
  'id',
  'reference',
  'calendar_ids',
  'start_at',
  'end_at',
  'status',
  'version',
  'created_at',
  'updated_at',
  'expires_at',
  'customer',
  'label',
  'price_amount',
  'price_currency',
  'payment',
  'owner_subject',
  'owner_client',
  'external_keys',
  'payment_follow_up',
];

const params = (n: number, from = 1) => Array.from({ length: n }, (_, i) => `$${i + from}`).join(', ');

/** StoreTx over one pooled PostgreSQL connection; the caller owns BEGIN/COMMIT. */
export class PgTx implements StoreTx {
  /** Run by the store once this transaction committed. */
  readonly committed: (() => void)[] = [];

  constructor(private readonly client: PoolClient) {}

  afterCommit(callback: () => void): void {
    this.committed.push(callback);
  }

  /** A transaction-scoped advisory lock, per schema, released at COMMIT or ROLLBACK. */
  async serialize(key: string): Promise<void> {
    await this.rows("SELECT pg_advisory_xact_lock(hashtext(current_schema() || ':' || $1))", [key]);
  }

  private async rows<T>(sql: string, params: unknown[] = []): Promise<T[]> {
    try {
      return (await this.client.query(sql, params)).rows as T[];
    } catch (error) {
      throw mapPgError(error);
    }
  }

  private async count(sql: string, params: unknown[] = []): Promise<number> {
    try {
      return (await this.client.query(sql, params)).rowCount ?? 0;
    } catch (error) {
      throw mapPgError(error);
    }
  }

  async listCalendars(tenantId: string, page: Page): Promise<{ items: Calendar[]; total: number }> {
    const rows = await this.rows<CalendarRow>(
      'SELECT * FROM calendars WHERE tenant_id = $1 ORDER BY created_at, id LIMIT $2 OFFSET $3',
      [tenantId, page.limit, page.offset],
    );
    return { items: rows.map(calendarFromRow), total: await this.countCalendars(tenantId) };
  }

  async countCalendars(tenantId: string): Promise<number> {
    const [row] = await this.rows<{ n: string }>('SELECT count(*) AS n FROM calendars WHERE tenant_id = $1', [
      tenantId,
    ]);
    return Number(row?.n ?? 0);
  }

  async getCalendars(tenantId: string, ids: readonly string[]): Promise<Calendar[]> {
    if (ids.length === 0) return [];
    const rows = await this.rows<CalendarRow>(
      'SELECT * FROM calendars WHERE tenant_id = $1 AND id = ANY($2)',
      [tenantId, ids],
    );
    const byId = new Map(rows.map((r) => [r.id, calendarFromRow(r)]));
    return ids.flatMap((id) => byId.get(id) ?? []);
  }

  async insertCalendar(calendar: Calendar): Promise<void> {
    const r = calendarToRow(calendar);
    await this.rows(
      `INSERT INTO calendars (tenant_id, id, name, time_zone, price_amount, price_currency, availability, created_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`,
      [
        r.tenant_id,
        r.id,
        r.name,
        r.time_zone,
        r.price_amount,
        r.price_currency,
        r.availability,
        r.created_at,
      ],
    );
  }

  async replaceAvailability(tenantId: string, calendarId: string, availability: Availability): Promise<void> {
    await this.rows('UPDATE calendars SET availability = $1 WHERE tenant_id = $2 AND id = $3', [
      JSON.stringify(availability),
      tenantId,
      calendarId,
    ]);
  }

  async getBooking(tenantId: string, id: string): Promise<Booking | null> {
    const [row] = await this.rows<BookingRow>('SELECT * FROM bookings WHERE tenant_id = $1 AND id = $2', [
      tenantId,
      id,
    ]);
    return row ? bookingFromRow(row) : null;
  }

  /**
   * One statement writes the booking and its allocations, calendars in sorted
   * order, so racing holds on several calendars take their locks in the same
   * order and never wait on each other in a cycle.
   */
  async insertHold(booking: Booking): Promise<void> {
    const row = bookingToRow(booking);
    const values = bookingColumns.map((c) => row[c]);
    const n = values.length;
    await this.rows(
      `WITH inserted AS (
         INSERT INTO bookings (${bookingColumns.join(', ')})
         VALUES (${values.map((_, i) => `$${i + 1}`).join(', ')})
         RETURNING tenant_id, id
       )
       INSERT INTO allocations (tenant_id, booking_id, calendar_id, start_at, end_at, active)
       SELECT inserted.tenant_id, inserted.id, c.calendar_id,
              to_timestamp($${n + 2}::bigint / 1000.0), to_timestamp($${n + 3}::bigint / 1000.0), true
       FROM inserted, unnest($${n + 1}::text[]) AS c(calendar_id)
       ORDER BY c.calendar_id`,
      [...values, [...booking.calendarIds].sort(), booking.start, booking.end],
    );
  }

  async updateBooking(next: Booking): Promise<void> {
    const r = bookingToRow(next);
    const changed = await this.count(
      `UPDATE bookings SET status = $1, version = $2, updated_at = $3, expires_at = $4, customer = $5, label = $6,
         payment = $7, external_keys = $8, payment_follow_up = $11
       WHERE tenant_id = $9 AND id = $10 AND version = $2 - 1`,
      [
        r.status,
        r.version,
        r.updated_at,
        r.expires_at,
        r.customer,
        r.label,
        r.payment,
        r.external_keys,
        r.tenant_id,
        r.id,
        r.payment_follow_up,
      ],
    );
    if (changed !== 1) {
      const current = await this.getBooking(next.tenantId, next.id);
      throw new DomainError('VERSION_CONFLICT', `Booking ${next.id} changed concurrently.`, {
        bookingId: next.id,
        currentVersion: current?.version ?? null,
      });
    }
    await this.rows('UPDATE allocations SET active = $1 WHERE tenant_id = $2 AND booking_id = $3', [
      occupiesTime(next.status),
      next.tenantId,
      next.id,
    ]);
  }

  async listBookings(tenantId: string, query: BookingQuery): Promise<{ items: Booking[]; total: number }> {
    const params: unknown[] = [tenantId, query.now];
    const where = ['b.tenant_id = $1'];
    const add = (clause: (n: string) => string, value: unknown) => {
      params.push(value);
      where.push(clause(`$${params.length}`));
    };
    if (query.calendarId !== undefined) {
      add(
        (p) =>
          `EXISTS (SELECT 1 FROM allocations a WHERE a.tenant_id = b.tenant_id AND a.booking_id = b.id AND a.calendar_id = ${p})`,
        query.calendarId,
      );
    }
    if (query.status === 'HELD') where.push("b.status = 'HELD' AND b.expires_at > $2");
    else if (query.status === 'EXPIRED')
      where.push("(b.status = 'EXPIRED' OR (b.status = 'HELD' AND b.expires_at <= $2))");
    else if (query.status !== undefined) add((p) => `b.status = ${p}`, query.status);
    if (query.from !== undefined) add((p) => `b.end_at > ${p}`, query.from);
    if (query.to !== undefined) add((p) => `b.start_at < ${p}`, query.to);
    const clause = where.join(' AND ');
    // $2 (now) is referenced only by the status filters; keep the parameter list stable for both queries.
    const guard = ' AND $2::bigint IS NOT NULL';
    const [{ n }] = (await this.rows<{ n: string }>(
      `SELECT count(*) AS n FROM bookings b WHERE ${clause}${guard}`,
      params,
    )) as [{ n: string }];
    const rows = await this.rows<BookingRow>(
      `SELECT b.* FROM bookings b WHERE ${clause}${guard} ORDER BY b.start_at, b.id LIMIT ${Number(query.limit)} OFFSET ${Number(query.offset)}`,
      params,
    );
    return { items: rows.map(bookingFromRow), total: Number(n) };
  }

  async busyIntervals(
    tenantId: string,
    calendarIds: readonly string[],
    range: Interval,
    now: Instant,
  ): Promise<Map<string, Interval[]>> {
    const rows = await this.rows<{ calendar_id: string; start_at: string; end_at: string }>(
      `SELECT a.calendar_id, ${MS('a.start_at')} AS start_at, ${MS('a.end_at')} AS end_at FROM allocations a
       JOIN bookings b ON b.tenant_id = a.tenant_id AND b.id = a.booking_id
       WHERE a.tenant_id = $1 AND a.active AND a.calendar_id = ANY($2)
         AND tstzrange(a.start_at, a.end_at, '[)') && tstzrange(to_timestamp($3::bigint / 1000.0), to_timestamp($4::bigint / 1000.0), '[)')
         AND NOT (b.status = 'HELD' AND b.expires_at <= $5)`,
      [tenantId, calendarIds, range.start, range.end, now],
    );
    const busy = new Map<string, Interval[]>();
    for (const row of rows) {
      const list = busy.get(row.calendar_id) ?? [];
      list.push({ start: Number(row.start_at), end: Number(row.end_at) });
      busy.set(row.calendar_id, list);
    }
    return busy;
  }

  /** Skips rows another transaction is already expiring: nobody waits on a lapsed hold. */
  async expireLapsedHolds(now: Instant, tenantId?: string): Promise<number> {
    const lapsed = await this.rows<{ tenant_id: string; id: string }>(
      `UPDATE bookings SET status = 'EXPIRED', version = version + 1, updated_at = $1,
         payment_follow_up = (price_amount IS NOT NULL)
       WHERE (tenant_id, id) IN (
         SELECT tenant_id, id FROM bookings WHERE status = 'HELD' AND expires_at <= $1 AND ($2::text IS NULL OR tenant_id = $2)
         FOR UPDATE SKIP LOCKED)
       RETURNING tenant_id, id`,
      [now, tenantId ?? null],
    );
    if (lapsed.length > 0) {
      await this.rows(
        `UPDATE allocations SET active = false WHERE (tenant_id, booking_id) IN (SELECT * FROM unnest($1::text[], $2::text[]))`,
        [lapsed.map((r) => r.tenant_id), lapsed.map((r) => r.id)],
      );
    }
    return lapsed.length;
  }

  async paymentFollowUps(limit: number): Promise<Booking[]> {
    const rows = await this.rows<BookingRow>(
      'SELECT * FROM bookings WHERE payment_follow_up ORDER BY updated_at LIMIT $1',
      [limit],
    );
    return rows.map(bookingFromRow);
  }

  async insertApproval(approval: Approval, pageTokenHash: string): Promise<void> {
    const r = approvalToRow(approval);
    await this.rows(
      `INSERT INTO approvals (tenant_id, id, subject, client_id, action, booking_id, intent, intent_hash, status, created_at,
         expires_at, decided_at, decided_by, burned_reason, page_token_hash)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15)`,
      [
        r.tenant_id,
        r.id,
        r.subject,
        r.client_id,
        r.action,
        r.booking_id,
        r.intent,
        r.intent_hash,
        r.status,
        r.created_at,
        r.expires_at,
        r.decided_at,
        r.decided_by,
        r.burned_reason,
        pageTokenHash,
      ],
    );
  }

  async getApproval(tenantId: string, id: string): Promise<Approval | null> {
    const [row] = await this.rows<ApprovalRow>('SELECT * FROM approvals WHERE tenant_id = $1 AND id = $2', [
      tenantId,
      id,
    ]);
    return row ? approvalFromRow(row) : null;
  }

  async getApprovalByPageToken(pageTokenHash: string): Promise<Approval | null> {
    const [row] = await this.rows<ApprovalRow>('SELECT * FROM approvals WHERE page_token_hash = $1', [
      pageTokenHash,
    ]);
    return row ? approvalFromRow(row) : null;
  }

  async updateApproval(next: Approval, expected: ApprovalStatus): Promise<boolean> {
    const r = approvalToRow(next);
    return (
      (await this.count(
        `UPDATE approvals SET status = $1, decided_at = $2, decided_by = $3, burned_reason = $4
         WHERE tenant_id = $5 AND id = $6 AND status = $7`,
        [r.status, r.decided_at, r.decided_by, r.burned_reason, r.tenant_id, r.id, expected],
      )) === 1
    );
  }

  async spendPageToken(tenantId: string, approvalId: string): Promise<void> {
    await this.rows('UPDATE approvals SET page_token_hash = NULL WHERE tenant_id = $1 AND id = $2', [
      tenantId,
      approvalId,
    ]);
  }

  async listApprovals(tenantId: string | null, status?: ApprovalStatus): Promise<Approval[]> {
    const rows = await this.rows<ApprovalRow>(
      `SELECT * FROM approvals WHERE ($1::text IS NULL OR tenant_id = $1) AND ($2::text IS NULL OR status = $2)
       ORDER BY created_at DESC LIMIT 200`,
      [tenantId, status ?? null],
    );
    return rows.map(approvalFromRow);
  }

  async countOpenApprovals(tenantId: string, now: Instant): Promise<number> {
    const [row] = await this.rows<{ n: string }>(
      "SELECT count(*) AS n FROM approvals WHERE tenant_id = $1 AND status = 'PENDING' AND expires_at > $2",
      [tenantId, now],
    );
    return Number(row?.n ?? 0);
  }

  async recordAttestation(tenantId: string, approvalId: string, now: Instant): Promise<boolean> {
    return (
      (await this.count(
        'INSERT INTO host_attestations (tenant_id, approval_id, used_at) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING',
        [tenantId, approvalId, now],
      )) === 1
    );
  }

  async attestationSeen(tenantId: string, approvalId: string): Promise<boolean> {
    return (
      (
        await this.rows('SELECT 1 FROM host_attestations WHERE tenant_id = $1 AND approval_id = $2', [
          tenantId,
          approvalId,
        ])
      ).length > 0
    );
  }

  async bookingsToReconcile(tenantId: string): Promise<Booking[]> {
    const rows = await this.rows<BookingRow>(
      `SELECT * FROM bookings WHERE tenant_id = $1 AND (payment::jsonb ->> 'reconciliationRequired')::boolean ORDER BY updated_at`,
      [tenantId],
    );
    return rows.map(bookingFromRow);
  }

  async simulatedPayment(bookingId: string): Promise<PaymentReport | null> {
    const [row] = await this.rows<{
      booking_id: string;
      status: PaymentReport['status'];
      amount: string | null;
      currency: string | null;
      paid_at: string | null;
    }>('SELECT * FROM simulated_payments WHERE booking_id = $1', [bookingId]);
    if (!row) return null;
    return {
      bookingId: row.booking_id,
      status: row.status,
      amount: row.amount,
      currency: row.currency,
      paidAt: row.paid_at === null ? null : Number(row.paid_at),
    };
  }

  async setSimulatedPayment(report: PaymentReport, now: Instant): Promise<void> {
    await this.rows(
      `INSERT INTO simulated_payments (booking_id, status, amount, currency, paid_at, updated_at) VALUES ($1, $2, $3, $4, $5, $6)
       ON CONFLICT (booking_id) DO UPDATE SET status = excluded.status, amount = excluded.amount,
         currency = excluded.currency, paid_at = excluded.paid_at, updated_at = excluded.updated_at`,
      [report.bookingId, report.status, report.amount, report.currency, report.paidAt, now],
    );
  }

  async appendAudit(entry: AuditEntry, mac: string): Promise<void> {
    await this.rows(
      `INSERT INTO audit_pending (${auditEntryColumns.join(', ')}, entry_mac) VALUES (${params(auditEntryColumns.length + 1)})`,
      [...auditEntryValues(entry), mac],
    );
  }

  async pendingAudit(limit: number): Promise<PendingAuditEntry[]> {
    const rows = await this.rows<PendingAuditRow>('SELECT * FROM audit_pending ORDER BY id LIMIT $1', [
      limit,
    ]);
    return rows.map(pendingEntryOf);
  }

  async countPendingAudit(): Promise<number> {
    const [row] = await this.rows<{ n: string }>('SELECT count(*) AS n FROM audit_pending');
    return Number(row?.n ?? 0);
  }

  async removePendingAudit(pendingIds: readonly number[]): Promise<void> {
    await this.rows('DELETE FROM audit_pending WHERE id = ANY($1::bigint[])', [pendingIds]);
  }

  async auditHead(): Promise<AuditHead | null> {
    const [row] = await this.rows<Pick<AuditRow, 'seq' | 'hash' | 'mac_version' | 'key_id'>>(
      'SELECT seq, hash, mac_version, key_id FROM audit_log ORDER BY seq DESC LIMIT 1',
    );
    return row
      ? { seq: Number(row.seq), hash: row.hash, macVersion: row.mac_version === 1 ? 1 : 2, keyId: row.key_id }
      : null;
  }

  /** One statement for the whole batch. */
  async insertAuditRecords(records: readonly AuditRecord[]): Promise<void> {
    if (records.length === 0) return;
    const width = auditColumns.length;
    await this.rows(
      `INSERT INTO audit_log (${auditColumns.join(', ')}) VALUES ${records
        .map((_, i) => `(${params(width, i * width + 1)})`)
        .join(', ')}`,
      records.flatMap(auditRecordValues),
    );
  }

  async auditRecords(afterSeq: number, limit: number): Promise<AuditRecord[]> {
    const rows = await this.rows<AuditRow>('SELECT * FROM audit_log WHERE seq > $1 ORDER BY seq LIMIT $2', [
      afterSeq,
      limit,
    ]);
    return rows.map(auditRecordOf);
  }

  async getIdempotency(scope: IdempotencyScope): Promise<IdempotencyRecord | null> {
    const [row] = await this.rows<{
      arguments_digest: string;
      result: string;
      created_at: string;
      expires_at: string;
    }>('SELECT * FROM idempotency WHERE tenant_id = $1 AND subject = $2 AND tool = $3 AND key = $4', [
      scope.tenantId,
      scope.subject,
      scope.tool,
      scope.key,
    ]);
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
   * One statement: insert the claim, or take over a record that has expired. A concurrent first use of
   * the same key waits here on the primary key until the other commits, then finds its record.
   */
  async claimIdempotency(record: IdempotencyRecord): Promise<IdempotencyRecord | null> {
    const claimed = await this.count(
      `INSERT INTO idempotency (tenant_id, subject, tool, key, arguments_digest, result, created_at, expires_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8)
       ON CONFLICT (tenant_id, subject, tool, key) DO UPDATE SET arguments_digest = excluded.arguments_digest,
         result = excluded.result, created_at = excluded.created_at, expires_at = excluded.expires_at
       WHERE idempotency.expires_at <= excluded.created_at`,
      idempotencyValues(record, 'null'),
    );
    return claimed === 1 ? null : this.getIdempotency(record);
  }

  async putIdempotency(record: IdempotencyRecord): Promise<void> {
    await this.rows(
      `INSERT INTO idempotency (tenant_id, subject, tool, key, arguments_digest, result, created_at, expires_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8)
       ON CONFLICT (tenant_id, subject, tool, key) DO UPDATE SET arguments_digest = excluded.arguments_digest,
         result = excluded.result, created_at = excluded.created_at, expires_at = excluded.expires_at`,
      idempotencyValues(record),
    );
  }

  async purgeIdempotency(now: Instant): Promise<number> {
    return this.count('DELETE FROM idempotency WHERE expires_at <= $1', [now]);
  }
}
