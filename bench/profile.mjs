// `npm run bench -- --profile`: one hold_slot run at 32 clients against a server started with
// --cpu-prof, then the areas of the server's CPU time (main thread; the SQLite writer thread
// writes its own profile). Also runnable alone: node bench/profile.mjs [sqlite|postgres].
import { randomUUID } from 'node:crypto';
import { mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { callTool, provision, runLoad, spawnHoldfast } from './load.mjs';
import { inclusiveFunctions, summarizeProfile, topFunctions } from './profile-summary.mjs';
import { pick } from './scale.mjs';

const DAY = 86_400_000;
const SLOT = 15 * 60_000;

export async function profileHolds({
  database = 'sqlite',
  pgUrl,
  calls = pick(4000, 64),
  functions = 0,
  workload = 'hold_slot',
} = {}) {
  const dir = mkdtempSync(join(tmpdir(), 'holdfast-profile-'));
  const profiles = join(dir, 'profiles');
  const db =
    database === 'sqlite'
      ? ['--db', join(dir, 'p.db')]
      : ['--database', pgUrl, '--audit-key-file', join(dir, 'audit.key')];
  const server = await spawnHoldfast(
    db,
    provision(db),
    ['--cpu-prof', '--cpu-prof-dir', profiles],
    'dist/main/cli.js',
  );
  try {
    const everyDay = Object.fromEntries(
      ['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'].map((d) => [d, [{ start: '00:00', end: '24:00' }]]),
    );
    const calendars = [];
    for (let i = 0; i < 8; i++) {
      const created = await callTool(server.url, 'create_calendar', {
        name: `Profile room ${i}`,
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
      return callTool(server.url, 'hold_slot', {
        calendarIds: [calendars[n % calendars.length]],
        start: new Date(start).toISOString(),
        end: new Date(start + SLOT).toISOString(),
        idempotencyKey: randomUUID(),
      });
    };
    const find = () =>
      callTool(server.url, 'find_slots', {
        calendarIds: calendars,
        from: new Date(base + (seq++ % 1000) * 60_000).toISOString(),
        to: new Date(base + 14 * DAY).toISOString(),
        durationMinutes: 30,
        limit: 100,
      });
    const load = await runLoad({
      concurrency: 32,
      total: calls,
      makeCall: workload === 'hold_slot' ? hold : find,
    });
    await server.stopAndWait();
    // The largest profile is the main thread's; the writer thread's is the other one.
    const files = readdirSync(profiles)
      .map((f) => join(profiles, f))
      .sort((a, b) => statSync(b).size - statSync(a).size);
    return {
      load,
      main: summarizeProfile(files[0]),
      writer: files[1] ? summarizeProfile(files[1], 6) : null,
      functions: functions > 0 ? topFunctions(files[0], functions) : [],
      inclusive:
        functions > 0
          ? inclusiveFunctions(files[0], functions * 2, (k) => /dist\/|zod|modelcontext/.test(k))
          : [],
    };
  } finally {
    server.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const database = process.argv[2] ?? 'sqlite';
  const result = await profileHolds({
    database,
    workload: process.argv[3] ?? 'hold_slot',
    pgUrl: `${process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test'}?schema=hf_profile_${Date.now()}`,
    functions: 40,
  });
  console.log(`${result.load.callsPerSecond.toFixed(0)} holds/s`);
  for (const { area, percent } of result.main) console.log(`${String(percent).padStart(5)}%  ${area}`);
  if (result.writer) {
    console.log('writer thread:');
    for (const { area, percent } of result.writer) console.log(`${String(percent).padStart(5)}%  ${area}`);
  }
  console.log(result.functions.join('\n'));
  console.log('inclusive:');
  console.log(result.inclusive.join('\n'));
}
