import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createOpenCalendar, futureHour } from '../support/fixtures.js';
import { call, connectHttp, ok } from '../support/mcp-clients.js';
import type { RunningServer } from '../support/spawn-server.js';
import { runCli, spawnServer } from '../support/spawn-server.js';

let server: RunningServer;
beforeAll(async () => {
  server = await spawnServer(['--no-seed', '--hold-ttl', '2']);
});
afterAll(() => server.stop());

describe('a paid hold swept by the operator (as found when the issue was reported)', () => {
  it('is flagged, shown by get_booking and listed by `holdfast reconciliation`', async () => {
    const agent = await connectHttp(server.url, 'modern');
    const room = await createOpenCalendar(agent, 'Jade Room', { amount: '500.00', currency: 'CNY' });
    const { booking } = await ok(agent, 'hold_slot', {
      calendarIds: [room],
      start: futureHour(2),
      end: futureHour(2, 1),
      idempotencyKey: randomUUID(),
    });
    const asked = await call(agent, 'confirm_booking', {
      bookingId: booking.id,
      expectedVersion: 1,
      idempotencyKey: randomUUID(),
    });
    expect(asked.error?.code).toBe('APPROVAL_REQUIRED');
    const db = ['--db', server.dbPath];
    expect(runCli(['approvals', 'approve', asked.error!.details.approvalId as string, ...db]).status).toBe(0);
    expect(runCli(['payments', 'set', booking.id, 'PAID', ...db]).status).toBe(0);
    await new Promise((resolve) => setTimeout(resolve, 2500));
    const swept = runCli(['sweep', ...db]);
    expect(swept.status).toBe(0);
    const list = runCli(['reconciliation', ...db]);
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
