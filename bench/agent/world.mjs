// A task's world: its own SQLite database and server, the calendars, bookings and other agents'
// holds the task describes, and the person the agent asks (who answers through the command
// line, as an operator at the terminal would).
import { spawnSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { join } from 'node:path';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { provision, spawnHoldfast } from '../load.mjs';

const DAY = 86_400_000;
const WEEKDAYS = ['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'];

function holdfast(args, db) {
  const run = spawnSync(process.execPath, ['dist/bin/holdfast.js', ...args, '--db', db], {
    encoding: 'utf8',
  });
  if (run.status !== 0) throw new Error(`holdfast ${args.join(' ')}: ${run.stderr}`);
  return run.stdout;
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

/** The seeding owner's calls: by name, or through the catalog on a catalog server. */
const structured = async (client, name, args) => {
  const result = client.catalog
    ? await client.callTool({ name: 'tool_catalog.call', arguments: { tool: name, arguments: args } })
    : await client.callTool({ name, arguments: args });
  if (!result.structuredContent?.ok) throw new Error(`seeding ${name}: ${result.content?.[0]?.text}`);
  return result.structuredContent.data;
};

/** Every day open `hours` (default 09:00–17:00) in the calendar's zone. */
const weekly = (hours = ['09:00', '17:00']) =>
  Object.fromEntries(WEEKDAYS.map((day) => [day, [{ start: hours[0], end: hours[1] }]]));

/**
 * Builds the world: calendars (name, zone, tags, price, rules), then as the seeding owner any
 * bookings it holds already; `rival` holds the first free start of the agent's window first.
 * Seeding goes through structuredContent: it is the harness, not the agent under test.
 */
export async function buildWorld(task, runDir) {
  // Worlds live in the run's folder until it ends: the first provisioned database is the
  // template the others copy (bench/load.mjs).
  const dir = mkdtempSync(join(runDir, 'world-'));
  const db = join(dir, 'world.db');
  const token = provision(['--db', db]);
  const server = await spawnHoldfast(['--db', db, '--tools', task.surface ?? 'flat'], token);
  const owner = await connect(server.url, token);
  owner.catalog = task.surface === 'catalog';
  const calendars = {};
  for (const spec of task.world.calendars) {
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
  const person = simulatedPerson(db, task.world.person ?? {});
  for (const seeded of task.world.bookings ?? []) {
    const ids = [seeded.calendar].flat().map((name) => calendars[name]);
    const start = new Date(
      Math.floor((Date.now() + seeded.daysAhead * DAY) / DAY) * DAY + seeded.hourUtc * 3_600_000,
    );
    const { booking } = await structured(owner, 'hold_slot', {
      calendarIds: ids,
      start: start.toISOString(),
      end: new Date(start.getTime() + seeded.minutes * 60_000).toISOString(),
      customer: { name: seeded.customer },
      idempotencyKey: randomUUID(),
    });
    if (seeded.status === 'CONFIRMED') await confirmAsOwner(owner, booking, db);
  }
  await owner.close();
  // Contention: another agent holds the start this one found, between its search and its hold.
  const rival = task.world.rival && {
    once: true,
    async act() {
      const other = await connect(server.url, token);
      other.catalog = owner.catalog;
      await rivalTakesFirstStart(other, calendars[task.world.rival.calendar], task.intent);
      await other.close();
    },
  };
  return {
    url: server.url,
    token,
    db,
    calendars,
    person,
    /** Called by the runner before the agent's first hold_slot. */
    async beforeHold() {
      if (rival?.once) {
        rival.once = false;
        await rival.act();
      }
    },
    async close() {
      await server.stopAndWait();
    },
  };
}

async function confirmAsOwner(owner, booking, db) {
  const asked = await owner.callTool({
    name: owner.catalog ? 'tool_catalog.call' : 'confirm_booking',
    arguments: ((args) => (owner.catalog ? { tool: 'confirm_booking', arguments: args } : args))({
      bookingId: booking.id,
      expectedVersion: booking.version,
      idempotencyKey: randomUUID(),
    }),
  });
  const approvalId = asked.structuredContent.error.details.approvalId;
  holdfast(['approvals', 'approve', approvalId], db);
  await structured(owner, 'confirm_booking', {
    bookingId: booking.id,
    expectedVersion: booking.version,
    approval: { approvalId },
    idempotencyKey: randomUUID(),
  });
}

/** Another agent holds the start the task's agent would pick first, just before it looks. */
async function rivalTakesFirstStart(owner, calendarId, intent) {
  const from = new Date(Math.floor((Date.now() + intent.daysAhead * DAY) / DAY) * DAY);
  const { slots } = await structured(owner, 'find_slots', {
    calendarIds: [calendarId],
    from: from.toISOString(),
    to: new Date(from.getTime() + 2 * DAY).toISOString(),
    durationMinutes: intent.minutes,
    limit: 1,
  });
  await structured(owner, 'hold_slot', {
    calendarIds: [calendarId],
    start: new Date(slots[0].start).toISOString(),
    end: new Date(slots[0].end).toISOString(),
    customer: { name: 'Someone else' },
    idempotencyKey: randomUUID(),
  });
}

/**
 * The user the agent talks to: approves or denies what they are asked (`approves: false`
 * denies), pays when asked to. Each answer is a person's action at the command line.
 */
function simulatedPerson(db, { approves = true }) {
  const asked = { approvals: 0, payments: 0 };
  return {
    asked,
    async approve(approvalId) {
      asked.approvals += 1;
      holdfast(['approvals', approves ? 'approve' : 'deny', approvalId], db);
      return approves ? 'approved' : 'denied';
    },
    async pay(bookingId) {
      asked.payments += 1;
      holdfast(['payments', 'set', bookingId, 'PAID'], db);
    },
  };
}
