import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { Envelope } from '../support/mcp-clients.js';
import { call } from '../support/mcp-clients.js';
import { createOpenCalendar, futureHour } from '../support/fixtures.js';
import type { Backend, BackendKind } from './harness.js';
import { clientsFor, percentile, record, scale, startBackend } from './harness.js';

const CLIENTS = scale(16, 64);
const ATTEMPTS = scale(200, 100_000);
/** The negative control needs only enough attempts to show the double bookings. */
const CONTROL_ATTEMPTS = scale(200, 2000);
const CALENDARS = 5;
const HOURS = 4; // 5 calendars x 4 hours = 20 contended slots

interface ContentionFigures {
  attempts: number;
  slots: number;
  slotsWithOneWinner: number;
  slotsWithManyWinners: number;
  losers: number;
  losersSlotUnavailable: number;
  unexpected: number;
  doubleBookings: number;
  p50: number;
  p99: number;
}

/** Every client hammers random slots of a small grid until the attempts are spent. */
async function contention(backend: Backend, attempts: number): Promise<ContentionFigures> {
  const [setup] = await clientsFor(backend, 1);
  const calendars: string[] = [];
  for (let c = 0; c < CALENDARS; c++) calendars.push(await createOpenCalendar(setup!, `Contended ${c}`));
  await setup!.close();
  const slots = calendars.flatMap((calendarId) =>
    Array.from({ length: HOURS }, (_, h) => ({
      calendarIds: [calendarId],
      start: futureHour(2, h),
      end: futureHour(2, h + 1),
    })),
  );
  const clients = await clientsFor(backend, CLIENTS);
  const outcomes: { slot: number; envelope?: Envelope; ms: number }[] = [];
  let next = 0;
  await Promise.all(
    clients.map(async (client) => {
      while (next < attempts) {
        next++;
        const slot = Math.floor(Math.random() * slots.length);
        const started = performance.now();
        try {
          const envelope = await call(client, 'hold_slot', { ...slots[slot]!, idempotencyKey: randomUUID() });
          outcomes.push({ slot, envelope, ms: performance.now() - started });
        } catch {
          outcomes.push({ slot, ms: performance.now() - started });
        }
      }
    }),
  );
  await Promise.all(clients.map((c) => c.close()));
  const winners = slots.map((_, s) => outcomes.filter((o) => o.slot === s && o.envelope?.ok).length);
  const losers = outcomes.filter((o) => o.envelope && !o.envelope.ok);
  const latencies = outcomes.map((o) => o.ms).sort((a, b) => a - b);
  return {
    attempts: outcomes.length,
    slots: slots.length,
    slotsWithOneWinner: winners.filter((w) => w === 1).length,
    slotsWithManyWinners: winners.filter((w) => w > 1).length,
    losers: losers.length,
    losersSlotUnavailable: losers.filter((o) => o.envelope!.error!.code === 'SLOT_UNAVAILABLE').length,
    unexpected: outcomes.filter((o) => !o.envelope).length,
    doubleBookings: await backend.overlaps(),
    p50: Math.round(percentile(latencies, 50) * 10) / 10,
    p99: Math.round(percentile(latencies, 99) * 10) / 10,
  };
}

describe.each(['sqlite', 'postgres'] as BackendKind[])('contention on %s', (kind) => {
  it(
    `${CLIENTS} MCP clients x ${ATTEMPTS} holds on 20 slots: no double booking, one winner per slot`,
    async () => {
      // Holds outlive the run: a lapsed hold frees its slot for a later, legitimate winner, which
      // "one winner per slot" would miscount (the full run takes longer than the default 5 minutes).
      const backend = await startBackend(kind, { serverArgs: ['--hold-ttl', String(24 * 3600)] });
      try {
        const started = performance.now();
        const f = await contention(backend, ATTEMPTS);
        record('1 contention', backend.label, {
          ...f,
          losersSlotUnavailablePct: Math.round((1000 * f.losersSlotUnavailable) / Math.max(1, f.losers)) / 10,
          seconds: Math.round((performance.now() - started) / 1000),
        });
        expect(f.doubleBookings).toBe(0);
        expect(f.slotsWithOneWinner).toBe(f.slots);
        expect(f.losersSlotUnavailable).toBe(f.losers);
        expect(f.unexpected).toBe(0);
        expect(f.attempts).toBe(ATTEMPTS);
      } finally {
        await backend.stop();
      }
    },
    scale(60_000, 3_600_000),
  );

  it('negative control: without the engine guard, the same run double-books', async () => {
    const backend = await startBackend(kind, {
      tamper: async (sql) =>
        kind === 'sqlite'
          ? (await sql('DROP TRIGGER allocations_no_overlap_insert'),
            await sql('DROP TRIGGER allocations_no_overlap_update'))
          : sql('ALTER TABLE allocations DROP CONSTRAINT allocations_no_overlap'),
    });
    try {
      const f = await contention(backend, CONTROL_ATTEMPTS);
      record('2 negative control', backend.label, {
        doubleBookings: f.doubleBookings,
        slotsWithManyWinners: f.slotsWithManyWinners,
        attempts: f.attempts,
      });
      expect(f.doubleBookings).toBeGreaterThan(0);
      expect(f.slotsWithManyWinners).toBeGreaterThan(0);
    } finally {
      await backend.stop();
    }
  });
});
