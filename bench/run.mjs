// npm run bench: every figure side by side in one run, as ratios to a baseline measured in the
// same run on the same machine (absolute numbers depend on this shared machine; read the ratios).
//   - start-up from spawn: --version, --help, an operator command, stdio's first answers, serve's
//     first call and its idle memory, beside `node -e 0`;
//   - hold_slot and find_slots over HTTP against the SDK's no-op tool, at 1/8/32 clients, on SQLite
//     and on PostgreSQL with one and two instances;
//   - hold_slot over stdio against a stdio no-op;
//   - the in-process hold use case against raw SQL writing the same rows, on both engines;
//   - the console's bookings and activity pages on a big tenant, against the sign-in form;
//   - the bytes and tokens of every tool's answer: compact text against the JSON it replaced;
//   - with --profile, where a hold run spends the server's time.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { benchHttp, CONCURRENCY, WORKLOADS } from './http.mjs';
import { benchAnswerSizes } from './answer-sizes.mjs';
import { benchConsoleRender } from './console-render.mjs';
import { benchInProcess } from './in-process.mjs';
import { provision, spawnHoldfast, spawnServer } from './load.mjs';
import { profileHolds } from './profile.mjs';
import { pick, SMOKE } from './scale.mjs';
import { benchStdio } from './stdio.mjs';
import { benchStartup } from './startup.mjs';

const ROUNDS = pick(2, 1);
const PROFILE = process.argv.includes('--profile');
const PG_URL =
  process.env.BENCH_DATABASE_URL ??
  process.env.TEST_DATABASE_URL ??
  'postgres://postgres@127.0.0.1:5432/test';
const fmt = (n, d = 0) => n.toFixed(d);
const dir = mkdtempSync(join(tmpdir(), 'holdfast-bench-'));
const lines = [];
const out = (...more) => lines.push(...more);
const targets = [];
/** A target row: `at least` for throughput ratios, `at most` for latency. */
const target = (label, value, goal, { atMost = false, unit = 'x' } = {}) =>
  targets.push(
    `| ${label} | ${fmt(value, 2)}${unit} | ${atMost ? '<=' : '>='} ${goal}${unit} | ${(atMost ? value <= goal : value >= goal) ? 'met' : 'missed'} |`,
  );
let slowest = 0;
let sectionStart = performance.now();
let sectionName = 'noop server';
/** Each part's wall time, on stderr: where the bench (and its smoke run in npm test) spends it. */
const section = (next) => {
  process.stderr.write(
    `bench: ${sectionName} took ${((performance.now() - sectionStart) / 1000).toFixed(1)} s\n`,
  );
  sectionName = next;
  sectionStart = performance.now();
};

async function reachable(url) {
  try {
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    await client.end();
    return true;
  } catch {
    return false;
  }
}

async function dropSchema(name) {
  const client = new pg.Client({ connectionString: PG_URL });
  await client.connect();
  await client.query(`DROP SCHEMA IF EXISTS ${name} CASCADE`);
  await client.end();
}

function httpTable(title, results) {
  out(
    '',
    title,
    '',
    '| workload | clients | calls/s | p50 ms | p99 ms | max ms | failures | vs no-op calls/s | p99 vs no-op | server CPU ms/call | CPU vs no-op |',
    '|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|',
  );
  for (const concurrency of CONCURRENCY) {
    const base = results[`noop@${concurrency}`];
    for (const name of WORKLOADS) {
      const r = results[`${name}@${concurrency}`];
      slowest = Math.max(slowest, r.max);
      const label = name.startsWith('find_slots') ? `${name} (10 calendars x 14 days)` : name;
      out(
        `| ${label} | ${concurrency} | ${fmt(r.callsPerSecond)} | ${fmt(r.p50, 2)} | ${fmt(r.p99, 2)} | ${fmt(r.max, 1)} | ${r.failures} | ${fmt(r.callsPerSecond / base.callsPerSecond, 2)}x | ${fmt(r.p99 / base.p99, 2)}x | ${fmt(r.cpuMsPerCall, 3)} | ${fmt(r.cpuMsPerCall / base.cpuMsPerCall, 2)}x |`,
      );
    }
  }
}

const ratio = (results, name) => results[`${name}@32`].callsPerSecond / results['noop@32'].callsPerSecond;
const p99Ratio = (results, name) => results[`${name}@32`].p99 / results['noop@32'].p99;
const cpuRatio = (results, name) => results[`${name}@32`].cpuMsPerCall / results['noop@32'].cpuMsPerCall;

const noop = await spawnServer(process.execPath, ['bench/noop-server.mjs']);
try {
  out(
    `Holdfast bench${SMOKE ? ' SMOKE RUN (figures mean nothing)' : ''} (${new Date().toISOString()}, Node ${process.version}, best of ${ROUNDS} interleaved rounds)`,
  );

  // Start-up first, while nothing else of the bench runs.
  section('startup');
  const startup = await benchStartup(dir);
  const floorRow = startup.rows.find((r) => r.name === 'node -e 0');
  const floor = floorRow.ms;
  out(
    '',
    `Start-up from spawn (SQLite database already there; median of ${startup.spawns} spawns each, interleaved; CPU: the process's user + system time until it exited or answered):`,
    '',
    '| start-up | median ms | vs node -e 0 | CPU ms | CPU vs node -e 0 |',
    '|---|---:|---:|---:|---:|',
    ...startup.rows.map(
      (r) =>
        `| ${r.name} | ${fmt(r.ms)} | ${fmt(r.ms / floor, 2)}x | ${fmt(r.cpuMs)} | ${fmt(r.cpuMs / floorRow.cpuMs, 2)}x |`,
    ),
    `| holdfast serve: resident memory, idle after its first call | ${fmt(startup.serveIdleRssMiB)} MiB | | | |`,
  );
  const startupMs = (name) => startup.rows.find((r) => r.name.startsWith(name)).ms;
  target('holdfast --version vs node -e 0', startupMs('holdfast --version') / floor, 2, { atMost: true });
  target('holdfast --help vs node -e 0', startupMs('holdfast --help') / floor, 2, { atMost: true });
  target('operator command on an existing database', startupMs('holdfast approvals list'), 600, {
    atMost: true,
    unit: ' ms',
  });
  target('stdio: first answer after spawn', startupMs('holdfast stdio: first answer to initialize'), 500, {
    atMost: true,
    unit: ' ms',
  });
  target(
    'stdio: server/discover answered within an AI SDK host’s 1 s',
    startupMs('holdfast stdio: first answer to server/discover'),
    1000,
    { atMost: true, unit: ' ms' },
  );
  target('serve: first MCP call after spawn', startupMs('holdfast serve'), 1000, {
    atMost: true,
    unit: ' ms',
  });
  target('serve: idle resident memory', startup.serveIdleRssMiB, 120, { atMost: true, unit: ' MiB' });

  section('sqlite-http');
  const sqliteDatabase = ['--db', join(dir, 'bench.db')];
  const sqliteServer = await spawnHoldfast(sqliteDatabase, provision(sqliteDatabase));
  let sqlite;
  try {
    sqlite = await benchHttp({
      noopUrl: noop.url,
      urls: [sqliteServer.url],
      rounds: ROUNDS,
      noopPid: noop.pid,
      pids: [sqliteServer.pid],
      guardCalls: pick(0, 300),
    });
  } finally {
    sqliteServer.stop();
  }
  httpTable('SQLite (one process; WAL, synchronous=FULL), HTTP:', sqlite);
  target('SQLite hold_slot vs no-op, 32 clients', ratio(sqlite, 'hold_slot'), 0.6);
  target('SQLite find_slots vs no-op, 32 clients', ratio(sqlite, 'find_slots'), 0.6);
  target('SQLite find_slots uncached vs no-op, 32 clients', ratio(sqlite, 'find_slots uncached'), 0.5);
  for (const name of ['hold_slot', 'find_slots', 'find_slots uncached'])
    target(`SQLite ${name} p99 vs no-op p99, 32 clients`, p99Ratio(sqlite, name), 3, { atMost: true });
  target('SQLite hold_slot server CPU per call vs no-op, 32 clients', cpuRatio(sqlite, 'hold_slot'), 4, {
    atMost: true,
  });

  section('pg-http');
  const withPostgres = await reachable(PG_URL);
  if (withPostgres) {
    // The smoke run takes the two-instance path only: one instance is the same code with n = 1.
    for (const instances of pick([1, 2], [2])) {
      const schema = `hf_bench_${Date.now().toString(36)}_${instances}`;
      const url = `${PG_URL}?schema=${schema}`;
      const servers = [];
      try {
        const database = ['--database', url, '--audit-key-file', join(dir, 'audit.key')];
        const token = provision(database);
        // Started side by side: the instances share one migrated schema, so none has to wait for another.
        const started = Array.from({ length: instances }, () => spawnHoldfast(database, token));
        for (const server of await Promise.allSettled(started))
          if (server.status === 'fulfilled') servers.push(server.value);
          else throw server.reason;
        const results = await benchHttp({
          noopUrl: noop.url,
          urls: servers.map((s) => s.url),
          rounds: ROUNDS,
          noopPid: noop.pid,
          pids: servers.map((s) => s.pid),
        });
        httpTable(
          `PostgreSQL, ${instances} instance${instances > 1 ? 's' : ''} (one database), HTTP:`,
          results,
        );
        target(
          `PostgreSQL hold_slot vs no-op, 32 clients, ${instances} instance(s)`,
          ratio(results, 'hold_slot'),
          instances === 1 ? 0.4 : 0.5,
        );
        target(
          `PostgreSQL hold_slot Holdfast CPU per call vs no-op, ${instances} instance(s)`,
          cpuRatio(results, 'hold_slot'),
          4,
          { atMost: true },
        );
        target(
          `PostgreSQL hold_slot p99 vs no-op p99, ${instances} instance(s)`,
          p99Ratio(results, 'hold_slot'),
          3,
          { atMost: true },
        );
      } finally {
        for (const s of servers) await s.stopAndWait();
        await dropSchema(schema);
      }
    }
  } else out('', `PostgreSQL parts skipped: cannot reach ${PG_URL}`);

  section('stdio');
  const stdio = await benchStdio({ rounds: ROUNDS });
  slowest = Math.max(slowest, stdio.hold.max);
  out(
    '',
    'stdio (one connection, 32 requests in flight):',
    '',
    '| workload | calls/s | p50 ms | p99 ms | max ms | failures | vs stdio no-op |',
    '|---|---:|---:|---:|---:|---:|---:|',
    `| stdio noop | ${fmt(stdio.noop.callsPerSecond)} | ${fmt(stdio.noop.p50, 2)} | ${fmt(stdio.noop.p99, 2)} | ${fmt(stdio.noop.max, 1)} | ${stdio.noop.failures} | 1.00x |`,
    `| stdio hold_slot (SQLite) | ${fmt(stdio.hold.callsPerSecond)} | ${fmt(stdio.hold.p50, 2)} | ${fmt(stdio.hold.p99, 2)} | ${fmt(stdio.hold.max, 1)} | ${stdio.hold.failures} | ${fmt(stdio.hold.callsPerSecond / stdio.noop.callsPerSecond, 2)}x |`,
  );
  target('stdio hold_slot vs stdio no-op', stdio.hold.callsPerSecond / stdio.noop.callsPerSecond, 0.3);

  section('in-process');
  const inProcess = await benchInProcess(join(dir, 'inproc'), {
    rounds: ROUNDS,
    pgUrl: withPostgres ? PG_URL : null,
  });
  out(
    '',
    'In-process: the hold use case (holdSlot: checks, idempotency, one store step) against raw SQL writing the same rows (booking, allocation, idempotency record) with the same durability:',
    '',
    '| in-process | in flight | raw ops/s | holdSlot ops/s | holdSlot vs raw |',
    '|---|---:|---:|---:|---:|',
  );
  for (const [engine, result] of [
    ['SQLite (raw: BEGIN IMMEDIATE, 3 inserts, COMMIT; one connection)', inProcess.sqlite],
    ['PostgreSQL (raw: one statement)', inProcess.postgres],
  ]) {
    if (!result) continue;
    for (const concurrency of [1, 32])
      out(
        `| ${engine} | ${concurrency} | ${fmt(result[concurrency].raw)} | ${fmt(result[concurrency].holdfast)} | ${fmt(result[concurrency].holdfast / result[concurrency].raw, 2)}x |`,
      );
  }
  target(
    'in-process hold vs raw, SQLite, 32 in flight',
    inProcess.sqlite[32].holdfast / inProcess.sqlite[32].raw,
    0.8,
  );
  if (inProcess.postgres)
    target(
      'in-process hold vs raw, PostgreSQL, 32 in flight',
      inProcess.postgres[32].holdfast / inProcess.postgres[32].raw,
      0.8,
    );
  out(
    '',
    'In-process, what a configured feature adds to each hold (32 in flight; the same use case on a tenant without the feature, with a webhook subscription recording an event per booking write, and on a calendar subscribed to a feed with 1,000 busy intervals):',
    '',
    '| in-process feature | engine | holds/s | vs without |',
    '|---|---|---:|---:|',
  );
  for (const [engine, f] of [
    ['SQLite', inProcess.features.sqlite],
    ['PostgreSQL', inProcess.features.postgres],
  ]) {
    if (!f) continue;
    out(
      `| without (no webhook, no feed) | ${engine} | ${fmt(f.plain)} | 1.00x |`,
      `| webhook subscription | ${engine} | ${fmt(f.webhooks)} | ${fmt(f.webhooks / f.plain, 2)}x |`,
      `| feed subscription, 1,000 busy intervals | ${engine} | ${fmt(f.feeds)} | ${fmt(f.feeds / f.plain, 2)}x |`,
    );
  }
  target('slowest request, every workload', slowest, 1000, { atMost: true, unit: ' ms' });

  section('console');
  const consoleRender = await benchConsoleRender(join(dir, 'console'));
  out(
    '',
    `Console pages, server-side render over HTTP (SQLite; ${consoleRender.bookings} bookings, ${consoleRender.auditRecords} audit records, seeded in ${fmt(consoleRender.seedSeconds, 1)} s; ${consoleRender.requests} requests per page in interleaved rounds, after the chain check finished):`,
    '',
    '| console page | p50 ms | p95 ms | max ms | p50 vs sign-in form |',
    '|---|---:|---:|---:|---:|',
  );
  for (const row of consoleRender.rows)
    out(
      `| ${row.name} | ${fmt(row.p50, 1)} | ${fmt(row.p95, 1)} | ${fmt(row.max, 1)} | ${fmt(row.vsBaseline, 2)}x |`,
    );
  const slowestPage = consoleRender.rows.slice(1).reduce((a, b) => (b.p95 > a.p95 ? b : a));
  target(`slowest console page p95 (${slowestPage.name})`, slowestPage.p95, 100, {
    atMost: true,
    unit: ' ms',
  });

  section('answers');
  const answers = await benchAnswerSizes(join(dir, 'answers.db'));
  out(
    '',
    'What a model reads per answer (one call of each tool, SQLite): the compact text content against the JSON envelope it replaced; tokens by gpt-tokenizer (o200k_base), an estimate. The structured content is unchanged and still in every answer:',
    '',
    '| answer | JSON bytes | text bytes | text vs JSON | JSON tokens | text tokens | whole answer bytes before → now |',
    '|---|---:|---:|---:|---:|---:|---:|',
  );
  for (const a of answers)
    out(
      `| ${a.tool}${a.ok ? '' : ' (error)'} | ${a.jsonBytes} | ${a.textBytes} | ${fmt(a.textBytes / a.jsonBytes, 2)}x | ${a.jsonTokens} | ${a.textTokens} | ${a.oldAnswerBytes} → ${a.answerBytes} |`,
    );
  const slots = answers.find((a) => a.tool.startsWith('find_slots'));
  target(
    'find_slots text vs the whole answer before (limit 100, 2 calendars)',
    slots.textBytes / slots.oldAnswerBytes,
    0.25,
    {
      atMost: true,
    },
  );

  out(
    '',
    `Targets${SMOKE ? ' (smoke run: not meaningful)' : ''}:`,
    '',
    '| target | measured | goal | |',
    '|---|---:|---:|---|',
    ...targets,
  );

  // The guard against creeping cost: CPU time, which a busy machine barely moves (a call's on the
  // server; a start-up's until the process exited or answered, against `node -e 0`'s in the same
  // run), loose enough for noise and tight enough to catch a wave of features that doubles
  // either. The smoke run fails on it.
  const guards = [];
  const guard = (label, value, limit, unit = 'x') =>
    guards.push({ label, value, limit, unit, ok: value <= limit });
  const cpu = sqlite.guard ?? {
    noop: sqlite['noop@32'].cpuMsPerCall,
    hold: sqlite['hold_slot@32'].cpuMsPerCall,
    calls: 'every 32-client',
  };
  guard(`SQLite hold_slot server CPU per call vs the no-op's (${cpu.calls} calls)`, cpu.hold / cpu.noop, 4);
  // The start-up targets as multiples of `node -e 0` on this machine when quiet (~110 ms), times 3,
  // read in CPU time (on a quiet machine a start-up's wall time is nearly all CPU).
  const QUIET_FLOOR_MS = 110;
  const startupCpu = (name) => startup.rows.find((r) => r.name.startsWith(name)).cpuMs;
  for (const [row, targetMs] of [
    ['holdfast --version', 2 * QUIET_FLOOR_MS],
    ['holdfast --help', 2 * QUIET_FLOOR_MS],
    ['holdfast approvals list', 600],
    ['holdfast stdio: first answer to initialize', 500],
    ['holdfast stdio: first answer to server/discover', 1000],
    ['holdfast serve', 1000],
  ])
    guard(`${row}: CPU vs node -e 0's`, startupCpu(row) / floorRow.cpuMs, (3 * targetMs) / QUIET_FLOOR_MS);
  guard('holdfast serve: idle resident memory', startup.serveIdleRssMiB, 3 * 120, ' MiB');
  out(
    '',
    'Guard against creeping cost, in CPU time (3x the start-up targets, 4x the no-op CPU per hold; `--smoke` fails on any row over):',
    '',
    '| guard | measured | limit | |',
    '|---|---:|---:|---|',
    ...guards.map(
      (g) =>
        `| ${g.label} | ${fmt(g.value, 2)}${g.unit} | ${fmt(g.limit, 1)}${g.unit} | ${g.ok ? 'ok' : 'OVER'} |`,
    ),
  );
  if (SMOKE && guards.some((g) => !g.ok)) process.exitCode = 1;

  section('profile');
  if (PROFILE) {
    // The smoke run profiles SQLite only: the PostgreSQL profile differs only in its --database.
    for (const database of withPostgres && !SMOKE ? ['sqlite', 'postgres'] : ['sqlite']) {
      const schema = `hf_bench_profile_${Date.now().toString(36)}`;
      const profile = await profileHolds({ database, pgUrl: `${PG_URL}?schema=${schema}` });
      if (database === 'postgres') await dropSchema(schema);
      out(
        '',
        `Profile of the server during a hold_slot run, ${database}, 32 clients (${fmt(profile.load.callsPerSecond)} holds/s), self time by area (tsc's unbundled entry, the same code as the bundle, so each package keeps its file name):`,
        '',
        '| area | % of main thread |',
        '|---|---:|',
      );
      for (const { area, percent } of profile.main) out(`| ${area} | ${percent} |`);
      if (profile.writer)
        out('', `SQLite writer thread: ${profile.writer.map((a) => `${a.area} ${a.percent}%`).join(', ')}`);
    }
  }
  section('end');
  process.stdout.write(`${lines.join('\n')}\n`);
} finally {
  noop.stop();
  await new Promise((r) => setTimeout(r, 200));
  rmSync(dir, { recursive: true, force: true });
}
