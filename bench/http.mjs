// hold_slot and find_slots over HTTP against the SDK's no-op tool on the same transport, at 1, 8
// and 32 clients, for one server setup (SQLite, or PostgreSQL with one or more instances).
import { randomUUID } from 'node:crypto';
import { callTool, cpuMsOf, runLoad } from './load.mjs';
import { pick } from './scale.mjs';

export const CONCURRENCY = [1, 8, 32];
const CALLS = pick({ 1: 300, 8: 1200, 32: 1600 }, { 1: 5, 8: 16, 32: 32 });
const DAY = 86_400_000;
const SLOT = 15 * 60_000;

export const WORKLOADS = ['noop', 'find_slots', 'find_slots uncached', 'hold_slot'];

/**
 * Measures every workload at every concurrency, rounds interleaved (a noisy neighbour hurts
 * every workload alike), keeping each workload's best round. `urls`: the instances, which
 * share one database; calls go round-robin across them.
 */
export async function benchHttp({ noopUrl, urls, rounds, noopPid, pids, guardCalls = 0 }) {
  const everyDay = (start, end) =>
    Object.fromEntries(['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'].map((d) => [d, [{ start, end }]]));
  const create = async (name, timeZone, weekly) =>
    (
      await callTool(urls[0], 'create_calendar', {
        name,
        timeZone,
        availability: { weekly, overrides: [] },
        idempotencyKey: randomUUID(),
      })
    ).data.calendar.id;
  const searchCalendars = await Promise.all(
    Array.from({ length: 10 }, (_, i) =>
      create(`Search desk ${i}`, 'Europe/Berlin', everyDay('08:00', '20:00')),
    ),
  );
  const holdCalendars = await Promise.all(
    Array.from({ length: 8 }, (_, i) => create(`Hold room ${i}`, 'UTC', everyDay('00:00', '24:00'))),
  );

  const tomorrow = Math.ceil(Date.now() / DAY) * DAY + DAY;
  const findArgs = {
    calendarIds: searchCalendars,
    from: new Date(tomorrow).toISOString(),
    to: new Date(tomorrow + 14 * DAY).toISOString(),
    durationMinutes: 30,
    limit: 100,
  };
  let calls = 0;
  const instance = () => urls[calls++ % urls.length];
  let holdSeq = 0;
  const nextHold = () => {
    const n = holdSeq++;
    const start = tomorrow + Math.floor(n / holdCalendars.length) * SLOT;
    return {
      calendarIds: [holdCalendars[n % holdCalendars.length]],
      start: new Date(start).toISOString(),
      end: new Date(start + SLOT).toISOString(),
      idempotencyKey: randomUUID(),
    };
  };
  const check = await callTool(urls[0], 'find_slots', findArgs);
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
    noop: () => callTool(noopUrl, 'noop', {}),
    find_slots: () => callTool(instance(), 'find_slots', findArgs),
    'find_slots uncached': () => callTool(instance(), 'find_slots', uncachedFind()),
    hold_slot: () => callTool(instance(), 'hold_slot', nextHold()),
  };
  // Warm every process (JIT, statement caches) before measuring.
  for (const run of Object.values(workloads))
    await runLoad({ concurrency: 8, total: pick(200, 8), makeCall: run });

  const results = {};
  for (const concurrency of CONCURRENCY) {
    for (let round = 0; round < rounds; round++) {
      for (const [name, makeCall] of Object.entries(workloads)) {
        // The server side's CPU per call: the no-op's process, or every Holdfast instance.
        const measured = name === 'noop' ? [noopPid] : pids;
        const cpuBefore = measured.reduce((sum, pid) => sum + cpuMsOf(pid), 0);
        const load = await runLoad({
          concurrency,
          total: CALLS[concurrency],
          makeCall,
          expectOk: name !== 'noop',
        });
        const cpuMs = measured.reduce((sum, pid) => sum + cpuMsOf(pid), 0) - cpuBefore;
        const r = { ...load, cpuMsPerCall: cpuMs / CALLS[concurrency] };
        const key = `${name}@${concurrency}`;
        if (!results[key] || r.callsPerSecond > results[key].callsPerSecond) results[key] = r;
      }
    }
  }
  if (guardCalls > 0) results.guard = await cpuGuard(workloads, guardCalls, { noopPid, pids });
  return results;
}

/**
 * Server CPU per call of the no-op and of hold_slot at 32 clients over `calls` calls each: enough
 * clock ticks (10 ms each) for a steady ratio when the smoke run's tables have only a few dozen.
 */
async function cpuGuard(workloads, calls, { noopPid, pids }) {
  const cpuPerCall = async (makeCall, measured) => {
    const before = measured.reduce((sum, pid) => sum + cpuMsOf(pid), 0);
    await runLoad({ concurrency: 32, total: calls, makeCall, expectOk: false });
    return (measured.reduce((sum, pid) => sum + cpuMsOf(pid), 0) - before) / calls;
  };
  const noop = await cpuPerCall(workloads.noop, [noopPid]);
  const hold = await cpuPerCall(workloads.hold_slot, pids);
  return { noop, hold, calls };
}
