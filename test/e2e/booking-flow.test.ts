import { randomUUID } from 'node:crypto';
import type { Client } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createOpenCalendar, futureHour, plusMinutes } from '../support/fixtures.js';
import { call, connectHttp, connectStdio, ok } from '../support/mcp-clients.js';
import type { Era } from '../support/mcp-clients.js';
import type { RunningServer } from '../support/spawn-server.js';
import { runCli, spawnServer, tempDbPath } from '../support/spawn-server.js';

interface Transport {
  name: string;
  connect(): Promise<Client>;
}

let server: RunningServer;
const stdioDb = tempDbPath();

// The core flow runs as trusted automation (a token with policy direct); approvals and
// payments have their own suites.
beforeAll(async () => {
  server = await spawnServer([], { writePolicy: 'direct' });
});
afterAll(async () => {
  await server.stop();
  stdioDb.cleanup();
});

const transports: { name: string; era: Era; kind: 'http' | 'stdio' }[] = [
  { name: 'HTTP 2026-07-28', era: 'modern', kind: 'http' },
  { name: 'HTTP 2025 (stateless fallback)', era: 'legacy', kind: 'http' },
  { name: 'stdio 2026-07-28', era: 'modern', kind: 'stdio' },
  { name: 'stdio 2025', era: 'legacy', kind: 'stdio' },
];

describe.each(transports)('booking flow over $name', ({ era, kind }) => {
  const transport: Transport = {
    name: kind,
    connect: () =>
      kind === 'http'
        ? connectHttp(server.url, era)
        : connectStdio(stdioDb.path, era, ['--write-policy', 'direct']),
  };
  let agent: Client;
  let rival: Client;
  let roomA: string;
  let roomB: string;
  // Each transport books its own day so the suites never collide on the shared database.
  const day = transports.findIndex((t) => t.era === era && t.kind === kind) + 2;

  beforeAll(async () => {
    agent = await transport.connect();
    rival = await transport.connect();
    roomA = await createOpenCalendar(agent, `Room A ${era} ${kind}`);
    roomB = await createOpenCalendar(agent, `Room B ${era} ${kind}`, { amount: '500.00', currency: 'CNY' });
  });
  afterAll(async () => {
    await agent.close();
    await rival.close();
  });

  it('negotiates the protocol era under test', () => {
    expect(agent.getProtocolEra()).toBe(era);
  });

  it('lists the tools of docs/tools.md with honest annotations and output schemas', async () => {
    const { tools } = await agent.listTools();
    const byName = new Map(tools.map((t) => [t.name, t]));
    expect([...byName.keys()].sort()).toEqual(
      [
        'book_slot',
        'cancel_booking',
        'check_availability',
        'list_customers',
        'get_customer',
        'confirm_booking',
        'create_calendar',
        'find_slots',
        'get_booking',
        'hold_slot',
        'hold_series',
        'propose_changes',
        'confirm_changes',
        'abandon_changes',
        'join_waitlist',
        'leave_waitlist',
        'list_bookings',
        'list_calendars',
        'release_hold',
        'request_approval',
        'get_approval',
        'set_availability',
        'set_booking_rules',
        'reschedule_booking',
      ].sort(),
    );
    expect(byName.get('find_slots')!.annotations?.readOnlyHint).toBe(true);
    expect(byName.get('hold_slot')!.annotations?.readOnlyHint).toBe(false);
    expect(byName.get('cancel_booking')!.annotations?.destructiveHint).toBe(true);
    for (const tool of tools) expect(tool.outputSchema?.type).toBe('object');
    expect(byName.get('hold_slot')!.inputSchema.additionalProperties).toBe(false);
  });

  it('runs find -> hold -> rival conflict -> release -> hold -> confirm -> get -> cancel', async () => {
    const from = futureHour(day);
    const found = await ok(agent, 'find_slots', {
      calendarIds: [roomA, roomB],
      from,
      to: plusMinutes(from, 240),
      durationMinutes: 60,
      limit: 5,
    });
    expect(found.slots).toHaveLength(5);
    expect(found.total).toBe(13);
    // The envelope says whether the free times were searched now or came from the slot cache.
    const findArgs = {
      calendarIds: [roomA, roomB],
      from,
      to: plusMinutes(from, 240),
      durationMinutes: 60,
      limit: 5,
    };
    expect((await call(agent, 'find_slots', findArgs)).meta.cache).toBe('HIT');
    const slot = found.slots[0];
    expect(slot.start).toBe(from.replace('.000Z', 'Z'));

    const first = await ok(agent, 'hold_slot', {
      calendarIds: [roomA, roomB],
      start: slot.start,
      end: slot.end,
      customer: { name: 'Ada Lovelace', email: 'ada@example.com', notes: '  keep   spacing ' },
      idempotencyKey: randomUUID(),
    });
    expect(first.booking.status).toBe('HELD');
    expect(first.booking.version).toBe(1);
    expect(first.booking.price).toEqual({ amount: '500.00', currency: 'CNY' });
    expect(first.booking.customer).toEqual({
      name: 'Ada Lovelace',
      email: 'ada@example.com',
      notes: '  keep   spacing ',
    });

    const clash = await call(rival, 'hold_slot', {
      calendarIds: [roomB],
      start: slot.start,
      end: slot.end,
      idempotencyKey: randomUUID(),
    });
    expect(clash.ok).toBe(false);
    expect(clash.error!.code).toBe('SLOT_UNAVAILABLE');
    const alternatives = clash.error!.details.alternatives as {
      start: string;
      end: string;
      startLocal: string;
      endLocal: string;
      reserved: boolean;
    }[];
    expect(alternatives.length).toBeGreaterThan(0);
    expect(alternatives.length).toBeLessThanOrEqual(3);
    for (const alt of alternatives) {
      expect(alt.reserved).toBe(false);
      expect(Date.parse(alt.end) - Date.parse(alt.start)).toBe(3_600_000);
      // The same instants said in the calendar's local time, with its offset.
      expect(alt.startLocal).toMatch(/T\d\d:\d\d:\d\d[+-]\d\d:\d\d$/);
      expect(Date.parse(alt.startLocal)).toBe(Date.parse(alt.start));
      expect(Date.parse(alt.endLocal)).toBe(Date.parse(alt.end));
    }

    const released = await ok(agent, 'release_hold', {
      bookingId: first.booking.id,
      expectedVersion: 1,
      idempotencyKey: randomUUID(),
    });
    expect(released.booking.status).toBe('RELEASED');

    const second = await ok(rival, 'hold_slot', {
      calendarIds: [roomA, roomB],
      start: slot.start,
      end: slot.end,
      idempotencyKey: randomUUID(),
    });
    const unpaid = await call(rival, 'confirm_booking', {
      bookingId: second.booking.id,
      expectedVersion: second.booking.version,
      idempotencyKey: randomUUID(),
    });
    expect(unpaid.error!.code).toBe('PAYMENT_PENDING');
    const dbPath = kind === 'http' ? server.dbPath : stdioDb.path;
    expect((await runCli(['payments', 'set', second.booking.id, 'PAID', '--db', dbPath])).status).toBe(0);
    const confirmed = await ok(rival, 'confirm_booking', {
      bookingId: second.booking.id,
      expectedVersion: second.booking.version,
      idempotencyKey: randomUUID(),
    });
    expect(confirmed.booking.status).toBe('CONFIRMED');
    expect(confirmed.booking.version).toBe(2);
    expect(confirmed.booking.expiresAt).toBeNull();
    expect(confirmed.booking.payment).toMatchObject({ status: 'PAID', reconciliationRequired: false });
    expect(confirmed.booking.confirmationIntent).toBeNull();
    expect(second.booking.confirmationIntent.intent).toMatchObject({
      action: 'confirm_booking',
      amount: '500.00',
      version: 1,
    });

    const read = await ok(agent, 'get_booking', { bookingId: second.booking.id });
    // Over stdio each agent is its own process with its own page server: links name its port.
    const samePage = (b: { paymentUrl: string }) => ({ ...b, paymentUrl: new URL(b.paymentUrl).pathname });
    expect(samePage(read.booking)).toEqual(samePage(confirmed.booking));

    const listed = await ok(agent, 'list_bookings', { calendarId: roomA, status: 'CONFIRMED', limit: 10 });
    expect(listed.bookings.map((b: { id: string }) => b.id)).toContain(second.booking.id);

    const cancelled = await ok(agent, 'cancel_booking', {
      bookingId: second.booking.id,
      expectedVersion: 2,
      idempotencyKey: randomUUID(),
    });
    expect(cancelled.booking.status).toBe('CANCELLED');
  });

  it('rejects a naive time and an unknown field with INVALID_ARGUMENTS naming the field', async () => {
    const naive = await call(agent, 'find_slots', {
      calendarIds: [roomA],
      from: '2030-01-07T09:00:00',
      to: '2030-01-07T17:00:00Z',
      durationMinutes: 30,
      limit: 5,
    });
    expect(naive.error!.code).toBe('INVALID_ARGUMENTS');
    expect(naive.error!.details.field).toBe('from');

    const unknown = await call(agent, 'hold_slot', {
      calendarIds: [roomA],
      start: futureHour(day, 5),
      end: futureHour(day, 6),
      idempotencyKey: randomUUID(),
      force: true,
    });
    expect(unknown.error!.code).toBe('INVALID_ARGUMENTS');
    expect(unknown.error!.details.field).toBe('force');

    const coerced = await call(agent, 'find_slots', {
      calendarIds: [roomA],
      from: futureHour(day),
      to: futureHour(day, 2),
      durationMinutes: '30',
      limit: 5,
    });
    expect(coerced.error!.details.field).toBe('durationMinutes');
    const bookings = await ok(agent, 'list_bookings', {
      calendarId: roomA,
      from: futureHour(day, 5),
      to: futureHour(day, 6),
      limit: 5,
    });
    expect(bookings.total).toBe(0);
  });

  it('replays a retried hold and refuses the key with other arguments', async () => {
    const key = randomUUID();
    const args = {
      calendarIds: [roomA],
      start: futureHour(day, 7),
      end: futureHour(day, 8),
      idempotencyKey: key,
    };
    const original = await call(agent, 'hold_slot', args);
    const replay = await call(agent, 'hold_slot', args);
    expect(replay.ok).toBe(true);
    expect(replay.meta.idempotentReplay).toBe(true);
    expect(original.meta.idempotentReplay).toBeUndefined();
    expect(replay.data).toEqual(original.data);

    const conflict = await call(agent, 'hold_slot', { ...args, end: futureHour(day, 9) });
    expect(conflict.error!.code).toBe('IDEMPOTENCY_CONFLICT');
    const held = await ok(agent, 'list_bookings', {
      calendarId: roomA,
      from: futureHour(day, 7),
      to: futureHour(day, 9),
      limit: 10,
    });
    expect(held.total).toBe(1);
  });

  it('refuses a stale expectedVersion with VERSION_CONFLICT and the current version', async () => {
    const held = await ok(agent, 'hold_slot', {
      calendarIds: [roomA],
      start: futureHour(day, 10),
      end: futureHour(day, 11),
      idempotencyKey: randomUUID(),
    });
    const stale = await call(agent, 'confirm_booking', {
      bookingId: held.booking.id,
      expectedVersion: 7,
      idempotencyKey: randomUUID(),
    });
    expect(stale.error!.code).toBe('VERSION_CONFLICT');
    expect(stale.error!.retryable).toBe(true);
    expect(stale.error!.details.currentVersion).toBe(1);
    const still = await ok(agent, 'get_booking', { bookingId: held.booking.id });
    expect(still.booking.status).toBe('HELD');
  });

  it('refuses a cursor reused with another query', async () => {
    const from = futureHour(day, 12);
    const query = { calendarIds: [roomA], from, to: plusMinutes(from, 180), durationMinutes: 30, limit: 2 };
    const page1 = await ok(agent, 'find_slots', query);
    expect(page1.nextCursor).toEqual(expect.any(String));
    const page2 = await ok(agent, 'find_slots', { ...query, cursor: page1.nextCursor });
    expect(page2.slots[0].start > page1.slots[1].start).toBe(true);
    const misuse = await call(agent, 'find_slots', {
      ...query,
      durationMinutes: 60,
      cursor: page1.nextCursor,
    });
    expect(misuse.error!.code).toBe('INVALID_CURSOR');
  });

  it('never books through book_slot', async () => {
    const refusal = await call(agent, 'book_slot', { calendarId: roomA, start: futureHour(day, 14) });
    expect(refusal.ok).toBe(false);
    expect(refusal.error!.recovery.action).toContain('hold_slot');
  });
});
