import { randomUUID } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Client } from '@modelcontextprotocol/client';
import { Client as SdkClient, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { InMemoryTransport } from '@modelcontextprotocol/server';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHoldfast } from 'holdfast';
import { createDeltatMcpServer } from 'holdfast/deltat';
import { insertOverlapDirectly } from '../support/forged-rows.js';
import { connectHttp, connectStdio } from '../support/mcp-clients.js';
import { connectByHttp } from '../support/oauth-by-http.js';
import { TestOAuthHost } from '../support/oauth-host.js';
import { PASSWORD, provision } from '../support/provision.js';
import type { RunningServer } from '../support/spawn-server.js';
import { provisionOnce, runCli, runProcess, CLI, spawnServer, tempDbPath } from '../support/spawn-server.js';
import type { TestCa } from '../support/test-ca.js';
import { makeTestCa } from '../support/test-ca.js';
import type { RawAnswer } from '../support/raw-answer.js';
import { rawCall } from '../support/raw-answer.js';

// Seed 003 (deltat, docs/contracts/seeds/003_b2f3d778f73207b1.txt) served as itself:
// `holdfast stdio --profile deltat` (and a tenant's --tool-profile deltat over HTTP, `serve
// --profile deltat` behind OAuth, and createDeltatMcpServer from holdfast/deltat), driven by the
// official MCP client with the seed's own calls — `find_slots({ calendar_ids: [body, lens, crew],
// from, to })`, `hold_slot`, `commit_hold({ hold_ids, label })` — and its refusal compared with the
// seed's JSON field by field. Each `it` names the inventory rows it proves
// (docs/contracts/003-deltat.md); the one difference, a person's approval before commit_hold and
// cancel_booking under the default write policy, is proven by the attack test.

const ALL_WEEK = Object.fromEntries(
  ['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'].map((d) => [d, [{ start: '09:00', end: '18:00' }]]),
);
const HOUR = 3_600_000;
/** The seed's alternatives and times: UTC with milliseconds. */
const DELTAT_INSTANT = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;
/** "1 Jun 2026, 2:00 pm" */
const DELTAT_LOCAL = /^\d{1,2} [A-Z][a-z]{2} \d{4}, \d{1,2}:\d\d [ap]m$/;

const tool = rawCall;

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

/** The booking a hold id belongs to: `<booking id>:<calendar id>`. */
const bookingOf = (holdId: string) => holdId.slice(0, holdId.lastIndexOf(':'));

/** A refusal's type: the JSON's `error`, or the prefix of a `CODE: message` line. */
const codeOf = (answer: RawAnswer) =>
  answer.text.startsWith('{') ? (JSON.parse(answer.text).error as string) : answer.text.split(':')[0]!;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const DELTAT_ARGS = ['--no-seed', '--profile', 'deltat', '--write-policy', 'direct'];

const db = tempDbPath();
let person: { personId: string; email: string };
let password: string;
let stdio: Client;
/** A second deltat process on the same database: another booker racing this one. */
let other: Client;
let body: string;
let lens: string;
let crew: string;

beforeAll(async () => {
  person = await provisionOnce(db.path);
  ({ password } = await provisionOnce(db.path));
  stdio = await connectStdio(
    db.path,
    'modern',
    ['--no-seed', '--profile', 'deltat', '--write-policy', 'direct'],
    {
      DELTAT_PASSWORD: password,
    },
  );
  other = await connectStdio(db.path, 'modern', DELTAT_ARGS, { DELTAT_PASSWORD: password });
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
  await Promise.all([stdio?.close(), other?.close()]);
  db.cleanup();
});

describe('deltat as itself (stdio, --profile deltat)', () => {
  it('[003-intro-3 003-tools-1 003-tools-3 003-tools-5 003-tools-7 003-tools-9 003-tools-11 003-tools-13 003-tools-14 003-tools-15 003-multi-1 003-multi-4 003-auth-11] exactly the nine tools, named as the seed names them, with snake_case arguments', async () => {
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

  it('[003-intro-4 003-tools-4 003-tools-6 003-tools-13 003-multi-1 003-multi-2 003-multi-3 003-multi-4 003-multi-6] several calendars: the seed’s three calls, verbatim — free for ALL, held every one, booked every one in one record', async () => {
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

  it('[003-refusal-1 003-refusal-2 003-refusal-3 003-refusal-4 003-refusal-5 003-refusal-6 003-refusal-7 003-multi-8] a taken time is refused with the seed’s JSON, field by field; the alternatives are free for all three, the same length, never the refused time, and not reserved', async () => {
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

  it('[003-refusal-1 003-refusal-4 003-refusal-7] outside the open hours the refusal is the same JSON, and the same time will not free up (retry_same_time false)', async () => {
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

  it('[003-tools-20] a timestamp without an offset is refused (INVALID), never read in the process’s zone', async () => {
    const { start } = nextHour();
    const naive = start.replace(/\.\d{3}Z$/, '');
    const refused = await tool(stdio, 'hold_slot', { calendar_ids: [body], start: naive, end: naive });
    expect(refused.isError).toBe(true);
    expect(refused.text).toMatch(/^INVALID: start: must be an RFC 3339 date-time with an offset/);
  });

  it('[003-tools-6 003-tools-21 003-multi-4] errors are CODE: message lines to branch on — NOT_FOUND, INVALID; part of a hold is never committed', async () => {
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

  it('[003-intro-3 003-tools-16 003-tools-17 003-tools-18] book_slot: registered, and never books — it says how to book instead', async () => {
    const { start, end } = nextHour();
    const answer = await tool(stdio, 'book_slot', { what: `${start} to ${end}` });
    expect(answer.isError).toBe(true);
    expect(answer.text).toMatch(/^INVALID: book_slot never books.*hold_slot.*commit_hold/);
    expect((await must(stdio, 'list_bookings', { from: start, to: end })).bookings).toEqual([]);
  });

  it('[003-intro-4 003-tools-13 003-tools-14 003-multi-5 003-smoke-2] the round trip over stdio: create → availability → find → hold → commit → list → cancel (one-element lists for one calendar; under direct, cancel_booking cancels at once)', async () => {
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

  it('[003-tools-1 003-tools-3 003-tools-5 003-tools-7 003-tools-9 003-tools-11 003-tools-13 003-tools-14 003-tools-15 003-tools-16] each tool says when to use it, as the seed’s table does', async () => {
    const { tools } = await stdio.listTools();
    const said = Object.fromEntries(tools.map((t) => [t.name, t.description ?? '']));
    const when: Record<string, RegExp> = {
      find_slots:
        /^Use before offering anyone a time\. Lists the times when ALL the calendars you name are truly free/,
      hold_slot: /^Use when you are about to offer a person one exact time\..*returns hold_ids/,
      commit_hold:
        /^Use when the booking is agreed\. Turns every hold of a hold_slot into one booking, atomically/,
      release_hold: /^Use as soon as you know a held time is not needed\. Gives back every hold/,
      create_calendar: /^Use when you need a new bookable calendar\. Returns calendar_id\./,
      set_availability:
        /^Use when the opening hours change, or when find_slots returns nothing\. Replaces the whole week/,
      list_bookings: /^Use when someone asks what is scheduled, or you need a booking_id to cancel\./,
      cancel_booking: /^Use when a person asks to cancel a confirmed booking/,
      book_slot: /^Never use this\. It only refuses and explains: book with hold_slot, then commit_hold/,
    };
    expect(Object.keys(said).sort()).toEqual(Object.keys(when).sort());
    for (const [name, pattern] of Object.entries(when)) expect(said[name], name).toMatch(pattern);
  });

  it('[003-intro-1 003-intro-9 003-intro-10 003-config-1] never a double booking: six holds of one time raced from two processes, one wins; a row forged behind the server is refused by the database itself', async () => {
    const { start, end } = nextHour();
    const attempts = await Promise.all(
      [stdio, other, stdio, other, stdio, other].map((client) =>
        tool(client, 'hold_slot', { calendar_ids: [body], start, end }),
      ),
    );
    const won = attempts.filter((a) => !a.isError);
    expect(won).toHaveLength(1);
    for (const lost of attempts.filter((a) => a.isError)) expect(codeOf(lost)).toBe('CONFLICT');
    const bookingId = bookingOf(won[0]!.data.hold_ids[0]);
    expect(insertOverlapDirectly(db.path, bookingId)).toContain('HOLDFAST_OVERLAP');
  });

  it('[003-intro-5 003-intro-6] a hold keeps the time for a few minutes (expires_at five minutes on); meanwhile nobody else can take it, and its holder commits it', async () => {
    const { start, end } = nextHour();
    const before = Date.now();
    const hold = await must(stdio, 'hold_slot', { calendar_ids: [crew], start, end });
    const lasts = Date.parse(hold.expires_at) - before;
    expect(lasts).toBeGreaterThan(4.5 * 60_000);
    expect(lasts).toBeLessThanOrEqual(5 * 60_000 + 1_000);
    const theirs = await tool(other, 'hold_slot', { calendar_ids: [crew], start, end });
    expect(theirs.isError).toBe(true);
    expect(codeOf(theirs)).toBe('CONFLICT');
    expect(await must(stdio, 'commit_hold', { hold_ids: hold.hold_ids })).toMatchObject({ booked: true });
  });

  it('[003-intro-7 003-intro-8 003-tools-21] holds lapse by themselves and cost nothing: after expires_at the time is free again, and committing the lapsed hold is EXPIRED', async () => {
    const brief = await connectStdio(db.path, 'modern', [...DELTAT_ARGS, '--hold-ttl', '2'], {
      DELTAT_PASSWORD: password,
    });
    try {
      const { start, end } = nextHour();
      const hold = await must(brief, 'hold_slot', { calendar_ids: [lens], start, end });
      // Nothing in a hold costs anything: no price, no payment, nothing to pay.
      expect(Object.keys(hold).sort()).toEqual(
        ['booked', 'calendar_ids', 'end', 'expires_at', 'held', 'hold_ids', 'start', 'start_local'].sort(),
      );
      expect(Date.parse(hold.expires_at) - Date.now()).toBeLessThanOrEqual(2_000);
      await sleep(Date.parse(hold.expires_at) + 300 - Date.now());
      const free = await must(stdio, 'find_slots', { calendar_ids: [lens], from: start, to: end });
      expect(free.slots.map((s: any) => [s.start, s.end])).toEqual([[start, end]]);
      const late = await tool(brief, 'commit_hold', { hold_ids: hold.hold_ids });
      expect(late.isError).toBe(true);
      expect(late.text).toMatch(/^EXPIRED: /);
      const again = await must(other, 'hold_slot', { calendar_ids: [lens], start, end });
      await must(other, 'release_hold', { hold_ids: again.hold_ids });
    } finally {
      await brief.close();
    }
  });

  it('[003-tools-2 003-multi-2] find_slots lists only what is really free on every calendar named: a held hour is gone for that calendar and for any group with it, still there for the others', async () => {
    const { start, end } = nextHour();
    await must(other, 'hold_slot', { calendar_ids: [lens], start, end });
    const from = new Date(Date.parse(start) - HOUR).toISOString();
    const to = new Date(Date.parse(end) + HOUR).toISOString();
    const stretches = async (calendar_ids: string[]) =>
      (await must(stdio, 'find_slots', { calendar_ids, from, to })).slots.map((s: any) => [s.start, s.end]);
    expect(await stretches([body])).toEqual([[from, to]]);
    const around = [
      [from, start],
      [end, to],
    ];
    expect(await stretches([lens])).toEqual(around);
    expect(await stretches([body, lens, crew])).toEqual(around);
    // With a length: slots of it, none over the held hour.
    const slots = await must(stdio, 'find_slots', {
      calendar_ids: [body, lens],
      from,
      to,
      duration_minutes: 30,
      limit: 100,
    });
    expect(slots.slots.length).toBeGreaterThan(0);
    for (const s of slots.slots) {
      expect(Date.parse(s.end) - Date.parse(s.start)).toBe(30 * 60_000);
      expect(Date.parse(s.start) >= Date.parse(end) || Date.parse(s.end) <= Date.parse(start)).toBe(true);
    }
  });

  it('[003-tools-8] release_hold frees the time at once: another booker holds it right after', async () => {
    const { start, end } = nextHour();
    const hold = await must(stdio, 'hold_slot', { calendar_ids: [body, crew], start, end });
    expect(codeOf(await tool(other, 'hold_slot', { calendar_ids: [crew], start, end }))).toBe('CONFLICT');
    expect(await must(stdio, 'release_hold', { hold_ids: hold.hold_ids })).toEqual({
      hold_ids: hold.hold_ids,
      released: true,
    });
    const theirs = await must(other, 'hold_slot', { calendar_ids: [body, crew], start, end });
    expect(theirs.held).toBe(true);
    await must(other, 'release_hold', { hold_ids: theirs.hold_ids });
  });

  it('[003-tools-10 003-tools-11 003-tools-12] create_calendar returns calendar_id; a new calendar offers nothing until set_availability, which replaces the whole week', async () => {
    const made = await must(stdio, 'create_calendar', { name: 'Reopened room' });
    expect(made).toEqual({
      calendar_id: expect.stringMatching(/^cal_/),
      name: 'Reopened room',
      time_zone: 'UTC',
    });
    const from = new Date(Date.now() + HOUR).toISOString();
    const to = new Date(Date.now() + 8 * 24 * HOUR).toISOString();
    const find = async () =>
      (
        await must(stdio, 'find_slots', {
          calendar_ids: [made.calendar_id],
          from,
          to,
          duration_minutes: 60,
          limit: 100,
        })
      ).slots as { start: string }[];
    expect(await find()).toEqual([]);
    const monday = await must(stdio, 'set_availability', {
      calendar_id: made.calendar_id,
      weekly: { mon: [{ start: '09:00', end: '10:00' }] },
    });
    expect(monday).toEqual({
      calendar_id: made.calendar_id,
      weekly: { mon: [{ start: '09:00', end: '10:00' }] },
    });
    const mondays = await find();
    expect(mondays.length).toBeGreaterThan(0);
    for (const s of mondays)
      expect([new Date(s.start).getUTCDay(), s.start.slice(11, 16)]).toEqual([1, '09:00']);
    // The whole week is replaced: Monday is gone, only Tuesday afternoon is open.
    await must(stdio, 'set_availability', {
      calendar_id: made.calendar_id,
      weekly: { tue: [{ start: '14:00', end: '15:00' }] },
    });
    const tuesdays = await find();
    expect(tuesdays.length).toBeGreaterThan(0);
    for (const s of tuesdays)
      expect([new Date(s.start).getUTCDay(), s.start.slice(11, 16)]).toEqual([2, '14:00']);
  });

  it('[003-intro-3 003-tools-18] book_slot given a real time books and holds nothing: the time stays free for anyone', async () => {
    const { start, end } = nextHour();
    const answer = await tool(stdio, 'book_slot', { calendar_ids: [crew], start, end, label: 'One step' });
    expect(answer.isError).toBe(true);
    expect(answer.text).toMatch(/^INVALID: book_slot never books, and nothing was reserved\./);
    const free = await must(other, 'find_slots', { calendar_ids: [crew], from: start, to: end });
    expect(free.slots.map((s: any) => [s.start, s.end])).toEqual([[start, end]]);
    expect(
      (await must(stdio, 'list_bookings', { calendar_ids: [crew], from: start, to: end })).bookings,
    ).toEqual([]);
  });

  it('[003-tools-19] times are RFC 3339 strings with an offset: epoch milliseconds are refused; +02:00 is read as that instant; answers are RFC 3339', async () => {
    const { start, end } = nextHour();
    const epoch = await tool(stdio, 'hold_slot', { calendar_ids: [body], start: Date.parse(start), end });
    expect(epoch.isError).toBe(true);
    expect(epoch.text).toMatch(/^INVALID: start\b/);
    const berlin = start.replace('T10:00:00.000Z', 'T12:00:00+02:00');
    const hold = await must(stdio, 'hold_slot', { calendar_ids: [body], start: berlin, end });
    expect([hold.start, hold.end]).toEqual([start, end]);
    expect(hold.expires_at).toMatch(DELTAT_INSTANT);
    await must(stdio, 'release_hold', { hold_ids: hold.hold_ids });
  });

  it('[003-refusal-5] start_local is the calendar’s own local time: a Tokyo calendar’s alternatives and free times read in Tokyo', async () => {
    const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
    const inTokyo = (instant: string) => {
      const at = new Date(Date.parse(instant) + 9 * HOUR); // Asia/Tokyo: UTC+9, no summer time
      const h = at.getUTCHours();
      const mm = String(at.getUTCMinutes()).padStart(2, '0');
      return `${at.getUTCDate()} ${MONTHS[at.getUTCMonth()]} ${at.getUTCFullYear()}, ${h % 12 || 12}:${mm} ${h < 12 ? 'am' : 'pm'}`;
    };
    const made = await must(stdio, 'create_calendar', { name: 'Tokyo studio', time_zone: 'Asia/Tokyo' });
    await must(stdio, 'set_availability', { calendar_id: made.calendar_id, weekly: ALL_WEEK });
    const day10 = nextHour().start;
    // 01:00-02:00 UTC is 10:00-11:00 in Tokyo, inside its 09:00-18:00.
    const start = day10.replace('T10:', 'T01:');
    const end = day10.replace('T10:', 'T02:');
    const free = await must(stdio, 'find_slots', { calendar_ids: [made.calendar_id], from: start, to: end });
    expect(free.slots).toEqual([{ start, end, start_local: inTokyo(start) }]);
    expect(free.slots[0].start_local).toMatch(/, 10:00 am$/);
    await must(stdio, 'hold_slot', { calendar_ids: [made.calendar_id], start, end });
    const refused = JSON.parse(
      (await tool(other, 'hold_slot', { calendar_ids: [made.calendar_id], start, end })).text,
    );
    expect(refused.alternatives.length).toBeGreaterThan(0);
    for (const alternative of refused.alternatives)
      expect(alternative.start_local).toBe(inTokyo(alternative.start));
  });

  it('[003-refusal-8] the alternatives were free but are not reserved: another booker may take one first, and using one takes hold_slot', async () => {
    const { start, end } = nextHour();
    await must(stdio, 'hold_slot', { calendar_ids: [crew], start, end });
    const refused = JSON.parse((await tool(other, 'hold_slot', { calendar_ids: [crew], start, end })).text);
    const [first] = refused.alternatives;
    // Someone else holds the first alternative before the refused booker calls hold_slot on it.
    const taken = await must(stdio, 'hold_slot', {
      calendar_ids: [crew],
      start: first.start,
      end: first.end,
    });
    const late = await tool(other, 'hold_slot', { calendar_ids: [crew], start: first.start, end: first.end });
    expect(codeOf(late)).toBe('CONFLICT');
    await must(stdio, 'release_hold', { hold_ids: taken.hold_ids });
    const mine = await must(other, 'hold_slot', { calendar_ids: [crew], start: first.start, end: first.end });
    expect(mine.held).toBe(true);
  });

  it('[003-refusal-9] with no time to offer (a length the open hours never fit) the refusal is the plain CODE: message', async () => {
    const { start } = nextHour();
    const from = start.replace('T10:', 'T08:');
    const refused = await tool(stdio, 'hold_slot', {
      calendar_ids: [body],
      start: from,
      end: new Date(Date.parse(from) + 12 * HOUR).toISOString(), // 12 hours; open 09:00-18:00
    });
    expect(refused.isError).toBe(true);
    expect(refused.text).toMatch(/^CONFLICT: [^{]+$/);
  });

  it('[003-multi-3] hold_slot over several calendars holds every one, or none: with one of them taken nothing is held, and the others stay free', async () => {
    const { start, end } = nextHour();
    await must(other, 'hold_slot', { calendar_ids: [lens], start, end });
    const refused = await tool(stdio, 'hold_slot', { calendar_ids: [body, lens, crew], start, end });
    expect(codeOf(refused)).toBe('CONFLICT');
    const rest = await must(other, 'hold_slot', { calendar_ids: [body, crew], start, end });
    expect(rest.hold_ids).toHaveLength(2);
  });

  it('[003-multi-5] one calendar is the same call with a one-element list; a bare id is refused', async () => {
    const { start, end } = nextHour();
    const one = await must(stdio, 'hold_slot', { calendar_ids: [crew], start, end });
    expect([one.calendar_ids, one.hold_ids.length]).toEqual([[crew], 1]);
    const bare = await tool(stdio, 'hold_slot', { calendar_ids: crew, ...nextHour() });
    expect(bare.isError).toBe(true);
    expect(bare.text).toMatch(/^INVALID: calendar_ids\b/);
  });

  it('[003-multi-7] never the body booked and the lens free: overlapping groups raced from two processes, one wins whole and the other holds nothing', async () => {
    for (let round = 0; round < 3; round++) {
      const { start, end } = nextHour();
      const [a, b] = await Promise.all([
        tool(stdio, 'hold_slot', { calendar_ids: [body, lens], start, end }),
        tool(other, 'hold_slot', { calendar_ids: [lens, crew], start, end }),
      ]);
      expect([a.isError, b.isError].filter((e) => !e)).toHaveLength(1);
      const winner = a.isError ? b : a;
      await must(stdio, 'commit_hold', { hold_ids: winner.data.hold_ids });
      // The loser's calendar outside the winner's group was never held.
      const loserOnly = a.isError ? body : crew;
      const free = await must(stdio, 'find_slots', { calendar_ids: [loserOnly], from: start, to: end });
      expect(free.slots).toHaveLength(1);
      const listed = await must(stdio, 'list_bookings', { calendar_ids: [lens], from: start, to: end });
      expect(listed.bookings.map((x: any) => x.calendar_ids)).toEqual([
        a.isError ? [lens, crew] : [body, lens],
      ]);
    }
  });

  it('[003-tools-6 003-multi-7] nor after a crash: a process killed (SIGKILL) while committing a three-calendar hold leaves all three booked in one booking, or all three still held — never part of them', async () => {
    const calendars = [body, lens, crew];
    for (const delayMs of [0, 3, 10, 40]) {
      const doomed = await connectStdio(db.path, 'modern', DELTAT_ARGS, { DELTAT_PASSWORD: password });
      const { start, end } = nextHour();
      const hold = await must(doomed, 'hold_slot', { calendar_ids: calendars, start, end });
      const committing = doomed
        .callTool({ name: 'commit_hold', arguments: { hold_ids: hold.hold_ids } }, { timeout: 10_000 })
        .catch(() => null);
      await sleep(delayMs);
      process.kill((doomed.transport as StdioClientTransport).pid!, 'SIGKILL');
      await committing;
      await doomed.close().catch(() => undefined);
      // Every calendar of the hold tells the same story: the same one booking on each, or none on any.
      const bookedOn = await Promise.all(
        calendars.map(
          async (c) =>
            (await must(stdio, 'list_bookings', { calendar_ids: [c], from: start, to: end })).bookings.map(
              (b: any) => [b.booking_id, b.calendar_ids],
            ) as unknown[],
        ),
      );
      expect(bookedOn[1], `after ${delayMs} ms`).toEqual(bookedOn[0]);
      expect(bookedOn[2], `after ${delayMs} ms`).toEqual(bookedOn[0]);
      expect(bookedOn[0]!.length).toBeLessThanOrEqual(1);
      // Booked or still held, the time is taken on all three: none was let go alone.
      for (const c of calendars)
        expect((await must(stdio, 'find_slots', { calendar_ids: [c], from: start, to: end })).slots).toEqual(
          [],
        );
    }
    // And in the store: no booking whose live allocations disagree with its status.
    const read = new Database(db.path, { readonly: true, fileMustExist: true });
    try {
      const halfApplied = read
        .prepare(
          `SELECT count(*) AS n FROM bookings b WHERE
            (SELECT count(*) FROM allocations a WHERE a.tenant_id = b.tenant_id AND a.booking_id = b.id AND a.active = 1)
            <> CASE WHEN b.status IN ('HELD', 'CONFIRMED') THEN json_array_length(b.calendar_ids) ELSE 0 END`,
        )
        .get() as { n: number };
      expect(halfApplied.n).toBe(0);
    } finally {
      read.close();
    }
  });

  it('[003-auth-1 003-auth-2 003-auth-3 003-auth-4] stdio has no login: no token, no OAuth; the process acts with the person’s own rights, owner of what it books', async () => {
    const { start, end } = nextHour();
    const hold = await must(stdio, 'hold_slot', { calendar_ids: [body], start, end });
    const read = new Database(db.path, { readonly: true, fileMustExist: true });
    try {
      const row = read
        .prepare('SELECT owner_subject FROM bookings WHERE id = ?')
        .get(bookingOf(hold.hold_ids[0])) as { owner_subject: string };
      expect(row.owner_subject).toBe(person.personId);
    } finally {
      read.close();
    }
    await must(stdio, 'release_hold', { hold_ids: hold.hold_ids });
  });

  it('[003-smoke-1 003-smoke-2] the whole round trip through an in-memory MCP client: create → availability → find → hold → commit → list → cancel', async () => {
    const embeddedDb = tempDbPath();
    const holdfast = await createHoldfast({
      database: embeddedDb.path,
      actAs: 'op@example.com',
      writePolicy: 'direct',
    });
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    const client = new SdkClient({ name: 'smoke', version: '1' });
    try {
      await createDeltatMcpServer(holdfast).connect(serverSide);
      await client.connect(clientSide);
      const made = await must(client, 'create_calendar', { name: 'Smoke room' });
      await must(client, 'set_availability', { calendar_id: made.calendar_id, weekly: ALL_WEEK });
      const { start } = nextHour();
      const found = await must(client, 'find_slots', {
        calendar_ids: [made.calendar_id],
        from: start,
        to: new Date(Date.parse(start) + 4 * HOUR).toISOString(),
        duration_minutes: 60,
        limit: 1,
      });
      const [slot] = found.slots;
      const hold = await must(client, 'hold_slot', {
        calendar_ids: [made.calendar_id],
        start: slot.start,
        end: slot.end,
      });
      const booked = await must(client, 'commit_hold', { hold_ids: hold.hold_ids, label: 'Smoke' });
      const listed = await must(client, 'list_bookings', { calendar_ids: [made.calendar_id] });
      expect(listed.bookings.map((b: any) => [b.booking_id, b.status, b.label])).toEqual([
        [booked.booking_id, 'confirmed', 'Smoke'],
      ]);
      expect(await must(client, 'cancel_booking', { booking_id: booked.booking_id })).toMatchObject({
        cancelled: true,
        status: 'cancelled',
      });
      expect((await must(client, 'list_bookings', { calendar_ids: [made.calendar_id] })).bookings).toEqual(
        [],
      );
      expect((await holdfast.getBooking(booked.booking_id)).status).toBe('CANCELLED');
    } finally {
      await client.close();
      await holdfast.close();
      embeddedDb.cleanup();
    }
  });
});

describe('deltat’s configuration', () => {
  it('[003-config-4 003-config-5 003-auth-2] DELTAT_PASSWORD is required, has no default, and must be the password of the person served: unset, empty or wrong, the server refuses to start', async () => {
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

  it('[003-config-2 003-config-3 003-config-6] the host configuration as the seed writes it (DELTAT_HOST=localhost, DELTAT_PORT=5433, DELTAT_DATABASE=public, DELTAT_PASSWORD), with `npx -y holdfast stdio --profile deltat` for the command, serves the default tenant, as DELTAT_PASSWORD alone does; a deltat elsewhere (another host or port) is refused at start, naming the variable', async () => {
    const home = mkdtempSync(join(tmpdir(), 'holdfast-deltat-'));
    const clients: Client[] = [];
    try {
      // Nothing but the seed's variables: no database of the test run's, no other DELTAT_ value.
      const inherited = Object.fromEntries(
        Object.entries(process.env).filter(
          (e): e is [string, string] =>
            e[1] !== undefined && !/^(HOLDFAST_|DELTAT_|DATABASE_URL$|TEST_DATABASE_URL$)/.test(e[0]),
        ),
      );
      // The file `holdfast stdio` opens by default, relative to where the host starts it.
      const file = join(home, 'data', 'holdfast.db');
      mkdirSync(join(home, 'data'));
      const local = await provision(file);
      const start = async (variables: Record<string, string>) => {
        const client = new SdkClient({ name: 'claude-code', version: '1' });
        await client.connect(
          new StdioClientTransport({
            command: process.execPath,
            args: [CLI, 'stdio', '--profile', 'deltat'],
            cwd: home,
            env: { ...inherited, ...variables },
            stderr: 'pipe',
          }),
        );
        clients.push(client);
        return client;
      };
      const asWritten = await start({
        DELTAT_HOST: 'localhost',
        DELTAT_PORT: '5433',
        DELTAT_DATABASE: 'public',
        DELTAT_PASSWORD: local.password,
      });
      const passwordOnly = await start({ DELTAT_PASSWORD: local.password });
      const tenantOfHold = async (client: Client) => {
        expect((await client.listTools()).tools).toHaveLength(9);
        const made = await must(client, 'create_calendar', { name: 'Haircuts' });
        await must(client, 'set_availability', { calendar_id: made.calendar_id, weekly: ALL_WEEK });
        const hold = await must(client, 'hold_slot', { calendar_ids: [made.calendar_id], ...nextHour() });
        const read = new Database(file, { readonly: true, fileMustExist: true });
        try {
          return (
            read.prepare('SELECT tenant_id FROM bookings WHERE id = ?').get(bookingOf(hold.hold_ids[0])) as {
              tenant_id: string;
            }
          ).tenant_id;
        } finally {
          read.close();
        }
      };
      // Both served from the one local file and its default tenant: deltat's default database,
      // `public`, is Holdfast's default tenant, `local`.
      expect(await tenantOfHold(asWritten)).toBe('local');
      expect(await tenantOfHold(passwordOnly)).toBe('local');
      // A deltat somewhere else is not this store: the server refuses to start rather than book here.
      for (const [name, value] of [
        ['DELTAT_HOST', 'deltat.example.com'],
        ['DELTAT_PORT', '6543'],
      ]) {
        const run = await runProcess(process.execPath, [CLI, 'stdio', '--profile', 'deltat'], {
          cwd: home,
          env: { ...inherited, DELTAT_PASSWORD: local.password, [name!]: value! },
          timeoutMs: 20_000,
        });
        expect(run.status, name).toBeTypeOf('number');
        expect(run.status, name).not.toBe(0);
        expect(run.stderr).toContain(`${name}=${value}`);
      }
    } finally {
      await Promise.all(clients.map((c) => c.close()));
      rmSync(home, { recursive: true, force: true });
    }
  });

  it('[003-refusal-9 003-refusal-10 003-tools-21] DELTAT_COUNTER_OFFER=0 — a refusal is the plain CODE: message, as a kernel without counter-offers answers', async () => {
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

  it('[003-embed-1 003-embed-2 003-embed-3] createDeltatMcpServer(holdfast) from holdfast/deltat returns an MCP server to connect to your own transport (an in-memory one here)', async () => {
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

  it('[003-config-7] each DELTAT_DATABASE name is a tenant of its own: a process for another name sees, holds and books nothing of this one', async () => {
    const { start, end } = nextHour();
    const mine = await must(stdio, 'hold_slot', { calendar_ids: [body], start, end });
    const booked = await must(stdio, 'commit_hold', { hold_ids: mine.hold_ids });
    const owner = await provision(db.path, { tenant: 'studio-b' });
    expect(owner.password).toBe(PASSWORD);
    const b = await connectStdio(db.path, 'modern', DELTAT_ARGS, {
      DELTAT_PASSWORD: owner.password,
      DELTAT_DATABASE: 'studio-b',
    });
    try {
      expect((await must(b, 'list_bookings', {})).bookings).toEqual([]);
      for (const [name, args] of [
        ['find_slots', { calendar_ids: [body], from: start, to: end }],
        ['hold_slot', { calendar_ids: [body], start, end }],
        ['cancel_booking', { booking_id: booked.booking_id }],
      ] as const) {
        const answer = await tool(b, name, args);
        expect(answer.isError, name).toBe(true);
        expect(answer.text, name).toMatch(/^NOT_FOUND: /);
      }
      // Its own calendar books the same time: nothing is shared.
      const room = await must(b, 'create_calendar', { name: 'Camera body' });
      await must(b, 'set_availability', { calendar_id: room.calendar_id, weekly: ALL_WEEK });
      const theirs = await must(b, 'hold_slot', { calendar_ids: [room.calendar_id], start, end });
      await must(b, 'commit_hold', { hold_ids: theirs.hold_ids });
      const here = await must(stdio, 'list_bookings', { from: start, to: end });
      expect(here.bookings.map((x: any) => x.booking_id)).toEqual([booked.booking_id]);
    } finally {
      await b.close();
    }
  });

  it('[003-config-8] the example request: a Haircuts calendar open weekday afternoons, then tomorrow’s first free 30-minute slot booked', async () => {
    const afternoons = [{ start: '13:00', end: '18:00' }];
    const made = await must(stdio, 'create_calendar', { name: 'Haircuts' });
    await must(stdio, 'set_availability', {
      calendar_id: made.calendar_id,
      weekly: Object.fromEntries(['mon', 'tue', 'wed', 'thu', 'fri'].map((d) => [d, afternoons])),
    });
    const tomorrow = new Date(Date.now() + 24 * HOUR).toISOString().slice(0, 10);
    let firstOpen = Date.parse(`${tomorrow}T00:00:00Z`);
    while ([0, 6].includes(new Date(firstOpen).getUTCDay())) firstOpen += 24 * HOUR;
    const found = await must(stdio, 'find_slots', {
      calendar_ids: [made.calendar_id],
      from: `${tomorrow}T00:00:00Z`,
      to: new Date(Date.parse(`${tomorrow}T00:00:00Z`) + 7 * 24 * HOUR).toISOString(),
      duration_minutes: 30,
      limit: 1,
    });
    const [first] = found.slots;
    expect([first.start, first.end]).toEqual([
      new Date(firstOpen + 13 * HOUR).toISOString(),
      new Date(firstOpen + 13.5 * HOUR).toISOString(),
    ]);
    const hold = await must(stdio, 'hold_slot', {
      calendar_ids: [made.calendar_id],
      start: first.start,
      end: first.end,
    });
    const booked = await must(stdio, 'commit_hold', { hold_ids: hold.hold_ids, label: 'Haircut' });
    expect(booked).toMatchObject({ booked: true, status: 'confirmed', start: first.start, end: first.end });
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

  it('[003-tools-5] the tenant’s agents get deltat’s tools; commit_hold follows the write policy: a person approves, then it books', async () => {
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

  it('[003-tools-5 003-tools-14] attack: under the default write policy the agent cannot commit or cancel on its own word — without an approval, with an invented one, its own pending one, the agent’s token on the page, or a person’s approval of something else: 0 booked, 0 cancelled', async () => {
    const made = await must(agent, 'create_calendar', { name: 'Gated room', idempotency_key: randomUUID() });
    await must(agent, 'set_availability', { calendar_id: made.calendar_id, weekly: ALL_WEEK });
    const room = made.calendar_id as string;
    const target = await must(agent, 'hold_slot', { calendar_ids: [room], ...nextHour() });
    const decoy = await must(agent, 'hold_slot', { calendar_ids: [room], ...nextHour() });
    let succeeded = 0;
    const attempt = async (name: string, args: Record<string, unknown>, refusal: RegExp) => {
      const answer = await tool(agent, name, args);
      if (!answer.isError) succeeded++;
      expect(answer.text, `${name} ${JSON.stringify(args)}`).toMatch(refusal);
      return answer;
    };
    // Asked without an approval: a person's approval is opened, nothing is booked.
    const asked = await attempt('commit_hold', { hold_ids: target.hold_ids }, /^APPROVAL_REQUIRED: /);
    const pending = /approval_id "([0-9a-f-]{36})"/.exec(asked.text)![1]!;
    const page = /open (http:\/\/\S+\/approvals\/[0-9a-f-]{36})/.exec(asked.text)![1]!;
    await attempt('commit_hold', { hold_ids: target.hold_ids, approval_id: randomUUID() }, /^[A-Z_]+: /);
    await attempt('commit_hold', { hold_ids: target.hold_ids, approval_id: pending }, /^APPROVAL_PENDING: /);
    // The agent's own token on the approval page decides nothing.
    const forged = await fetch(page, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${server.agent.token}`,
        'content-type': 'application/x-www-form-urlencoded',
        origin: new URL(page).origin,
      },
      body: new URLSearchParams({ decision: 'approve' }),
      redirect: 'manual',
    });
    expect(forged.status).not.toBe(200);
    await attempt('commit_hold', { hold_ids: target.hold_ids, approval_id: pending }, /^APPROVAL_PENDING: /);
    // A person's real approval of another booking does not commit this one.
    const decoyAsked = await tool(agent, 'commit_hold', { hold_ids: decoy.hold_ids });
    const otherApproval = /approval_id "([0-9a-f-]{36})"/.exec(decoyAsked.text)![1]!;
    expect((await runCli(['approvals', 'approve', otherApproval, '--db', server.dbPath])).status).toBe(0);
    await attempt(
      'commit_hold',
      { hold_ids: target.hold_ids, approval_id: otherApproval },
      /^APPROVAL_MISMATCH: /,
    );
    // Tried on the wrong booking, that approval is spent: it commits not even the decoy now.
    await attempt(
      'commit_hold',
      { hold_ids: decoy.hold_ids, approval_id: otherApproval },
      /^APPROVAL_USED: /,
    );
    // A person approves committing the decoy again: it books the decoy (a person decided), and cancels nothing.
    const decoyAgain = await tool(agent, 'commit_hold', { hold_ids: decoy.hold_ids });
    const decoyApproval = /approval_id "([0-9a-f-]{36})"/.exec(decoyAgain.text)![1]!;
    expect((await runCli(['approvals', 'approve', decoyApproval, '--db', server.dbPath])).status).toBe(0);
    const decoyBooked = await must(agent, 'commit_hold', {
      hold_ids: decoy.hold_ids,
      approval_id: decoyApproval,
    });
    const cancel = { booking_id: decoyBooked.booking_id };
    await attempt('cancel_booking', cancel, /^APPROVAL_REQUIRED: /);
    await attempt('cancel_booking', { ...cancel, approval_id: decoyApproval }, /^[A-Z_]+: /);
    await attempt('cancel_booking', { ...cancel, approval_id: otherApproval }, /^[A-Z_]+: /);
    await attempt('cancel_booking', { ...cancel, approval_id: randomUUID() }, /^[A-Z_]+: /);
    // holdfast stdio --profile deltat without --write-policy is draft too.
    const drafted = await connectStdio(db.path, 'modern', ['--no-seed', '--profile', 'deltat'], {
      DELTAT_PASSWORD: password,
    });
    try {
      const hold = await must(drafted, 'hold_slot', { calendar_ids: [body], ...nextHour() });
      const answer = await tool(drafted, 'commit_hold', { hold_ids: hold.hold_ids });
      if (!answer.isError) succeeded++;
      expect(answer.text).toMatch(/^APPROVAL_REQUIRED: /);
    } finally {
      await drafted.close();
    }
    expect(succeeded).toBe(0);
    const listed = await must(agent, 'list_bookings', { calendar_ids: [room] });
    expect(listed.bookings.map((b: any) => [b.booking_id, b.status])).toEqual([
      [decoyBooked.booking_id, 'confirmed'],
    ]);
  });
});

describe('deltat hosted over HTTP (serve --profile deltat): OAuth 2.1', () => {
  let ca: TestCa;
  let documents: ReturnType<typeof createServer>;
  let server: RunningServer;
  let host: TestOAuthHost;
  let metadataUrl: string;
  beforeAll(async () => {
    ca = makeTestCa();
    let document = '';
    documents = createServer({ cert: ca.cert, key: ca.key }, (req, res) =>
      req.url === '/deltat-host.json'
        ? res.writeHead(200, { 'content-type': 'application/json' }).end(document)
        : res.writeHead(404).end(),
    );
    await new Promise<void>((resolve) => documents.listen(0, '127.0.0.1', resolve));
    metadataUrl = `https://127.0.0.1:${(documents.address() as AddressInfo).port}/deltat-host.json`;
    host = await TestOAuthHost.start('Hosted deltat agent', metadataUrl);
    document = JSON.stringify({ client_id: metadataUrl, ...host.clientMetadata });
    server = await spawnServer(['--no-seed', '--profile', 'deltat', '--oauth-allow-private-metadata'], {
      env: { NODE_EXTRA_CA_CERTS: ca.caFile },
    });
  });
  afterAll(async () => {
    await host?.close();
    await server?.stop();
    documents?.close();
    ca?.cleanup();
  });

  it('[003-auth-5 003-auth-7 003-auth-8 003-auth-9] a hosted agent authenticates with OAuth 2.1: authorization code + PKCE, registered by its Client ID Metadata Document, a person consenting once; then deltat’s tools answer', async () => {
    const client = await connectByHttp(server, host);
    try {
      const asked = host.authorizationUrl!;
      expect(asked.searchParams.get('response_type')).toBe('code');
      expect(asked.searchParams.get('code_challenge_method')).toBe('S256');
      expect(asked.searchParams.get('code_challenge')).toMatch(/^[\w-]{43}$/);
      expect(asked.searchParams.get('client_id')).toBe(metadataUrl);
      expect(host.clientInformation()!.client_id).toBe(metadataUrl);
      expect((await client.listTools()).tools.map((t) => t.name)).toContain('commit_hold');
      expect((await must(client, 'list_bookings', {})).bookings).toEqual([]);
    } finally {
      await client.close();
    }
    // Once: the host connects again with what it was given, and nobody is asked.
    const again = new SdkClient({ name: 'remote-host', version: '1.0.0' });
    await again.connect(
      new StreamableHTTPClientTransport(new URL('/mcp', server.url), { authProvider: host }),
    );
    try {
      expect((await must(again, 'list_bookings', {})).bookings).toEqual([]);
    } finally {
      await again.close();
    }
    // Without a token the same endpoint is 401.
    const anonymous = await fetch(new URL('/mcp', server.url), {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    });
    expect(anonymous.status).toBe(401);
  });
});
