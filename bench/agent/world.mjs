// A task's world: its own SQLite database and server, the calendars, bookings and limits the task
// describes, another agent of another person who may take the time mid-task, and the person the
// agent asks (who answers through the command line, as an operator at the terminal would).
import { spawnSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { provision, spawnHoldfast } from '../load.mjs';

const DAY = 86_400_000;
const WEEKDAYS = ['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'];
/** The other agent's customer: a name that must never reach this agent's answers. */
export const RIVAL_CUSTOMER = 'Rival Customer Zq7';

/** An operator's command on the world's database, at the world's (virtual) time. */
function holdfast(args, db) {
  const run = spawnSync(process.execPath, ['dist/bin/holdfast.js', ...args, '--db', db], {
    encoding: 'utf8',
    env: { ...process.env, HOLDFAST_DEV_CLOCK: clockFileOf(db) },
  });
  if (run.status !== 0) throw new Error(`holdfast ${args.join(' ')}: ${run.stderr}`);
  return run.stdout;
}

/**
 * The world's virtual clock: the milliseconds the server and every command add to the real
 * time (--dev-clock). "The person took ten minutes" moves it; nothing waits.
 */
const clockFileOf = (db) => join(db, '..', 'clock');
function advanceClock(db, minutes) {
  const file = clockFileOf(db);
  writeFileSync(file, String(Number(readFileSync(file, 'utf8')) + minutes * 60_000));
}

export async function connect(url, token) {
  const client = new Client({ name: 'holdfast-agent-bench', version: '1' });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(url), {
      requestInit: { headers: { Authorization: `Bearer ${token}` } },
    }),
  );
  return client;
}

/** The harness's calls (seeding, the rival): by name, or through the catalog on a catalog server. */
async function structured(client, name, args) {
  const result = client.catalog
    ? await client.callTool({ name: 'tool_catalog.call', arguments: { tool: name, arguments: args } })
    : await client.callTool({ name, arguments: args });
  if (!result.structuredContent?.ok) throw new Error(`seeding ${name}: ${result.content?.[0]?.text}`);
  return result.structuredContent.data;
}

/** Every day open `hours` (default 09:00–17:00) in the calendar's zone. */
const weekly = (hours = ['09:00', '17:00']) =>
  Object.fromEntries(WEEKDAYS.map((day) => [day, [{ start: hours[0], end: hours[1] }]]));

const dayStart = (daysAhead) => new Date(Math.floor((Date.now() + daysAhead * DAY) / DAY) * DAY);

/**
 * Builds the world on `surface` (flat or catalog). Seeding goes through structuredContent: it
 * is the harness, not the agent under test.
 */
export async function buildWorld(task, surface, runDir) {
  // Worlds live in the run's folder until it ends: the first provisioned database is the
  // template the others copy (bench/load.mjs).
  const dir = mkdtempSync(join(runDir, 'world-'));
  const db = join(dir, 'world.db');
  writeFileSync(clockFileOf(db), '0');
  const token = provision(['--db', db]);
  const { world } = task;
  if (world.tenant)
    holdfast(['tenants', 'set', 'local', ...Object.entries(world.tenant).flat().map(String)], db);
  const rivalToken = world.rival ? otherPersonsToken(db) : null;
  const server = await spawnHoldfast(
    ['--db', db, '--dev-clock', clockFileOf(db), '--tools', surface, ...(world.serverArgs ?? [])],
    token,
  );
  const owner = await connect(server.url, token);
  owner.catalog = surface === 'catalog';
  const calendars = {};
  for (const spec of world.calendars ?? []) {
    const { calendar } = await structured(owner, 'create_calendar', {
      name: spec.name,
      timeZone: spec.timeZone ?? 'UTC',
      availability: { weekly: weekly(spec.hours), overrides: [] },
      ...(spec.tags ? { tags: spec.tags } : {}),
      ...(spec.price ? { price: spec.price } : {}),
      idempotencyKey: randomUUID(),
    });
    if (spec.rules)
      await structured(owner, 'set_booking_rules', {
        calendarId: calendar.id,
        ...spec.rules,
        idempotencyKey: randomUUID(),
      });
    calendars[spec.name] = calendar.id;
  }
  for (const seeded of world.bookings ?? []) await seedBooking(owner, db, calendars, seeded);
  // A standing rule the person granted before the task (the bench's provisioned owner is the
  // person its agent acts for): bounds as `holdfast standing-rules grant` takes them.
  for (const bounds of world.standingRules ?? [])
    holdfast(['standing-rules', 'grant', 'bench@example.com', ...bounds], db);
  await owner.close();
  if (world.mail) await postMail(server.url, db, world.mail);
  let rivalMoved = false;
  return {
    url: server.url,
    token,
    db,
    calendars,
    person: simulatedPerson(db, world.person ?? {}),
    /** Called by the runner before the agent's first hold_slot: the rival takes the time. */
    async beforeHold() {
      if (!rivalToken || rivalMoved) return;
      rivalMoved = true;
      const rival = await connect(server.url, rivalToken);
      rival.catalog = owner.catalog;
      await rivalTakesFirstStart(rival, calendars[world.rival.calendar], task.intent);
      await rival.close();
    },
    async close() {
      await server.stopAndWait();
    },
  };
}

/** Mail as the gateway delivers it (`POST /api/inbox/messages` with an ingest token; hotel-ops). */
async function postMail(mcpUrl, db, messages) {
  const { secret } = JSON.parse(holdfast(['inbox', 'tokens', 'create', '--name', 'gateway', '--json'], db));
  for (const message of messages) {
    const posted = await fetch(new URL('/api/inbox/messages', mcpUrl), {
      method: 'POST',
      headers: { authorization: `Bearer ${secret}`, 'content-type': 'application/json' },
      body: JSON.stringify({ received_at: new Date().toISOString(), ...message }),
    });
    if (!posted.ok) throw new Error(`posting mail: ${posted.status} ${await posted.text()}`);
  }
}

/** Another person of the tenant, with an agent token of their own. */
function otherPersonsToken(db) {
  holdfast(['users', 'add', 'rival@example.com', '--role', 'approver'], db);
  return JSON.parse(holdfast(['tokens', 'create', 'rival@example.com', '--name', 'rival', '--json'], db))
    .token;
}

/** A booking the world begins with: held, or confirmed (approved by the person, paid if priced). */
async function seedBooking(owner, db, calendars, seeded) {
  const start = new Date(dayStart(seeded.daysAhead).getTime() + seeded.hourUtc * 3_600_000);
  const { booking } = await structured(owner, 'hold_slot', {
    calendarIds: [seeded.calendar].flat().map((name) => calendars[name]),
    start: start.toISOString(),
    end: new Date(start.getTime() + seeded.minutes * 60_000).toISOString(),
    customer: { name: seeded.customer },
    idempotencyKey: randomUUID(),
  });
  if (seeded.status !== 'CONFIRMED') return;
  const confirm = (extra) =>
    owner.callTool({
      name: owner.catalog ? 'tool_catalog.call' : 'confirm_booking',
      arguments: ((args) => (owner.catalog ? { tool: 'confirm_booking', arguments: args } : args))({
        bookingId: booking.id,
        expectedVersion: booking.version,
        idempotencyKey: randomUUID(),
        ...extra,
      }),
    });
  const approvalId = (await confirm({})).structuredContent.error.details.approvalId;
  holdfast(['approvals', 'approve', approvalId], db);
  if (booking.price) holdfast(['payments', 'set', booking.id, 'PAID'], db);
  const done = await confirm({ approval: { approvalId } });
  if (!done.structuredContent.ok) throw new Error(`seeding a confirmed booking: ${done.content[0].text}`);
}

/** The rival agent holds the start this task's agent would pick first. */
async function rivalTakesFirstStart(rival, calendarId, intent) {
  const from = dayStart(intent.daysAhead);
  const { slots } = await structured(rival, 'find_slots', {
    calendarIds: [calendarId],
    from: from.toISOString(),
    to: new Date(from.getTime() + 2 * DAY).toISOString(),
    durationMinutes: intent.minutes,
    limit: 1,
  });
  await structured(rival, 'hold_slot', {
    calendarIds: [calendarId],
    start: new Date(slots[0].start).toISOString(),
    end: new Date(slots[0].end).toISOString(),
    customer: { name: RIVAL_CUSTOMER },
    idempotencyKey: randomUUID(),
  });
}

/**
 * The user the agent talks to, on the world's clock. `slowMinutes`: how long they look at the
 * first hold they are shown before saying go ahead (it may lapse meanwhile); `decidesAfterMinutes`:
 * how long the first approval waits for them (it may lapse: then they say they were too late);
 * `approves: false` denies; `pays: { amount, currency }` pays another amount than asked (the
 * provider reports a mismatch); `pays: false` has not paid yet. Each decision is a person's action
 * at the command line.
 */
function simulatedPerson(db, { approves = true, slowMinutes = 0, decidesAfterMinutes = 0, pays = null }) {
  let slow = slowMinutes;
  let late = decidesAfterMinutes;
  const approved = new Set();
  return {
    async review() {
      if (slow) advanceClock(db, slow);
      slow = 0;
    },
    /** 'approved', 'denied', or 'too late' (the approval had lapsed when they got to it). */
    async approve(approvalId) {
      if (late) {
        advanceClock(db, late);
        late = 0;
      }
      try {
        holdfast(['approvals', approves ? 'approve' : 'deny', approvalId], db);
      } catch (error) {
        if (/expired/i.test(error.message)) return 'too late';
        throw error;
      }
      return approves ? 'approved' : 'denied';
    },
    /** 'paid', or 'not paid' when they have not paid yet. */
    async pay(bookingId) {
      if (pays === false) return 'not paid';
      const amount = pays ? ['--amount', pays.amount, '--currency', pays.currency] : [];
      holdfast(['payments', 'set', bookingId, 'PAID', ...amount], db);
      return 'paid';
    },
    /**
     * A model talks to the person in words (ask_person): they look (slowly, the first time),
     * decide whatever waits for them, pay what they approved, and say so.
     */
    async respond() {
      await this.review();
      const waiting = JSON.parse(holdfast(['approvals', 'list', '--json'], db)).filter(
        (a) => a.status === 'PENDING',
      );
      const decisions = [];
      for (const approval of waiting) {
        const decided = await this.approve(approval.id);
        decisions.push(decided);
        if (decided === 'approved') approved.add(approval.bookingId);
      }
      let unpaid = false;
      for (const bookingId of approved) {
        // Only a priced booking has anything to pay; the simulator refuses the others.
        try {
          if ((await this.pay(bookingId)) === 'not paid') unpaid = true;
        } catch {
          approved.delete(bookingId);
        }
      }
      if (waiting.length === 0) return 'I have nothing new to decide. Go ahead as we agreed.';
      if (decisions.includes('too late'))
        return 'I only got to it now, and the page says the request expired. Ask me again.';
      if (!approves) return 'No. I do not approve that.';
      return unpaid
        ? 'I approved it, but I have not paid yet. Do not confirm it until I have.'
        : 'Done: I approved it, and paid if there was anything to pay.';
    },
  };
}
