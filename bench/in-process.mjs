// The hold use case in-process against the ceiling on each engine: the same rows (booking,
// allocation, idempotency record) written by plain SQL with the same durability — SQLite: WAL,
// synchronous=FULL, BEGIN IMMEDIATE … COMMIT; PostgreSQL: one statement, synchronous_commit on,
// through the same exclusion constraint. No audit on either side.
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import pg from 'pg';
import { jcsDigest } from '../dist/adapters/ids/jcs-digest.js';
import { KeyedDigest } from '../dist/adapters/ids/keyed-digest.js';
import { KeyedPageTokens } from '../dist/adapters/ids/keyed-page-tokens.js';
import { randomIds } from '../dist/adapters/ids/random-ids.js';
import { nodeCredentials } from '../dist/adapters/ids/node-credentials.js';
import { webAuthnCeremonies } from '../dist/adapters/ids/webauthn-ceremonies.js';
import { FlexibleRateLimits } from '../dist/adapters/limits/flexible-rate-limits.js';
import { bookingToRow, idempotencyValues } from '../dist/adapters/storage/rows.js';
import { PgStore } from '../dist/adapters/storage/postgres/pg-store.js';
import { migrate, openSqlite } from '../dist/adapters/storage/sqlite/sqlite-database.js';
import { SqliteStore } from '../dist/adapters/storage/sqlite/sqlite-store.js';
import { CalendarCache } from '../dist/app/calendars/calendar-cache.js';
import { createCalendar } from '../dist/app/calendars/calendars.js';
import { defaultAppConfig } from '../dist/app/deps.js';
import { holdSlot } from '../dist/app/booking/hold-slot.js';
import { subscribe } from '../dist/app/feeds/subscriptions.js';
import { addWebhook } from '../dist/app/webhooks/manage-webhooks.js';
import { webhookEventTypes } from '../dist/domain/webhooks/webhook-events.js';
import { noSlotCache } from '../dist/ports/slot-cache.js';
import { pick } from './scale.mjs';
import { NO_LIMITS } from '../dist/domain/identity/identity.js';

const OPS = { 1: pick(1500, 10), 32: pick(4000, 32) };
/** Connections on each side; the smoke run shares PostgreSQL with the test files beside it. */
const POOL = pick(32, 8);
const SLOT = 15 * 60_000;
const DAY = 86_400_000;
const principal = {
  tenantId: 'bench',
  subject: 'bench',
  clientId: 'bench',
  connectionId: 'test-connection',
  scopes: ['read', 'draft', 'write', 'sensitive'],
  limits: NO_LIMITS,
  writePolicy: 'direct',
};
const allDay = Object.fromEntries(
  ['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'].map((d) => [d, [{ start: '00:00', end: '24:00' }]]),
);

function depsFor(store) {
  return {
    store,
    clock: { now: () => Date.now() },
    ids: randomIds,
    digest: jcsDigest,
    requestDigest: new KeyedDigest(Buffer.from('bench-request-digest-key')),
    pageTokens: new KeyedPageTokens(Buffer.from('bench-page-token-key')),
    payments: {
      queryPayment: async (bookingId) => ({
        bookingId,
        status: 'PENDING',
        amount: null,
        currency: null,
        paidAt: null,
      }),
    },
    slotCache: noSlotCache,
    calendarCache: new CalendarCache(),
    credentials: nodeCredentials,
    webAuthn: webAuthnCeremonies,
    rateLimits: FlexibleRateLimits.memory(),
    config: defaultAppConfig,
  };
}

/** The rows one hold writes, as the raw side writes them: booking, allocation, idempotency record. */
function rowsFor(calendarId, start) {
  const now = Date.now();
  const booking = {
    id: randomIds.newId('bk'),
    tenantId: 'bench',
    reference: randomIds.newReference(),
    calendarIds: [calendarId],
    start,
    end: start + SLOT,
    status: 'HELD',
    version: 1,
    createdAt: now,
    updatedAt: now,
    expiresAt: now + 300_000,
    customer: null,
    label: null,
    price: null,
    payment: null,
    owner: { subject: 'bench', clientId: 'bench', connectionId: 'bench' },
    externalKeys: {},
    paymentFollowUp: false,
  };
  const idempotency = idempotencyValues({
    tenantId: 'bench',
    subject: 'bench',
    tool: 'hold_slot',
    key: randomUUID(),
    argumentsDigest: `hmac-sha256:${randomBytes(32).toString('hex')}`,
    result: { booking, calendars: [{ id: calendarId, name: 'c', timeZone: 'UTC' }] },
    createdAt: now,
    expiresAt: now + DAY,
  });
  return { booking: bookingToRow(booking), idempotency };
}

/** `total` operations with `concurrency` in flight; operations per second. */
async function measure(concurrency, total, op) {
  let issued = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (issued < total) await op(issued++);
    }),
  );
  return total / ((performance.now() - started) / 1000);
}

async function holdfastSide(store, offset, asTenant = principal) {
  const deps = depsFor(store);
  const principal = asTenant;
  const calendar = (
    await createCalendar(deps, principal, {
      name: 'c',
      timeZone: 'UTC',
      availability: { weekly: allDay, overrides: [] },
      idempotencyKey: randomUUID(),
    })
  ).value;
  const base = Math.ceil(Date.now() / DAY) * DAY + DAY + offset;
  let seq = 0;
  const hold = () => {
    const start = base + seq++ * SLOT;
    return holdSlot(deps, principal, {
      calendarIds: [calendar.id],
      start: new Date(start).toISOString(),
      end: new Date(start + SLOT).toISOString(),
      idempotencyKey: randomUUID(),
    });
  };
  hold.calendarId = calendar.id;
  hold.deps = deps;
  return hold;
}

/**
 * The same hold on tenants that switched a feature on, beside one that did not: a webhook
 * subscription (every booking write records an event for delivery), and a calendar subscribed
 * to an external feed with a thousand busy intervals (every hold is checked against them).
 */
async function featureSides(store) {
  const tenant = (tenantId) => ({ ...principal, tenantId, subject: `bench-${tenantId}` });
  const plain = await holdfastSide(store, 0, tenant('plain'));
  const webhooks = await holdfastSide(store, 0, tenant('webhooks'));
  await addWebhook(
    webhooks.deps,
    { create: () => ({ secret: 'whsec_bench', sealed: 'sealed-by-bench' }) },
    'webhooks',
    'bench',
    {
      url: 'https://hooks.example.com/holdfast',
      events: webhookEventTypes,
      includeContact: false,
      allowPrivate: false,
    },
  );
  const feeds = await holdfastSide(store, 0, tenant('feeds'));
  const reader = { check: () => null };
  const subscription = await subscribe(
    feeds.deps,
    reader,
    'feeds',
    feeds.calendarId,
    'https://feeds.example.com/busy.ics',
  );
  const now = Date.now();
  const [leased] = await store.write((tx) => tx.feeds.lease('bench', now, now + 60_000, 1, subscription));
  // Busy time a year ahead, an hour a day: the holds never meet it, each still looks.
  const yearAhead = Math.ceil(now / DAY) * DAY + 365 * DAY;
  const busy = Array.from({ length: 1000 }, (_, i) => ({
    start: yearAhead + i * DAY,
    end: yearAhead + i * DAY + 3_600_000,
  }));
  await store.write((tx) => tx.feeds.replaceBusy('bench', leased, busy, now));
  return { plain, webhooks, feeds };
}

async function sqliteSides(dir) {
  mkdirSync(dir, { recursive: true });
  const store = await SqliteStore.open(join(dir, 'holdfast.db'));
  const hold = await holdfastSide(store, 0);
  const raw = openSqlite(join(dir, 'raw.db'));
  await migrate(raw);
  raw
    .prepare(
      "INSERT INTO calendars (tenant_id, id, name, time_zone, price_amount, price_currency, availability, created_at, version) VALUES ('bench', 'cal_raw', 'c', 'UTC', NULL, NULL, '{}', 0, 1)",
    )
    .run();
  const columns = Object.keys(rowsFor('cal_raw', 0).booking);
  const insertBooking = raw.prepare(
    `INSERT INTO bookings (${columns.join(', ')}) VALUES (${columns.map((c) => `@${c}`).join(', ')})`,
  );
  const insertAllocation = raw.prepare(
    'INSERT INTO allocations (tenant_id, booking_id, calendar_id, start_at, end_at, active) VALUES (?, ?, ?, ?, ?, 1)',
  );
  const insertIdempotency = raw.prepare('INSERT INTO idempotency VALUES (?, ?, ?, ?, ?, ?, ?, ?)');
  const base = Math.ceil(Date.now() / DAY) * DAY + DAY;
  let seq = 0;
  const rawHold = async () => {
    const { booking: row, idempotency } = rowsFor('cal_raw', base + seq++ * SLOT);
    raw.exec('BEGIN IMMEDIATE');
    insertBooking.run(row);
    insertAllocation.run('bench', row.id, 'cal_raw', row.start_at, row.end_at);
    insertIdempotency.run(...idempotency);
    raw.exec('COMMIT');
  };
  return { hold, raw: rawHold, close: async () => (raw.close(), store.close()) };
}

async function postgresSides(url) {
  const schema = `hf_bench_inproc_${randomBytes(4).toString('hex')}`;
  const store = await PgStore.open(`${url}?schema=${schema}`, { maxConnections: POOL });
  const hold = await holdfastSide(store, 0);
  const pool = new pg.Pool({ connectionString: url, max: POOL, options: `-c search_path=${schema},public` });
  await pool.query(
    "INSERT INTO calendars (tenant_id, id, name, time_zone, price_amount, price_currency, availability, created_at, version) VALUES ('bench', 'cal_raw', 'c', 'UTC', NULL, NULL, '{}', 0, 1)",
  );
  const columns = Object.keys(rowsFor('cal_raw', 0).booking);
  const types = {
    start_at: 'bigint',
    end_at: 'bigint',
    version: 'int',
    created_at: 'bigint',
    updated_at: 'bigint',
    expires_at: 'bigint',
    payment_follow_up: 'boolean',
  };
  const n = columns.length;
  const sql = {
    name: 'raw_hold',
    text: `WITH b AS (
        INSERT INTO bookings (${columns.join(', ')})
        VALUES (${columns.map((c, i) => `$${i + 1}::${types[c] ?? 'text'}`).join(', ')}) RETURNING tenant_id, id, start_at, end_at
      ), a AS (
        INSERT INTO allocations (tenant_id, booking_id, calendar_id, start_at, end_at, active)
          SELECT tenant_id, id, 'cal_raw', start_at, end_at, true FROM b RETURNING 1
      )
      INSERT INTO idempotency VALUES (${Array.from({ length: 8 }, (_, i) => `$${n + i + 1}`).join(', ')})`,
  };
  const base = Math.ceil(Date.now() / DAY) * DAY + DAY;
  let seq = 0;
  const rawHold = () => {
    const { booking: row, idempotency } = rowsFor('cal_raw', base + seq++ * SLOT);
    return pool.query({ ...sql, values: [...columns.map((c) => row[c]), ...idempotency] });
  };
  return {
    hold,
    raw: rawHold,
    close: async () => {
      await pool.query(`DROP SCHEMA ${schema} CASCADE`);
      await pool.end();
      await store.close();
    },
  };
}

/** Both sides at 1 and 32 in flight, interleaved rounds, best of each. */
async function compare(sides, rounds) {
  const result = {};
  for (const concurrency of [1, 32]) {
    await measure(concurrency, pick(200, 4), sides.hold);
    await measure(concurrency, pick(200, 4), sides.raw);
    let raw = 0;
    let holdfast = 0;
    for (let round = 0; round < rounds; round++) {
      raw = Math.max(raw, await measure(concurrency, OPS[concurrency], sides.raw));
      holdfast = Math.max(holdfast, await measure(concurrency, OPS[concurrency], sides.hold));
    }
    result[concurrency] = { raw, holdfast };
  }
  await sides.close();
  return result;
}

/** Holds per second at 32 in flight on each feature side, interleaved rounds, best of each. */
async function compareFeatures(store, rounds) {
  const sides = await featureSides(store);
  const result = { plain: 0, webhooks: 0, feeds: 0 };
  for (const side of Object.values(sides)) await measure(32, pick(200, 4), side);
  for (let round = 0; round < rounds; round++)
    for (const [name, side] of Object.entries(sides))
      result[name] = Math.max(result[name], await measure(32, OPS[32], side));
  await store.close();
  return result;
}

export async function benchInProcess(dir, { rounds, pgUrl }) {
  const sqlite = await compare(await sqliteSides(dir), rounds);
  const postgres = pgUrl ? await compare(await postgresSides(pgUrl), rounds) : null;
  const features = {
    sqlite: await compareFeatures(await SqliteStore.open(join(dir, 'features.db')), rounds),
    postgres: null,
  };
  if (pgUrl) {
    const schema = `hf_bench_features_${randomBytes(4).toString('hex')}`;
    features.postgres = await compareFeatures(
      await PgStore.open(`${pgUrl}?schema=${schema}`, { maxConnections: POOL }),
      rounds,
    );
    const client = new pg.Client({ connectionString: pgUrl });
    await client.connect();
    await client.query(`DROP SCHEMA ${schema} CASCADE`);
    await client.end();
  }
  rmSync(dir, { recursive: true, force: true });
  return { sqlite, postgres, features };
}
