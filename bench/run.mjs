// npm run bench: Holdfast over HTTP against a no-op tool on the same SDK and transport, measured side by
// side in one run, plus the in-process hold use case against a raw better-sqlite3 insert ceiling.
// Absolute numbers depend on this shared machine; read the ratios.
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { callTool, runLoad, spawnServer } from './load.mjs';
import { benchInProcess } from './in-process.mjs';
import { benchPostgres } from './postgres.mjs';
import { pick, SMOKE } from './scale.mjs';

const CONCURRENCY = [1, 8, 32];
const CALLS = pick({ 1: 300, 8: 1200, 32: 1600 }, { 1: 20, 8: 60, 32: 100 });
const ROUNDS = pick(2, 1);
const DAY = 86_400_000;

const dir = mkdtempSync(join(tmpdir(), 'holdfast-bench-'));
const noop = await spawnServer(process.execPath, ['bench/noop-server.mjs']);
const holdfast = await spawnServer(process.execPath, [
  'dist/main/cli.js',
  'serve',
  '--port',
  '0',
  '--no-seed',
  '--db',
  join(dir, 'bench.db'),
]);

try {
  const everyDay = (start, end) =>
    Object.fromEntries(['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'].map((d) => [d, [{ start, end }]]));
  const create = async (name, timeZone, weekly) =>
    (
      await callTool(holdfast.url, 'create_calendar', {
        name,
        timeZone,
        availability: { weekly, overrides: [] },
        idempotencyKey: randomUUID(),
      })
    ).data.calendar.id;
  const searchCalendars = [];
  for (let i = 0; i < 10; i++)
    searchCalendars.push(await create(`Search desk ${i}`, 'Europe/Berlin', everyDay('08:00', '20:00')));
  const holdCalendars = [];
  for (let i = 0; i < 8; i++)
    holdCalendars.push(await create(`Hold room ${i}`, 'UTC', everyDay('00:00', '24:00')));

  const tomorrow = Math.ceil(Date.now() / DAY) * DAY + DAY;
  const findArgs = {
    calendarIds: searchCalendars,
    from: new Date(tomorrow).toISOString(),
    to: new Date(tomorrow + 14 * DAY).toISOString(),
    durationMinutes: 30,
    limit: 100,
  };
  let holdSeq = 0;
  const nextHold = () => {
    const n = holdSeq++;
    const start = tomorrow + Math.floor(n / holdCalendars.length) * 15 * 60_000;
    return {
      calendarIds: [holdCalendars[n % holdCalendars.length]],
      start: new Date(start).toISOString(),
      end: new Date(start + 15 * 60_000).toISOString(),
      idempotencyKey: randomUUID(),
    };
  };
  const check = await callTool(holdfast.url, 'find_slots', findArgs);
  if (!check.ok || check.data.total === 0)
    throw new Error(`find_slots setup failed: ${JSON.stringify(check)}`);

  // Uncached: every call asks a different range (shifted by whole minutes), so no cached answer fits.
  let findSeq = 0;
  const uncachedFind = () => {
    const shift = (findSeq++ % 10_000) * 60_000;
    return {
      ...findArgs,
      from: new Date(tomorrow + shift).toISOString(),
      to: new Date(tomorrow + 14 * DAY + shift).toISOString(),
    };
  };
  const workloads = {
    noop: () => callTool(noop.url, 'noop', {}),
    find_slots: () => callTool(holdfast.url, 'find_slots', findArgs),
    'find_slots uncached': () => callTool(holdfast.url, 'find_slots', uncachedFind()),
    hold_slot: () => callTool(holdfast.url, 'hold_slot', nextHold()),
  };
  // Warm both processes (JIT, statement cache) before measuring.
  for (const run of Object.values(workloads))
    await runLoad({ concurrency: 8, total: pick(200, 20), makeCall: run });

  const results = {};
  for (const concurrency of CONCURRENCY) {
    for (let round = 0; round < ROUNDS; round++) {
      for (const [name, makeCall] of Object.entries(workloads)) {
        const r = await runLoad({
          concurrency,
          total: CALLS[concurrency],
          makeCall,
          expectOk: name !== 'noop',
        });
        const key = `${name}@${concurrency}`;
        // Interleaved rounds; keep each workload's best round so a noisy neighbour hurts no side more.
        if (!results[key] || r.callsPerSecond > results[key].callsPerSecond) results[key] = r;
      }
    }
  }

  const fmt = (n, d = 0) => n.toFixed(d);
  const lines = [
    `Holdfast bench${SMOKE ? ' SMOKE RUN (figures mean nothing)' : ''} (${new Date().toISOString()}, Node ${process.version}, ${CALLS[32]} calls at c=32, best of ${ROUNDS} interleaved rounds)`,
    '',
    '| workload | concurrency | calls/s | p50 ms | p99 ms | failures | vs no-op calls/s |',
    '|---|---:|---:|---:|---:|---:|---:|',
  ];
  for (const concurrency of CONCURRENCY) {
    const base = results[`noop@${concurrency}`];
    for (const name of Object.keys(workloads)) {
      const r = results[`${name}@${concurrency}`];
      lines.push(
        `| ${name.startsWith('find_slots') ? `${name} (10 calendars x 14 days)` : name} | ${concurrency} | ${fmt(r.callsPerSecond)} | ${fmt(r.p50, 2)} | ${fmt(r.p99, 2)} | ${r.failures} | ${fmt(r.callsPerSecond / base.callsPerSecond, 2)}x |`,
      );
    }
  }
  const inProcess = await benchInProcess(join(dir, 'inproc'));
  lines.push('', '| in-process (SQLite, WAL, synchronous=FULL) | ops/s | ratio |', '|---|---:|---:|');
  lines.push(
    `| raw better-sqlite3 BEGIN IMMEDIATE insert (booking + allocation) | ${fmt(inProcess.raw)} | 1.00x |`,
  );
  lines.push(
    `| Holdfast hold use case (holdSlot, full checks) | ${fmt(inProcess.holdfast)} | ${fmt(inProcess.holdfast / inProcess.raw, 2)}x |`,
  );
  const hold32 = results['hold_slot@32'].callsPerSecond / results['noop@32'].callsPerSecond;
  const find32 = results['find_slots@32'].callsPerSecond / results['noop@32'].callsPerSecond;
  const findUncached32 = results['find_slots uncached@32'].callsPerSecond / results['noop@32'].callsPerSecond;
  lines.push(
    '',
    `Targets at c=32: hold_slot ${fmt(hold32, 2)}x no-op (target >= 0.7x), find_slots ${fmt(find32, 2)}x no-op (target >= 0.7x; ${fmt(findUncached32, 2)}x when every query is new).`,
  );
  lines.push(...(await benchPostgres()));
  process.stdout.write(`${lines.join('\n')}\n`);
} finally {
  noop.stop();
  holdfast.stop();
  await new Promise((r) => setTimeout(r, 200));
  rmSync(dir, { recursive: true, force: true });
}
