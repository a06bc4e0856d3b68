// Two builds' cost per call side by side: `node bench/http-ab.mjs A_ROOT B_ROOT [rounds] [tool]`
// serves each build (`holdfast serve` on SQLite, a database of its own) and drives both with the
// same 32-client closed loop of `hold_slot` (or `find_slots`), A, B, A, B, … so that a busy
// moment of this shared machine hits both alike. Prints each build's server CPU per call (µs,
// from /proc) and calls per second, the median over the rounds, and B's CPU as a multiple of A's.
import { spawnSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { cpuMsOf, runLoad, spawnServer } from './load.mjs';

const [a, b, roundsText = '5', tool = 'hold_slot'] = process.argv.slice(2);
if (!a || !b || !['hold_slot', 'find_slots'].includes(tool)) {
  console.error('usage: node bench/http-ab.mjs A_ROOT B_ROOT [rounds] [hold_slot|find_slots]');
  process.exit(2);
}
// HTTP_AB_CALLS: fewer calls a round (the smoke run in npm test).
const CALLS = Number(process.env.HTTP_AB_CALLS ?? 1_500);
const CLIENTS = 32;
const DAY = 86_400_000;
const dir = mkdtempSync(join(tmpdir(), 'holdfast-http-ab-'));
const UNLIMITED = '999999999';

/** Each build provisions its own database with its own CLI (their migrations may differ). */
function provision(root, db) {
  const cli = (...args) => {
    const run = spawnSync(process.execPath, [join(root, 'dist/bin/holdfast.js'), ...args, '--db', db], {
      encoding: 'utf8',
    });
    if (run.status !== 0) throw new Error(`${root}: holdfast ${args.join(' ')}: ${run.stderr}`);
    return run.stdout;
  };
  cli('db', 'migrate');
  cli('tenants', 'set', 'local', '--calls-per-minute', UNLIMITED, '--max-active-holds', UNLIMITED);
  cli('tenants', 'set', 'local', '--max-holds-per-connection', UNLIMITED, '--max-held-hours', UNLIMITED);
  cli('users', 'add', 'ab@example.com', '--role', 'owner');
  const made = cli(
    'tokens',
    'create',
    'ab@example.com',
    '--name',
    'ab',
    '--scopes',
    'read,draft,write,sensitive',
    '--json',
  );
  return JSON.parse(made).token;
}

const builds = [];
try {
  for (const [key, root] of [
    ['A', resolve(a)],
    ['B', resolve(b)],
  ]) {
    const db = join(dir, key, 'holdfast.db');
    spawnSync('mkdir', ['-p', join(dir, key)]);
    const token = provision(root, db);
    const server = await spawnServer(process.execPath, [
      join(root, 'dist/bin/holdfast.js'),
      'serve',
      '--port',
      '0',
      '--no-seed',
      '--db',
      db,
    ]);
    const call = (name, args) =>
      fetch(server.url, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${token}`,
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          'mcp-protocol-version': '2026-07-28',
          'mcp-method': 'tools/call',
          'mcp-name': name,
        },
        body: JSON.stringify({
          jsonrpc: '2.0',
          id: 1,
          method: 'tools/call',
          params: {
            name,
            arguments: args,
            _meta: {
              'io.modelcontextprotocol/protocolVersion': '2026-07-28',
              'io.modelcontextprotocol/clientInfo': { name: 'ab', version: '1' },
              'io.modelcontextprotocol/clientCapabilities': {},
            },
          },
        }),
      }).then(async (res) => (await res.json()).result?.structuredContent);
    const weekly = Object.fromEntries(
      ['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'].map((d) => [d, [{ start: '00:00', end: '24:00' }]]),
    );
    const calendars = [];
    for (let i = 0; i < 8; i++)
      calendars.push(
        (
          await call('create_calendar', {
            name: `Room ${i}`,
            timeZone: 'UTC',
            availability: { weekly, overrides: [] },
            idempotencyKey: randomUUID(),
          })
        ).data.calendar.id,
      );
    builds.push({ key, root, server, call, calendars, seq: 0, cpu: [], rate: [] });
  }
  const tomorrow = Math.ceil(Date.now() / DAY) * DAY + DAY;
  const makeCall = (build) => () => {
    if (tool === 'find_slots')
      return build.call('find_slots', {
        calendarIds: build.calendars,
        from: new Date(tomorrow).toISOString(),
        to: new Date(tomorrow + 14 * DAY).toISOString(),
        durationMinutes: 30,
        limit: 100,
      });
    const n = build.seq++;
    const start = tomorrow + Math.floor(n / 8) * 15 * 60_000;
    return build.call('hold_slot', {
      calendarIds: [build.calendars[n % 8]],
      start: new Date(start).toISOString(),
      end: new Date(start + 15 * 60_000).toISOString(),
      idempotencyKey: randomUUID(),
    });
  };
  // Warm both (JIT, statement caches).
  for (const build of builds)
    await runLoad({ concurrency: CLIENTS, total: Math.min(300, CALLS), makeCall: makeCall(build) });
  for (let round = 0; round < Number(roundsText); round++)
    for (const build of builds) {
      const before = cpuMsOf(build.server.pid);
      const load = await runLoad({ concurrency: CLIENTS, total: CALLS, makeCall: makeCall(build) });
      if (load.failures > 0) throw new Error(`${build.key}: ${load.failures} calls failed`);
      build.cpu.push(((cpuMsOf(build.server.pid) - before) * 1000) / CALLS);
      build.rate.push(load.callsPerSecond);
    }
  const median = (values) => [...values].sort((x, y) => x - y)[Math.floor(values.length / 2)];
  console.log(
    `${tool}, ${CLIENTS} clients, ${CALLS} calls a round, median of ${roundsText} interleaved rounds:`,
  );
  for (const build of builds)
    console.log(
      `  ${build.key} ${build.root}: ${median(build.cpu).toFixed(0)} µs server CPU per call, ${median(build.rate).toFixed(0)} calls/s`,
    );
  console.log(`  B's CPU per call is ${(median(builds[1].cpu) / median(builds[0].cpu)).toFixed(2)}x A's`);
} finally {
  for (const build of builds) build.server.stop();
  rmSync(dir, { recursive: true, force: true });
}
