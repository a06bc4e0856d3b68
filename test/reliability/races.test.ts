import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { call, ok } from '../support/mcp-clients.js';
import { createOpenCalendar, futureHour } from '../support/fixtures.js';
import type { BackendKind } from './harness.js';
import { clientsFor, record, scale, startBackend } from './harness.js';

const ROUNDS = scale(3, 20);

describe.each(['sqlite', 'postgres'] as BackendKind[])('races on %s', (kind) => {
  it(`the same idempotency key from 16 clients at once: one effect, identical answers (${ROUNDS} rounds)`, async () => {
    const backend = await startBackend(kind);
    const figures = { rounds: 0, effects: 0, distinctAnswers: 0, failures: 0 };
    try {
      const clients = await clientsFor(backend, 16);
      const room = await createOpenCalendar(clients[0]!, 'Idempotency room');
      for (let round = 0; round < ROUNDS; round++) {
        const args = {
          calendarIds: [room],
          start: futureHour(2, round),
          end: futureHour(2, round + 1),
          idempotencyKey: randomUUID(),
        };
        const answers = await Promise.all(clients.map((c) => call(c, 'hold_slot', args)));
        figures.rounds++;
        figures.failures += answers.filter((a) => !a.ok).length;
        figures.effects += answers.filter((a) => a.ok && !a.meta.idempotentReplay).length;
        figures.distinctAnswers += new Set(answers.map((a) => JSON.stringify(a.data))).size;
      }
      const n = (await backend.sql<{ n: number }>('SELECT count(*) AS n FROM bookings'))[0]!.n;
      await Promise.all(clients.map((c) => c.close()));
      record('4 idempotency', backend.label, { ...figures, bookingsInDatabase: Number(n) });
      expect(figures.failures).toBe(0);
      expect(figures.effects).toBe(ROUNDS);
      expect(figures.distinctAnswers).toBe(ROUNDS);
      expect(Number(n)).toBe(ROUNDS);
    } finally {
      await backend.stop();
    }
  });

  it(`K concurrent confirms and cancels at one expectedVersion: exactly one wins (${ROUNDS} rounds)`, async () => {
    const backend = await startBackend(kind);
    const K = 8;
    const figures = { rounds: 0, confirmWinners: 0, cancelWinners: 0, lostUpdates: 0, unexpected: 0 };
    try {
      const clients = await clientsFor(backend, K);
      const room = await createOpenCalendar(clients[0]!, 'Version room');
      for (let round = 0; round < ROUNDS; round++) {
        const held = (
          await ok(clients[0]!, 'hold_slot', {
            calendarIds: [room],
            start: futureHour(3, round),
            end: futureHour(3, round + 1),
            idempotencyKey: randomUUID(),
          })
        ).booking;
        const confirms = await Promise.all(
          clients.map((c) =>
            call(c, 'confirm_booking', {
              bookingId: held.id,
              expectedVersion: 1,
              idempotencyKey: randomUUID(),
            }),
          ),
        );
        const cancels = await Promise.all(
          clients.map((c) =>
            call(c, 'cancel_booking', {
              bookingId: held.id,
              expectedVersion: 2,
              idempotencyKey: randomUUID(),
            }),
          ),
        );
        figures.rounds++;
        figures.confirmWinners += confirms.filter((a) => a.ok).length;
        figures.cancelWinners += cancels.filter((a) => a.ok).length;
        figures.unexpected += [...confirms, ...cancels].filter(
          (a) => !a.ok && a.error!.code !== 'VERSION_CONFLICT',
        ).length;
        const final = (await ok(clients[0]!, 'get_booking', { bookingId: held.id })).booking;
        // Two accepted changes, so the version moved exactly twice: no write was lost or doubled.
        if (final.version !== 3 || final.status !== 'CANCELLED') figures.lostUpdates++;
      }
      await Promise.all(clients.map((c) => c.close()));
      record('5 optimistic concurrency', backend.label, figures);
      expect(figures.confirmWinners).toBe(ROUNDS);
      expect(figures.cancelWinners).toBe(ROUNDS);
      expect(figures.lostUpdates).toBe(0);
      expect(figures.unexpected).toBe(0);
    } finally {
      await backend.stop();
    }
  });
});
