import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createOpenCalendar, futureHour } from '../support/fixtures.js';
import { connectHttp, ok } from '../support/mcp-clients.js';
import { approvalCsrf, signIn } from '../support/person.js';
import type { RunningServer } from '../support/spawn-server.js';
import { spawnServer } from '../support/spawn-server.js';

let server: RunningServer;
beforeAll(async () => {
  server = await spawnServer(['--no-seed']);
});
afterAll(() => server.stop());

describe('the approval page shows the action being approved, not the booking as it is now', () => {
  it('renders the intent of the approval, marks it stale once the booking moved on, and refuses to approve it', async () => {
    const agent = await connectHttp(server.url, 'modern');
    const room = await createOpenCalendar(agent, 'Stale room', { amount: '80.00', currency: 'EUR' });
    const { booking } = await ok(agent, 'hold_slot', {
      calendarIds: [room],
      start: futureHour(2),
      end: futureHour(2, 1),
      label: 'Quarterly review',
      idempotencyKey: randomUUID(),
    });
    const asked = await ok(agent, 'request_approval', {
      bookingId: booking.id,
      action: 'confirm_booking',
      idempotencyKey: randomUUID(),
    });

    const cookie = await signIn(new URL(server.url).origin, server.agent.email, server.agent.password);
    const fresh = await (await fetch(asked.approveUrl, { headers: { cookie } })).text();
    expect(fresh).toContain('80.00 EUR');
    expect(fresh).toContain('Quarterly review');
    expect(fresh).toMatch(/id="version">1</);
    expect(fresh).toContain('value="approve"');
    expect(fresh).not.toContain('id="stale"');

    await ok(agent, 'release_hold', {
      bookingId: booking.id,
      expectedVersion: 1,
      idempotencyKey: randomUUID(),
    });
    const page = await fetch(asked.approveUrl, { headers: { cookie } });
    const stale = await page.text();
    expect(stale).toMatch(/id="version">1</); // the version that was asked about
    expect(stale).toContain(asked.intentHash);
    expect(stale).toContain('id="stale"');
    expect(stale).toMatch(/Changed since it was asked:<\/strong>\s+its hold was released\./);
    expect(stale).not.toContain('value="approve"');

    const csrf = approvalCsrf(stale)!;
    const posted = await fetch(asked.approveUrl, {
      method: 'POST',
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        origin: new URL(server.url).origin,
        cookie,
      },
      body: new URLSearchParams({ csrf, decision: 'approve' }),
    });
    expect(posted.status).toBe(409);
    expect(await posted.text()).toContain('The booking changed since this was asked');
    expect((await ok(agent, 'list_bookings', { status: 'CONFIRMED', limit: 10 })).total).toBe(0);
    await agent.close();
  });
});
