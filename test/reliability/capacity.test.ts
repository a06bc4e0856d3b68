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
    `SELECT count(*) AS n FROM allocations WHERE calendar_id = $1 AND ${backend.kind === 'sqlite' ? 'active = 1' : 'active'}
       AND start_at < $2 AND end_at > $3`.replace(/\$\d/g, backend.kind === 'sqlite' ? '?' : (m) => m),
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
});
