import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';

describe('npm run bench (smoke: same code paths, a few hundred calls, no targets)', () => {
  it('runs every workload on SQLite and PostgreSQL without a failed call', () => {
    const run = spawnSync(process.execPath, ['bench/run.mjs', '--smoke'], {
      encoding: 'utf8',
      timeout: 120_000,
    });
    expect(run.status, run.stderr).toBe(0);
    const rows = run.stdout
      .split('\n')
      .filter((l) => l.startsWith('| ') && !l.startsWith('| workload') && !l.startsWith('| in-process'));
    const names = rows.map((r) => r.split('|')[1]!.trim());
    for (const expected of [
      'noop',
      'find_slots (10 calendars x 14 days)',
      'find_slots uncached (10 calendars x 14 days)',
      'hold_slot',
      'raw better-sqlite3 BEGIN IMMEDIATE insert (booking + allocation)',
      'Holdfast hold use case (holdSlot, full checks)',
      'raw pg single-statement insert through the gist exclusion constraint',
      'Holdfast hold_slot over HTTP, 2 instances',
    ])
      expect(names).toContain(expected);
    // Load rows carry a failures column: every call of the smoke run must have succeeded.
    for (const row of rows.filter((r) => r.split('|').length >= 8)) {
      const cells = row.split('|').map((c) => c.trim());
      const failures = cells[cells.length - 3];
      expect(failures, row).toBe('0');
    }
    expect(run.stdout).toContain('SMOKE RUN');
  }, 150_000);
});
