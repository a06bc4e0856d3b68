import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { afterEach, describe, expect, it } from 'vitest';
import { cellLocks } from '../../../src/adapters/storage/postgres/pg-bookings.js';
import { createCalendar, setAvailability } from '../../../src/app/calendars/calendars.js';
import { holdSlot } from '../../../src/app/booking/hold-slot.js';
import { isDomainError } from '../../../src/domain/errors.js';
import { appHarnessOn, operator } from '../../support/app-harness.js';
import { PG_URL } from '../../support/postgres.js';

// A PostgreSQL hold checks the versions of the calendars it planned against, in the same
// statement that writes it. That check must lock what it read: a change to the calendar's hours
// committed while the hold waits (here, for another hold's cell) must make the hold re-plan and
// see the new hours — never place a booking under hours that no longer hold.

const T0 = Date.UTC(2030, 0, 7, 8);
const allDay = [{ start: '00:00', end: '24:00' }];
const week = { mon: allDay, tue: allDay, wed: allDay, thu: allDay, fri: allDay };

describe('a PostgreSQL hold racing a change of its calendar’s hours', () => {
  let h: Awaited<ReturnType<typeof appHarnessOn>> | undefined;
  afterEach(() => h?.close());

  it('re-plans under the new hours: the slot just closed is refused, 0 bookings placed in it', async () => {
    h = await appHarnessOn('postgres', T0);
    const deps = h.deps;
    const { value: room } = await createCalendar(deps, operator, {
      name: 'Jade Room',
      timeZone: 'UTC',
      availability: { weekly: week, overrides: [] },
      idempotencyKey: randomUUID(),
    });
    const start = Date.UTC(2030, 0, 8, 10);
    const end = start + 3_600_000;

    // Another transaction holds the hold's cells, as a racing hold of the same hour would.
    const blocker = new pg.Client({ connectionString: PG_URL });
    await blocker.connect();
    try {
      const blockerPid = (await blocker.query('SELECT pg_backend_pid() AS pid')).rows[0].pid as number;
      await blocker.query('BEGIN');
      for (const key of cellLocks(operator.tenantId, [room.id], start, end))
        await blocker.query('SELECT pg_advisory_xact_lock($1::bigint)', [key]);

      const hold = holdSlot(deps, operator, {
        calendarIds: [room.id],
        start: new Date(start).toISOString(),
        end: new Date(end).toISOString(),
        idempotencyKey: randomUUID(),
      }).then(
        (outcome) => ({ placed: outcome.value.booking.id }),
        (error: unknown) => ({ refused: isDomainError(error) ? error.code : String(error) }),
      );
      // Wait until the hold's statement is queued behind the cells (its snapshot is taken).
      for (let i = 0; ; i++) {
        const waiting = await blocker.query(
          'SELECT count(*)::int AS n FROM pg_stat_activity WHERE $1::int = ANY(pg_blocking_pids(pid))',
          [blockerPid],
        );
        if (waiting.rows[0].n > 0) break;
        expect(i, 'the hold never reached its cells').toBeLessThan(500);
        await new Promise((r) => setTimeout(r, 10));
      }
      // Meanwhile the owner closes Tuesday; that change commits while the hold waits.
      await setAvailability(deps, operator, {
        calendarId: room.id,
        availability: { weekly: { ...week, tue: [] }, overrides: [] },
        idempotencyKey: randomUUID(),
      });
      await blocker.query('COMMIT');

      const result = await hold;
      expect(result).toEqual({ refused: 'OUTSIDE_AVAILABILITY' });
      const placed = await deps.store.read((tx) =>
        tx.bookings.list(operator.tenantId, { calendarId: room.id, now: T0, offset: 0, limit: 10 }),
      );
      expect(placed.total).toBe(0);
    } finally {
      await blocker.end();
    }
  });
});
