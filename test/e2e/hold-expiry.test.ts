import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createOpenCalendar, futureHour } from '../support/fixtures.js';
import { call, connectHttp, ok } from '../support/mcp-clients.js';
import type { RunningServer } from '../support/spawn-server.js';
import { spawnServer } from '../support/spawn-server.js';

let server: RunningServer;
beforeAll(async () => {
  server = await spawnServer(['--no-seed', '--hold-ttl', '3']);
});
afterAll(() => server.stop());

describe('hold expiry on the real server (3 s TTL)', () => {
  it('frees the time of a lapsed hold and refuses to confirm it', async () => {
    const client = await connectHttp(server.url, 'modern');
    const room = await createOpenCalendar(client, 'Expiry room');
    const slot = { calendarIds: [room], start: futureHour(3), end: futureHour(3, 1) };
    const held = await ok(client, 'hold_slot', { ...slot, idempotencyKey: randomUUID() });
    const blocked = await call(client, 'hold_slot', { ...slot, idempotencyKey: randomUUID() });
    expect(blocked.error!.code).toBe('SLOT_UNAVAILABLE');

    // Past the expiry the server gave the hold, by its own clock (the same machine's).
    const lapsed = Date.parse(held.booking.expiresAt) + 300 - Date.now();
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, lapsed)));

    const read = await ok(client, 'get_booking', { bookingId: held.booking.id });
    expect(read.booking.status).toBe('EXPIRED');
    const late = await call(client, 'confirm_booking', {
      bookingId: held.booking.id,
      expectedVersion: 1,
      idempotencyKey: randomUUID(),
    });
    expect(late.error!.code).toBe('HOLD_EXPIRED');
    const again = await ok(client, 'hold_slot', { ...slot, idempotencyKey: randomUUID() });
    expect(again.booking.status).toBe('HELD');
    const old = await ok(client, 'get_booking', { bookingId: held.booking.id });
    expect(old.booking.status).toBe('EXPIRED');
    expect(old.booking.version).toBe(2);
    await client.close();
  });
});
