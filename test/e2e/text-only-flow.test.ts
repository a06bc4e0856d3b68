import { randomUUID } from 'node:crypto';
import type { Client } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openAllWeek } from '../support/fixtures.js';
import { connectHttp } from '../support/mcp-clients.js';
import type { RunningServer } from '../support/spawn-server.js';
import { runCli, spawnServer } from '../support/spawn-server.js';
import { addAgent, identityDeps } from '../support/provision.js';

// A model whose host shows it only the text content, through the whole demo flow: a priced
// calendar, slots, a hold, a second agent refused with alternatives, release, the second agent's
// hold, approval asked and given by a person, payment pending then paid, confirmed, read, and a
// cancellation approved on the command line. Every id, instant, version and code the next step
// needs is read out of `content[0].text`; the structured content is never looked at.

let server: RunningServer;
let agent: Client;
let rival: Client;

beforeAll(async () => {
  server = await spawnServer(['--no-seed']);
  agent = await connectHttp(server.url, 'modern');
  const { deps, close } = await identityDeps(server.dbPath);
  const second = await addAgent(deps, { email: 'second@local.example', role: 'approver' });
  await close();
  rival = await connectHttp(server.url, 'legacy', { token: second.token });
});
afterAll(async () => {
  await agent?.close();
  await rival?.close();
  await server?.stop();
});

async function text(client: Client, tool: string, args: Record<string, unknown>): Promise<string> {
  const result = await client.callTool({ name: tool, arguments: args });
  const [first] = result.content as { type: string; text: string }[];
  expect(first!.type).toBe('text');
  return first!.text;
}

function field(answer: string, pattern: RegExp): string {
  const match = pattern.exec(answer);
  if (!match) throw new Error(`not in the text:\n${answer}`);
  return match[1]!;
}

const firstLine = (answer: string) => answer.split('\n')[0]!;

describe('the demo flow from the text content alone', () => {
  it('priced calendar → hold → clash with alternatives → release → hold → approval → payment → confirmed → cancelled', async () => {
    const created = await text(agent, 'create_calendar', {
      name: 'Jade Room',
      timeZone: 'Asia/Shanghai',
      price: { amount: '500.00', currency: 'CNY' },
      availability: openAllWeek,
      idempotencyKey: randomUUID(),
    });
    const calendarId = field(created, /^ok create_calendar: calendar (\S+)/);

    const from = new Date(Date.now() + 2 * 86_400_000).toISOString();
    const to = new Date(Date.now() + 4 * 86_400_000).toISOString();
    const slots = await text(agent, 'find_slots', {
      calendarIds: [calendarId],
      from,
      to,
      durationMinutes: 60,
      limit: 10,
    });
    expect(firstLine(slots)).toMatch(
      /^ok find_slots: 10 of \d+ free starts, 60 min each; more with cursor \S+$/,
    );
    const [, date, offset, time] = /^(\d{4}-\d\d-\d\d) \w{3} ([+-]\d\d:\d\d): (\d\d:\d\d)/m.exec(slots)!;
    const start = `${date}T${time}:00${offset}`;
    const end = new Date(Date.parse(start) + 3_600_000).toISOString();
    const hold = {
      calendarIds: [calendarId],
      start,
      end,
      customer: { name: 'Grace Hopper', email: 'grace@example.com' },
    };

    const held = await text(agent, 'hold_slot', { ...hold, idempotencyKey: randomUUID() });
    const first = field(held, /^ok hold_slot: booking (\S+) · \S+ · HELD · version 1 · hold expires/);
    expect(Date.parse(field(held, /^ {2}start: (\S+)$/m))).toBe(Date.parse(start));
    expect(held).toMatch(/^ {2}price: *$|^ {4}amount: "?500.00"?$/m);

    const clash = await text(rival, 'hold_slot', { ...hold, idempotencyKey: randomUUID() });
    expect(firstLine(clash)).toMatch(/^error SLOT_UNAVAILABLE from hold_slot: /);
    const alternative = field(
      clash,
      /^ {4}- start: (\S+), end: \S+, startLocal: \S+, endLocal: \S+, timeZone: \S+, reserved: no$/m,
    );
    // The same time in the calendar's zone, as a person there would say it.
    const local = field(clash, new RegExp(`- start: ${alternative}, end: \\S+, startLocal: (\\S+),`));
    expect(Date.parse(local)).toBe(Date.parse(alternative));
    expect(Date.parse(alternative)).not.toBe(Date.parse(start));

    const released = await text(agent, 'release_hold', {
      bookingId: first,
      expectedVersion: 1,
      idempotencyKey: randomUUID(),
    });
    expect(firstLine(released)).toMatch(
      new RegExp(`^ok release_hold: booking ${first} · \\S+ · RELEASED · version 2$`),
    );

    const again = await text(rival, 'hold_slot', { ...hold, idempotencyKey: randomUUID() });
    const bookingId = field(again, /^ok hold_slot: booking (\S+) · \S+ · HELD · version (?:\d+)/);
    const version = Number(field(again, /· HELD · version (\d+)/));

    const confirm = (extra: Record<string, unknown> = {}) =>
      text(rival, 'confirm_booking', {
        bookingId,
        expectedVersion: version,
        idempotencyKey: randomUUID(),
        ...extra,
      });
    const asked = await confirm();
    expect(firstLine(asked)).toMatch(/^error APPROVAL_REQUIRED from confirm_booking: /);
    const approvalId = field(asked, /^ {2}approvalId: (\S+)$/m);
    expect(field(asked, /^ {2}approveUrl: (\S+)$/m)).toContain(approvalId);
    // The person decides outside the model's reach: here on the command line.
    expect((await runCli(['approvals', 'approve', approvalId, '--db', server.dbPath])).status).toBe(0);

    const unpaid = await confirm({ approval: { approvalId } });
    expect(firstLine(unpaid)).toMatch(/^error PAYMENT_PENDING from confirm_booking: /);
    expect(field(unpaid, /^ {2}paymentUrl: (\S+)$/m)).toContain(bookingId);
    expect((await runCli(['payments', 'set', bookingId, 'PAID', '--db', server.dbPath])).status).toBe(0);

    const confirmed = await confirm({ approval: { approvalId } });
    expect(firstLine(confirmed)).toMatch(
      new RegExp(`^ok confirm_booking: booking ${bookingId} · \\S+ · CONFIRMED · version \\d+$`),
    );
    const read = await text(agent, 'list_bookings', { status: 'CONFIRMED', limit: 5 });
    expect(firstLine(read)).toMatch(/^ok list_bookings: 0 of 0 bookings$/);
    const own = await text(rival, 'get_booking', { bookingId });
    expect(firstLine(own)).toContain('CONFIRMED');
    const confirmedVersion = Number(field(own, /· CONFIRMED · version (\d+)/));

    const cancelAsk = await text(rival, 'cancel_booking', {
      bookingId,
      expectedVersion: confirmedVersion,
      idempotencyKey: randomUUID(),
    });
    const cancelApproval = field(cancelAsk, /^ {2}approvalId: (\S+)$/m);
    expect((await runCli(['approvals', 'approve', cancelApproval, '--db', server.dbPath])).status).toBe(0);
    const cancelled = await text(rival, 'cancel_booking', {
      bookingId,
      expectedVersion: confirmedVersion,
      approval: { approvalId: cancelApproval },
      idempotencyKey: randomUUID(),
    });
    expect(firstLine(cancelled)).toMatch(
      new RegExp(`^ok cancel_booking: booking ${bookingId} · \\S+ · CANCELLED · version \\d+$`),
    );
  });
});
