import { randomUUID } from 'node:crypto';
import type { Client } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openAllWeek } from '../support/fixtures.js';
import { connectHttp } from '../support/mcp-clients.js';
import type { RunningServer } from '../support/spawn-server.js';
import { runCli, spawnServer } from '../support/spawn-server.js';

// A model whose host shows it only the text content: from creating a calendar to a confirmed
// booking, every id, instant and version the next call needs is read out of `content[0].text`.
// The structured content is never looked at.

let server: RunningServer;
let agent: Client;

beforeAll(async () => {
  server = await spawnServer(['--no-seed']);
  agent = await connectHttp(server.url, 'modern');
});
afterAll(async () => {
  await agent?.close();
  await server?.stop();
});

async function text(tool: string, args: Record<string, unknown>): Promise<string> {
  const result = await agent.callTool({ name: tool, arguments: args });
  const [first] = result.content as { type: string; text: string }[];
  expect(first!.type).toBe('text');
  return first!.text;
}

function field(answer: string, pattern: RegExp): string {
  const match = pattern.exec(answer);
  if (!match) throw new Error(`not in the text:\n${answer}`);
  return match[1]!;
}

describe('the booking flow from the text content alone', () => {
  it('calendar → slots → hold → approval asked → approved by a person → confirmed', async () => {
    const created = await text('create_calendar', {
      name: 'Jade Room',
      timeZone: 'Asia/Shanghai',
      availability: openAllWeek,
      idempotencyKey: randomUUID(),
    });
    const calendarId = field(created, /^ok create_calendar: calendar (\S+)/);

    const from = new Date(Date.now() + 2 * 86_400_000).toISOString();
    const to = new Date(Date.now() + 4 * 86_400_000).toISOString();
    const slots = await text('find_slots', {
      calendarIds: [calendarId],
      from,
      to,
      durationMinutes: 60,
      limit: 10,
    });
    expect(slots.split('\n')[0]).toMatch(
      /^ok find_slots: 10 of \d+ free starts, 60 min each; more with cursor \S+$/,
    );
    const [, date, offset, time] = /^(\d{4}-\d\d-\d\d) \w{3} ([+-]\d\d:\d\d): (\d\d:\d\d)/m.exec(slots)!;
    const start = `${date}T${time}:00${offset}`;
    const end = new Date(Date.parse(start) + 3_600_000).toISOString();

    const held = await text('hold_slot', {
      calendarIds: [calendarId],
      start,
      end,
      customer: { name: 'Grace Hopper', email: 'grace@example.com' },
      idempotencyKey: randomUUID(),
    });
    const bookingId = field(held, /^ok hold_slot: booking (\S+) · \S+ · HELD · version 1 · hold expires/);
    expect(held).toContain(`local: Asia/Shanghai`);
    expect(Date.parse(field(held, /^ {2}start: (\S+)$/m))).toBe(Date.parse(start));

    const asked = await text('confirm_booking', {
      bookingId,
      expectedVersion: 1,
      idempotencyKey: randomUUID(),
    });
    expect(asked.split('\n')[0]).toMatch(/^error APPROVAL_REQUIRED from confirm_booking: /);
    const approvalId = field(asked, /^ {2}approvalId: (\S+)$/m);
    expect(field(asked, /^ {2}approveUrl: (\S+)$/m)).toContain(approvalId);

    // The person decides outside the model's reach: here on the command line.
    expect(runCli(['approvals', 'approve', approvalId, '--db', server.dbPath]).status).toBe(0);

    const confirmed = await text('confirm_booking', {
      bookingId,
      expectedVersion: 1,
      approval: { approvalId },
      idempotencyKey: randomUUID(),
    });
    expect(confirmed.split('\n')[0]).toMatch(
      new RegExp(`^ok confirm_booking: booking ${bookingId} · \\S+ · CONFIRMED · version 2$`),
    );
    const read = await text('get_booking', { bookingId });
    expect(read.split('\n')[0]).toContain('CONFIRMED');
  });
});
