import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { call, ok } from '../support/mcp-clients.js';
import { createOpenCalendar, futureHour } from '../support/fixtures.js';
import type { BackendKind } from './harness.js';
import { clientsFor, startBackend } from './harness.js';

// Cancelling a paid booking owes its money back: the refund record is written by the cancelling
// transaction itself. Killed with SIGKILL while cancellations are in flight, the server may lose
// unacknowledged cancels, but never a cancellation without its refund (or a refund without one).

const BOOKINGS = 16;

/** Cancelled paid bookings and the refunds they owe, straight from the database. */
const COUNTS = {
  sqlite: `SELECT
      sum(CASE WHEN status = 'CANCELLED' THEN 1 ELSE 0 END) AS cancelled,
      sum(CASE WHEN json_extract(payment, '$.refund.status') = 'DUE' THEN 1 ELSE 0 END) AS due,
      sum(CASE WHEN status = 'CANCELLED' AND coalesce(json_extract(payment, '$.refund.status'), '') <> 'DUE' THEN 1 ELSE 0 END) AS without,
      sum(CASE WHEN status <> 'CANCELLED' AND json_extract(payment, '$.refund.status') IS NOT NULL THEN 1 ELSE 0 END) AS stray
    FROM bookings`,
  postgres: `SELECT
      count(*) FILTER (WHERE status = 'CANCELLED')::int AS cancelled,
      count(*) FILTER (WHERE payment::jsonb #>> '{refund,status}' = 'DUE')::int AS due,
      count(*) FILTER (WHERE status = 'CANCELLED' AND coalesce(payment::jsonb #>> '{refund,status}', '') <> 'DUE')::int AS without,
      count(*) FILTER (WHERE status <> 'CANCELLED' AND payment::jsonb #>> '{refund,status}' IS NOT NULL)::int AS stray
    FROM bookings`,
};

/** What `holdfast payments set … PAID` records in the simulated provider. */
const PAID = {
  sqlite: `INSERT INTO simulated_payments (booking_id, status, amount, currency, paid_at, updated_at)
    VALUES (?, 'PAID', '500.00', 'CNY', ?, ?)`,
  postgres: `INSERT INTO simulated_payments (booking_id, status, amount, currency, paid_at, updated_at)
    VALUES ($1, 'PAID', '500.00', 'CNY', $2, $3)`,
};

describe.each(['sqlite', 'postgres'] as BackendKind[])('money owed back survives kill -9 on %s', (kind) => {
  it(`cancelling ${BOOKINGS} paid bookings while the server is killed loses no refund record`, async () => {
    const backend = await startBackend(kind, { instances: 1 });
    try {
      const [agent] = await clientsFor(backend, 1);
      const room = await createOpenCalendar(agent!, 'Jade Room', { amount: '500.00', currency: 'CNY' });
      const confirmed: string[] = [];
      for (let i = 0; i < BOOKINGS; i++) {
        const { booking } = await ok<{ booking: { id: string } }>(agent!, 'hold_slot', {
          calendarIds: [room],
          start: futureHour(2, i),
          end: futureHour(2, i + 1),
          customer: { name: 'Mei Chen' },
          idempotencyKey: randomUUID(),
        });
        // The simulated provider reports the customer paid.
        await backend.sql(PAID[kind], [booking.id, Date.now(), Date.now()]);
        await ok(agent!, 'confirm_booking', {
          bookingId: booking.id,
          expectedVersion: 1,
          idempotencyKey: randomUUID(),
        });
        confirmed.push(booking.id);
      }
      await agent!.close();

      // Every cancel at once, and the server killed while they are in flight.
      const clients = await clientsFor(backend, 4);
      const answers = confirmed.map((bookingId, i) =>
        call(
          clients[i % clients.length]!,
          'cancel_booking',
          { bookingId, expectedVersion: 2, idempotencyKey: randomUUID() },
          { timeout: 5_000 },
        ).catch(() => null),
      );
      await new Promise((resolve) => setTimeout(resolve, 30));
      await backend.crashAndRestart(0);
      const settled = await Promise.all(answers);
      await Promise.all(clients.map((c) => c.close().catch(() => undefined)));
      const acknowledged = settled.filter((a) => a?.ok).length;

      const [counts] = await backend.sql<{ cancelled: number; due: number; without: number; stray: number }>(
        COUNTS[kind],
      );
      // Every acknowledged cancel committed, each with its refund; nothing half-applied either way.
      expect(Number(counts!.cancelled)).toBeGreaterThanOrEqual(acknowledged);
      expect(Number(counts!.without), 'cancelled without a refund owed').toBe(0);
      expect(Number(counts!.stray), 'a refund owed on a booking not cancelled').toBe(0);
      expect(Number(counts!.due)).toBe(Number(counts!.cancelled));

      // After the restart, the cancels that were lost can be sent again and owe their refund too.
      const [again] = await clientsFor(backend, 1);
      for (const bookingId of confirmed) {
        const { booking } = await ok<{ booking: { status: string; version: number } }>(
          again!,
          'get_booking',
          {
            bookingId,
          },
        );
        if (booking.status === 'CONFIRMED')
          await ok(again!, 'cancel_booking', {
            bookingId,
            expectedVersion: booking.version,
            idempotencyKey: randomUUID(),
          });
      }
      await again!.close();
      const [after] = await backend.sql<{ cancelled: number; due: number; without: number }>(COUNTS[kind]);
      expect({
        cancelled: Number(after!.cancelled),
        due: Number(after!.due),
        without: Number(after!.without),
      }).toEqual({ cancelled: BOOKINGS, due: BOOKINGS, without: 0 });
    } finally {
      await backend.stop();
    }
  });
});
