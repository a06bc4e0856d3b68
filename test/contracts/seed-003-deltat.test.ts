import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Client } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readConfig } from '../../src/main/config/config.js';
import { futureHour, openAllWeek, plusMinutes } from '../support/fixtures.js';
import { LocalIssuer } from '../support/local-issuer.js';
import type { Envelope } from '../support/mcp-clients.js';
import { call, connectHttp, connectStdio } from '../support/mcp-clients.js';
import { addAgent, identityDeps, provision } from '../support/provision.js';
import type { RunningServer } from '../support/spawn-server.js';
import { provisionOnce, runCli, spawnCli, spawnServer, tempDbPath } from '../support/spawn-server.js';
import { insertOverlapDirectly } from '../support/forged-rows.js';

// Seed contract 003, deltat's hold-and-commit tools (/work/shared/seeds/003_b2f3d778f73207b1.txt),
// walked section by section in its own order: one describe per heading, one `it` per checkable
// requirement, numbered within its section. `different:` marks where Holdfast chose otherwise on
// purpose (docs/contracts.md, "Deliberate differences", says why). Everything runs against the
// real entry point, `holdfast serve` (and `holdfast stdio`), through the official MCP client.

const ROOT = process.cwd();
const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as Record<string, any>;
const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');

interface Booking {
  id: string;
  status: string;
  version: number;
  calendarIds: string[];
  start: string;
  end: string;
  expiresAt: string | null;
  createdAt: string;
  [field: string]: any;
}

interface Alternative {
  start: string;
  end: string;
  startLocal: string;
  endLocal: string;
  timeZone: string;
  reserved: boolean;
}

let idp: LocalIssuer;
/** Holdfast's own tools over Streamable HTTP; also accepts an outside issuer's access tokens. */
let server: RunningServer;
/** The same with 2-second holds. */
let short: RunningServer;
const stdioDb = tempDbPath();
let agent: Client;
let rival: Client;
let viaStdio: Client;
/** A camera body, a lens and a crew: open all week, in UTC. */
let body: string;
let lens: string;
let crew: string;
let day = 0;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function must<D = Record<string, any>>(client: Client, tool: string, args: Record<string, unknown>) {
  const answer = await call<D>(client, tool, args);
  if (!answer.ok) throw new Error(`${tool} failed: ${JSON.stringify(answer.error)}`);
  return answer.data!;
}

async function calendar(client: Client, name: string, availability: unknown = openAllWeek) {
  const made = await must<{ calendar: { id: string } }>(client, 'create_calendar', {
    name,
    timeZone: 'UTC',
    availability,
    idempotencyKey: randomUUID(),
  });
  return made.calendar.id;
}

/** A day of its own (at 10:00 UTC), so no test meets another's bookings. */
function nextHour(): { start: string; end: string } {
  day += 1;
  const start = futureHour(2 + day);
  const at10 = `${start.slice(0, 10)}T10:00:00.000Z`;
  return { start: at10, end: plusMinutes(at10, 60) };
}

const holdArgs = (calendarIds: string[], { start, end }: { start: string; end: string }) => ({
  calendarIds,
  start,
  end,
  idempotencyKey: randomUUID(),
});

async function hold(client: Client, calendarIds: string[], slot = nextHour(), extra = {}) {
  return (await must<{ booking: Booking }>(client, 'hold_slot', { ...holdArgs(calendarIds, slot), ...extra }))
    .booking;
}

/** A gated change as a person allows it: asked, approved on the operator's CLI, asked again with the approval. */
async function approved(
  client: Client,
  tool: 'confirm_booking' | 'cancel_booking',
  b: { id: string; version: number },
  s: RunningServer = server,
) {
  const args = { bookingId: b.id, expectedVersion: b.version };
  const asked = await call(client, tool, { ...args, idempotencyKey: randomUUID() });
  expect(asked.error!.code).toBe('APPROVAL_REQUIRED');
  const approvalId = asked.error!.details.approvalId as string;
  expect((await runCli(['approvals', 'approve', approvalId, '--db', s.dbPath])).status).toBe(0);
  return must<{ booking: Booking }>(client, tool, {
    ...args,
    idempotencyKey: randomUUID(),
    approval: { approvalId },
  });
}

const isFree = async (client: Client, calendarIds: string[], slot: { start: string; end: string }) =>
  (await call(client, 'find_slots', {
    calendarIds,
    from: slot.start,
    to: slot.end,
    durationMinutes: (Date.parse(slot.end) - Date.parse(slot.start)) / 60_000,
    limit: 1,
  }))!.data!.total === 1;

beforeAll(async () => {
  idp = await LocalIssuer.start();
  [server, short] = await Promise.all([
    spawnServer(['--no-seed', '--allow-private-upstreams', '--auth-issuer', idp.issuer]),
    spawnServer(['--no-seed', '--hold-ttl', '2']),
  ]);
  const { deps, close } = await identityDeps(server.dbPath);
  const second = await addAgent(deps, { email: 'rival@local.example' });
  await close();
  [agent, rival, viaStdio] = await Promise.all([
    connectHttp(server.url, 'modern'),
    connectHttp(server.url, 'modern', { token: second.token }),
    connectStdio(stdioDb.path, 'modern', ['--no-seed']),
  ]);
  body = await calendar(agent, 'Camera body');
  lens = await calendar(agent, 'Lens');
  crew = await calendar(agent, 'Crew');
});

afterAll(async () => {
  await Promise.all([agent?.close(), rival?.close(), viaStdio?.close()]);
  await Promise.all([server?.stop(), short?.stop(), idp?.stop()]);
  stdioDb.cleanup();
});

describe('# deltat, @open-deltat/mcp (opening)', () => {
  it('1. `npx @open-deltat/mcp` has its counterpart: the package’s `holdfast` command serves MCP over stdio', async () => {
    expect(pkg.bin).toEqual({ holdfast: 'dist/bin/holdfast.js' });
    const { tools } = await viaStdio.listTools();
    expect(tools.map((t) => t.name)).toEqual(expect.arrayContaining(['find_slots', 'hold_slot']));
  });

  it('2. different: there is no one-step booking verb; the flow is find_slots → hold_slot → confirm_booking (Holdfast’s commit_hold)', async () => {
    const names = (await agent.listTools()).tools.map((t) => t.name);
    expect(names).toEqual(expect.arrayContaining(['find_slots', 'hold_slot', 'confirm_booking']));
    expect(names).not.toContain('commit_hold');
    await expect(agent.callTool({ name: 'commit_hold', arguments: { hold_ids: ['x'] } })).rejects.toThrow(
      /commit_hold not found/,
    );
  });

  it('3. a hold keeps the time for a few minutes: from offer to confirmation nobody else can take it', async () => {
    const slot = nextHour();
    const mine = await hold(agent, [body], slot);
    expect(Date.parse(mine.expiresAt!) - Date.parse(mine.createdAt)).toBe(5 * 60_000);
    const theirs = await call(rival, 'hold_slot', holdArgs([body], slot));
    expect(theirs.error!.code).toBe('SLOT_UNAVAILABLE');
  });

  it('4. holds lapse by themselves, so abandoned conversations clean up, and holding costs nothing', async () => {
    const client = await connectHttp(short.url, 'modern');
    const room = await calendar(client, 'Short-hold room');
    const slot = nextHour();
    const b = await hold(client, [room], slot);
    expect(b).toMatchObject({ status: 'HELD', price: null, paymentUrl: null });
    await sleep(Date.parse(b.expiresAt!) + 300 - Date.now());
    expect(
      (await must<{ booking: Booking }>(client, 'get_booking', { bookingId: b.id })).booking.status,
    ).toBe('EXPIRED');
    expect(await isFree(client, [room], slot)).toBe(true);
    await client.close();
  });

  it('5. the refusal comes from the storage engine, not a check in application code: racing holds, one wins; a forged row is refused by the database', async () => {
    const slot = nextHour();
    const attempts = await Promise.all(
      [agent, rival, agent, rival, agent, rival].map((client) =>
        call(client, 'hold_slot', holdArgs([body], slot)),
      ),
    );
    const won = attempts.filter((a) => a.ok);
    expect(won).toHaveLength(1);
    for (const lost of attempts.filter((a) => !a.ok)) expect(lost.error!.code).toBe('SLOT_UNAVAILABLE');
    expect(insertOverlapDirectly(server.dbPath, won[0]!.data!.booking.id)).toContain('HOLDFAST_OVERLAP');
  });
});

describe('## 工具 (tools)', () => {
  it('1. find_slots lists the times that are really free on every calendar named', async () => {
    const slot = nextHour();
    await hold(agent, [body], slot);
    expect(await isFree(agent, [body], slot)).toBe(false);
    expect(await isFree(agent, [lens], slot)).toBe(true);
  });

  it('2. different: hold_slot answers one booking (id, version, expiresAt) covering every calendar, not hold_ids', async () => {
    const b = await hold(agent, [body, lens]);
    expect(b).toMatchObject({ status: 'HELD', version: 1, calendarIds: [body, lens] });
    expect(b.id).toMatch(/^bk_/);
    expect(b).not.toHaveProperty('hold_ids');
  });

  it('3. different: commit_hold is confirm_booking of that booking, after a person approved it; every calendar is booked at once', async () => {
    const b = await hold(agent, [body, lens]);
    const done = await approved(agent, 'confirm_booking', b);
    expect(done.booking).toMatchObject({ status: 'CONFIRMED', version: 2, calendarIds: [body, lens] });
  });

  it('4. release_hold gives the time back at once', async () => {
    const slot = nextHour();
    const b = await hold(agent, [lens], slot);
    const released = await must<{ booking: Booking }>(agent, 'release_hold', {
      bookingId: b.id,
      expectedVersion: 1,
      idempotencyKey: randomUUID(),
    });
    expect(released.booking.status).toBe('RELEASED');
    expect((await call(rival, 'hold_slot', holdArgs([lens], slot))).ok).toBe(true);
  });

  it('5. different: create_calendar answers the new calendar with its id (calendar.id: Holdfast names fields in camelCase)', async () => {
    const made = await must<{ calendar: { id: string; name: string } }>(agent, 'create_calendar', {
      name: 'Studio',
      timeZone: 'Europe/Berlin',
      availability: openAllWeek,
      idempotencyKey: randomUUID(),
    });
    expect(made.calendar).toMatchObject({ id: expect.stringMatching(/^cal_/), name: 'Studio' });
    expect(made).not.toHaveProperty('calendar_id');
  });

  it('6. set_availability replaces the whole week: only the new hours are offered; a calendar with no hours offers nothing', async () => {
    const room = await calendar(agent, 'Reopened room');
    const week = await must<{ calendar: { availability: { weekly: Record<string, unknown> } } }>(
      agent,
      'set_availability',
      {
        calendarId: room,
        weekly: { mon: [{ start: '09:00', end: '10:00' }] },
        overrides: [],
        idempotencyKey: randomUUID(),
      },
    );
    expect(Object.keys(week.calendar.availability.weekly)).toEqual(['mon']);
    const from = futureHour(1);
    const found = await must<{ slots: { start: string }[] }>(agent, 'find_slots', {
      calendarIds: [room],
      from,
      to: plusMinutes(from, 8 * 24 * 60),
      durationMinutes: 60,
      limit: 10,
    });
    expect(found.slots.length).toBeGreaterThan(0);
    for (const slot of found.slots) {
      expect(new Date(slot.start).getUTCDay()).toBe(1);
      expect(slot.start.slice(11, 16)).toBe('09:00');
    }
    const closed = await calendar(agent, 'Closed room', { weekly: {}, overrides: [] });
    const none = await must(agent, 'find_slots', {
      calendarIds: [closed],
      from,
      to: plusMinutes(from, 8 * 24 * 60),
      durationMinutes: 30,
      limit: 10,
    });
    expect(none.total).toBe(0);
  });

  it('7. list_bookings says what is booked and gives the booking_id needed to cancel', async () => {
    const b = await hold(agent, [crew]);
    const done = await approved(agent, 'confirm_booking', b);
    const listed = await must<{ bookings: Booking[] }>(agent, 'list_bookings', {
      calendarId: crew,
      status: 'CONFIRMED',
      limit: 50,
    });
    expect(listed.bookings.map((x) => x.id)).toContain(done.booking.id);
  });

  it('8. different: cancel_booking cancels a confirmed booking once a person approved the cancellation; the time is free again', async () => {
    const slot = nextHour();
    const b = await hold(agent, [crew], slot);
    const confirmed = await approved(agent, 'confirm_booking', b);
    const cancelled = await approved(agent, 'cancel_booking', confirmed.booking);
    expect(cancelled.booking.status).toBe('CANCELLED');
    expect(await isFree(agent, [crew], slot)).toBe(true);
  });

  it('9. book_slot never books: it refuses and points at hold_slot, then confirm_booking', async () => {
    const slot = nextHour();
    const refused = await call(agent, 'book_slot', { calendarIds: [crew], start: slot.start, end: slot.end });
    expect(refused.ok).toBe(false);
    expect(refused.error!.details.steps).toEqual(['find_slots', 'hold_slot', 'confirm_booking']);
    expect(refused.error!.recovery.action).toContain('hold_slot');
    expect(await isFree(agent, [crew], slot)).toBe(true);
  });

  it('10. times are RFC 3339 with a required offset: epoch milliseconds and times without an offset are refused, never read in the process’s zone', async () => {
    const slot = nextHour();
    for (const start of [Date.parse(slot.start), slot.start.replace('.000Z', ''), slot.start.slice(0, 16)]) {
      const refused = await call(agent, 'hold_slot', { ...holdArgs([crew], slot), start });
      expect(refused.error, String(start)).toMatchObject({
        code: 'INVALID_ARGUMENTS',
        details: { field: 'start' },
      });
    }
    const berlin = slot.start.replace('10:00:00.000Z', '12:00:00+02:00');
    const held = await hold(agent, [crew], { start: berlin, end: slot.end });
    expect(Date.parse(held.start)).toBe(Date.parse(slot.start));
  });

  it('11. different: errors branch on error.code from one closed set: SLOT_UNAVAILABLE (CONFLICT), HOLD_EXPIRED (EXPIRED), INVALID_ARGUMENTS (INVALID), NOT_FOUND', async () => {
    const client = await connectHttp(short.url, 'modern');
    const room = await calendar(client, 'Code room');
    const lapsing = await hold(client, [room]);
    const slot = nextHour();
    await hold(agent, [crew], slot);
    const codes: [string, Envelope][] = [
      ['SLOT_UNAVAILABLE', await call(agent, 'hold_slot', holdArgs([crew], slot))],
      ['INVALID_ARGUMENTS', await call(agent, 'hold_slot', { ...holdArgs([crew], slot), start: 'tomorrow' })],
      ['NOT_FOUND', await call(agent, 'get_booking', { bookingId: 'bk_nobody' })],
    ];
    await sleep(Date.parse(lapsing.expiresAt!) + 300 - Date.now());
    const late = await call(client, 'confirm_booking', {
      bookingId: lapsing.id,
      expectedVersion: 1,
      idempotencyKey: randomUUID(),
    });
    codes.push(['HOLD_EXPIRED', late]);
    for (const [code, answer] of codes) {
      expect(answer.error!.code).toBe(code);
      expect(answer.error!.recovery.action.length, code).toBeGreaterThan(0);
    }
    const text = await agent.callTool({ name: 'get_booking', arguments: { bookingId: 'bk_nobody' } });
    expect((text.content as { text: string }[])[0]!.text).toMatch(/^error NOT_FOUND from get_booking: /);
    await client.close();
  });
});

describe('## 拒绝时告知可用时间 (a refusal says which times are free)', () => {
  it('1. a taken time, and a time outside the opening hours, are refused with the times that were free instead', async () => {
    const slot = nextHour();
    await hold(agent, [body], slot);
    const taken = await call(rival, 'hold_slot', holdArgs([body], slot));
    expect(taken.error!.code).toBe('SLOT_UNAVAILABLE');
    expect((taken.error!.details.alternatives as Alternative[]).length).toBeGreaterThan(0);
    const weekdays = await calendar(agent, 'Weekdays 09-17', {
      weekly: Object.fromEntries(
        ['mon', 'tue', 'wed', 'thu', 'fri'].map((d) => [d, [{ start: '09:00', end: '17:00' }]]),
      ),
      overrides: [],
    });
    const night = { start: slot.start.replace('T10:', 'T03:'), end: slot.start.replace('T10:', 'T04:') };
    const closed = await call(agent, 'hold_slot', holdArgs([weekdays], night));
    expect(closed.error!.code).toBe('OUTSIDE_AVAILABILITY');
    const alternatives = closed.error!.details.alternatives as Alternative[];
    expect(alternatives.length).toBeGreaterThan(0);
    for (const alt of alternatives) {
      const at = new Date(alt.start);
      expect([1, 2, 3, 4, 5]).toContain(at.getUTCDay());
      expect(at.getUTCHours()).toBeGreaterThanOrEqual(9);
      expect(Date.parse(alt.end)).toBeLessThanOrEqual(Date.parse(`${alt.start.slice(0, 10)}T17:00:00Z`));
    }
  });

  it('2. different: the refusal is Holdfast’s envelope: ok false, error.code, details.alternatives (start, end, startLocal, endLocal, timeZone, reserved), retryCanSucceed for retry_same_time, recovery.action for next', async () => {
    const slot = nextHour();
    const b = await hold(agent, [lens], slot);
    const onHold = await call(rival, 'hold_slot', holdArgs([lens], slot));
    expect(onHold.ok).toBe(false);
    expect(onHold.error!.details).toMatchObject({ takenBy: 'hold', retryCanSucceed: true });
    const alt = (onHold.error!.details.alternatives as Alternative[])[0]!;
    expect(Object.keys(alt).sort()).toEqual([
      'end',
      'endLocal',
      'reserved',
      'start',
      'startLocal',
      'timeZone',
    ]);
    expect(Date.parse(alt.startLocal)).toBe(Date.parse(alt.start));
    expect(onHold.error!.recovery.action).toMatch(/Offer one of details\.alternatives.*then hold it/);
    await approved(agent, 'confirm_booking', b);
    const onBooking = await call(rival, 'hold_slot', holdArgs([lens], slot));
    expect(onBooking.error!.details).toMatchObject({ takenBy: 'booking', retryCanSucceed: false });
  });

  it('3. reserved is false, said on every alternative rather than left to be inferred', async () => {
    const slot = nextHour();
    await hold(agent, [crew], slot);
    const refused = await call(rival, 'hold_slot', holdArgs([crew], slot));
    const alternatives = refused.error!.details.alternatives as Alternative[];
    expect(alternatives.length).toBeGreaterThan(0);
    for (const alt of alternatives) expect(alt.reserved).toBe(false);
  });

  it('4. the alternatives were free a moment ago but are not held: anyone may take one first; using one takes a hold_slot', async () => {
    const slot = nextHour();
    await hold(agent, [body], slot);
    const refused = await call(rival, 'hold_slot', holdArgs([body], slot));
    const alternatives = refused.error!.details.alternatives as Alternative[];
    const first = alternatives[0]!;
    // Another agent takes the first one before the agent that was offered it holds it.
    expect((await call(agent, 'hold_slot', holdArgs([body], first))).ok).toBe(true);
    const late = await call(rival, 'hold_slot', holdArgs([body], first));
    expect(late.error!.code).toBe('SLOT_UNAVAILABLE');
    const apart = alternatives.find((a) => Date.parse(a.start) >= Date.parse(first.end))!;
    expect((await call(rival, 'hold_slot', holdArgs([body], apart))).ok).toBe(true);
  });

  it('5. without alternatives to offer (the calendar rule offerAlternatives: false) the refusal is the same code and words, just without them', async () => {
    const quiet = await calendar(agent, 'No counter-offers');
    await must(agent, 'set_booking_rules', {
      calendarId: quiet,
      offerAlternatives: false,
      idempotencyKey: randomUUID(),
    });
    const slot = nextHour();
    await hold(agent, [quiet], slot);
    const refused = await rival.callTool({ name: 'hold_slot', arguments: holdArgs([quiet], slot) });
    const envelope = refused.structuredContent as unknown as Envelope;
    expect(envelope.error!.code).toBe('SLOT_UNAVAILABLE');
    expect(envelope.error!.details.alternatives).toEqual([]);
    const text = (refused.content as { text: string }[])[0]!.text;
    expect(text).toMatch(/^error SLOT_UNAVAILABLE from hold_slot: "/);
    expect(text).not.toMatch(/^\s+alternatives:/m);
  });

  it('5b. the switch for a whole tenant too (DELTAT_COUNTER_OFFER=0’s counterpart): tenants set --counter-offers off, and on again', async () => {
    const room = await calendar(agent, 'Tenant-wide switch');
    const slot = nextHour();
    await hold(agent, [room], slot);
    const refusedAlternatives = async () => {
      const refused = await rival.callTool({ name: 'hold_slot', arguments: holdArgs([room], slot) });
      const envelope = refused.structuredContent as unknown as Envelope;
      expect(envelope.error!.code).toBe('SLOT_UNAVAILABLE');
      return (envelope.error!.details.alternatives as unknown[]).length;
    };
    expect(await refusedAlternatives()).toBeGreaterThan(0);
    const tenant = (args: string[]) => runCli(['tenants', 'set', 'local', ...args, '--db', server.dbPath]);
    expect((await tenant(['--counter-offers', 'off'])).status).toBe(0);
    try {
      expect(await refusedAlternatives()).toBe(0);
    } finally {
      expect((await tenant(['--counter-offers', 'on'])).status).toBe(0);
    }
    expect(await refusedAlternatives()).toBeGreaterThan(0);
  });
});

describe('## 同时预约多个日历 (several calendars at once)', () => {
  it('1. find_slots over several calendars offers only the times when all of them are free', async () => {
    const slot = nextHour();
    await hold(agent, [lens], slot);
    const from = plusMinutes(slot.start, -60);
    const found = await must<{ slots: { start: string }[] }>(agent, 'find_slots', {
      calendarIds: [body, lens, crew],
      from,
      to: plusMinutes(slot.end, 60),
      durationMinutes: 60,
      limit: 100,
    });
    const starts = found.slots.map((s) => Date.parse(s.start));
    expect(starts).toContain(Date.parse(from));
    expect(starts.filter((t) => t > Date.parse(slot.start) - 3_600_000 && t < Date.parse(slot.end))).toEqual(
      [],
    );
  });

  it('2. hold_slot over several calendars holds every one or none', async () => {
    const slot = nextHour();
    await hold(rival, [crew], slot);
    const refused = await call(agent, 'hold_slot', holdArgs([body, lens, crew], slot));
    expect(refused.error!.code).toBe('SLOT_UNAVAILABLE');
    expect(await isFree(agent, [body, lens], slot)).toBe(true);
  });

  it('3. different: commit_hold({ hold_ids, label }) is one confirm_booking of the one booking; the label is given to hold_slot and kept', async () => {
    const b = await hold(agent, [body, lens, crew], nextHour(), { label: 'Product shoot' });
    const done = await approved(agent, 'confirm_booking', b);
    expect(done.booking).toMatchObject({
      status: 'CONFIRMED',
      label: 'Product shoot',
      calendarIds: [body, lens, crew],
    });
    for (const calendarId of [body, lens, crew]) {
      const listed = await must<{ bookings: Booking[] }>(agent, 'list_bookings', {
        calendarId,
        status: 'CONFIRMED',
        limit: 100,
      });
      expect(
        listed.bookings.map((x) => x.id),
        calendarId,
      ).toContain(b.id);
    }
  });

  it('4. one calendar is the same call with a one-element list; a bare id is refused', async () => {
    const slot = nextHour();
    const one = await hold(agent, [crew], slot);
    expect(one.calendarIds).toEqual([crew]);
    const bare = await call(agent, 'hold_slot', { ...holdArgs([crew], nextHour()), calendarIds: crew });
    expect(bare.error).toMatchObject({ code: 'INVALID_ARGUMENTS', details: { field: 'calendarIds' } });
  });

  it('5. all or none under races: holds over overlapping sets of calendars never leave a set half-held', async () => {
    const slot = nextHour();
    const [a, b] = await Promise.all([
      call<{ booking: Booking }>(agent, 'hold_slot', holdArgs([body, lens], slot)),
      call<{ booking: Booking }>(rival, 'hold_slot', holdArgs([lens, crew], slot)),
    ]);
    expect([a.ok, b.ok].filter(Boolean)).toHaveLength(1);
    const loserOnly = a.ok ? crew : body;
    expect(await isFree(agent, [loserOnly], slot)).toBe(true);
    expect(await isFree(agent, [lens], slot)).toBe(false);
  });

  it('6. a refused set is offered times when every calendar is free for the same length, never the refused time', async () => {
    const slot = nextHour();
    await hold(rival, [lens], slot);
    const refused = await call(agent, 'hold_slot', holdArgs([body, lens], slot));
    const alternatives = refused.error!.details.alternatives as Alternative[];
    expect(alternatives.length).toBeGreaterThan(0);
    for (const alt of alternatives) {
      expect(Date.parse(alt.start)).not.toBe(Date.parse(slot.start));
      expect(Date.parse(alt.end) - Date.parse(alt.start)).toBe(3_600_000);
      expect(await isFree(agent, [body, lens], alt)).toBe(true);
    }
  });
});

describe('## 配置 (configuration)', () => {
  it('1. different: no separate deltat service: Holdfast is its own store, a SQLite file (or PostgreSQL by URL)', () => {
    expect(server.process.spawnargs).toEqual(expect.arrayContaining(['--db', server.dbPath]));
    const header = readFileSync(server.dbPath).subarray(0, 16).toString('latin1');
    expect(header).toBe('SQLite format 3\u0000');
    expect(readConfig(['serve', '--database', 'postgres://db.example/holdfast'], {}).database).toBe(
      'postgres://db.example/holdfast',
    );
  });

  it('2. Claude Code and Claude Desktop are configured as the README shows: `claude mcp add` and a claude_desktop_config.json block', () => {
    expect(readme).toMatch(/claude mcp add holdfast -- node .*dist\/bin\/holdfast\.js stdio/);
    expect(readme).toMatch(/claude mcp add --transport http holdfast http:\/\/127\.0\.0\.1:3000\/mcp/);
    const block = /`claude_desktop_config\.json`\):\s*```json\n([\s\S]*?)```/.exec(readme);
    expect(block).not.toBeNull();
    const config = JSON.parse(block![1]!) as {
      mcpServers: Record<string, { command: string; args: string[] }>;
    };
    expect(config.mcpServers.holdfast!.command).toBe('node');
    expect(config.mcpServers.holdfast!.args).toEqual(expect.arrayContaining(['stdio', '--db']));
  });

  it('3. different: there is no shared password with a default; each agent has its own token, a call without one is 401, and stdio will not start without a person to act for', async () => {
    const anonymous = await fetch(server.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    });
    expect(anonymous.status).toBe(401);
    const env = readFileSync(join(ROOT, '.env.example'), 'utf8');
    expect(env).not.toMatch(/^[A-Z_]*(PASSWORD|TOKEN|SECRET)=\S/m);
    const empty = tempDbPath();
    const stdio = await spawnCli(['stdio', '--db', empty.path]);
    empty.cleanup();
    expect(stdio.status).toBe(2);
    expect(stdio.stderr).toContain('there is none yet');
  });

  it('4. different: the defaults are a local file and a loopback address (./data/holdfast.db, 127.0.0.1:3000), not localhost:5433/public', () => {
    const defaults = readConfig(['serve'], {});
    expect(defaults.database).toMatch(/^(\.\/)?data\/holdfast\.db$/);
    expect([defaults.host, defaults.port]).toEqual(['127.0.0.1', 3000]);
  });

  it('5. different: a tenant is a boundary inside one database, not a database name: another tenant’s agent sees nothing of this one', async () => {
    const b = await hold(agent, [crew]);
    const other = await provision(server.dbPath, { tenant: 'other' });
    const outsider = await connectHttp(server.url, 'modern', { token: other.token });
    const seen = await must<{ calendars: { id: string }[] }>(outsider, 'list_calendars', {});
    expect(seen.calendars.map((c) => c.id)).not.toEqual(expect.arrayContaining([crew]));
    expect((await call(outsider, 'get_booking', { bookingId: b.id })).error!.code).toBe('NOT_FOUND');
    expect((await call(outsider, 'hold_slot', holdArgs([crew], nextHour()))).error!.code).toBe('NOT_FOUND');
    await outsider.close();
  });

  it('6. the example request works: a Haircuts calendar open weekday afternoons, then tomorrow’s first free 30-minute slot held', async () => {
    const afternoons = [{ start: '13:00', end: '18:00' }];
    const haircuts = await calendar(agent, 'Haircuts', {
      weekly: Object.fromEntries(['mon', 'tue', 'wed', 'thu', 'fri'].map((d) => [d, afternoons])),
      overrides: [],
    });
    const tomorrow = new Date(Date.now() + 86_400_000).toISOString().slice(0, 10);
    const found = await must<{ slots: { start: string; end: string }[] }>(agent, 'find_slots', {
      calendarIds: [haircuts],
      from: `${tomorrow}T00:00:00Z`,
      to: plusMinutes(`${tomorrow}T00:00:00Z`, 7 * 24 * 60),
      durationMinutes: 30,
      limit: 1,
    });
    const first = found.slots[0]!;
    expect(first.start.slice(11, 16)).toBe('13:00');
    expect([1, 2, 3, 4, 5]).toContain(new Date(first.start).getUTCDay());
    const held = await hold(agent, [haircuts], first);
    expect(held.status).toBe('HELD');
  });
});

describe('## 关于身份验证，实话实说 (authentication, honestly)', () => {
  it('1. stdio has no login: it acts, with the operator’s rights, for the database’s person', async () => {
    const person = await provisionOnce(stdioDb.path);
    const room = await calendar(viaStdio, 'Desk room');
    const b = await hold(viaStdio, [room]);
    expect(b.owner.subject).toBe(person.personId);
  });

  it('2. a hosted call without credentials is 401 with protected-resource metadata (RFC 9728); hosts use authorization code + PKCE and Client ID Metadata Documents', async () => {
    const anonymous = await fetch(server.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: '{}',
    });
    expect(anonymous.status).toBe(401);
    const challenge = anonymous.headers.get('www-authenticate')!;
    const metadataUrl = /resource_metadata="([^"]+)"/.exec(challenge)![1]!;
    const resource = (await (await fetch(metadataUrl)).json()) as Record<string, any>;
    expect(resource.resource).toBe(server.url);
    const issuer = resource.authorization_servers[0] as string;
    const as = (await (await fetch(`${issuer}/.well-known/oauth-authorization-server`)).json()) as Record<
      string,
      any
    >;
    expect(as.code_challenge_methods_supported).toEqual(['S256']);
    expect(as.grant_types_supported).toContain('authorization_code');
    expect(as.client_id_metadata_document_supported).toBe(true);
  });

  it('3. an outside issuer’s bearer JWT is checked offline against its cached JWKS: no network call per request', async () => {
    const token = () =>
      idp.sign({ aud: server.url, sub: 'idp-user', email: server.agent.email, scope: 'read draft write' });
    for (let i = 0; i < 3; i++) {
      const client = await connectHttp(server.url, 'modern', { token: await token() });
      expect((await call(client, 'list_calendars', {})).ok).toBe(true);
      await client.close();
    }
    expect(idp.hits.jwks).toBe(1);
  });

  it('4. different: the hosted transport ships: Streamable HTTP with OAuth beside stdio, from one server', async () => {
    const overHttp = (await agent.listTools()).tools.map((t) => t.name).sort();
    const overStdio = (await viaStdio.listTools()).tools.map((t) => t.name).sort();
    expect(overHttp).toEqual(overStdio);
    expect(new URL(server.url).pathname).toBe('/mcp');
  });
});

describe('## 嵌入 (embedding)', () => {
  it('1. different: an application embeds Holdfast with createHoldfast — the booking use cases themselves (hold, a person’s approval, confirm), not an MCP server object to connect; MCP is holdfast stdio or serve', async () => {
    const { createHoldfast } = await import('../../src/main/embed.js');
    const db = tempDbPath();
    const embedded = await createHoldfast({ database: db.path, actAs: 'app@local.example' });
    try {
      const room = await embedded.createCalendar({
        name: 'Embedded room',
        timeZone: 'UTC',
        availability: openAllWeek,
      });
      const held = await embedded.holdSlot({
        calendarIds: [room.id],
        start: futureHour(2),
        end: futureHour(2, 1),
      });
      const approval = await embedded.requestApproval({ bookingId: held.id, action: 'confirm_booking' });
      await embedded.decideApproval({
        approvalId: approval.approvalId,
        decision: 'APPROVE',
        by: 'app@local.example',
      });
      const confirmed = await embedded.confirmBooking({
        bookingId: held.id,
        expectedVersion: held.version,
        approvalId: approval.approvalId,
      });
      expect(confirmed.status).toBe('CONFIRMED');
      expect((await embedded.getBooking(held.id)).status).toBe('CONFIRMED');
    } finally {
      await embedded.close();
      db.cleanup();
    }
  });
});

describe('## 端到端验证 (end-to-end check)', () => {
  it('1. the smoke run’s round trip works end to end (create → availability → find → hold → confirm → list → cancel); `npm run demo` is Holdfast’s scripted one', async () => {
    expect(pkg.scripts.demo).toContain('dist/demo/demo.js');
    const room = await calendar(agent, 'Smoke room', { weekly: {}, overrides: [] });
    await must(agent, 'set_availability', {
      calendarId: room,
      weekly: openAllWeek.weekly,
      overrides: [],
      idempotencyKey: randomUUID(),
    });
    const from = nextHour().start;
    const found = await must<{ slots: { start: string; end: string }[] }>(agent, 'find_slots', {
      calendarIds: [room],
      from,
      to: plusMinutes(from, 120),
      durationMinutes: 60,
      limit: 1,
    });
    const b = await hold(agent, [room], found.slots[0]!);
    const confirmed = await approved(agent, 'confirm_booking', b);
    const listed = await must<{ bookings: Booking[] }>(agent, 'list_bookings', {
      calendarId: room,
      limit: 10,
    });
    expect(listed.bookings.map((x) => [x.id, x.status])).toEqual([[b.id, 'CONFIRMED']]);
    const cancelled = await approved(agent, 'cancel_booking', confirmed.booking);
    expect(cancelled.booking.status).toBe('CANCELLED');
  });
});

describe('## 许可证 (license)', () => {
  it('1. MIT, with the licence text in the repository and the package', () => {
    expect(pkg.license).toBe('MIT');
    expect(readFileSync('LICENSE', 'utf8')).toContain('Permission is hereby granted, free of charge');
    expect((pkg as { files?: string[] }).files).toContain('LICENSE');
  });
});
