import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { createOpenCalendar, futureHour } from '../support/fixtures.js';
import { call, connectHttp, ok } from '../support/mcp-clients.js';
import { spawnServer } from '../support/spawn-server.js';

describe('development payment form (simulator)', () => {
  it('pays a booking at its paymentUrl with a CSRF-checked form; absent in production mode', async () => {
    const server = await spawnServer(['--no-seed', '--write-policy', 'direct']);
    try {
      const client = await connectHttp(server.url, 'modern');
      const room = await createOpenCalendar(client, 'Kayak', { amount: '35.00', currency: 'EUR' });
      const { booking } = await ok(client, 'hold_slot', {
        calendarIds: [room],
        start: futureHour(2),
        end: futureHour(2, 1),
        idempotencyKey: randomUUID(),
      });
      const page = await (await fetch(booking.paymentUrl)).text();
      expect(page).toContain('35.00 EUR');
      const forged = await fetch(booking.paymentUrl, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: 'status=PAID&csrf=nope',
      });
      expect(forged.status).toBe(403);
      expect(
        (
          await call(client, 'confirm_booking', {
            bookingId: booking.id,
            expectedVersion: 1,
            idempotencyKey: randomUUID(),
          })
        ).error!.code,
      ).toBe('PAYMENT_PENDING');
      const csrf = /name="csrf" value="([^"]+)"/.exec(page)![1]!;
      const paid = await fetch(booking.paymentUrl, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ csrf, status: 'PAID' }),
      });
      expect(paid.status).toBe(200);
      const done = await ok(client, 'confirm_booking', {
        bookingId: booking.id,
        expectedVersion: 1,
        idempotencyKey: randomUUID(),
      });
      expect(done.booking.status).toBe('CONFIRMED');
      await client.close();
    } finally {
      await server.stop();
    }
    const production = await spawnServer(['--no-seed', '--production']);
    try {
      expect((await fetch(production.url.replace('/mcp', '/pay/bk_anything'))).status).toBe(404);
    } finally {
      await production.stop();
    }
  });
});
