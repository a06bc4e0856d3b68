import Database from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { mapPgError } from '../../../src/adapters/storage/postgres/pg-errors.js';
import { PgStore } from '../../../src/adapters/storage/postgres/pg-store.js';
import { bookingToRow } from '../../../src/adapters/storage/rows.js';
import { mapSqliteError } from '../../../src/adapters/storage/sqlite/sqlite-errors.js';
import { SqliteStore } from '../../../src/adapters/storage/sqlite/sqlite-store.js';
import type { Booking } from '../../../src/domain/booking/booking.js';
import { DomainError } from '../../../src/domain/errors.js';
import type { Store } from '../../../src/ports/store/index.js';
import { freshSchema, withClient } from '../../support/postgres.js';
import { tempDbPath } from '../../support/spawn-server.js';
import { calendar, hold, planFor } from './store-contract.js';

// The engine itself refuses an active allocation over external busy time of its calendar, whoever
// writes it: raw SQL included. Busy time imported over an existing booking is stored (a fact), and
// that booking can still be confirmed.

const H = 3_600_000;
const T0 = Date.UTC(2030, 0, 7, 9);

interface Engine {
  readonly store: Store;
  /** Runs one statement outside Holdfast's code; `?` placeholders. */
  sql(text: string, params: unknown[]): Promise<void>;
  mapError(error: unknown): unknown;
  close(): Promise<void>;
}

async function sqliteEngine(): Promise<Engine> {
  const db = tempDbPath();
  const store = await SqliteStore.open(db.path);
  const raw = new Database(db.path);
  raw.pragma('busy_timeout = 5000');
  return {
    store,
    sql: async (text, params) =>
      void raw.prepare(text).run(...params.map((p) => (p === true ? 1 : p === false ? 0 : p))),
    mapError: mapSqliteError,
    async close() {
      raw.close();
      await store.close();
      db.cleanup();
    },
  };
}

async function postgresEngine(): Promise<Engine & { schema: string }> {
  const schema = freshSchema();
  const store = await PgStore.open(schema.url);
  return {
    store,
    schema: schema.name,
    sql: (text, params) =>
      withClient(schema.name, async (client) => {
        let n = 0;
        await client.query(
          text.replace(/\?/g, () => `$${++n}`),
          params,
        );
      }),
    mapError: mapPgError,
    async close() {
      await store.close();
      await schema.drop();
    },
  };
}

const insertBooking = (engine: Engine, b: Booking) => {
  const row = bookingToRow(b) as unknown as Record<string, unknown>;
  const columns = Object.keys(row);
  return engine.sql(
    `INSERT INTO bookings (${columns.join(', ')}) VALUES (${columns.map(() => '?').join(', ')})`,
    Object.values(row),
  );
};
const insertAllocation = (engine: Engine, b: Booking, start: number, end: number, active: boolean) =>
  engine.sql(
    'INSERT INTO allocations (tenant_id, booking_id, calendar_id, start_at, end_at, active) VALUES (?, ?, ?, ?, ?, ?)',
    [b.tenantId, b.id, b.calendarIds[0], start, end, active],
  );
const insertBusy = (engine: Engine, start: number, end: number) =>
  engine.sql(
    'INSERT INTO external_busy (tenant_id, calendar_id, subscription_id, start_at, end_at) VALUES (?, ?, ?, ?, ?)',
    ['t1', 'cal_x', 'sub_1', start, end],
  );

async function refusal(engine: Engine, write: Promise<unknown>): Promise<unknown> {
  const error = await write.then(
    () => null,
    (e: unknown) => e,
  );
  expect(error, 'the engine accepted an overlapping allocation').not.toBeNull();
  return engine.mapError(error);
}

function engineEnforcement(name: string, open: () => Promise<Engine>) {
  describe(`${name}: external busy time in the engine`, () => {
    let engine: Engine;
    afterAll(async () => engine?.close());

    it('refuses an active allocation written with SQL over busy time, as SLOT_UNAVAILABLE', async () => {
      engine = await open();
      await engine.store.write((tx) => tx.calendars.insert(calendar('cal_x')));
      await insertBusy(engine, T0 + H, T0 + 2 * H);
      const b = hold(['cal_x'], T0 + H + 30 * 60_000, T0 + 2 * H + 30 * 60_000);
      await insertBooking(engine, b);
      const mapped = await refusal(engine, insertAllocation(engine, b, b.start, b.end, true));
      expect(mapped).toBeInstanceOf(DomainError);
      expect(mapped).toMatchObject({
        code: 'SLOT_UNAVAILABLE',
        message: expect.stringMatching(/external calendar/),
      });
      // Touching is not overlapping: [T0+2h, T0+3h) is free.
      await insertAllocation(engine, b, T0 + 2 * H, T0 + 3 * H, true);
    });

    it('refuses activating or moving an allocation onto busy time', async () => {
      const b = hold(['cal_x'], T0 + H, T0 + 2 * H);
      await insertBooking(engine, b);
      await insertAllocation(engine, b, T0 + H, T0 + 2 * H, false);
      const activate = engine.sql('UPDATE allocations SET active = ? WHERE booking_id = ?', [true, b.id]);
      expect(await refusal(engine, activate)).toMatchObject({ code: 'SLOT_UNAVAILABLE' });
      const c = hold(['cal_x'], T0 + 5 * H, T0 + 6 * H);
      await insertBooking(engine, c);
      await insertAllocation(engine, c, T0 + 5 * H, T0 + 6 * H, true);
      const move = engine.sql('UPDATE allocations SET start_at = ?, end_at = ? WHERE booking_id = ?', [
        T0 + H,
        T0 + 2 * H,
        c.id,
      ]);
      expect(await refusal(engine, move)).toMatchObject({ code: 'SLOT_UNAVAILABLE' });
    });

    it('refuses the hold path over busy time (the store’s own placeHold)', async () => {
      const b = hold(['cal_x'], T0 + H, T0 + H + 15 * 60_000);
      const placed = engine.store.writeOne((tx) => tx.bookings.placeHold(planFor(b)));
      await expect(placed).rejects.toMatchObject({ code: 'SLOT_UNAVAILABLE' });
    });

    it('stores busy time imported over a booking, and the booking still confirms', async () => {
      const b = hold(['cal_x'], T0 + 10 * H, T0 + 11 * H);
      await engine.store.writeOne((tx) => tx.bookings.placeHold(planFor(b)));
      await insertBusy(engine, T0 + 10 * H, T0 + 12 * H);
      const confirmed: Booking = {
        ...b,
        status: 'CONFIRMED',
        version: 2,
        updatedAt: T0 + 1,
        expiresAt: null,
      };
      await engine.store.write((tx) => tx.bookings.update(confirmed));
      expect((await engine.store.read((tx) => tx.bookings.get('t1', b.id)))?.status).toBe('CONFIRMED');
    });
  });
}

engineEnforcement('SQLite', sqliteEngine);
engineEnforcement('PostgreSQL', postgresEngine);

describe('PostgreSQL: a hold waits for a refresh of its calendar, then sees its busy time', () => {
  let engine: Awaited<ReturnType<typeof postgresEngine>>;
  afterAll(async () => engine?.close());

  it('an allocation racing an uncommitted refresh is refused once the refresh commits', async () => {
    engine = await postgresEngine();
    await engine.store.write((tx) => tx.calendars.insert(calendar('cal_x')));
    const b = hold(['cal_x'], T0 + 20 * H, T0 + 21 * H);
    await insertBooking(engine, b);
    await withClient(engine.schema, async (refresh) => {
      // What PgFeeds.replaceBusy does: the calendar's busy-time lock, then the new busy time.
      await refresh.query('BEGIN');
      await refresh.query(
        "SELECT pg_advisory_xact_lock(hashtextextended(current_schema() || ':holdfast-busy:' || $1 || ':' || $2, 0))",
        ['t1', 'cal_x'],
      );
      await refresh.query("INSERT INTO external_busy VALUES ('t1', 'cal_x', 'sub_1', $1, $2)", [
        T0 + 20 * H,
        T0 + 22 * H,
      ]);
      const racing = insertAllocation(engine, b, b.start, b.end, true).then(
        () => null,
        (e: unknown) => e,
      );
      // Until the allocation's check is waiting on the lock (without it, it would see no busy time and commit).
      await withClient(engine.schema, async (watcher) => {
        for (;;) {
          const { rows } = await watcher.query(
            "SELECT count(*)::int AS n FROM pg_locks WHERE locktype = 'advisory' AND NOT granted",
          );
          if (rows[0].n > 0) break;
          await new Promise((resolve) => setTimeout(resolve, 10));
        }
      });
      await refresh.query('COMMIT');
      const error = await racing;
      expect(engine.mapError(error)).toMatchObject({ code: 'SLOT_UNAVAILABLE' });
    });
  });
});
