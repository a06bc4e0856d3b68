import { randomUUID } from 'node:crypto';
import type { Client } from '@modelcontextprotocol/client';
import { Client as SdkClient } from '@modelcontextprotocol/client';
import { InMemoryTransport } from '@modelcontextprotocol/server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHoldfast } from 'holdfast';
import { createDeltatMcpServer } from 'holdfast/deltat';
import { connectHttp, connectStdio } from '../support/mcp-clients.js';
import type { RunningServer } from '../support/spawn-server.js';
import { provisionOnce, runCli, runProcess, CLI, spawnServer, tempDbPath } from '../support/spawn-server.js';

// Seed 003 (deltat, /work/shared/seeds/003_b2f3d778f73207b1.txt) served as itself:
// `holdfast stdio --profile deltat` (and a tenant's --tool-profile deltat over HTTP, and
// createDeltatMcpServer from holdfast/deltat), driven by the official MCP client with the
// seed's own calls — `find_slots({ calendar_ids: [body, lens, crew], from, to })`, `hold_slot`,
// `commit_hold({ hold_ids, label })` — and its refusal compared with the seed's JSON field by field.

const ALL_WEEK = Object.fromEntries(
  ['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'].map((d) => [d, [{ start: '09:00', end: '18:00' }]]),
);
const HOUR = 3_600_000;
/** The seed's alternatives and times: UTC with milliseconds. */
const DELTAT_INSTANT = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;
/** "1 Jun 2026, 2:00 pm" */
const DELTAT_LOCAL = /^\d{1,2} [A-Z][a-z]{2} \d{4}, \d{1,2}:\d\d [ap]m$/;

interface Answer {
  readonly isError: boolean;
  readonly text: string;
  readonly data: any;
}

async function tool(client: Client, name: string, args: Record<string, unknown>): Promise<Answer> {
  const result = (await client.callTool({ name, arguments: args })) as {
    isError?: boolean;
    content: { type: string; text: string }[];
    structuredContent?: unknown;
  };
  return { isError: !!result.isError, text: result.content[0]!.text, data: result.structuredContent };
}

async function must(client: Client, name: string, args: Record<string, unknown>) {
  const answer = await tool(client, name, args);
  if (answer.isError) throw new Error(`${name}: ${answer.text}`);
  return answer.data;
}

/** A day of its own, 10:00–11:00 UTC, days ahead. */
let day = 2;
function nextHour() {
  const base = Math.ceil(Date.now() / (24 * HOUR)) * 24 * HOUR + day++ * 24 * HOUR + 10 * HOUR;
  return { start: new Date(base).toISOString(), end: new Date(base + HOUR).toISOString() };
}

const db = tempDbPath();
let password: string;
let stdio: Client;
let body: string;
let lens: string;
let crew: string;

beforeAll(async () => {
  ({ password } = await provisionOnce(db.path));
  stdio = await connectStdio(
    db.path,
    'modern',
    ['--no-seed', '--profile', 'deltat', '--write-policy', 'direct'],
    {
      DELTAT_PASSWORD: password,
    },
  );
  const make = async (name: string) => {
    const made = await must(stdio, 'create_calendar', { name });
    await must(stdio, 'set_availability', { calendar_id: made.calendar_id, weekly: ALL_WEEK });
    return made.calendar_id as string;
  };
  body = await make('Camera body');
  lens = await make('Lens');
  crew = await make('Crew');
});
afterAll(async () => {
  await stdio?.close();
  db.cleanup();
});

describe('deltat as itself (stdio, --profile deltat)', () => {
  it('003 tools: exactly the nine tools, named as the seed names them, with snake_case arguments', async () => {
    const { tools } = await stdio.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual(
      [
        'book_slot',
        'cancel_booking',
        'commit_hold',
        'create_calendar',
        'find_slots',
        'hold_slot',
        'list_bookings',
        'release_hold',
        'set_availability',
      ].sort(),
    );
    const schemaOf = (name: string) => tools.find((t) => t.name === name)!.inputSchema as any;
    expect(Object.keys(schemaOf('find_slots').properties)).toEqual(
      expect.arrayContaining(['calendar_ids', 'from', 'to']),
    );
    expect(schemaOf('find_slots').required.sort()).toEqual(['calendar_ids', 'from', 'to']);
    expect(schemaOf('commit_hold').required).toEqual(['hold_ids']);
    expect(Object.keys(schemaOf('commit_hold').properties)).toContain('label');
  });

  it('003 several calendars: the seed’s three calls, verbatim — free for ALL, held every one, booked every one in one record', async () => {
    const { start, end } = nextHour();
    const from = new Date(Date.parse(start) - HOUR).toISOString();
    const to = new Date(Date.parse(end) + HOUR).toISOString();
    const free = await must(stdio, 'find_slots', { calendar_ids: [body, lens, crew], from, to });
    // Without a duration: the stretches when all three are free (the day's 09:00–18:00 here).
    expect(free.slots).toEqual([{ start: from, end: to, start_local: expect.stringMatching(DELTAT_LOCAL) }]);
    const hold = await must(stdio, 'hold_slot', { calendar_ids: [body, lens, crew], start, end });
    expect(hold.hold_ids).toHaveLength(3);
    expect(hold).toMatchObject({ held: true, booked: false });
    expect(hold.expires_at).toMatch(DELTAT_INSTANT);
    const booked = await must(stdio, 'commit_hold', { hold_ids: hold.hold_ids, label: 'Shoot' });
    expect(booked).toMatchObject({
      booked: true,
      label: 'Shoot',
      status: 'confirmed',
      calendar_ids: [body, lens, crew],
      start: new Date(start).toISOString(),
      end: new Date(end).toISOString(),
    });
    // One record: list_bookings shows one booking naming the three calendars.
    const listed = await must(stdio, 'list_bookings', { calendar_ids: [lens] });
    expect(listed.bookings.filter((b: any) => b.booking_id === booked.booking_id)).toHaveLength(1);
    expect(listed.bookings.find((b: any) => b.booking_id === booked.booking_id).calendar_ids).toEqual([
      body,
      lens,
      crew,
    ]);
  });

  it('003 refusals: a taken time is refused with the seed’s JSON, field by field; the alternatives are free for all three and not reserved', async () => {
    const { start, end } = nextHour();
    await must(stdio, 'hold_slot', { calendar_ids: [lens], start, end });
    const refused = await tool(stdio, 'hold_slot', { calendar_ids: [body, lens, crew], start, end });
    expect(refused.isError).toBe(true);
    const json = JSON.parse(refused.text);
    // The seed's example, key by key and in its order.
    expect(Object.keys(json)).toEqual([
      'error',
      'booked',
      'held',
      'reserved',
      'retry_same_time',
      'alternatives',
      'next',
    ]);
    expect(json).toMatchObject({ error: 'CONFLICT', booked: false, held: false, reserved: false });
    // Taken by a hold, which may lapse: the same time may come free again.
    expect(json.retry_same_time).toBe(true);
    expect(json.next).toBe(
      'These times were free a moment ago but are NOT reserved. Offer one, then call hold_slot on it before you tell anyone it is theirs.',
    );
    expect(json.alternatives.length).toBeGreaterThan(0);
    for (const alternative of json.alternatives) {
      expect(Object.keys(alternative)).toEqual(['start', 'end', 'start_local']);
      expect(alternative.start).toMatch(DELTAT_INSTANT);
      expect(alternative.end).toMatch(DELTAT_INSTANT);
      expect(alternative.start_local).toMatch(DELTAT_LOCAL);
      // Never the time just refused; the same length; free on every calendar of the group.
      expect(alternative.start).not.toBe(new Date(start).toISOString());
      expect(Date.parse(alternative.end) - Date.parse(alternative.start)).toBe(HOUR);
      const held = await must(stdio, 'hold_slot', {
        calendar_ids: [body, lens, crew],
        start: alternative.start,
        end: alternative.end,
      });
      await must(stdio, 'release_hold', { hold_ids: held.hold_ids });
    }
  });

  it('003 refusals: outside the open hours, the same time will not free up (retry_same_time false)', async () => {
    const { start } = nextHour();
    const night = new Date(Date.parse(start) + 10 * HOUR).toISOString(); // 20:00 UTC, after 18:00
    const refused = JSON.parse(
      (
        await tool(stdio, 'hold_slot', {
          calendar_ids: [body],
          start: night,
          end: new Date(Date.parse(night) + HOUR).toISOString(),
        })
      ).text,
    );
    expect(refused).toMatchObject({ error: 'CONFLICT', reserved: false, retry_same_time: false });
  });

  it('003 times: a timestamp without an offset is refused (INVALID), never read in the process’s zone', async () => {
    const { start } = nextHour();
    const naive = start.replace(/\.\d{3}Z$/, '');
    const refused = await tool(stdio, 'hold_slot', { calendar_ids: [body], start: naive, end: naive });
    expect(refused.isError).toBe(true);
    expect(refused.text).toMatch(/^INVALID: start: must be an RFC 3339 date-time with an offset/);
  });

  it('003 errors: CODE: message prefixes to branch on — EXPIRED, NOT_FOUND, INVALID', async () => {
    expect((await tool(stdio, 'cancel_booking', { booking_id: 'bk_nope' })).text).toMatch(/^NOT_FOUND: /);
    const { start, end } = nextHour();
    const hold = await must(stdio, 'hold_slot', { calendar_ids: [body, lens], start, end });
    // Part of a hold cannot be committed: its calendars are one record.
    const part = await tool(stdio, 'commit_hold', { hold_ids: [hold.hold_ids[0]] });
    expect(part.text).toMatch(/^INVALID: hold_ids: name every hold of it/);
    await must(stdio, 'release_hold', { hold_ids: hold.hold_ids });
    const released = await tool(stdio, 'commit_hold', { hold_ids: hold.hold_ids });
    expect(released.text).toMatch(/^(INVALID|EXPIRED): /);
  });

  it('003 book_slot: registered, and never books — it says how to book instead', async () => {
    const { start, end } = nextHour();
    const answer = await tool(stdio, 'book_slot', { what: `${start} to ${end}` });
    expect(answer.isError).toBe(true);
    expect(answer.text).toMatch(/^INVALID: book_slot never books.*hold_slot.*commit_hold/);
    expect((await must(stdio, 'list_bookings', { from: start, to: end })).bookings).toEqual([]);
  });

  it('003 smoke: create → availability → find → hold → commit → list → cancel, as scripts/smoke.ts drives it', async () => {
    const made = await must(stdio, 'create_calendar', { name: 'Haircuts' });
    await must(stdio, 'set_availability', {
      calendar_id: made.calendar_id,
      weekly: {
        mon: [{ start: '13:00', end: '18:00' }],
        tue: [{ start: '13:00', end: '18:00' }],
        wed: [{ start: '13:00', end: '18:00' }],
        thu: [{ start: '13:00', end: '18:00' }],
        fri: [{ start: '13:00', end: '18:00' }],
      },
    });
    const from = new Date(Date.now() + 24 * HOUR).toISOString();
    const to = new Date(Date.now() + 8 * 24 * HOUR).toISOString();
    const found = await must(stdio, 'find_slots', {
      calendar_ids: [made.calendar_id],
      from,
      to,
      duration_minutes: 30,
      limit: 1,
    });
    expect(found.slots).toHaveLength(1);
    const [slot] = found.slots;
    const hold = await must(stdio, 'hold_slot', {
      calendar_ids: [made.calendar_id],
      start: slot.start,
      end: slot.end,
    });
    const booked = await must(stdio, 'commit_hold', { hold_ids: hold.hold_ids, label: 'Haircut' });
    const listed = await must(stdio, 'list_bookings', { calendar_ids: [made.calendar_id] });
    expect(listed.bookings.map((b: any) => b.booking_id)).toEqual([booked.booking_id]);
    const cancelled = await must(stdio, 'cancel_booking', { booking_id: booked.booking_id });
    expect(cancelled).toMatchObject({ cancelled: true, status: 'cancelled' });
    expect((await must(stdio, 'list_bookings', { calendar_ids: [made.calendar_id] })).bookings).toEqual([]);
  });
});

describe('deltat’s configuration', () => {
  it('003 配置: DELTAT_PASSWORD is required, has no default, and must be the password of the person served', async () => {
    const args = [CLI, 'stdio', '--db', db.path, '--no-seed', '--profile', 'deltat'];
    for (const env of [{}, { DELTAT_PASSWORD: '' }, { DELTAT_PASSWORD: 'not-the-password' }]) {
      const run = await runProcess(process.execPath, args, {
        env: { ...process.env, DELTAT_PASSWORD: undefined, ...env },
        timeoutMs: 20_000,
      });
      // It refused to start (a server that started would wait on stdin until the timeout: null).
      expect(run.status, JSON.stringify(env)).toBeTypeOf('number');
      expect(run.status).not.toBe(0);
      expect(run.stderr).toMatch(/DELTAT_PASSWORD/);
    }
  });

  it('003 配置: DELTAT_COUNTER_OFFER=0 — a refusal is the plain CODE: message, as a kernel without counter-offers answers', async () => {
    const plain = await connectStdio(
      db.path,
      'modern',
      ['--no-seed', '--profile', 'deltat', '--write-policy', 'direct'],
      {
        DELTAT_PASSWORD: password,
        DELTAT_COUNTER_OFFER: '0',
      },
    );
    try {
      const { start, end } = nextHour();
      await must(plain, 'hold_slot', { calendar_ids: [crew], start, end });
      const refused = await tool(plain, 'hold_slot', { calendar_ids: [crew], start, end });
      expect(refused.isError).toBe(true);
      expect(refused.text).toMatch(/^CONFLICT: [^{]+$/);
    } finally {
      await plain.close();
    }
  });

  it('003 嵌入: createDeltatMcpServer(holdfast) returns an MCP server to connect to your own transport (an in-memory one here)', async () => {
    const embeddedDb = tempDbPath();
    const holdfast = await createHoldfast({
      database: embeddedDb.path,
      actAs: 'op@example.com',
      writePolicy: 'direct',
    });
    try {
      const server = createDeltatMcpServer(holdfast);
      const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
      await server.connect(serverSide);
      const client = new SdkClient({ name: 'smoke', version: '1' });
      await client.connect(clientSide);
      const made = await must(client, 'create_calendar', { name: 'Studio' });
      await must(client, 'set_availability', { calendar_id: made.calendar_id, weekly: ALL_WEEK });
      const { start, end } = nextHour();
      const hold = await must(client, 'hold_slot', { calendar_ids: [made.calendar_id], start, end });
      const booked = await must(client, 'commit_hold', { hold_ids: hold.hold_ids, label: 'In memory' });
      expect(booked).toMatchObject({ booked: true, label: 'In memory' });
      expect((await holdfast.getBooking(booked.booking_id)).status).toBe('CONFIRMED');
      await client.close();
    } finally {
      await holdfast.close();
      embeddedDb.cleanup();
    }
  });
});

describe('deltat for one tenant over HTTP (tenants set --tool-profile deltat)', () => {
  let server: RunningServer;
  let agent: Client;
  beforeAll(async () => {
    const httpDb = tempDbPath();
    server = await spawnServer(['--no-seed'], { dbPath: httpDb.path });
    expect(
      (await runCli(['tenants', 'set', 'local', '--tool-profile', 'deltat', '--db', httpDb.path])).status,
    ).toBe(0);
    agent = await connectHttp(server.url, 'modern');
  });
  afterAll(async () => {
    await agent?.close();
    await server?.stop();
  });

  it('003 the tenant’s agents get deltat’s tools; commit_hold follows the write policy: a person approves, then it books', async () => {
    expect((await agent.listTools()).tools.map((t) => t.name)).toContain('commit_hold');
    const made = await must(agent, 'create_calendar', { name: 'Room', idempotency_key: randomUUID() });
    await must(agent, 'set_availability', { calendar_id: made.calendar_id, weekly: ALL_WEEK });
    const { start, end } = nextHour();
    const hold = await must(agent, 'hold_slot', { calendar_ids: [made.calendar_id], start, end });
    const asked = await tool(agent, 'commit_hold', { hold_ids: hold.hold_ids });
    expect(asked.isError).toBe(true);
    const approvalId = /approval_id "([0-9a-f-]{36})"/.exec(asked.text)?.[1];
    expect(asked.text).toMatch(/^APPROVAL_REQUIRED: .*http:\/\/.*\/approvals\//);
    expect(approvalId).toBeDefined();
    // The agent cannot approve it: only a person (here the operator on the command line).
    expect(
      (await tool(agent, 'commit_hold', { hold_ids: hold.hold_ids, approval_id: approvalId })).text,
    ).toMatch(/^APPROVAL_PENDING: /);
    expect((await runCli(['approvals', 'approve', approvalId!, '--db', server.dbPath])).status).toBe(0);
    const booked = await must(agent, 'commit_hold', { hold_ids: hold.hold_ids, approval_id: approvalId });
    expect(booked).toMatchObject({ booked: true, status: 'confirmed' });
  });
});
