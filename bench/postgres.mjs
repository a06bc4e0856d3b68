// PostgreSQL part of `npm run bench`: Holdfast's hold_slot over HTTP with one and two instances against the
// ceiling of a raw single-statement insert through the same exclusion constraint, measured in the same run.
import { randomBytes, randomUUID } from 'node:crypto';
import pg from 'pg';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { callTool, percentile, runLoad, spawnServer } from './load.mjs';
import { pick } from './scale.mjs';

const PG_URL =
  process.env.BENCH_DATABASE_URL ??
  process.env.TEST_DATABASE_URL ??
  'postgres://postgres@127.0.0.1:5432/test';
const CALLS = pick(2000, 100);
const CONCURRENCY = 32;
const SLOT = 15 * 60_000;
const DAY = 86_400_000;

async function schemaUrl() {
  const name = `hf_bench_${randomBytes(5).toString('hex')}`;
  return { name, url: `${PG_URL}?schema=${name}` };
}

async function dropSchema(name) {
  const client = new pg.Client({ connectionString: PG_URL });
  await client.connect();
  await client.query(`DROP SCHEMA IF EXISTS ${name} CASCADE`);
  await client.end();
}

/** The ceiling: 32 connections each inserting a booking and its allocation in one statement. */
async function rawCeiling() {
  const { name } = await schemaUrl();
  const pool = new pg.Pool({
    connectionString: PG_URL,
    max: CONCURRENCY,
    options: `-c search_path=${name},public`,
  });
  await pool.query(`CREATE SCHEMA ${name}`);
  await pool.query('CREATE EXTENSION IF NOT EXISTS btree_gist WITH SCHEMA public');
  await pool.query(
    `CREATE TABLE bookings (tenant_id text, id text, start_at bigint, end_at bigint, PRIMARY KEY (tenant_id, id))`,
  );
  await pool.query(`CREATE TABLE allocations (tenant_id text, booking_id text, calendar_id text, start_at timestamptz, end_at timestamptz,
    active boolean, PRIMARY KEY (tenant_id, booking_id, calendar_id),
    EXCLUDE USING gist (tenant_id WITH =, calendar_id WITH =, tstzrange(start_at, end_at, '[)') WITH &&) WHERE (active))`);
  const base = Math.ceil(Date.now() / DAY) * DAY + DAY;
  const insert = (i) =>
    pool.query(
      `WITH b AS (INSERT INTO bookings VALUES ('bench', $1, $2, $3) RETURNING tenant_id, id)
       INSERT INTO allocations SELECT tenant_id, id, $4, to_timestamp($2::bigint / 1000.0), to_timestamp($3::bigint / 1000.0), true FROM b`,
      [randomUUID(), base + Math.floor(i / 8) * SLOT, base + Math.floor(i / 8) * SLOT + SLOT, `cal_${i % 8}`],
    );
  await runLoad({ concurrency: CONCURRENCY, total: pick(200, 20), makeCall: (i) => insert(i + 1_000_000) });
  const result = await runLoad({ concurrency: CONCURRENCY, total: CALLS, makeCall: insert, expectOk: false });
  await pool.end();
  await dropSchema(name);
  return result;
}

async function holdfastHolds(instances) {
  const { name, url } = await schemaUrl();
  const servers = [];
  // Every instance shares one audit key, kept outside the database (and outside the repository).
  const keyDir = mkdtempSync(join(tmpdir(), 'holdfast-bench-key-'));
  const args = ['dist/main/cli.js', 'serve', '--port', '0', '--no-seed', '--database', url];
  for (let i = 0; i < instances; i++) {
    servers.push(
      await spawnServer(process.execPath, [...args, '--audit-key-file', join(keyDir, 'audit.key')]),
    );
  }
  try {
    const everyDay = Object.fromEntries(
      ['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'].map((d) => [d, [{ start: '00:00', end: '24:00' }]]),
    );
    const calendars = [];
    for (let i = 0; i < 8; i++) {
      const created = await callTool(servers[0].url, 'create_calendar', {
        name: `Bench room ${i}`,
        timeZone: 'UTC',
        availability: { weekly: everyDay, overrides: [] },
        idempotencyKey: randomUUID(),
      });
      calendars.push(created.data.calendar.id);
    }
    const base = Math.ceil(Date.now() / DAY) * DAY + DAY;
    let seq = 0;
    const hold = () => {
      const n = seq++;
      const start = base + Math.floor(n / calendars.length) * SLOT;
      return callTool(servers[n % servers.length].url, 'hold_slot', {
        calendarIds: [calendars[n % calendars.length]],
        start: new Date(start).toISOString(),
        end: new Date(start + SLOT).toISOString(),
        idempotencyKey: randomUUID(),
      });
    };
    await runLoad({ concurrency: 8, total: pick(200, 20), makeCall: hold });
    return await runLoad({ concurrency: CONCURRENCY, total: CALLS, makeCall: hold });
  } finally {
    for (const s of servers) s.stop();
    await new Promise((r) => setTimeout(r, 300));
    await dropSchema(name);
    rmSync(keyDir, { recursive: true, force: true });
  }
}

export async function benchPostgres() {
  try {
    const probe = new pg.Client({ connectionString: PG_URL });
    await probe.connect();
    await probe.end();
  } catch (error) {
    return [`PostgreSQL bench skipped: cannot reach ${PG_URL} (${error.message})`];
  }
  const raw = await rawCeiling();
  const one = await holdfastHolds(1);
  const two = await holdfastHolds(2);
  const fmt = (n, d = 0) => n.toFixed(d);
  const row = (label, r) =>
    `| ${label} | ${fmt(r.callsPerSecond)} | ${fmt(r.p50, 2)} | ${fmt(r.p99, 2)} | ${fmt(r.max, 1)} | ${r.failures} | ${fmt(r.callsPerSecond / raw.callsPerSecond, 2)}x |`;
  return [
    '',
    `PostgreSQL, ${CALLS} holds at concurrency ${CONCURRENCY} on distinct slots:`,
    '',
    '| workload | ops/s | p50 ms | p99 ms | max ms | failures | vs raw insert |',
    '|---|---:|---:|---:|---:|---:|---:|',
    row('raw pg single-statement insert through the gist exclusion constraint', raw),
    row('Holdfast hold_slot over HTTP, 1 instance', one),
    row('Holdfast hold_slot over HTTP, 2 instances', two),
    '',
    `Target: hold throughput >= 0.7x the raw ceiling at c=${CONCURRENCY} (1 instance ${fmt(one.callsPerSecond / raw.callsPerSecond, 2)}x, 2 instances ${fmt(two.callsPerSecond / raw.callsPerSecond, 2)}x); no request above 1 s (max ${fmt(Math.max(one.max, two.max), 0)} ms).`,
  ];
}

export { percentile };
