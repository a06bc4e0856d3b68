import { randomUUID } from 'node:crypto';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createOpenCalendar, futureHour } from '../support/fixtures.js';
import { call, connectHttp } from '../support/mcp-clients.js';
import type { RunningServer } from '../support/spawn-server.js';
import { spawnServer } from '../support/spawn-server.js';

const CLIENTS = 32;
const SLOTS = 4;

let server: RunningServer;
beforeAll(async () => {
  server = await spawnServer(['--no-seed']);
});
afterAll(() => server.stop());

describe(`${CLIENTS} clients racing over HTTP for ${SLOTS} slots`, () => {
  it('gives each slot exactly one winner; every loser gets SLOT_UNAVAILABLE with alternatives', async () => {
    const setup = await connectHttp(server.url, 'modern');
    const rooms = [
      await createOpenCalendar(setup, 'Race room 1'),
      await createOpenCalendar(setup, 'Race room 2'),
    ];
    await setup.close();
    const slots = Array.from({ length: SLOTS }, (_, i) => ({
      start: futureHour(2, i),
      end: futureHour(2, i + 1),
    }));

    const clients = await Promise.all(
      Array.from({ length: CLIENTS }, (_, i) => connectHttp(server.url, i % 2 === 0 ? 'modern' : 'legacy')),
    );
    // Every client asks for every slot at once; half of them on both rooms, half on one, to race multi-calendar holds too.
    const attempts = clients.flatMap((client, i) =>
      slots.map((slot, s) => ({
        slot: s,
        promise: call(client, 'hold_slot', {
          calendarIds: i % 2 === 0 ? rooms : [rooms[1]!],
          start: slot.start,
          end: slot.end,
          idempotencyKey: randomUUID(),
        }),
      })),
    );
    const results = await Promise.all(
      attempts.map(async (a) => ({ slot: a.slot, envelope: await a.promise })),
    );
    await Promise.all(clients.map((c) => c.close()));

    for (let s = 0; s < SLOTS; s++) {
      const forSlot = results.filter((r) => r.slot === s);
      const winners = forSlot.filter((r) => r.envelope.ok);
      const losers = forSlot.filter((r) => !r.envelope.ok);
      expect(winners).toHaveLength(1);
      expect(losers).toHaveLength(CLIENTS - 1);
      for (const loser of losers) {
        expect(loser.envelope.error!.code).toBe('SLOT_UNAVAILABLE');
        expect(Array.isArray(loser.envelope.error!.details.alternatives)).toBe(true);
      }
    }

    const db = new Database(server.dbPath, { readonly: true });
    const overlaps = db
      .prepare(
        `SELECT count(*) AS n FROM allocations a JOIN allocations b
           ON a.tenant_id = b.tenant_id AND a.calendar_id = b.calendar_id AND a.rowid < b.rowid
         WHERE a.active = 1 AND b.active = 1 AND a.start_at < b.end_at AND b.start_at < a.end_at`,
      )
      .get() as { n: number };
    const active = db.prepare('SELECT count(*) AS n FROM allocations WHERE active = 1').get() as {
      n: number;
    };
    db.close();
    expect(overlaps.n).toBe(0);
    expect(active.n).toBeGreaterThanOrEqual(SLOTS);
  });
});
