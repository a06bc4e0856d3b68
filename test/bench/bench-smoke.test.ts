import { runProcess } from '../support/spawn-server.js';
import { describe, expect, it } from 'vitest';

/** Every markdown table of the output, each row as a map from its table's header to the cell. */
function tables(stdout: string): Record<string, string>[][] {
  const found: Record<string, string>[][] = [];
  let header: string[] | null = null;
  for (const line of stdout.split('\n')) {
    if (!line.startsWith('|')) {
      header = null;
      continue;
    }
    const cells = line
      .split('|')
      .slice(1, -1)
      .map((c) => c.trim());
    if (header === null) {
      header = cells;
      found.push([]);
    } else if (!cells.every((c) => /^-*:?-+:?$/.test(c))) {
      found.at(-1)!.push(Object.fromEntries(header.map((h, i) => [h, cells[i] ?? ''])));
    }
  }
  return found;
}

describe('npm run bench -- --profile (smoke: same code paths, a few hundred calls; figures mean nothing)', () => {
  it('runs every workload on SQLite, PostgreSQL and stdio without a failed call, and prints targets and profiles', async () => {
    const run = await runProcess(process.execPath, ['bench/run.mjs', '--smoke', '--profile'], {
      timeoutMs: 420_000,
    });
    expect(run.status, run.stderr).toBe(0);
    expect(run.stdout).toContain('SMOKE RUN');
    const rows = tables(run.stdout).flat();
    const names = rows.map((r) => r.workload ?? r['in-process'] ?? r['console page'] ?? r.target ?? r.area);
    for (const expected of [
      'noop',
      'find_slots (10 calendars x 14 days)',
      'find_slots uncached (10 calendars x 14 days)',
      'hold_slot',
      'stdio noop',
      'stdio hold_slot (SQLite)',
      'SQLite (raw: BEGIN IMMEDIATE, 3 inserts, COMMIT; one connection)',
      'PostgreSQL (raw: one statement)',
      'SQLite hold_slot vs no-op, 32 clients',
      'PostgreSQL hold_slot vs no-op, 32 clients, 2 instance(s)',
      'stdio hold_slot vs stdio no-op',
      'in-process hold vs raw, PostgreSQL, 32 in flight',
      'slowest request, every workload',
      'bookings: agenda, all time, last page',
      'bookings: week view, all calendars',
      'bookings: one booking with its history',
      'activity: newest page',
      'activity: older page',
      'activity: filtered by tool and outcome',
    ])
      expect(names).toContain(expected);
    // Start-up from spawn: every row measured beside node -e 0.
    const startup = rows.filter((r) => r['start-up'] !== undefined);
    expect(startup.map((r) => r['start-up'])).toEqual([
      'node -e 0',
      'holdfast --version',
      'holdfast --help',
      'holdfast approvals list (existing database)',
      'holdfast stdio: first answer to initialize (2025-11-25)',
      'holdfast stdio: first answer to server/discover (2026-07-28)',
      'holdfast serve: first MCP call answered',
      'holdfast serve: resident memory, idle after its first call',
    ]);
    for (const row of startup) expect(parseFloat(row['median ms']!), row['start-up']).toBeGreaterThan(0);
    for (const row of startup.slice(0, -1))
      expect(parseFloat(row['CPU ms']!), row['start-up']).toBeGreaterThan(0);
    // Server CPU per call is in every HTTP table, for Holdfast and for the no-op.
    const http = rows.filter((r) => r.clients !== undefined);
    for (const row of http)
      expect(parseFloat(row['server CPU ms/call']!), row.workload).toBeGreaterThanOrEqual(0);
    for (const heading of ['SQLite (one process', 'PostgreSQL, 2 instances', 'Profile of the server'])
      expect(run.stdout).toContain(heading);
    // The smoke run profiles SQLite (the full run PostgreSQL too): its top areas are named.
    expect(rows.filter((r) => r.area !== undefined).length).toBeGreaterThanOrEqual(5);
    // Every console page answered 200 each time (the bench throws otherwise) and was timed.
    const pages = rows.filter((r) => r['console page'] !== undefined);
    expect(pages).toHaveLength(9);
    for (const page of pages) expect(Number(page['p95 ms']), page['console page']).toBeGreaterThan(0);
    // Every tool's answer measured; sizes do not depend on the machine, so the README's claims
    // hold here too: the text is smaller than the JSON it replaced, and find_slots at most 25%.
    const answers = rows.filter((r) => r.answer !== undefined);
    expect(new Set(answers.map((r) => r.answer!.split(' ')[0])).size).toBe(13);
    for (const a of answers) expect(parseFloat(a['text vs JSON']!), a.answer).toBeLessThan(1);
    const slotsTarget = rows.find((r) => r.target?.startsWith('find_slots text vs the whole answer before'));
    expect(slotsTarget?.['']).toBe('met');
    // What a configured feature adds to a hold, on both engines: each row measured.
    const features = rows.filter((r) => r['in-process feature'] !== undefined);
    expect(features.map((f) => `${f['in-process feature']} on ${f.engine}`)).toEqual(
      ['SQLite', 'PostgreSQL'].flatMap((engine) =>
        [
          'without (no webhook, no feed)',
          'webhook subscription',
          'feed subscription, 1,000 busy intervals',
        ].map((name) => `${name} on ${engine}`),
      ),
    );
    for (const f of features) expect(Number(f['holds/s']), JSON.stringify(f)).toBeGreaterThan(0);
    // The guard against creeping cost: every row printed, every row within its limit (the run
    // exits 1 otherwise, and its stdout above says which).
    const guards = rows.filter((r) => r.guard !== undefined);
    expect(guards.map((g) => g.guard)).toContain(
      "SQLite hold_slot server CPU per call vs the no-op's (300 calls)",
    );
    expect(guards).toHaveLength(8);
    for (const g of guards) expect(g[''], JSON.stringify(g)).toBe('ok');
    // Every call of the smoke run must have succeeded.
    const withFailures = rows.filter((r) => r.failures !== undefined);
    expect(withFailures.length).toBeGreaterThanOrEqual(26);
    for (const row of withFailures) expect(row.failures, JSON.stringify(row)).toBe('0');
  }, 450_000); // fixed work, some 50 s alone; a busy machine takes three times that
});
