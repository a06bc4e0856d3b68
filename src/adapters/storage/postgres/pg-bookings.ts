import { createHash } from 'node:crypto';
import { auditEntryColumns, auditEntryValues } from '../audit-rows.js';
import type { CalendarSpan, HoldPlacement, HoldPlan, LimitCheck } from '../../../ports/store/index.js';
import type { Booking } from '../../../domain/booking/booking.js';
import { NO_LIMIT } from '../../../domain/identity/identity.js';
import { idempotencyValues } from '../rows.js';
import { customerHandle } from '../customer-vault.js';
import { bookingColumns, bookingValues, BookingsSql } from '../sql/bookings-sql.js';
import { IdempotencySql } from '../sql/idempotency-sql.js';

const IDEMPOTENCY_COLUMNS = [
  'tenant_id',
  'subject',
  'tool',
  'key',
  'arguments_digest',
  'result',
  'created_at',
  'expires_at',
];
const AUDIT_COLUMNS = [...auditEntryColumns, 'entry_mac'];

/** Column types where they are not text: parameters in a SELECT list get no type from the target column. */
const TYPES: Record<string, string> = {
  start_at: 'bigint',
  end_at: 'bigint',
  version: 'int',
  created_at: 'bigint',
  updated_at: 'bigint',
  expires_at: 'bigint',
  payment_follow_up: 'boolean',
  at: 'bigint',
  duration_ms: 'float8',
};
const typed = (columns: readonly string[]) => columns.map((c) => `?::${TYPES[c] ?? 'text'}`).join(', ');

/**
 * The whole hold in one statement, so one round trip when it runs autocommitted: the calendars
 * are as the plan saw them (locked FOR SHARE until the hold commits), the key is claimed (an expired record taken over) with its answer,
 * and only then the booking, its allocations in sorted calendar order (racing holds lock in the
 * same order) and the audit entry are written. One text per number of calendars, each prepared
 * once per connection.
 */
function placeHoldSql(
  calendars: number,
  versionsChecked: number,
  audited: boolean,
  capped: boolean,
  limited: boolean,
): string {
  const versions = Array.from({ length: versionsChecked }, () => '(?::text, ?::int)').join(', ');
  // A move may hold nothing new on any calendar (its new time lies inside the old one).
  const allocations =
    calendars === 0
      ? 'SELECT NULL::text, NULL::bigint, NULL::bigint, NULL::int WHERE false'
      : `VALUES ${Array.from({ length: calendars }, () => '(?::text, ?::bigint, ?::bigint, ?::int)').join(', ')}`;
  return `
WITH cells AS (
  SELECT count(pg_advisory_xact_lock(k)) AS n FROM unnest(?::bigint[]) AS k
), checked AS (
  -- FOR SHARE: a change of these calendars that committed meanwhile is seen (the row is read again
  -- at its newest version, which no longer matches), and one not yet committed waits for the hold.
  SELECT id FROM calendars WHERE tenant_id = ?::text AND (id, version) IN (VALUES ${versions})
    AND (SELECT n FROM cells) >= 0
  FOR SHARE
), fresh AS (
  SELECT count(*) = ${versionsChecked} AS ok FROM checked
), room AS (
  SELECT ${capped ? 'holdfast_hold_room(?::text, ?::text, ?::text, ?::bigint, ?::int, ?::int, ?::bigint, ?::bigint)' : 'true'} AS ok
), rules AS (
  SELECT ${limited ? 'holdfast_rules_room(?::text, ?::bigint, ?::text)' : '0'} AS failed
), claim AS (
  INSERT INTO idempotency (${IDEMPOTENCY_COLUMNS.join(', ')})
  SELECT ${typed(IDEMPOTENCY_COLUMNS)} WHERE (SELECT ok FROM fresh) AND (SELECT ok FROM room)
    AND (SELECT failed FROM rules) = 0
  ON CONFLICT (tenant_id, subject, tool, key) DO UPDATE SET arguments_digest = excluded.arguments_digest,
    result = excluded.result, created_at = excluded.created_at, expires_at = excluded.expires_at
  WHERE idempotency.expires_at <= excluded.created_at
  RETURNING tenant_id
), booking AS (
  INSERT INTO bookings (${bookingColumns.join(', ')})
  SELECT ${typed(bookingColumns)} WHERE EXISTS (SELECT 1 FROM claim)
  RETURNING tenant_id, id, start_at, end_at
), allocation AS (
  INSERT INTO allocations (tenant_id, booking_id, calendar_id, start_at, end_at, active, lane)
  SELECT booking.tenant_id, booking.id, c.calendar_id, c.start_at, c.end_at, true,
    holdfast_free_lane(booking.tenant_id, c.calendar_id, c.start_at, c.end_at, c.capacity)
  FROM booking, (${allocations}) AS c(calendar_id, start_at, end_at, capacity) ORDER BY c.calendar_id
  RETURNING 1
)${
    audited
      ? `, audit AS (
  INSERT INTO audit_pending (${AUDIT_COLUMNS.join(', ')})
  SELECT ${typed(AUDIT_COLUMNS)} WHERE EXISTS (SELECT 1 FROM booking)
  RETURNING 1
)`
      : ''
  }
SELECT (SELECT ok FROM fresh) AS fresh, (SELECT ok FROM room) AS room, (SELECT failed FROM rules) AS failed,
  (SELECT count(*) FROM claim) AS claimed, (SELECT count(*) FROM allocation) AS allocated`;
}

const HOUR_MS = 3_600_000;
/** Past this many hours (62 days) a hold locks its calendars whole: a few keys rather than thousands. */
const MAX_CELLS = 24 * 62;

/**
 * The advisory-lock keys of the (calendar, UTC hour) cells a hold covers, in ascending order.
 * PostgreSQL checks an exclusion constraint after inserting: two holds of the same time insert
 * their allocations, each finds the other's uncommitted row and waits for it — a deadlock, which
 * costs a second to detect and a retry. Taking the cells' locks first, always in one order,
 * queues such holds instead; holds of other hours or calendars share no cell and run side by
 * side. A hash collision only queues two holds that need not wait.
 */
export function cellLocks(
  tenantId: string,
  calendars: readonly string[],
  start: number,
  end: number,
): string[] {
  const first = Math.floor(start / HOUR_MS);
  const count = Math.floor((end - 1) / HOUR_MS) - first + 1;
  const cells = count <= MAX_CELLS ? Array.from({ length: count }, (_, i) => first + i) : ['all'];
  const keys = new Set<bigint>();
  for (const calendar of calendars)
    for (const cell of cells)
      keys.add(
        createHash('sha256').update(`${tenantId}\u0000${calendar}\u0000${cell}`).digest().readBigInt64BE(0),
      );
  return [...keys].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0)).map(String);
}

/** The limit checks as holdfast_rules_room reads them. */
/** The checks as the statement reads them; a customer's key as the handle their bookings store. */
function limitChecksJson(tenantId: string, checks: readonly LimitCheck[]): string {
  return JSON.stringify(
    checks.map((l) => ({
      c: l.calendarId,
      f: l.from,
      t: l.to,
      m: l.max,
      k: l.customerKey === null ? null : customerHandle(tenantId, l.customerKey),
      x: l.excludeBookingId,
    })),
  );
}

/** PostgreSQL's bookings: the shared SQL, with the hold and the expiry of lapsed holds as one statement each. */
export class PgBookings extends BookingsSql {
  /** One statement, so it may run autocommitted (Store.writeOne): rows another expiry holds are skipped. */
  override async expireLapsed(now: number, tenantId?: string): Promise<number> {
    const [row] = await this.db.all<{ n: string }>(
      `WITH lapsed AS (
         UPDATE bookings SET status = 'EXPIRED', version = version + 1, updated_at = ?::bigint,
           payment_follow_up = (price_amount IS NOT NULL)
         WHERE (tenant_id, id) IN (
           SELECT tenant_id, id FROM bookings WHERE status = 'HELD' AND expires_at <= ?::bigint
             ${tenantId === undefined ? '' : 'AND tenant_id = ?::text'} FOR UPDATE SKIP LOCKED)
         RETURNING tenant_id, id
       ), freed AS (
         UPDATE allocations a SET active = false FROM lapsed l
         WHERE a.tenant_id = l.tenant_id AND a.booking_id = l.id
         RETURNING 1
       )
       SELECT count(*) AS n FROM lapsed`,
      tenantId === undefined ? [now, now] : [now, now, tenantId],
    );
    return Number(row?.n ?? 0);
  }

  /** Counted by the hold's own function, under the same per-calendar locks. */
  override async fullLimit(
    tenantId: string,
    checks: readonly LimitCheck[],
    now: number,
  ): Promise<LimitCheck | null> {
    if (checks.length === 0) return null;
    const [row] = await this.db.all<{ failed: number }>(
      'SELECT holdfast_rules_room(?::text, ?::bigint, ?::text) AS failed',
      [tenantId, now, limitChecksJson(tenantId, checks)],
    );
    const failed = Number(row?.failed ?? 0);
    return failed > 0 ? checks[failed - 1]! : null;
  }

  /** A confirmed move, inside its transaction: the cells first (as a hold takes them), then the rows. */
  override async replaceAllocations(booking: Booking, spans: readonly CalendarSpan[]): Promise<void> {
    if (spans.length > 0)
      await this.db.all('SELECT count(pg_advisory_xact_lock(k)) AS n FROM unnest(?::bigint[]) AS k', [
        cellLocks(
          booking.tenantId,
          spans.map((span) => span.calendarId),
          Math.min(...spans.map((span) => span.start)),
          Math.max(...spans.map((span) => span.end)),
        ),
      ]);
    await super.replaceAllocations(booking, spans);
  }

  override async placeHold(plan: HoldPlan): Promise<HoldPlacement> {
    const b = plan.booking;
    // The customer's key is made (or found) first: the hold's one statement stores the details sealed.
    const values = await bookingValues(this.db, b);
    const calendars = [...b.calendarIds].sort();
    const spans = [...plan.occupies].sort((x, y) => (x.calendarId < y.calendarId ? -1 : 1));
    const [row] = await this.db.all<{ fresh: boolean; room: boolean; failed: number; claimed: string }>(
      placeHoldSql(
        spans.length,
        plan.calendarVersions.length,
        plan.audit !== undefined,
        plan.cap !== null,
        plan.limits.length > 0,
      ),
      [
        spans.length === 0
          ? []
          : cellLocks(
              b.tenantId,
              calendars,
              Math.min(...spans.map((span) => span.start)),
              Math.max(...spans.map((span) => span.end)),
            ),
        b.tenantId,
        ...plan.calendarVersions.flatMap((v) => [v.id, v.version]),
        ...(plan.cap
          ? [
              b.tenantId,
              b.owner.subject,
              b.owner.connectionId,
              b.createdAt,
              Math.min(plan.cap.perPerson, NO_LIMIT),
              Math.min(plan.cap.perConnection, NO_LIMIT),
              plan.cap.heldMsPerPerson,
              plan.cap.thisHoldMs,
            ]
          : []),
        ...(plan.limits.length > 0
          ? [b.tenantId, b.createdAt, limitChecksJson(b.tenantId, plan.limits)]
          : []),
        ...idempotencyValues(plan.idempotency),
        ...values,
        ...spans.flatMap((span) => [span.calendarId, span.start, span.end, span.capacity]),
        ...(plan.audit ? [...auditEntryValues(plan.audit.entry), plan.audit.mac] : []),
      ],
    );
    if (!row?.fresh) return { outcome: 'stale' };
    if (Number(row.claimed) === 1) return { outcome: 'placed' };
    const existing = await new IdempotencySql(this.db).get(plan.idempotency);
    const live = !!existing && existing.expiresAt > plan.idempotency.createdAt;
    if (!row.room && !live) return { outcome: 'full' };
    const failed = Number(row.failed);
    if (failed > 0 && !live) return { outcome: 'limited', check: plan.limits[failed - 1]! };
    // Claimed by nobody and recorded nowhere cannot happen in one statement; answer as if stale and let the caller retry.
    return existing ? { outcome: 'replay', existing } : { outcome: 'stale' };
  }
}
