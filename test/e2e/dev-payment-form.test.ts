import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { createOpenCalendar, futureHour } from '../support/fixtures.js';
import { call, connectHttp, ok } from '../support/mcp-clients.js';
import { signIn } from '../support/person.js';
import { runCli, spawnServer, tempDbPath } from '../support/spawn-server.js';

describe('development payment form (simulator)', () => {
  it('a signed-in person pays a booking at its paymentUrl with a CSRF-checked form; refused in production mode', async () => {
    // Trusted automation (policy direct): only the payment stands between hold and confirm.
    const server = await spawnServer(['--no-seed', '--dev'], { writePolicy: 'direct' });
    try {
      const client = await connectHttp(server.url, 'modern');
      const room = await createOpenCalendar(client, 'Kayak', { amount: '35.00', currency: 'EUR' });
      const { booking } = await ok(client, 'hold_slot', {
        calendarIds: [room],
        start: futureHour(2),
        end: futureHour(2, 1),
        idempotencyKey: randomUUID(),
      });
      // Nobody signed in (an agent fetching the link): sent to sign in, no form.
      const anonymous = await fetch(booking.paymentUrl, { redirect: 'manual' });
      expect(anonymous.status).toBe(303);
      expect(anonymous.headers.get('location')).toMatch(/^\/login\?next=/);
      const cookie = await signIn(new URL(server.url).origin, server.agent.email, server.agent.password);
      const page = await (await fetch(booking.paymentUrl, { headers: { cookie } })).text();
      expect(page).toContain('35.00 EUR');
      const forged = await fetch(booking.paymentUrl, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded', cookie },
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
      // The form's CSRF token is bound to the session: without the cookie it is refused.
      const sessionless = await fetch(booking.paymentUrl, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ csrf, status: 'PAID' }),
      });
      expect(sessionless.status).toBe(403);
      const paid = await fetch(booking.paymentUrl, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded', cookie },
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
    const db = tempDbPath();
    try {
      const refused = await runCli(['serve', '--production', '--dev', '--port', '0', '--db', db.path]);
      expect(refused.status).toBe(2);
      expect(refused.stderr).toContain('cannot run in production');
    } finally {
      db.cleanup();
    }
    const production = await spawnServer(['--no-seed', '--production']);
    try {
      expect((await fetch(production.url.replace('/mcp', '/pay/bk_anything'))).status).toBe(404);
    } finally {
      await production.stop();
    }
  });

  it('production simulates no payment: --payments simulator is refused, and without a provider a priced booking does not confirm', async () => {
    const db = tempDbPath();
    try {
      const refused = await runCli([
        'serve',
        '--production',
        '--payments',
        'simulator',
        '--port',
        '0',
        '--db',
        db.path,
      ]);
      expect(refused.status).toBe(2);
      expect(refused.stderr).toContain('--payments simulator (development) cannot run in production');
    } finally {
      db.cleanup();
    }
    const production = await spawnServer(['--no-seed', '--production'], { writePolicy: 'direct' });
    try {
      const client = await connectHttp(production.url, 'modern');
      const room = await createOpenCalendar(client, 'Priced room', { amount: '40.00', currency: 'EUR' });
      const held = await ok<{ booking: { id: string } }>(client, 'hold_slot', {
        calendarIds: [room],
        start: futureHour(4),
        end: futureHour(4, 1),
        idempotencyKey: randomUUID(),
      });
      // Even marked paid in the simulator's table, nothing confirms: production never asks it.
      await runCli(['payments', 'set', held.booking.id, 'PAID', '--db', production.dbPath]);
      const confirm = await call(client, 'confirm_booking', {
        bookingId: held.booking.id,
        expectedVersion: 1,
        idempotencyKey: randomUUID(),
      });
      expect(confirm.error!.code).toBe('PAYMENT_UNAVAILABLE');
      expect(confirm.error!.message).toContain('no payment provider is configured');
      expect(
        (await ok<{ booking: { status: string } }>(client, 'get_booking', { bookingId: held.booking.id }))
          .booking.status,
      ).toBe('HELD');
      await client.close();
    } finally {
      await production.stop();
    }
  });
});
