import { randomUUID } from 'node:crypto';
import type { Client } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createOpenCalendar, futureHour, openAllWeek } from '../support/fixtures.js';
import type { Envelope } from '../support/mcp-clients.js';
import { call, connectHttp, ok } from '../support/mcp-clients.js';
import { addPersonWithPassword, decideOnPage, signIn } from '../support/person.js';
import { addAgent, identityDeps } from '../support/provision.js';
import type { RunningServer } from '../support/spawn-server.js';
import { spawnServer } from '../support/spawn-server.js';

// OWASP API1 (broken object-level authorisation): person B of the same tenant and everyone of
// tenant B try every tool and every human route against person A's calendars, bookings and
// approvals. Nothing of A's may be read or changed, and A's approval must still work for A.

let server: RunningServer;
let a: Client; // the provisioned owner of tenant local
let sameTenant: Client; // another person of tenant local
let otherTenant: Client; // the owner of tenant other
let room: string;
let booking: { id: string; version: number };
let approval: { approvalId: string; approveUrl: string };

beforeAll(async () => {
  server = await spawnServer(['--no-seed', '--dev']);
  const { deps, close } = await identityDeps(server.dbPath);
  const b = await addAgent(deps, { email: 'bea@local.example', role: 'approver' });
  const c = await addAgent(deps, { email: 'cy@other.example', tenant: 'other' });
  await close();
  a = await connectHttp(server.url, 'modern');
  sameTenant = await connectHttp(server.url, 'modern', { token: b.token });
  otherTenant = await connectHttp(server.url, 'modern', { token: c.token });
  room = await createOpenCalendar(a, 'A’s room', { amount: '40.00', currency: 'EUR' });
  const held = await ok(a, 'hold_slot', {
    calendarIds: [room],
    start: futureHour(2),
    end: futureHour(2, 1),
    customer: { name: 'Ada', email: 'ada@example.com', phone: '+44 20 7946 0000' },
    idempotencyKey: randomUUID(),
  });
  booking = held.booking;
  const asked = await call(a, 'confirm_booking', {
    bookingId: booking.id,
    expectedVersion: 1,
    idempotencyKey: randomUUID(),
  });
  approval = asked.error!.details as { approvalId: string; approveUrl: string };
});
afterAll(async () => {
  await Promise.all([a?.close(), sameTenant?.close(), otherTenant?.close()]);
  await server?.stop();
});

describe('isolation between people and tenants', () => {
  it('every tool: reads or writes of A’s objects by B or tenant B that succeed = 0', async () => {
    const key = () => ({ idempotencyKey: randomUUID() });
    const attacks: [string, (c: Client) => Promise<Envelope>][] = [
      ['get_booking', (c) => call(c, 'get_booking', { bookingId: booking.id })],
      [
        'release_hold',
        (c) => call(c, 'release_hold', { bookingId: booking.id, expectedVersion: 1, ...key() }),
      ],
      [
        'confirm_booking',
        (c) => call(c, 'confirm_booking', { bookingId: booking.id, expectedVersion: 1, ...key() }),
      ],
      [
        'confirm_booking with A’s approval',
        (c) =>
          call(c, 'confirm_booking', {
            bookingId: booking.id,
            expectedVersion: 1,
            approval: { approvalId: approval.approvalId },
            ...key(),
          }),
      ],
      [
        'cancel_booking',
        (c) => call(c, 'cancel_booking', { bookingId: booking.id, expectedVersion: 1, ...key() }),
      ],
      [
        'request_approval',
        (c) => call(c, 'request_approval', { bookingId: booking.id, action: 'confirm_booking', ...key() }),
      ],
      ['get_approval', (c) => call(c, 'get_approval', { approvalId: approval.approvalId })],
    ];
    const succeeded: string[] = [];
    for (const [who, client] of [
      ['person B', sameTenant],
      ['tenant B', otherTenant],
    ] as const) {
      for (const [name, attack] of attacks) {
        const answer = await attack(client);
        if (answer.ok) succeeded.push(`${who}: ${name}`);
        else expect(answer.error!.code, `${who}: ${name}`).toBe('NOT_FOUND');
      }
      // Lists show nothing of A's.
      const listed = await ok<{ bookings: { id: string }[] }>(client, 'list_bookings', { limit: 100 });
      if (listed.bookings.some((x) => x.id === booking.id)) succeeded.push(`${who}: list_bookings`);
    }
    // Tenant B does not even see A's calendar.
    const calendars = await ok<{ calendars: { id: string }[] }>(otherTenant, 'list_calendars', {
      limit: 100,
    });
    if (calendars.calendars.some((c) => c.id === room)) succeeded.push('tenant B: list_calendars');
    for (const [name, args] of [
      [
        'find_slots',
        { calendarIds: [room], from: futureHour(2), to: futureHour(3), durationMinutes: 30, limit: 10 },
      ],
      ['hold_slot', { calendarIds: [room], start: futureHour(4), end: futureHour(4, 1), ...key() }],
      ['set_availability', { calendarId: room, ...openAllWeek, ...key() }],
    ] as const) {
      const answer = await call(otherTenant, name, args);
      if (answer.ok) succeeded.push(`tenant B: ${name}`);
      else expect(answer.error!.code, `${name}: ${answer.error!.message}`).toBe('NOT_FOUND');
    }
    // Person B of the same tenant sees A's time as busy, not whose it is.
    const free = await ok<{ slots: { start: string }[] }>(sameTenant, 'find_slots', {
      calendarIds: [room],
      from: futureHour(2),
      to: futureHour(2, 1),
      durationMinutes: 60,
      limit: 10,
    });
    if (free.slots.length > 0) succeeded.push('person B: booked time shown free');
    expect(succeeded).toEqual([]);
  });

  it('every human route: tenant B’s people succeed 0 times; A’s approval then still works for A', async () => {
    const foreigner = await addPersonWithPassword(server, {
      email: 'dee@other.example',
      role: 'owner',
      tenant: 'other',
    });
    const origin = new URL(server.url).origin;
    const cookie = await signIn(origin, foreigner.email, foreigner.password);
    const page = await fetch(approval.approveUrl, { headers: { cookie } });
    expect(page.status).toBe(404);
    const posted = await fetch(approval.approveUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', cookie, origin },
      body: new URLSearchParams({ decision: 'approve', csrf: 'guessed' }),
    });
    expect([403, 404, 409]).toContain(posted.status);
    const pay = await fetch(new URL(`/pay/${booking.id}`, origin), { headers: { cookie } });
    expect(pay.status).toBe(404);
    const payPost = await fetch(new URL(`/pay/${booking.id}`, origin), {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', cookie, origin },
      body: new URLSearchParams({ status: 'PAID', csrf: 'guessed' }),
    });
    expect(payPost.status).toBe(403);

    // Untouched: still pending, and A's person approves and A's agent confirms with it.
    expect((await call(a, 'get_approval', { approvalId: approval.approvalId })).error!.code).toBe(
      'APPROVAL_PENDING',
    );
    const owner = await signIn(origin, server.agent.email, server.agent.password);
    expect((await decideOnPage(approval.approveUrl, owner)).status).toBe(200);
    const { runCli } = await import('../support/spawn-server.js');
    expect((await runCli(['payments', 'set', booking.id, 'PAID', '--db', server.dbPath])).status).toBe(0);
    const done = await ok(a, 'confirm_booking', {
      bookingId: booking.id,
      expectedVersion: 1,
      approval: { approvalId: approval.approvalId },
      idempotencyKey: randomUUID(),
    });
    expect(done.booking.status).toBe('CONFIRMED');
  });
});
