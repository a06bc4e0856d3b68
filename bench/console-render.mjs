// Server-side render time of the console's bookings and activity pages on a big tenant (10,000
// bookings, 100,000 audit records), over HTTP against the real server, next to the sign-in form
// (the cheapest page the same server renders) measured in the same interleaved rounds.
import { spawnSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { percentile, provision, spawnHoldfast } from './load.mjs';
import { pick } from './scale.mjs';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const EMAIL = 'bench@example.com';
const PASSWORD = 'bench password long enough';
const TOOLS = ['find_slots', 'hold_slot', 'get_booking', 'confirm_booking', 'list_bookings', 'release_hold'];

function holdfast(args) {
  const run = spawnSync(process.execPath, ['dist/bin/holdfast.js', ...args], { encoding: 'utf8' });
  if (run.status !== 0) throw new Error(`holdfast ${args.join(' ')}: ${run.stderr}`);
  return run.stdout;
}

/** Bookings spread hourly over ten calendars from a month ago on, and a trail that names some of them. */
async function seed(dbPath, personId, { bookings, auditRecords }) {
  const { SqliteStore } = await import('../dist/adapters/storage/sqlite/sqlite-store.js');
  const { AuditKey } = await import('../dist/adapters/audit/audit-key.js');
  const { StoreAuditLog } = await import('../dist/adapters/audit/audit-chain.js');
  const { randomIds } = await import('../dist/adapters/ids/random-ids.js');
  const store = await SqliteStore.open(dbPath);
  const now = Date.now();
  const start = Math.floor((now - 30 * DAY) / HOUR) * HOUR;
  const calendars = Array.from({ length: 10 }, (_, i) => ({
    id: randomIds.newId('cal'),
    tenantId: 'local',
    name: `Bench room ${i}`,
    timeZone: i % 2 ? 'Europe/Berlin' : 'Asia/Shanghai',
    price: null,
    availability: { weekly: {}, overrides: [] },
    createdAt: now,
    version: 1,
  }));
  await store.write(async (tx) => {
    for (const c of calendars) await tx.calendars.insert(c);
  });
  const ids = [];
  for (let from = 0; from < bookings; from += 500) {
    await store.write(async (tx) => {
      for (let n = from; n < Math.min(bookings, from + 500); n++) {
        const calendar = calendars[n % calendars.length];
        const at = start + Math.floor(n / calendars.length) * HOUR;
        const booking = {
          id: randomIds.newId('bk'),
          tenantId: 'local',
          reference: `HF-B${n.toString(36).toUpperCase().padStart(4, '0')}`,
          calendarIds: [calendar.id],
          start: at,
          end: at + HOUR,
          status: n % 5 === 0 ? 'HELD' : 'CONFIRMED',
          version: 1,
          createdAt: now,
          updatedAt: now,
          expiresAt: now + 365 * DAY,
          customer: { name: `Guest ${n}`, email: `guest${n}@example.com` },
          label: null,
          price: null,
          payment: null,
          owner: { subject: personId, clientId: 'bench', connectionId: 'bench' },
          externalKeys: {},
          paymentFollowUp: false,
        };
        const placed = await tx.bookings.placeHold({
          booking,
          calendarVersions: [{ id: calendar.id, version: 1 }],
          idempotency: {
            tenantId: 'local',
            subject: personId,
            tool: 'hold_slot',
            key: randomUUID(),
            argumentsDigest: 'hmac-sha256:bench',
            result: { bookingId: booking.id },
            createdAt: now,
            expiresAt: now + DAY,
          },
          cap: null,
          occupies: [{ calendarId: calendar.id, start: booking.start, end: booking.end, capacity: 1 }],
          limits: [],
        });
        if (placed.outcome !== 'placed') throw new Error(`seed hold ${n}: ${placed.outcome}`);
        ids.push(booking.id);
      }
    });
  }
  const key = new AuditKey(readFileSync(join(dbPath, '..', 'audit.key'), 'utf8'));
  const log = new StoreAuditLog(store, key, { sealDelayMs: 0 });
  const written = [];
  for (let n = 0; n < auditRecords; n++) {
    const tool = TOOLS[n % TOOLS.length];
    const failed = n % 7 === 0;
    written.push(
      log.append({
        at: now - 30 * DAY + Math.floor((n / auditRecords) * 30 * DAY),
        tenantId: 'local',
        subject: personId,
        clientId: `bench client ${n % 3}`,
        transport: 'http',
        tool,
        kind: tool.includes('find') || tool.startsWith('get') || tool.startsWith('list') ? 'read' : 'write',
        outcome: failed ? 'error' : 'ok',
        errorCode: failed ? 'SLOT_UNAVAILABLE' : null,
        blockedReason: null,
        argumentsDigest: 'hmac-sha256:bench',
        preview: JSON.stringify({ bookingId: ids[n % ids.length] }),
        traceId: randomUUID().replaceAll('-', ''),
        operationId: randomIds.newId('op'),
        durationMs: 1.5,
      }),
    );
    if (written.length >= 5000) await Promise.all(written.splice(0));
  }
  await Promise.all(written);
  await log.flush();
  await store.close();
  return ids;
}

function cookiesOf(response) {
  return response.headers.getSetCookie().map((c) => c.split(';')[0]);
}

async function signIn(origin) {
  const form = await fetch(new URL('/login', origin));
  const csrf = /name="csrf" value="([^"]+)"/.exec(await form.text())?.[1] ?? '';
  const posted = await fetch(new URL('/login', origin), {
    method: 'POST',
    redirect: 'manual',
    headers: {
      'content-type': 'application/x-www-form-urlencoded',
      origin,
      cookie: cookiesOf(form).join('; '),
    },
    body: new URLSearchParams({ csrf, email: EMAIL, password: PASSWORD, next: '/console' }),
  });
  const session = cookiesOf(posted).find((c) => c.includes('holdfast_session='));
  if (posted.status !== 303 || !session) throw new Error(`sign-in failed: HTTP ${posted.status}`);
  return session;
}

async function timed(url, cookie) {
  const started = performance.now();
  const answer = await fetch(url, { headers: { cookie }, redirect: 'manual' });
  const body = await answer.text();
  const ms = performance.now() - started;
  if (answer.status !== 200) throw new Error(`${url}: HTTP ${answer.status} ${body.slice(0, 200)}`);
  return { ms, body };
}

/**
 * Seeds a tenant, serves it, signs in and times each page `requests` times in interleaved
 * rounds. Returns rows: page, p50, p95, max (ms) and p50 against the sign-in form's p50.
 */
export async function benchConsoleRender(dir, sizes = {}) {
  const bookings = sizes.bookings ?? pick(10_000, 100);
  const auditRecords = sizes.auditRecords ?? pick(100_000, 500);
  const requests = sizes.requests ?? pick(30, 3);
  const dbPath = join(dir, 'console.db');
  const database = ['--db', dbPath];
  provision(database, { token: false });
  const people = JSON.parse(holdfast(['users', 'list', '--json', ...database]));
  const personId = people.find((p) => p.email === EMAIL).id;
  const seeded = Date.now();
  const bookingIds = await seed(dbPath, personId, { bookings, auditRecords });
  const seedSeconds = (Date.now() - seeded) / 1000;
  const { setupUrl } = JSON.parse(holdfast(['users', 'setup-link', EMAIL, '--json', ...database]));
  const server = await spawnHoldfast(database, null);
  try {
    const origin = new URL(server.url).origin;
    const set = await fetch(new URL(new URL(setupUrl).pathname, origin), {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', origin },
      body: new URLSearchParams({ password: PASSWORD }),
    });
    if (set.status !== 200) throw new Error(`setting the password: HTTP ${set.status}`);
    const cookie = await signIn(origin);
    const first = await timed(new URL('/console/activity', origin), cookie);
    const older = /href="(\/console\/activity\?[^"]*before=[^"]*)"/
      .exec(first.body)?.[1]
      ?.replaceAll('&amp;', '&');
    if (!older) throw new Error('the activity page has no link to older records');
    const pages = [
      ['sign-in form (baseline)', '/login'],
      ['bookings: agenda, upcoming, first page', '/console/bookings'],
      [
        'bookings: agenda, all time, last page',
        `/console/bookings?from=&offset=${Math.max(0, bookings - 50)}`,
      ],
      ['bookings: agenda, customer search', '/console/bookings?from=&customer=guest%2042'],
      ['bookings: week view, all calendars', '/console/bookings/week'],
      [
        'bookings: one booking with its history',
        `/console/bookings/${bookingIds[Math.floor(bookingIds.length / 2)]}`,
      ],
      ['activity: newest page', '/console/activity'],
      ['activity: older page', older],
      ['activity: filtered by tool and outcome', '/console/activity?tool=hold_slot&outcome=error'],
    ];
    // The chain's verification walks the whole trail once in the background: let it finish first.
    for (let i = 0; i < 50; i++) {
      if (!(await timed(new URL('/console/activity', origin), cookie)).body.includes('Checking the chain'))
        break;
      await new Promise((r) => setTimeout(r, 200));
    }
    const times = new Map(pages.map(([name]) => [name, []]));
    for (let round = 0; round < requests + 1; round++)
      for (const [name, path] of pages) {
        const { ms } = await timed(new URL(path, origin), cookie);
        if (round > 0) times.get(name).push(ms); // the first round warms caches and JIT
      }
    const baseline = percentile(
      [...times.get(pages[0][0])].sort((a, b) => a - b),
      50,
    );
    const rows = pages.map(([name]) => {
      const sorted = [...times.get(name)].sort((a, b) => a - b);
      const p50 = percentile(sorted, 50);
      return { name, p50, p95: percentile(sorted, 95), max: sorted.at(-1), vsBaseline: p50 / baseline };
    });
    return { bookings, auditRecords, requests, seedSeconds, rows };
  } finally {
    server.stop();
  }
}
