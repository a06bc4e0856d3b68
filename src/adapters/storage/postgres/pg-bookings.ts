import { auditEntryColumns, auditEntryValues } from '../audit-rows.js';
import type { HoldPlacement, HoldPlan } from '../../../ports/store/index.js';
import { bookingToRow, idempotencyValues } from '../rows.js';
import { BookingsSql } from '../sql/bookings-sql.js';
import { IdempotencySql } from '../sql/idempotency-sql.js';

const IDEMPOTENCY_COLUMNS = 'tenant_id, subject, tool, key, arguments_digest, result, created_at, expires_at';
const AUDIT_COLUMNS = [...auditEntryColumns, 'entry_mac'].join(', ');

/**
 * The whole hold in one statement, so one round trip when it runs autocommitted: the calendars
 * are as the plan saw them, the key is claimed (an expired record taken over) with its answer,
 * and only then the booking, its allocations in sorted calendar order (racing holds lock in the
 * same order) and the audit entry are written. Rows travel as JSON and take the tables' own
 * column types (jsonb_populate_record), so no value is cast by hand.
 */
const PLACE_HOLD = `
WITH fresh AS (
  SELECT count(*) = ?::int AS ok FROM calendars
  WHERE tenant_id = ? AND (id, version) IN (SELECT * FROM jsonb_to_recordset(?::jsonb) AS v(id text, version int))
), claim AS (
  INSERT INTO idempotency (${IDEMPOTENCY_COLUMNS})
  SELECT ${IDEMPOTENCY_COLUMNS} FROM jsonb_populate_record(null::idempotency, ?::jsonb) WHERE (SELECT ok FROM fresh)
  ON CONFLICT (tenant_id, subject, tool, key) DO UPDATE SET arguments_digest = excluded.arguments_digest,
    result = excluded.result, created_at = excluded.created_at, expires_at = excluded.expires_at
  WHERE idempotency.expires_at <= excluded.created_at
  RETURNING 1
), booking AS (
  INSERT INTO bookings SELECT * FROM jsonb_populate_record(null::bookings, ?::jsonb) WHERE EXISTS (SELECT 1 FROM claim)
  RETURNING 1
), allocation AS (
  INSERT INTO allocations (tenant_id, booking_id, calendar_id, start_at, end_at, active)
  SELECT a.tenant_id, a.booking_id, a.calendar_id, a.start_at, a.end_at, true
  FROM jsonb_populate_recordset(null::allocations, ?::jsonb) WITH ORDINALITY AS a
  WHERE EXISTS (SELECT 1 FROM booking) ORDER BY ordinality
  RETURNING 1
), audit AS (
  INSERT INTO audit_pending (${AUDIT_COLUMNS})
  SELECT ${AUDIT_COLUMNS} FROM jsonb_populate_recordset(null::audit_pending, ?::jsonb) WHERE EXISTS (SELECT 1 FROM booking)
  RETURNING 1
)
SELECT (SELECT ok FROM fresh) AS fresh, (SELECT count(*) FROM claim) AS claimed,
  (SELECT count(*) FROM allocation) AS allocated, (SELECT count(*) FROM audit) AS audited`;

const columnsOf = (names: readonly string[], values: readonly unknown[]) =>
  Object.fromEntries(names.map((name, i) => [name, values[i]]));

/** PostgreSQL's bookings: the shared SQL, with the hold as one statement. */
export class PgBookings extends BookingsSql {
  override async placeHold(plan: HoldPlan): Promise<HoldPlacement> {
    const b = plan.booking;
    const allocations = [...b.calendarIds].sort().map((calendarId) => ({
      tenant_id: b.tenantId,
      booking_id: b.id,
      calendar_id: calendarId,
      start_at: b.start,
      end_at: b.end,
    }));
    const audit = plan.audit
      ? [
          columnsOf(
            [...auditEntryColumns, 'entry_mac'],
            [...auditEntryValues(plan.audit.entry), plan.audit.mac],
          ),
        ]
      : [];
    const [row] = await this.db.all<{ fresh: boolean; claimed: string; allocated: string }>(PLACE_HOLD, [
      plan.calendarVersions.length,
      b.tenantId,
      JSON.stringify(plan.calendarVersions),
      JSON.stringify(columnsOf(IDEMPOTENCY_COLUMNS.split(', '), idempotencyValues(plan.idempotency))),
      JSON.stringify(bookingToRow(b)),
      JSON.stringify(allocations),
      JSON.stringify(audit),
    ]);
    if (!row?.fresh) return { outcome: 'stale' };
    if (Number(row.claimed) === 1) return { outcome: 'placed' };
    const existing = await new IdempotencySql(this.db).get(plan.idempotency);
    // Claimed by nobody and recorded nowhere cannot happen in one statement; answer as if stale and let the caller retry.
    return existing ? { outcome: 'replay', existing } : { outcome: 'stale' };
  }
}
