import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createOpenCalendar, futureHour } from '../support/fixtures.js';
import { call, connectHttp, ok } from '../support/mcp-clients.js';
import type { RunningServer } from '../support/spawn-server.js';
import { spawnCli, spawnServer } from '../support/spawn-server.js';

let server: RunningServer;
beforeAll(async () => {
  // Long enough for two CLI runs on a busy machine, short enough to wait out.
  server = await spawnServer(['--no-seed', '--hold-ttl', '8']);
});
afterAll(() => server.stop());

describe('a paid hold swept by the operator (as found when the issue was reported)', () => {
  it('is flagged, shown by get_booking and listed by `holdfast reconciliation`', async () => {
    const agent = await connectHttp(server.url, 'modern');
    const room = await createOpenCalendar(agent, 'Jade Room', { amount: '500.00', currency: 'CNY' });
    // A plain hold (one waiting for a person's approval would be kept for the tenant's window).
    const { booking } = await ok(agent, 'hold_slot', {
      calendarIds: [room],
      start: futureHour(2),
      end: futureHour(2, 1),
      idempotencyKey: randomUUID(),
    });
    const db = ['--db', server.dbPath];
    expect((await spawnCli(['payments', 'set', booking.id, 'PAID', ...db])).status).toBe(0);
    // Until the hold has lapsed (its deadline as the server set it), not a guessed sleep.
    const lapse = Date.parse(booking.expiresAt as string) - Date.now() + 300;
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, lapse)));
    const swept = await spawnCli(['sweep', ...db]);
    expect(swept.status).toBe(0);
    const list = await spawnCli(['reconciliation', ...db]);
    expect(list.status).toBe(0);
    expect(list.stdout).toContain(booking.id);
    expect(list.stdout).toContain('reconciliation required');
    const now = await ok(agent, 'get_booking', { bookingId: booking.id });
    expect(now.booking.status).toBe('EXPIRED');
    expect(now.booking.payment).toMatchObject({ status: 'PAID', reconciliationRequired: true });
    const late = await call(agent, 'confirm_booking', {
      bookingId: booking.id,
      expectedVersion: now.booking.version,
      idempotencyKey: randomUUID(),
    });
    expect(late.error?.code).toBe('INVALID_STATE');
    await agent.close();
  });
});
