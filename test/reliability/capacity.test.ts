import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { call, ok } from '../support/mcp-clients.js';
import { createOpenCalendar, futureHour } from '../support/fixtures.js';
import type { Backend, BackendKind } from './harness.js';
import { clientsFor, record, startBackend } from './harness.js';

const CLIENTS = 64;
const SEATS = 3;

/** Active allocations of one calendar overlapping the slot, by a direct query on the database. */
const taken = (backend: Backend, calendarId: string, start: string, end: string) =>
  backend.sql<{ n: number | string }>(
    backend.kind === 'sqlite'
      ? 'SELECT count(*) AS n FROM allocations WHERE calendar_id = ? AND active = 1 AND start_at < ? AND end_at > ?'
      : 'SELECT count(*) AS n FROM allocations WHERE calendar_id = $1 AND active AND start_at < $2 AND end_at > $3',
    [calendarId, Date.parse(end), Date.parse(start)],
  );

/** 64 agents on as many connections, spread over the instances, each holding the same 3-seat hour once. */
async function race(backend: Backend) {
  const [setup] = await clientsFor(backend, 1);
  const calendarId = await createOpenCalendar(setup!, 'Class with three seats');
  await ok(setup!, 'set_booking_rules', { calendarId, capacity: SEATS, idempotencyKey: randomUUID() });
  await setup!.close();
  const slot = { calendarIds: [calendarId], start: futureHour(3), end: futureHour(3, 1) };
  const clients = await clientsFor(backend, CLIENTS);
  const answers = await Promise.all(
    clients.map((client) =>
      call(client, 'hold_slot', { ...slot, idempotencyKey: randomUUID() }, { timeout: 90_000 }),
    ),
  );
  await Promise.all(clients.map((c) => c.close()));
  const [row] = await taken(backend, calendarId, slot.start, slot.end);
  return {
    winners: answers.filter((a) => a.ok).length,
    refusedAsTaken: answers.filter((a) => a.error?.code === 'SLOT_UNAVAILABLE').length,
    seatsTakenInDatabase: Number(row!.n),
  };
}

describe.each([
  ['sqlite', 1],
  ['postgres', 2],
] as [BackendKind, number][])('a 3-seat slot on %s (%i instances)', (kind, instances) => {
  it(`${CLIENTS} agents race for it: exactly ${SEATS} win, never more`, async () => {
    const backend = await startBackend(kind, { instances });
    try {
      const figures = await race(backend);
      record('capacity', backend.label, figures);
      expect(figures).toEqual({
        winners: SEATS,
        refusedAsTaken: CLIENTS - SEATS,
        seatsTakenInDatabase: SEATS,
      });
    } finally {
      await backend.stop();
    }
  }, 120_000);

  it('negative control: with the per-lane guard dropped, the same race overfills the slot', async () => {
    const backend = await startBackend(kind, {
      instances,
      tamper: async (sql) =>
        kind === 'sqlite'
          ? (await sql('DROP TRIGGER allocations_no_overlap_insert'),
            await sql('DROP TRIGGER allocations_no_overlap_update'))
          : sql('ALTER TABLE allocations DROP CONSTRAINT allocations_no_overlap'),
    });
    try {
      const figures = await race(backend);
      record('capacity negative control', backend.label, figures);
      expect(figures.seatsTakenInDatabase).toBeGreaterThan(SEATS);
    } finally {
      await backend.stop();
    }
  }, 120_000);

  it('lowering the capacity below the seats in use lets no new booking in beside them', async () => {
    const backend = await startBackend(kind, { instances });
    try {
      const [agent] = await clientsFor(backend, 1);
      const calendarId = await createOpenCalendar(agent!, 'Shrinking class');
      const setCapacity = (capacity: number) =>
        ok(agent!, 'set_booking_rules', { calendarId, capacity, idempotencyKey: randomUUID() });
      await setCapacity(3);
      const slot = { calendarIds: [calendarId], start: futureHour(4), end: futureHour(4, 1) };
      const holds = [];
      for (let i = 0; i < 3; i++)
        holds.push((await ok(agent!, 'hold_slot', { ...slot, idempotencyKey: randomUUID() })).booking);
      // The first seat is given back, then the class shrinks to one seat: two bookings remain in it.
      await ok(agent!, 'release_hold', {
        bookingId: holds[0].id,
        expectedVersion: holds[0].version,
        idempotencyKey: randomUUID(),
      });
      for (const capacity of [1, 2]) {
        await setCapacity(capacity);
        const search = await ok(agent!, 'find_slots', {
          calendarIds: [calendarId],
          from: slot.start,
          to: slot.end,
          durationMinutes: 60,
          limit: 10,
        });
        expect(search.total, `capacity ${capacity}`).toBe(0);
        const refused = await call(agent!, 'hold_slot', { ...slot, idempotencyKey: randomUUID() });
        expect(refused.error?.code, `capacity ${capacity}`).toBe('SLOT_UNAVAILABLE');
      }
      const [row] = await taken(backend, calendarId, slot.start, slot.end);
      expect(Number(row!.n)).toBe(2);
      // Another hour still takes bookings.
      expect(
        (
          await call(agent!, 'hold_slot', {
            calendarIds: [calendarId],
            start: futureHour(4, 2),
            end: futureHour(4, 3),
            idempotencyKey: randomUUID(),
          })
        ).ok,
      ).toBe(true);
      await agent!.close();
    } finally {
      await backend.stop();
    }
  }, 120_000);
});
