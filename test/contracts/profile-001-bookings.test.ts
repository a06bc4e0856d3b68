import Database from 'better-sqlite3';
import type { Client } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectHttp, connectStdio } from '../support/mcp-clients.js';
import { decideOnPage, signIn } from '../support/person.js';
import type { RunningServer } from '../support/spawn-server.js';
import { provisionOnce, runCli, spawnServer, tempDbPath, untilSealed } from '../support/spawn-server.js';
import { rawCall } from '../support/raw-answer.js';

// Seed 001 (bookings-mcp, docs/contracts/seeds/001_e31d480a59766f8e.txt) served as itself:
// `holdfast stdio --profile bookings` (and `serve --profile bookings`), driven by the official
// client with the README's own calls — check_availability, request_approval, create_booking with
// { token, approvedBy }, the tampered time — and their answers compared field by field. The README's
// dates (2026-11-02) are replayed as written where the answer allows it, and otherwise moved to the
// next weekday. Each `it` names the inventory rows it proves (docs/contracts/001-bookings.md); the
// differences — a token is worth nothing until a person released it, request_approval keeps the
// time while they decide, and HTTP always needs a person's token — are proven by the attack tests.

const tool = rawCall;

async function must(client: Client, name: string, args: Record<string, unknown>) {
  const answer = await tool(client, name, args);
  if (answer.isError) throw new Error(`${name}: ${answer.text}`);
  // The payload is the JSON in the text content block (the README's examples show that text).
  expect(JSON.parse(answer.text)).toEqual(answer.data);
  return answer.data;
}

/** The next weekday at least `ahead` days away, YYYY-MM-DD (UTC, the store's zone). */
let ahead = 12;
function nextWeekday(): string {
  const day = new Date(Date.now() + ahead++ * 86_400_000);
  while ([0, 6].includes(day.getUTCDay())) {
    day.setUTCDate(day.getUTCDate() + 1);
    ahead++;
  }
  return day.toISOString().slice(0, 10);
}

/** The README's create_booking arguments, on a date of its own. */
const readmeArgs = (date = nextWeekday(), time = '11:00') => ({
  customerId: 1,
  date,
  time,
  service: 'consultation',
});

const ELTON = { approvedBy: 'elton' };
const withToken = (token: string) => ({ approval: { token, ...ELTON } });

const db = tempDbPath();
let agent: Client;
const approve = async (approvalId: string) =>
  expect((await runCli(['approvals', 'approve', approvalId, '--db', db.path])).status).toBe(0);
const deny = async (approvalId: string) =>
  expect((await runCli(['approvals', 'deny', approvalId, '--db', db.path])).status).toBe(0);

/** Which of `times` are free on `date`. */
async function free(date: string, ...times: string[]): Promise<boolean[]> {
  const { slots } = await must(agent, 'check_availability', { date, times });
  return slots.map((s: { available: boolean }) => s.available);
}

/** Confirmed bookings at a date and time, read from the database itself. */
function bookedAt(date: string, time: string): number {
  const sqlite = new Database(db.path, { readonly: true, timeout: 5_000 });
  try {
    const start = Date.parse(`${date}T${time}:00Z`);
    return (
      sqlite
        .prepare("SELECT count(*) AS n FROM bookings WHERE start_at = ? AND status = 'CONFIRMED'")
        .get(start) as { n: number }
    ).n;
  } finally {
    sqlite.close();
  }
}

/** Moves a token's expiry into the past, as ten minutes passing would. */
function expireToken(approvalId: string) {
  const sqlite = new Database(db.path, { timeout: 5_000 });
  try {
    const moved = sqlite
      .prepare('UPDATE approval_tokens SET expires_at = ? WHERE approval_id = ?')
      .run(Date.now() - 1_000, approvalId);
    expect(moved.changes).toBe(1);
  } finally {
    sqlite.close();
  }
}

/** Sealed audit records, newest last. */
async function auditTail(lines = 400): Promise<Record<string, any>[]> {
  await untilSealed(db.path);
  const tail = await runCli(['audit', 'tail', '-n', String(lines), '--json', '--db', db.path]);
  expect(tail.status, tail.stderr).toBe(0);
  return tail.stdout
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as Record<string, any>);
}

/** A booking made through the whole gate: request, a person's yes, create_booking. */
async function booked(args = readmeArgs()) {
  const asked = await must(agent, 'request_approval', { tool: 'create_booking', args });
  await approve(asked.approvalId);
  return must(agent, 'create_booking', { ...args, ...withToken(asked.token) });
}

beforeAll(async () => {
  // The store starts seeded (3 fictional customers, 3 confirmed bookings); the write policy is
  // direct, which under this profile still needs a person's token for every write.
  agent = await connectStdio(db.path, 'legacy', ['--profile', 'bookings', '--write-policy', 'direct']);
});
afterAll(async () => {
  await agent?.close();
  db.cleanup();
});

describe('bookings-mcp as itself (stdio, --profile bookings)', () => {
  it('[001-intro-1 001-intro-2 001-features-1 001-connect-3 001-structure-5 001-structure-6 001-structure-7 001-testing-3] the 7 tools appear as list_customers … cancel_booking; reads say readOnlyHint: true, writes do not, and take approval as a required argument', async () => {
    const { tools } = await agent.listTools();
    expect(tools.map((t) => t.name)).toEqual([
      'list_customers',
      'get_customer',
      'list_bookings',
      'check_availability',
      'request_approval',
      'create_booking',
      'cancel_booking',
    ]);
    const hint = (name: string) => tools.find((t) => t.name === name)!.annotations?.readOnlyHint;
    for (const name of ['list_customers', 'get_customer', 'list_bookings', 'check_availability'])
      expect(hint(name), name).toBe(true);
    for (const name of ['create_booking', 'cancel_booking', 'request_approval'])
      expect(hint(name), name).not.toBe(true);
    const schema = (name: string) => tools.find((t) => t.name === name)!.inputSchema as any;
    expect(schema('create_booking').required).toEqual(['customerId', 'date', 'time', 'service', 'approval']);
    expect(schema('cancel_booking').required).toEqual(['bookingId', 'approval']);
    expect(schema('create_booking').properties.approval.required).toEqual(['token', 'approvedBy']);
    expect(schema('request_approval').properties.tool.enum).toEqual(['create_booking', 'cancel_booking']);
  });

  it('[001-intro-6 001-tools-1 001-tools-2 001-tools-3 001-tools-13 001-structure-2 001-intro-7 001-testing-4] the store is seeded with 3 fictional customers and 3 confirmed bookings on the next weekdays; every read answers with no approval', async () => {
    const { customers } = await must(agent, 'list_customers', {});
    expect(customers.map((c: any) => [c.id, c.name])).toEqual([
      [1, 'Ada Miranda'],
      [2, 'Bruno Salas'],
      [3, 'Chen Wei'],
    ]);
    expect(customers[0]).toEqual({
      id: 1,
      name: 'Ada Miranda',
      email: 'ada.miranda@example.com',
      phone: '+1 555 0101',
    });
    const one = await must(agent, 'get_customer', { id: 1 });
    expect(one).toMatchObject({ id: 1, name: 'Ada Miranda' });
    expect(one.bookings).toHaveLength(1);
    expect(one.bookings[0].status).toBe('confirmed');
    expect((await tool(agent, 'get_customer', { id: 999 })).text).toBe('NOT_FOUND: No customer 999.');
    // list_bookings lists them with their status: dates relative to the server's start, weekdays.
    const { bookings } = await must(agent, 'list_bookings', {});
    const seeded = bookings.slice(0, 3);
    expect(seeded.map((b: any) => [b.customerId, b.time, b.service, b.status])).toEqual([
      [1, '09:00', 'consultation', 'confirmed'],
      [2, '10:30', 'follow-up', 'confirmed'],
      [3, '14:00', 'consultation', 'confirmed'],
    ]);
    expect(seeded[0].id).toBe(one.bookings[0].id);
    for (const b of seeded) {
      expect(Date.parse(b.start)).toBeGreaterThan(Date.now());
      expect(Date.parse(b.start)).toBeLessThan(Date.now() + 8 * 86_400_000);
      expect([0, 6]).not.toContain(new Date(b.start).getUTCDay());
      expect(Object.keys(b)).toEqual(expect.arrayContaining(['id', 'customerId', 'date', 'time', 'status']));
    }
  });

  it('[001-tools-4 001-tools-9 001-tools-10 001-connect-10] check_availability: the README’s call as written and on a coming Monday — which 30-minute slots are free, 09:00–16:30, :00/:30 only', async () => {
    // As written: 2026-11-02 has passed, and the answer says so for each time.
    const asWritten = await must(agent, 'check_availability', {
      date: '2026-11-02',
      times: ['09:00', '11:00', '16:30'],
    });
    expect(asWritten).toEqual({
      date: '2026-11-02',
      slots: [
        { time: '09:00', available: false, reason: 'past' },
        { time: '11:00', available: false, reason: 'past' },
        { time: '16:30', available: false, reason: 'past' },
      ],
    });
    const date = nextWeekday();
    expect(await must(agent, 'check_availability', { date, times: ['09:00', '11:00', '16:30'] })).toEqual({
      date,
      slots: [
        { time: '09:00', available: true, reason: null },
        { time: '11:00', available: true, reason: null },
        { time: '16:30', available: true, reason: null },
      ],
    });
    // Outside 09:00–16:30, or off the :00/:30 grid, is not a slot.
    const off = await must(agent, 'check_availability', { date, times: ['08:30', '17:00', '10:15'] });
    expect(off.slots.map((s: any) => [s.available, s.reason])).toEqual([
      [false, 'closed'],
      [false, 'closed'],
      [false, 'rules'],
    ]);
    // 1–16 times per call; dates are YYYY-MM-DD.
    const sixteen = Array.from(
      { length: 16 },
      (_, i) => `${String(9 + (i >> 1)).padStart(2, '0')}:${i % 2 ? '30' : '00'}`,
    );
    expect((await must(agent, 'check_availability', { date, times: sixteen })).slots).toHaveLength(16);
    expect((await tool(agent, 'check_availability', { date, times: [...sixteen, '09:00'] })).text).toMatch(
      /^INVALID_ARGUMENTS: times/,
    );
    expect((await tool(agent, 'check_availability', { date, times: [] })).text).toMatch(
      /^INVALID_ARGUMENTS: times/,
    );
    for (const bad of ['02/11/2026', '2026-11-2', '2026-02-30'])
      expect((await tool(agent, 'check_availability', { date: bad, times: ['09:00'] })).text, bad).toBe(
        'INVALID_ARGUMENTS: date: must be a real date, YYYY-MM-DD',
      );
  });

  it('[001-flow-12 001-flow-14 001-flow-15 001-flow-16 001-flow-17 001-flow-18 001-flow-19 001-flow-20 001-flow-21 001-flow-22 001-flow-11 001-tools-5 001-tools-7 001-testing-7 001-features-2 001-flow-6] the approval flow: the README’s four steps — request, a token bound to the action, a person releases it, the write runs with unchanged arguments and returns the booking', async () => {
    // 1. The README's request as written: its date has passed, so nothing can be asked for it.
    const asWritten = await tool(agent, 'request_approval', {
      tool: 'create_booking',
      args: { customerId: 1, date: '2026-11-02', time: '11:00', service: 'consultation' },
      requester_note: 'Ada Miranda asked for Monday 11:00',
    });
    expect(asWritten.isError).toBe(true);
    expect(asWritten.text).toBe('INVALID_ARGUMENTS: start: must not be in the past');
    // The same request on a coming Monday.
    const args = readmeArgs();
    const asked = await must(agent, 'request_approval', {
      tool: 'create_booking',
      args,
      requester_note: 'Ada Miranda asked for Monday 11:00',
    });
    // 2. A token comes back, bound to that action: the README's fields in its order (and the page a person decides on).
    expect(Object.keys(asked)).toEqual([
      'message',
      'approvalId',
      'token',
      'boundTo',
      'expiresAt',
      'note',
      'approveUrl',
    ]);
    expect(asked).toEqual({
      message: 'Approval requested. A human must review and release this token.',
      approvalId: expect.stringMatching(/^[0-9a-f-]{36}$/),
      token: expect.stringMatching(/^[0-9a-f]{48}$/),
      boundTo: { tool: 'create_booking', args },
      expiresAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
      note: 'Pass { token, approvedBy } in the write tool. Any change to the arguments invalidates the token.',
      approveUrl: expect.stringContaining(`/console/approvals/${asked.approvalId}`),
    });
    // The token itself is kept nowhere: the database holds its digest only.
    const sqlite = new Database(db.path, { readonly: true, timeout: 5_000 });
    try {
      const kept = sqlite
        .prepare('SELECT * FROM approval_tokens WHERE approval_id = ?')
        .all(asked.approvalId);
      expect(kept).toHaveLength(1);
      expect(JSON.stringify(kept)).not.toContain(asked.token);
    } finally {
      sqlite.close();
    }
    // 3. A human releases the token; the agent calls the write tool with unchanged arguments.
    await approve(asked.approvalId);
    const result = (await agent.callTool({
      name: 'create_booking',
      arguments: { ...args, approval: { token: asked.token, approvedBy: 'elton' } },
    })) as { isError?: boolean; content: { type: string; text: string }[] };
    expect(result.isError).toBeFalsy();
    expect(result.content).toHaveLength(1);
    expect(result.content[0]!.type).toBe('text');
    // 4. The gate validates and the booking is created, the new booking object returned.
    const booking = JSON.parse(result.content[0]!.text);
    expect(booking).toEqual({
      id: expect.stringMatching(/^bk_/),
      customerId: 1,
      date: args.date,
      time: '11:00',
      service: 'consultation',
      status: 'confirmed',
      reference: expect.any(String),
      start: `${args.date}T11:00:00Z`,
      end: `${args.date}T11:30:00Z`,
    });
    expect(bookedAt(args.date, '11:00')).toBe(1);
    expect((await must(agent, 'list_bookings', {})).bookings.map((b: any) => b.id)).toContain(booking.id);
  });

  it('[001-flow-23 001-flow-24 001-intro-5 001-features-6 001-testing-8 001-flow-5] tampered arguments: 12:00 instead of 11:00 is the README’s BLOCKED BY APPROVAL GATE answer, and the consumed token cannot be retried, even with the original arguments', async () => {
    const args = readmeArgs();
    const asked = await must(agent, 'request_approval', { tool: 'create_booking', args });
    await approve(asked.approvalId);
    const tampered = await agent.callTool({
      name: 'create_booking',
      arguments: { ...args, time: '12:00', ...withToken(asked.token) },
    });
    expect(tampered).toEqual({
      isError: true,
      content: [
        {
          type: 'text',
          text: 'BLOCKED BY APPROVAL GATE: Arguments changed after approval — the token is bound to the original action',
        },
      ],
    });
    const retried = await tool(agent, 'create_booking', { ...args, ...withToken(asked.token) });
    expect(retried.isError).toBe(true);
    expect(retried.text).toBe(
      'BLOCKED BY APPROVAL GATE: Approval token already used — ask for a new approval',
    );
    // Nothing was booked at either time; the held time was given back.
    expect(await free(args.date, '11:00', '12:00')).toEqual([true, true]);
    expect(bookedAt(args.date, '11:00') + bookedAt(args.date, '12:00')).toBe(0);
  });

  it('[001-security-6 001-features-4 001-security-4] attack: an approved harmless action with any single field swapped — customer, date, time or service — books nothing', async () => {
    let attempts = 0;
    let wins = 0;
    const args = readmeArgs();
    for (const swap of [
      { customerId: 2 },
      { date: nextWeekday() },
      { time: '15:30' },
      { service: 'surgery' },
    ]) {
      const asked = await must(agent, 'request_approval', { tool: 'create_booking', args });
      await approve(asked.approvalId);
      attempts++;
      const swapped = await tool(agent, 'create_booking', { ...args, ...swap, ...withToken(asked.token) });
      if (!swapped.isError) wins++;
      expect(swapped.text, JSON.stringify(swap)).toBe(
        'BLOCKED BY APPROVAL GATE: Arguments changed after approval — the token is bound to the original action',
      );
    }
    expect(attempts).toBe(4);
    expect(wins).toBe(0);
    expect(bookedAt(args.date, '11:00') + bookedAt(args.date, '15:30')).toBe(0);
  });

  it('[001-features-5 001-security-5 001-structure-3 001-intro-4] the token is bound to SHA-256 of the tool and its canonical arguments, keys sorted, approval excluded: the same arguments in another key order pass', async () => {
    const date = nextWeekday();
    const asked = await must(agent, 'request_approval', {
      tool: 'create_booking',
      args: { service: 'consultation', time: '13:00', date, customerId: 3 },
    });
    await approve(asked.approvalId);
    // approval first, the fields reversed: the hash is of the sorted arguments without approval.
    const reordered = await must(agent, 'create_booking', {
      ...withToken(asked.token),
      customerId: 3,
      date,
      time: '13:00',
      service: 'consultation',
    });
    expect(reordered).toMatchObject({ customerId: 3, date, time: '13:00', status: 'confirmed' });
  });

  it('[001-features-3 001-features-4 001-testing-5 001-testing-6 001-testing-9 001-security-2 001-flow-4] gate: without approval the call fails schema validation; a forged 48-char token is Unknown; a create token cannot be replayed against cancel_booking', async () => {
    const args = readmeArgs(nextWeekday(), '14:00');
    const missing = await tool(agent, 'create_booking', args);
    expect(missing.isError).toBe(true);
    expect(missing.text).toMatch(/^INVALID_ARGUMENTS: approval/);
    const forged = await tool(agent, 'create_booking', { ...args, ...withToken('f'.repeat(48)) });
    expect(forged.text).toBe('BLOCKED BY APPROVAL GATE: Unknown approval token');
    const asked = await must(agent, 'request_approval', { tool: 'create_booking', args });
    await approve(asked.approvalId);
    const crossed = await tool(agent, 'cancel_booking', {
      bookingId: 'bk_anything',
      ...withToken(asked.token),
    });
    expect(crossed.text).toMatch(
      /^BLOCKED BY APPROVAL GATE: The token was approved for create_booking, not cancel_booking/,
    );
    // Single use, even on failure: the token is gone for create_booking too.
    expect((await tool(agent, 'create_booking', { ...args, ...withToken(asked.token) })).text).toMatch(
      /already used/,
    );
    expect(bookedAt(args.date, '14:00')).toBe(0);
  });

  it('[001-features-7 001-features-4 001-security-10 001-security-11 001-flow-3] a token lasts 10 minutes: expiresAt is ten minutes on, and past it the write is blocked as expired, the time given back', async () => {
    const args = readmeArgs(nextWeekday(), '09:30');
    const before = Date.now();
    const asked = await must(agent, 'request_approval', { tool: 'create_booking', args });
    const ttl = Date.parse(asked.expiresAt) - before;
    expect(ttl).toBeGreaterThan(10 * 60_000 - 5_000);
    expect(ttl).toBeLessThanOrEqual(10 * 60_000 + 1_000);
    await approve(asked.approvalId);
    expireToken(asked.approvalId);
    const stale = await tool(agent, 'create_booking', { ...args, ...withToken(asked.token) });
    expect(stale.text).toBe('BLOCKED BY APPROVAL GATE: Approval token expired — ask for a new approval');
    expect(await free(args.date, '09:30')).toEqual([true]);
  });

  it('[001-features-8 001-security-7 001-security-8 001-security-9 001-testing-10 001-structure-8] attack: a token is consumed on its first use, even when the call fails — a probing loop of retries books nothing', async () => {
    const args = readmeArgs(nextWeekday(), '10:00');
    const asked = await must(agent, 'request_approval', { tool: 'create_booking', args });
    await approve(asked.approvalId);
    // First use with the wrong time fails; every later try, even exact, is refused as used.
    const answers = [
      await tool(agent, 'create_booking', { ...args, time: '10:30', ...withToken(asked.token) }),
    ];
    for (let i = 0; i < 3; i++)
      answers.push(await tool(agent, 'create_booking', { ...args, ...withToken(asked.token) }));
    expect(answers.filter((a) => !a.isError)).toHaveLength(0);
    expect(answers.slice(1).map((a) => a.text)).toEqual(
      Array(3).fill('BLOCKED BY APPROVAL GATE: Approval token already used — ask for a new approval'),
    );
    expect(bookedAt(args.date, '10:00')).toBe(0);
    // A token that did book cannot apply twice either.
    const okArgs = readmeArgs(nextWeekday(), '10:00');
    const second = await must(agent, 'request_approval', { tool: 'create_booking', args: okArgs });
    await approve(second.approvalId);
    await must(agent, 'create_booking', { ...okArgs, ...withToken(second.token) });
    expect((await tool(agent, 'create_booking', { ...okArgs, ...withToken(second.token) })).text).toMatch(
      /already used/,
    );
    expect(bookedAt(okArgs.date, '10:00')).toBe(1);
  });

  it('[001-flow-9 001-flow-21 001-flow-10] attack: the token request_approval returns at once is worth nothing until a person released it — used at once, with any approvedBy, it books nothing, and a person’s later yes books nothing either', async () => {
    const args = readmeArgs(nextWeekday(), '09:30');
    const asked = await must(agent, 'request_approval', { tool: 'create_booking', args });
    let wins = 0;
    const early = await tool(agent, 'create_booking', {
      ...args,
      approval: { token: asked.token, approvedBy: 'the human who asked (says the model)' },
    });
    if (!early.isError) wins++;
    expect(early.text).toMatch(/^BLOCKED BY APPROVAL GATE: A person has not approved this action yet/);
    // The approval was spent with the token: a person's later yes books nothing.
    expect((await runCli(['approvals', 'approve', asked.approvalId, '--db', db.path])).status).not.toBe(0);
    const after = await tool(agent, 'create_booking', { ...args, ...withToken(asked.token) });
    if (!after.isError) wins++;
    expect(wins).toBe(0);
    expect(await free(args.date, '09:30')).toEqual([true]);
    expect(bookedAt(args.date, '09:30')).toBe(0);
  });

  it('[001-flow-2 001-flow-5] a person who rejects leaves the write no path: a denied token is blocked with the reason, and the time is free again', async () => {
    const args = readmeArgs(nextWeekday(), '15:00');
    const asked = await must(agent, 'request_approval', { tool: 'create_booking', args });
    await deny(asked.approvalId);
    const blocked = await tool(agent, 'create_booking', { ...args, ...withToken(asked.token) });
    expect(blocked.text).toBe('BLOCKED BY APPROVAL GATE: A person denied this action');
    expect(await free(args.date, '15:00')).toEqual([true]);
    expect(bookedAt(args.date, '15:00')).toBe(0);
  });

  it('[001-tools-8 001-tools-12 001-tools-13 001-tools-3] cancel_booking: a seeded booking cancelled through the approval flow by its bookingId, once; cancelling twice fails', async () => {
    const seeded = (await must(agent, 'list_bookings', {})).bookings.find(
      (b: any) => b.customerId === 2 && b.service === 'follow-up',
    );
    expect(seeded.status).toBe('confirmed');
    const asked = await must(agent, 'request_approval', {
      tool: 'cancel_booking',
      args: { bookingId: seeded.id },
    });
    expect(asked.boundTo).toEqual({ tool: 'cancel_booking', args: { bookingId: seeded.id } });
    await approve(asked.approvalId);
    const cancelled = await must(agent, 'cancel_booking', {
      bookingId: seeded.id,
      ...withToken(asked.token),
    });
    expect(cancelled).toMatchObject({ id: seeded.id, customerId: 2, status: 'cancelled' });
    const listed = (await must(agent, 'list_bookings', {})).bookings.find((b: any) => b.id === seeded.id);
    expect(listed.status).toBe('cancelled');
    expect(await free(seeded.date, seeded.time)).toEqual([true]);
    // A second cancellation, even one a person released, fails.
    const again = await must(agent, 'request_approval', {
      tool: 'cancel_booking',
      args: { bookingId: seeded.id },
    });
    await approve(again.approvalId);
    const twice = await tool(agent, 'cancel_booking', { bookingId: seeded.id, ...withToken(again.token) });
    expect(twice).toMatchObject({
      isError: true,
      text: 'INVALID_STATE: A CANCELLED booking cannot become CANCELLED.',
    });
    const unknown = await tool(agent, 'request_approval', {
      tool: 'cancel_booking',
      args: { bookingId: 'bk_nonexistent1234' },
    });
    expect(unknown.text).toBe('NOT_FOUND: No booking bk_nonexistent1234.');
  });

  it('[001-tools-11 001-testing-11 001-tools-7] create_booking is for an existing customer in a free slot: the business rule still applies after the gate — a taken slot cannot be approved into a double booking', async () => {
    const args = readmeArgs(nextWeekday(), '10:00');
    for (const [bad, why] of [
      [{ customerId: 9 }, 'NOT_FOUND: No customer 9.'],
      [{ time: '11:15' }, 'OUTSIDE_BOOKING_RULES: Consultations: bookings start on its step grid only.'],
      [{ time: '17:00' }, 'OUTSIDE_AVAILABILITY: Consultations is not open for the whole requested time.'],
    ] as const) {
      const refused = await tool(agent, 'request_approval', {
        tool: 'create_booking',
        args: { ...args, ...bad },
      });
      expect(refused.text).toBe(why);
    }
    await booked(args);
    const second = await tool(agent, 'request_approval', {
      tool: 'create_booking',
      args: { ...args, customerId: 2 },
    });
    expect(second.isError).toBe(true);
    expect(second.text).toMatch(/^SLOT_UNAVAILABLE: /);
    expect(bookedAt(args.date, '10:00')).toBe(1);
  });

  it('[001-tools-6 001-tools-11] attack: while a person decides, request_approval keeps the time for the action asked — no other request or write can take it, and it is given back when the token is spent', async () => {
    const args = readmeArgs(nextWeekday(), '16:00');
    const first = await must(agent, 'request_approval', { tool: 'create_booking', args });
    // request_approval books nothing: the slot is held, not confirmed.
    expect(bookedAt(args.date, '16:00')).toBe(0);
    expect((await must(agent, 'check_availability', { date: args.date, times: ['16:00'] })).slots[0]).toEqual(
      {
        time: '16:00',
        available: false,
        reason: 'taken',
      },
    );
    let taken = 0;
    for (const customerId of [2, 3]) {
      const rival = await tool(agent, 'request_approval', {
        tool: 'create_booking',
        args: { ...args, customerId },
      });
      if (!rival.isError) taken++;
      expect(rival.text).toMatch(/^SLOT_UNAVAILABLE: /);
    }
    expect(taken).toBe(0);
    await approve(first.approvalId);
    await must(agent, 'create_booking', { ...args, ...withToken(first.token) });
    expect(bookedAt(args.date, '16:00')).toBe(1);
  });

  it('[001-security-3 001-security-1 001-intro-3] attack: no code path skips the gate — under write policy direct and with a person’s standing rule for any calendar, a write without a released token books nothing', async () => {
    const owner = await provisionOnce(db.path);
    const granted = await runCli([
      'standing-rules',
      'grant',
      owner.email,
      '--actions',
      'confirm,cancel',
      '--calendars',
      'any',
      '--days',
      '30',
      '--db',
      db.path,
    ]);
    expect(granted.status, granted.stderr).toBe(0);
    const args = readmeArgs(nextWeekday(), '12:30');
    const asked = await must(agent, 'request_approval', { tool: 'create_booking', args });
    let wins = 0;
    const unreleased = await tool(agent, 'create_booking', { ...args, ...withToken(asked.token) });
    if (!unreleased.isError) wins++;
    expect(unreleased.text).toMatch(/^BLOCKED BY APPROVAL GATE: A person has not approved this action yet/);
    // And a cancel of a booking made through the gate needs its own released token.
    const made = await booked(readmeArgs(nextWeekday(), '12:30'));
    const cancel = await must(agent, 'request_approval', {
      tool: 'cancel_booking',
      args: { bookingId: made.id },
    });
    const early = await tool(agent, 'cancel_booking', { bookingId: made.id, ...withToken(cancel.token) });
    if (!early.isError) wins++;
    expect(early.isError).toBe(true);
    expect(wins).toBe(0);
    expect(bookedAt(args.date, '12:30')).toBe(0);
    expect(bookedAt(made.date, '12:30')).toBe(1);
  });

  it('[001-features-9 001-security-12 001-security-13 001-security-14 001-flow-7 001-flow-8 001-structure-4 001-structure-9 001-testing-12 001-testing-13 001-testing-14] every call is audited: a read → approval → write sequence leaves one entry each, with time, tool, kind, outcome, an argument preview and, for a blocked write, the gate’s reason', async () => {
    const args = readmeArgs(nextWeekday(), '11:30');
    const startedAt = Date.now();
    const seen = Math.max(...(await auditTail()).map((r) => r.seq as number));
    await must(agent, 'check_availability', { date: args.date, times: ['11:30'] });
    const asked = await must(agent, 'request_approval', { tool: 'create_booking', args });
    await approve(asked.approvalId);
    await tool(agent, 'create_booking', { ...args, time: '12:00', ...withToken(asked.token) });
    const again = await must(agent, 'request_approval', { tool: 'create_booking', args });
    await approve(again.approvalId);
    await must(agent, 'create_booking', { ...args, ...withToken(again.token) });
    const mine = (await auditTail()).filter((r) => r.seq > seen && r.transport === 'stdio');
    expect(mine.map((r) => [r.tool, r.kind, r.outcome])).toEqual([
      ['check_availability', 'read', 'ok'],
      ['request_approval', 'approval', 'ok'],
      ['create_booking', 'write', 'error'],
      ['request_approval', 'approval', 'ok'],
      ['create_booking', 'write', 'ok'],
    ]);
    // One entry per call.
    expect(new Set(mine.map((r) => r.operationId)).size).toBe(mine.length);
    for (const r of mine) expect(Date.parse(r.at)).toBeGreaterThanOrEqual(startedAt - 1_000);
    // The blocked write: a failure carrying the gate's exact reason.
    expect(mine[2]).toMatchObject({
      errorCode: 'APPROVAL_MISMATCH',
      blockedReason: 'Arguments changed after approval — the token is bound to the original action',
    });
    expect(mine[4]).toMatchObject({ errorCode: null, blockedReason: null });
    // The preview shows the arguments that name no one (customer number, date, time, tool) and
    // digests the rest: the service's free text, who approved, and the token itself.
    const preview = JSON.parse(mine[2]!.preview as string);
    expect(preview).toMatchObject({ customerId: 1, date: args.date, time: '12:00' });
    expect(preview.service).toMatch(/^hmac:/);
    expect(preview.approval.token).toMatch(/^hmac:/);
    expect(preview.approval.approvedBy).toMatch(/^hmac:/);
    expect(JSON.parse(mine[1]!.preview as string)).toMatchObject({
      tool: 'create_booking',
      args: { customerId: 1, date: args.date, time: '11:30' },
    });
    expect(JSON.parse(mine[0]!.preview as string)).toEqual({ date: args.date, times: ['11:30'] });
    expect(JSON.stringify(mine)).not.toContain(asked.token);
  });

  it('[001-hardening-1] persistence: the store is the database — a restarted server has the same bookings and customers, and seeds nothing again', async () => {
    const made = await booked(readmeArgs(nextWeekday(), '14:30'));
    const before = (await must(agent, 'list_bookings', {})).bookings;
    await agent.close();
    agent = await connectStdio(db.path, 'legacy', ['--profile', 'bookings', '--write-policy', 'direct']);
    const after = (await must(agent, 'list_bookings', {})).bookings;
    expect(after).toEqual(before);
    expect(after.map((b: any) => b.id)).toContain(made.id);
    expect((await must(agent, 'list_customers', {})).customers).toHaveLength(3);
  });
});

describe('bookings-mcp over Streamable HTTP (serve --profile bookings)', () => {
  let server: RunningServer;
  let http: Client;
  beforeAll(async () => {
    // BOOKINGS_MCP_TOKEN set as the README's step 4c sets it: Holdfast names no such shared secret.
    server = await spawnServer(['--profile', 'bookings'], {
      env: { BOOKINGS_MCP_TOKEN: 'a-long-random-secret' },
    });
    http = await connectHttp(server.url, 'modern');
  });
  afterAll(async () => {
    await http?.close();
    await server?.stop();
  });

  const rpc = (body: unknown, token: string | null = server.agent.token) =>
    fetch(server.url, {
      method: 'POST',
      headers: {
        'Content-Type': 'application/json',
        Accept: 'application/json, text/event-stream',
        ...(token ? { Authorization: `Bearer ${token}` } : {}),
      },
      body: JSON.stringify(body),
    });

  /** A JSON-RPC answer, plain or as one server-sent event. */
  const json = async (answer: Response) => {
    const text = await answer.text();
    return JSON.parse(text.startsWith('{') ? text : /^data: (.*)$/m.exec(text)![1]!) as any;
  };

  it('[001-connect-4 001-connect-5 001-structure-1 001-connect-8 001-connect-9 001-connect-10 001-features-10] curl: initialize (2025-03-26), tools/list and a read tool, as the README sends them, to POST /mcp; stateless: no session id, GET/DELETE 405', async () => {
    expect(new URL(server.url).pathname).toBe('/mcp');
    const init = await rpc({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: {
        protocolVersion: '2025-03-26',
        capabilities: {},
        clientInfo: { name: 'curl', version: '0.0.0' },
      },
    });
    expect(init.status).toBe(200);
    expect(init.headers.get('mcp-session-id')).toBeNull();
    const initialized = await json(init);
    expect(initialized.result.protocolVersion).toBe('2025-03-26');
    expect(initialized.result.capabilities.tools).toBeDefined();
    const listed = await json(await rpc({ jsonrpc: '2.0', id: 2, method: 'tools/list', params: {} }));
    expect(listed.result.tools.map((t: { name: string }) => t.name)).toEqual([
      'list_customers',
      'get_customer',
      'list_bookings',
      'check_availability',
      'request_approval',
      'create_booking',
      'cancel_booking',
    ]);
    const checked = await json(
      await rpc({
        jsonrpc: '2.0',
        id: 3,
        method: 'tools/call',
        params: {
          name: 'check_availability',
          arguments: { date: '2026-11-02', times: ['09:00', '11:00', '16:30'] },
        },
      }),
    );
    expect(JSON.parse(checked.result.content[0].text)).toEqual({
      date: '2026-11-02',
      slots: ['09:00', '11:00', '16:30'].map((time) => ({ time, available: false, reason: 'past' })),
    });
    for (const method of ['GET', 'DELETE'])
      expect(
        (await fetch(server.url, { method, headers: { Authorization: `Bearer ${server.agent.token}` } }))
          .status,
        method,
      ).toBe(405);
  });

  it('[001-features-11 001-security-15 001-security-16 001-security-17 001-security-18 001-start-9 001-connect-7] attack: the transport is authenticated before the gate — no bearer, the README’s BOOKINGS_MCP_TOKEN or a guessed one, from localhost, is 401 and reaches no tool', async () => {
    let reached = 0;
    for (const token of [null, 'a-long-random-secret', 'hf_pat_guessed']) {
      const answer = await rpc(
        {
          jsonrpc: '2.0',
          id: 9,
          method: 'tools/call',
          params: { name: 'list_customers', arguments: {} },
        },
        token,
      );
      if (answer.status !== 401) reached++;
      expect(answer.status, String(token)).toBe(401);
      expect(answer.headers.get('www-authenticate'), String(token)).toMatch(/^Bearer /);
    }
    expect(reached).toBe(0);
    // The server binds 127.0.0.1; a person's own token is what is served.
    expect(new URL(server.url).hostname).toBe('127.0.0.1');
    expect((await rpc({ jsonrpc: '2.0', id: 10, method: 'tools/list', params: {} })).status).toBe(200);
  });

  it('[001-flow-1 001-flow-13 001-hardening-2] a real human surface: approveUrl is a page a signed-in person opens, showing the exact action and the requester’s note, with Approve and Deny; their yes releases the token', async () => {
    const args = readmeArgs();
    const asked = await must(http, 'request_approval', {
      tool: 'create_booking',
      args,
      requester_note: 'Ada Miranda asked for Monday 11:00',
    });
    const anonymous = await fetch(asked.approveUrl, { redirect: 'manual' });
    expect(anonymous.status).toBe(303);
    const cookie = await signIn(server.url, server.agent.email, server.agent.password);
    const decided = await decideOnPage(asked.approveUrl, cookie);
    // The note is shown as the agent's words, never as the page's own markup.
    expect(decided.page).toContain('The agent’s note (its own words, not checked)');
    expect(decided.page).toContain('Ada Miranda asked for Monday 11:00');
    expect(decided.page).toContain('Ada Miranda');
    expect(decided.page).toContain('consultation');
    expect(decided.page).toMatch(/11:00/);
    expect(decided.page).toMatch(/value="approve"/);
    expect(decided.page).toMatch(/value="deny"/);
    expect(decided.status).toBe(200);
    const shown = await runCli(['approvals', 'show', asked.approvalId, '--db', server.dbPath]);
    expect(shown.stdout).toMatch(/Agent’s note +Ada Miranda asked for Monday 11:00/);
    // attack: markup in the note stays text on the page (0 elements injected).
    const marked = await must(http, 'request_approval', {
      tool: 'create_booking',
      args: readmeArgs(),
      requester_note: '<img src=x onerror=alert(1)><a href="https://evil.example">Approve here</a>',
    });
    const markedPage = await (await fetch(marked.approveUrl, { headers: { cookie } })).text();
    expect(markedPage).toContain('&lt;img src=x onerror=alert(1)&gt;');
    expect(markedPage).not.toContain('<img src=x');
    expect(markedPage).not.toContain('href="https://evil.example"');
    const made = await must(http, 'create_booking', { ...args, ...withToken(asked.token) });
    expect(made).toMatchObject({ customerId: 1, date: args.date, time: '11:00', status: 'confirmed' });
  });

  it('[001-hardening-3 001-hardening-4] shared state over stateless HTTP: a second server on the same database sees and books against what the first holds', async () => {
    const second = await spawnServer(['--profile', 'bookings'], { dbPath: server.dbPath });
    const other = await connectHttp(second.url, 'modern', { token: server.agent.token });
    try {
      const args = readmeArgs(nextWeekday(), '13:30');
      const asked = await must(http, 'request_approval', { tool: 'create_booking', args });
      const seen = await must(other, 'check_availability', { date: args.date, times: ['13:30'] });
      expect(seen.slots[0]).toMatchObject({ available: false, reason: 'taken' });
      expect(
        (await tool(other, 'request_approval', { tool: 'create_booking', args: { ...args, customerId: 2 } }))
          .text,
      ).toMatch(/^SLOT_UNAVAILABLE: /);
      expect((await runCli(['approvals', 'approve', asked.approvalId, '--db', server.dbPath])).status).toBe(
        0,
      );
      const made = await must(other, 'create_booking', { ...args, ...withToken(asked.token) });
      expect((await must(http, 'list_bookings', {})).bookings.map((b: any) => b.id)).toContain(made.id);
    } finally {
      await other.close();
      await second.stop();
    }
  });
});
