import type { Booking } from '../../../domain/booking/booking.js';
import { occupiesTime } from '../../../domain/booking/booking.js';
import { DomainError } from '../../../domain/errors.js';
import type { Instant } from '../../../domain/time/instant.js';
import type { Interval } from '../../../domain/time/interval.js';
import type {
  BookingQuery,
  BookingStore,
  HeldByPerson,
  HoldCap,
  HoldPlacement,
  CalendarSpan,
  HoldPlan,
  LimitCheck,
} from '../../../ports/store/index.js';
import type { Occupied } from '../../../domain/availability/ruled-slots.js';
import { NO_LIMIT } from '../../../domain/identity/identity.js';
import { auditEntryValues } from '../audit-rows.js';
import type { BookingRow } from '../rows.js';
import { idempotencyValues } from '../rows.js';
import { customerHandle } from '../customer-vault.js';
import { openedBookings, storedRow } from './customer-keys-sql.js';
import { APPEND_PENDING } from './audit-sql.js';
import { CLAIM, IdempotencySql } from './idempotency-sql.js';
import type { SqlDialect, SqlRunner } from './sql-runner.js';
import { placeholders } from './sql-runner.js';

/** Allocations last at most a week (a CHECK on both engines), which bounds the index range scanned. */
const WEEK_MS = 7 * 24 * 60 * 60 * 1000;
/** A buffer is at most 12 hours (booking rules): an allocation starts at most this long before its booking. */
const MAX_BUFFER_MS = 12 * 60 * 60 * 1000;

export const bookingColumns: readonly (keyof BookingRow)[] = [
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
  'owner_connection',
  'external_keys',
  'payment_follow_up',
  'customer_key',
  'replaces',
  'series_id',
  'change_set_id',
];

export const INSERT_BOOKING = `INSERT INTO bookings (${bookingColumns.join(', ')}) VALUES (${placeholders(bookingColumns.length)})`;

/** The row's values in column order, the customer's details sealed (their key made in this transaction if new). */
export async function bookingValues(db: SqlRunner, booking: Booking): Promise<unknown[]> {
  const row = await storedRow(db, booking);
  return bookingColumns.map((c) => row[c]);
}

/** How many bookings a search by customer opens at most (the other filters narrow them first). */
const CUSTOMER_SCAN = 5000;

export class BookingsSql implements BookingStore {
  constructor(
    protected readonly db: SqlRunner,
    protected readonly dialect: SqlDialect,
  ) {}

  async ofSeries(tenantId: string, seriesId: string): Promise<Booking[]> {
    const rows = await this.db.all<BookingRow>(
      'SELECT * FROM bookings WHERE tenant_id = ? AND series_id = ? ORDER BY start_at, id',
      [tenantId, seriesId],
    );
    return openedBookings(this.db, rows);
  }

  async get(tenantId: string, id: string): Promise<Booking | null> {
    const [row] = await this.db.all<BookingRow>('SELECT * FROM bookings WHERE tenant_id = ? AND id = ?', [
      tenantId,
      id,
    ]);
    return row ? ((await openedBookings(this.db, [row]))[0] ?? null) : null;
  }

  /**
   * Statement by statement inside the caller's transaction (SQLite runs them in-process, with no
   * round trips to save). Calendars are written in sorted order, as on every engine.
   */
  async placeHold(plan: HoldPlan): Promise<HoldPlacement> {
    const b = plan.booking;
    if (!(await this.calendarsUnchanged(b.tenantId, plan.calendarVersions))) return { outcome: 'stale' };
    // One writer at a time (SQLite): counted here, the cap cannot be raced. A retry still replays.
    if (plan.cap && !(await this.roomForHold(b, plan.cap))) {
      const existing = await new IdempotencySql(this.db).get(plan.idempotency);
      if (existing && existing.expiresAt > plan.idempotency.createdAt) return { outcome: 'replay', existing };
      return { outcome: 'full' };
    }
    // One writer at a time (SQLite): the limits are counted here and cannot be raced either.
    for (const check of plan.limits) {
      if ((await this.countStarts(b.tenantId, check, b.createdAt)) >= check.max) {
        const existing = await new IdempotencySql(this.db).get(plan.idempotency);
        if (existing && existing.expiresAt > plan.idempotency.createdAt)
          return { outcome: 'replay', existing };
        return { outcome: 'limited', check };
      }
    }
    if ((await this.db.run(CLAIM, idempotencyValues(plan.idempotency))) !== 1) {
      const existing = await new IdempotencySql(this.db).get(plan.idempotency);
      if (existing) return { outcome: 'replay', existing };
    }
    await this.db.run(INSERT_BOOKING, await bookingValues(this.db, b));
    const spans = [...plan.occupies].sort((x, y) => (x.calendarId < y.calendarId ? -1 : 1));
    await this.insertAllocations(b, spans);
    if (plan.audit)
      await this.db.run(APPEND_PENDING, [...auditEntryValues(plan.audit.entry), plan.audit.mac]);
    return { outcome: 'placed' };
  }

  async allocationsOf(tenantId: string, bookingId: string): Promise<Omit<CalendarSpan, 'capacity'>[]> {
    const rows = await this.db.all<{
      calendar_id: string;
      start_at: number | string;
      end_at: number | string;
    }>(
      `SELECT calendar_id, start_at, end_at FROM allocations
       WHERE tenant_id = ? AND booking_id = ? AND active = ${this.dialect.TRUE} ORDER BY calendar_id`,
      [tenantId, bookingId],
    );
    return rows.map((r) => ({ calendarId: r.calendar_id, start: Number(r.start_at), end: Number(r.end_at) }));
  }

  /** One writer at a time (SQLite): counted here, the limits cannot be raced. */
  async fullLimit(tenantId: string, checks: readonly LimitCheck[], now: Instant): Promise<LimitCheck | null> {
    for (const check of checks) if ((await this.countStarts(tenantId, check, now)) >= check.max) return check;
    return null;
  }

  async replaceAllocations(booking: Booking, spans: readonly CalendarSpan[]): Promise<void> {
    await this.db.run('DELETE FROM allocations WHERE tenant_id = ? AND booking_id = ?', [
      booking.tenantId,
      booking.id,
    ]);
    await this.insertAllocations(
      booking,
      [...spans].sort((x, y) => (x.calendarId < y.calendarId ? -1 : 1)),
    );
  }

  /** Active allocations of a booking, in the order given, each in the lowest seat lane free for it. */
  protected async insertAllocations(b: Booking, spans: readonly CalendarSpan[]): Promise<void> {
    if (spans.length === 0) return;
    const lanes: number[] = [];
    for (const span of spans) lanes.push(await this.freeLane(b.tenantId, span));
    await this.db.run(
      `INSERT INTO allocations (tenant_id, booking_id, calendar_id, start_at, end_at, active, lane)
       VALUES ${spans.map(() => `(?, ?, ?, ?, ?, ${this.dialect.TRUE}, ?)`).join(', ')}`,
      spans.flatMap((span, i) => [b.tenantId, b.id, span.calendarId, span.start, span.end, lanes[i]]),
    );
  }

  /**
   * The lowest seat lane free for the whole span (one writer at a time). A taken lane at or past
   * the capacity (the capacity was lowered since) takes a seat too: that lane is answered, so the
   * engine refuses the hold as taken, as it does when no lane is free (lane 0).
   */
  private async freeLane(tenantId: string, span: CalendarSpan): Promise<number> {
    const taken = await this.db.all<{ lane: number | string }>(
      `SELECT DISTINCT a.lane FROM allocations a
       WHERE a.tenant_id = ? AND a.calendar_id = ? AND a.active = ${this.dialect.TRUE}
         AND a.start_at < ? AND a.start_at > ? AND a.end_at > ?`,
      [tenantId, span.calendarId, span.end, span.start - WEEK_MS, span.start],
    );
    const used = new Set(taken.map((row) => Number(row.lane)));
    const beyond = [...used].find((lane) => lane >= span.capacity);
    if (beyond !== undefined) return beyond;
    for (let lane = 0; lane < span.capacity; lane++) if (!used.has(lane)) return lane;
    return 0;
  }

  /** Occupying bookings of the check's calendar (and customer) that start in its window. */
  protected async countStarts(tenantId: string, check: LimitCheck, now: Instant): Promise<number> {
    const [row] = await this.db.all<{ n: number | string }>(
      `SELECT count(*) AS n FROM bookings b JOIN allocations a ON a.tenant_id = b.tenant_id AND a.booking_id = b.id
       WHERE a.tenant_id = ? AND a.calendar_id = ? AND a.active = ${this.dialect.TRUE}
         AND a.start_at >= ? AND a.start_at < ? AND b.start_at >= ? AND b.start_at < ?
         AND NOT (b.status = 'HELD' AND b.expires_at <= ?)${check.customerKey === null ? '' : ' AND b.customer_key = ?'}${check.excludeBookingId === null ? '' : ' AND b.id <> ?'}`,
      [
        tenantId,
        check.calendarId,
        check.from - MAX_BUFFER_MS,
        check.to,
        check.from,
        check.to,
        now,
        ...(check.customerKey === null ? [] : [customerHandle(tenantId, check.customerKey)]),
        ...(check.excludeBookingId === null ? [] : [check.excludeBookingId]),
      ],
    );
    return Number(row?.n ?? 0);
  }

  async occupyingStarts(
    tenantId: string,
    calendarIds: readonly string[],
    range: Interval,
    now: Instant,
  ): Promise<Map<string, Instant[]>> {
    const starts = new Map<string, Instant[]>();
    if (calendarIds.length === 0) return starts;
    const rows = await this.db.all<{ calendar_id: string; start_at: number | string }>(
      `SELECT a.calendar_id, b.start_at FROM allocations a
       JOIN bookings b ON b.tenant_id = a.tenant_id AND b.id = a.booking_id
       WHERE a.tenant_id = ? AND a.active = ${this.dialect.TRUE} AND a.calendar_id IN (${placeholders(calendarIds.length)})
         AND a.start_at >= ? AND a.start_at < ? AND b.start_at >= ? AND b.start_at < ?
         AND NOT (b.status = 'HELD' AND b.expires_at <= ?)`,
      [tenantId, ...calendarIds, range.start - MAX_BUFFER_MS, range.end, range.start, range.end, now],
    );
    for (const row of rows) {
      const list = starts.get(row.calendar_id) ?? [];
      list.push(Number(row.start_at));
      starts.set(row.calendar_id, list);
    }
    return starts;
  }

  /** Counts at most the person's cap of rows: below it the count is exact, at it the answer is no. */
  private async roomForHold(b: Booking, cap: HoldCap): Promise<boolean> {
    const [row] = await this.db.all<{ person: number | string; connection: number | string | null }>(
      `SELECT count(*) AS person, sum(CASE WHEN owner_connection = ? THEN 1 ELSE 0 END) AS connection
       FROM (SELECT owner_connection FROM bookings
             WHERE tenant_id = ? AND owner_subject = ? AND status = 'HELD' AND expires_at > ? LIMIT ?) AS held`,
      [b.owner.connectionId, b.tenantId, b.owner.subject, b.createdAt, Math.min(cap.perPerson, NO_LIMIT)],
    );
    if (!(Number(row?.person ?? 0) < cap.perPerson && Number(row?.connection ?? 0) < cap.perConnection))
      return false;
    if (cap.heldMsPerPerson === null) return true;
    const held = await this.heldBy(b.tenantId, b.owner.subject, b.createdAt);
    return held.calendarMs + cap.thisHoldMs <= cap.heldMsPerPerson;
  }

  async heldBy(tenantId: string, subject: string, now: number): Promise<HeldByPerson> {
    const [row] = await this.db.all<{
      holds: number | string;
      calendar_ms: number | string | null;
      first_expiry: number | string | null;
    }>(
      `SELECT count(DISTINCT b.id) AS holds, sum(b.end_at - b.start_at) AS calendar_ms,
              min(b.expires_at) AS first_expiry
       FROM bookings b JOIN allocations a ON a.tenant_id = b.tenant_id AND a.booking_id = b.id AND a.active
       WHERE b.tenant_id = ? AND b.owner_subject = ? AND b.status = 'HELD' AND b.expires_at > ?`,
      [tenantId, subject, now],
    );
    return {
      holds: Number(row?.holds ?? 0),
      calendarMs: Number(row?.calendar_ms ?? 0),
      firstExpiry:
        row?.first_expiry === null || row?.first_expiry === undefined ? null : Number(row.first_expiry),
    };
  }

  private async calendarsUnchanged(
    tenantId: string,
    versions: HoldPlan['calendarVersions'],
  ): Promise<boolean> {
    const [row] = await this.db.all<{ n: number | string }>(
      `SELECT count(*) AS n FROM calendars WHERE tenant_id = ? AND (${versions.map(() => '(id = ? AND version = ?)').join(' OR ')})`,
      [tenantId, ...versions.flatMap((v) => [v.id, v.version])],
    );
    return Number(row?.n ?? 0) === versions.length;
  }

  async keepHold(
    tenantId: string,
    bookingId: string,
    version: number,
    until: Instant,
    now: Instant,
  ): Promise<boolean> {
    const changed = await this.db.run(
      `UPDATE bookings SET expires_at = ?
       WHERE tenant_id = ? AND id = ? AND version = ? AND status = 'HELD' AND expires_at > ? AND expires_at < ?`,
      [until, tenantId, bookingId, version, now, until],
    );
    return changed > 0;
  }

  async update(next: Booking): Promise<void> {
    const r = await storedRow(this.db, next);
    const changed = await this.db.run(
      `UPDATE bookings SET status = ?, version = ?, updated_at = ?, expires_at = ?, customer = ?, label = ?,
         payment = ?, external_keys = ?, payment_follow_up = ?, customer_key = ?
       WHERE tenant_id = ? AND id = ? AND version = ?`,
      [
        r.status,
        r.version,
        r.updated_at,
        r.expires_at,
        r.customer,
        r.label,
        r.payment,
        r.external_keys,
        r.payment_follow_up,
        r.customer_key,
        r.tenant_id,
        r.id,
        next.version - 1,
      ],
    );
    if (changed !== 1) {
      const current = await this.get(next.tenantId, next.id);
      throw new DomainError('VERSION_CONFLICT', `Booking ${next.id} changed concurrently.`, {
        bookingId: next.id,
        currentVersion: current?.version ?? null,
      });
    }
    await this.db.run(
      `UPDATE allocations SET active = ${occupiesTime(next.status) ? this.dialect.TRUE : this.dialect.FALSE}
       WHERE tenant_id = ? AND booking_id = ?`,
      [next.tenantId, next.id],
    );
  }

  async list(tenantId: string, query: BookingQuery): Promise<{ items: Booking[]; total: number }> {
    const where = ['b.tenant_id = ?'];
    const params: unknown[] = [tenantId];
    if (query.owner !== undefined) {
      where.push('b.owner_subject = ?');
      params.push(query.owner);
    }
    if (query.calendarId !== undefined) {
      where.push(
        'EXISTS (SELECT 1 FROM allocations a WHERE a.tenant_id = b.tenant_id AND a.booking_id = b.id AND a.calendar_id = ?)',
      );
      params.push(query.calendarId);
    }
    if (query.status === 'HELD') {
      where.push("b.status = 'HELD' AND b.expires_at > ?");
      params.push(query.now);
    } else if (query.status === 'EXPIRED') {
      where.push("(b.status = 'EXPIRED' OR (b.status = 'HELD' AND b.expires_at <= ?))");
      params.push(query.now);
    } else if (query.status !== undefined) {
      where.push('b.status = ?');
      params.push(query.status);
    }
    if (query.from !== undefined) {
      where.push('b.end_at > ?');
      params.push(query.from);
    }
    if (query.to !== undefined) {
      where.push('b.start_at < ?');
      params.push(query.to);
    }
    if (query.customer !== undefined) return this.listByCustomer(where, params, query);
    const clause = where.join(' AND ');
    const [count] = await this.db.all<{ n: number | string }>(
      `SELECT count(*) AS n FROM bookings b WHERE ${clause}`,
      params,
    );
    const rows = await this.db.all<BookingRow>(
      `SELECT b.* FROM bookings b WHERE ${clause} ORDER BY b.start_at, b.id LIMIT ? OFFSET ?`,
      [...params, query.limit, query.offset],
    );
    return { items: await openedBookings(this.db, rows), total: Number(count?.n ?? 0) };
  }

  /**
   * Customers' details are sealed, so a search by them opens the bookings the other filters select
   * (the CUSTOMER_SCAN latest of them, by start) and matches there, any case, the text taken
   * literally; the matches come in start order, as every list does.
   */
  private async listByCustomer(
    where: readonly string[],
    params: readonly unknown[],
    query: BookingQuery,
  ): Promise<{ items: Booking[]; total: number }> {
    const rows = await this.db.all<BookingRow>(
      `SELECT b.* FROM bookings b WHERE ${[...where, 'b.customer IS NOT NULL'].join(' AND ')}
       ORDER BY b.start_at DESC, b.id DESC LIMIT ?`,
      [...params, CUSTOMER_SCAN],
    );
    rows.reverse();
    const wanted = query.customer!.toLowerCase();
    const matches = (await openedBookings(this.db, rows)).filter(({ customer }) =>
      [customer?.name, query.customerByEmail ? customer?.email : undefined].some((field) =>
        field?.toLowerCase().includes(wanted),
      ),
    );
    return { items: matches.slice(query.offset, query.offset + query.limit), total: matches.length };
  }

  async busyIntervals(
    tenantId: string,
    calendarIds: readonly string[],
    range: Interval,
    now: Instant,
  ): Promise<Map<string, Occupied[]>> {
    const busy = new Map<string, Occupied[]>();
    if (calendarIds.length === 0) return busy;
    const rows = await this.db.all<{
      calendar_id: string;
      start_at: number | string;
      end_at: number | string;
      lane: number | string | null;
      lapses_at?: number | string | null;
    }>(
      `SELECT a.calendar_id, a.start_at, a.end_at, a.lane,
              CASE WHEN b.status = 'HELD' THEN b.expires_at END AS lapses_at FROM allocations a
       JOIN bookings b ON b.tenant_id = a.tenant_id AND b.id = a.booking_id
       WHERE a.tenant_id = ? AND a.active = ${this.dialect.TRUE} AND a.calendar_id IN (${placeholders(calendarIds.length)})
         AND a.start_at < ? AND a.start_at > ? AND a.end_at > ?
         AND NOT (b.status = 'HELD' AND b.expires_at <= ?)`,
      [tenantId, ...calendarIds, range.end, range.start - WEEK_MS, range.start, now],
    );
    // External busy time takes every seat lane.
    rows.push(
      ...(await this.externalBusy(tenantId, calendarIds, range)).map((row) => ({ ...row, lane: null })),
    );
    for (const row of rows) {
      const list = busy.get(row.calendar_id) ?? [];
      list.push({
        start: Number(row.start_at),
        end: Number(row.end_at),
        lane: row.lane === null ? null : Number(row.lane),
        ...(row.lapses_at != null ? { lapsesAt: Number(row.lapses_at) } : {}),
      });
      busy.set(row.calendar_id, list);
    }
    return busy;
  }

  /** Calendar feeds: busy time imported from external calendars occupies time like a booking does. */
  private externalBusy(tenantId: string, calendarIds: readonly string[], range: Interval) {
    // Stored in pieces of at most a week (a CHECK on both engines), like allocations.
    return this.db.all<{ calendar_id: string; start_at: number | string; end_at: number | string }>(
      `SELECT calendar_id, start_at, end_at FROM external_busy
       WHERE tenant_id = ? AND calendar_id IN (${placeholders(calendarIds.length)})
         AND start_at < ? AND start_at > ? AND end_at > ?`,
      [tenantId, ...calendarIds, range.end, range.start - WEEK_MS, range.start],
    );
  }

  /** Rows another transaction is already expiring are skipped (PostgreSQL): nobody waits on a lapsed hold. */
  async expireLapsed(now: Instant, tenantId?: string): Promise<number> {
    const lapsed = await this.db.all<{ tenant_id: string; id: string }>(
      `UPDATE bookings SET status = 'EXPIRED', version = version + 1, updated_at = ?,
         payment_follow_up = CASE WHEN price_amount IS NULL THEN ${this.dialect.FALSE} ELSE ${this.dialect.TRUE} END
       WHERE (tenant_id, id) IN (
         SELECT tenant_id, id FROM bookings WHERE status = 'HELD' AND expires_at <= ?
           ${tenantId === undefined ? '' : 'AND tenant_id = ?'}${this.dialect.skipLocked})
       RETURNING tenant_id, id`,
      tenantId === undefined ? [now, now] : [now, now, tenantId],
    );
    for (const row of lapsed)
      await this.db.run(
        `UPDATE allocations SET active = ${this.dialect.FALSE} WHERE tenant_id = ? AND booking_id = ?`,
        [row.tenant_id, row.id],
      );
    return lapsed.length;
  }

  async paymentFollowUps(limit: number): Promise<Booking[]> {
    const rows = await this.db.all<BookingRow>(
      `SELECT * FROM bookings WHERE payment_follow_up = ${this.dialect.TRUE} ORDER BY updated_at LIMIT ?`,
      [limit],
    );
    return openedBookings(this.db, rows);
  }

  async toReconcile(tenantId: string): Promise<Booking[]> {
    const rows = await this.db.all<BookingRow>(
      `SELECT * FROM bookings WHERE tenant_id = ? AND ${this.dialect.jsonFlag('payment', 'reconciliationRequired')}
       ORDER BY updated_at`,
      [tenantId],
    );
    return openedBookings(this.db, rows);
  }

  async toRefund(tenantId: string): Promise<Booking[]> {
    const rows = await this.db.all<BookingRow>(
      `SELECT * FROM bookings WHERE tenant_id = ? AND ${this.dialect.jsonText('payment', 'refund.status')} = 'DUE'
       ORDER BY updated_at`,
      [tenantId],
    );
    return openedBookings(this.db, rows);
  }
}
