import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { createOpenCalendar, futureHour } from '../support/fixtures.js';
import type { Envelope } from '../support/mcp-clients.js';
import { call } from '../support/mcp-clients.js';
import type { BackendKind } from './harness.js';
import { clientsFor, record, scale, startBackend } from './harness.js';

const ROUNDS = scale(8, 100);

function deep(depth: number): unknown {
  let value: unknown = 'x';
  for (let i = 0; i < depth; i++) value = { a: value };
  return value;
}

const poisons: [string, Record<string, unknown>][] = [
  ['get_booking', { bookingId: 'bk_\udfff' }],
  [
    'hold_slot',
    {
      calendarIds: ['c'],
      start: '2030-01-01T00:00:00Z',
      end: '2030-01-01T01:00:00Z',
      customer: deep(2500),
      idempotencyKey: randomUUID(),
    },
  ],
  [
    'list_bookings',
    { limit: 5, ...Object.fromEntries(Array.from({ length: 3000 }, (_, i) => [`k${i}`, 'v'])) },
  ],
  ['create_calendar', { name: 'x\u0000y', timeZone: 'UTC', idempotencyKey: randomUUID() }],
  ['find_slots', { calendarIds: ['\ud800'], from: 'x', to: 'y', durationMinutes: 30, limit: 1 }],
];

describe.each(['sqlite', 'postgres'] as BackendKind[])(
  'one poisoned client among innocent ones on %s',
  (kind) => {
    it('costs no innocent call its audit record', async () => {
      const backend = await startBackend(kind);
      const figures = {
        poisoned: 0,
        innocent: 0,
        innocentWithoutRecord: 0,
        poisonedWithoutRecord: 0,
        innocentFailed: 0,
      };
      try {
        const [poisoner, ...innocents] = await clientsFor(backend, 5);
        const room = await createOpenCalendar(innocents[0]!, 'Innocent room');
        const innocentAnswers: Envelope[] = [];
        const poisonAnswers: Envelope[] = [];
        let stop = false;
        const poisoning = (async () => {
          for (let i = 0; !stop; i++) {
            const [tool, args] = poisons[i % poisons.length]!;
            poisonAnswers.push(await call(poisoner!, tool, args));
          }
        })();
        let hour = 0;
        await Promise.all(
          innocents.map(async (client) => {
            for (let round = 0; round < ROUNDS; round++) {
              hour += 1;
              const held = await call<any>(client, 'hold_slot', {
                calendarIds: [room],
                start: futureHour(2, hour),
                end: futureHour(2, hour + 1),
                customer: { name: 'Innocent', email: 'innocent@example.com' },
                idempotencyKey: randomUUID(),
              });
              innocentAnswers.push(held);
              if (!held.ok) continue;
              innocentAnswers.push(
                await call(client, 'confirm_booking', {
                  bookingId: held.data!.booking.id,
                  expectedVersion: 1,
                  idempotencyKey: randomUUID(),
                }),
              );
            }
          }),
        );
        stop = true;
        await poisoning;
        await Promise.all([poisoner!, ...innocents].map((c) => c.close()));
        for (let i = 0; i < 500; i++) {
          const [row] = await backend.sql<{ n: number | string }>('SELECT count(*) AS n FROM audit_pending');
          if (Number(row!.n) === 0) break;
          await new Promise((r) => setTimeout(r, 20));
        }
        const rows = await backend.sql<{ trace_id: string }>('SELECT trace_id FROM audit_log');
        const traces = new Map<string, number>();
        for (const r of rows) traces.set(r.trace_id, (traces.get(r.trace_id) ?? 0) + 1);
        figures.innocent = innocentAnswers.length;
        figures.poisoned = poisonAnswers.length;
        figures.innocentFailed = innocentAnswers.filter((a) => !a.ok).length;
        figures.innocentWithoutRecord = innocentAnswers.filter(
          (a) => traces.get(a.meta.traceId) !== 1,
        ).length;
        figures.poisonedWithoutRecord = poisonAnswers.filter((a) => traces.get(a.meta.traceId) !== 1).length;
        for (const answer of poisonAnswers) expect(answer.error?.code).toBe('INVALID_ARGUMENTS');
      } finally {
        record('8 poison', backend.label, figures);
        await backend.stop();
      }
      expect(figures.poisoned).toBeGreaterThan(0);
      expect(figures.innocent).toBeGreaterThanOrEqual(ROUNDS * 4);
      expect(figures.innocentFailed).toBe(0);
      expect(figures.innocentWithoutRecord).toBe(0);
      expect(figures.poisonedWithoutRecord).toBe(0);
    }, 300_000);
  },
);
