import { describe, expect, it } from 'vitest';
import type { Migration, MigrationTarget } from '../../../src/adapters/storage/migration.js';
import { pendingMigrations, runMigrations } from '../../../src/adapters/storage/migration.js';

const step = (version: number) => ({ version, name: `step ${version}`, sql: `-- ${version}` });

describe('the one migration plan both engines follow', () => {
  it('applies what is missing, in version order, whatever order the list is in', () => {
    expect(pendingMigrations([], [step(2), step(1), step(3)]).map((m) => m.version)).toEqual([1, 2, 3]);
    expect(pendingMigrations([1, 3], [step(1), step(2), step(3)]).map((m) => m.version)).toEqual([2]);
    expect(pendingMigrations([1, 2, 3], [step(1), step(2), step(3)])).toEqual([]);
  });

  it('refuses a database a newer Holdfast migrated', () => {
    expect(() => pendingMigrations([1, 2, 4], [step(1), step(2), step(3)])).toThrow(
      'Database schema version 4 is newer than this Holdfast (3)',
    );
  });

  it('runs the plan through an engine, one step at a time, and counts only what this process applied', async () => {
    const recorded = new Set([1]);
    const tried: number[] = [];
    const target: MigrationTarget = {
      appliedVersions: () => Promise.resolve([...recorded]),
      apply: (migration: Migration) => {
        tried.push(migration.version);
        // Version 3 was applied by another process between the read and this step.
        if (migration.version === 3) return Promise.resolve(false);
        recorded.add(migration.version);
        return Promise.resolve(true);
      },
    };
    expect(await runMigrations(target, [step(4), step(3), step(2), step(1)])).toEqual([2, 4]);
    expect(tried).toEqual([2, 3, 4]);
  });

  it('stops at the first failing step and applies nothing after it', async () => {
    const tried: number[] = [];
    const target: MigrationTarget = {
      appliedVersions: () => Promise.resolve([]),
      apply: (migration: Migration) => {
        tried.push(migration.version);
        return migration.version === 2 ? Promise.reject(new Error('syntax error')) : Promise.resolve(true);
      },
    };
    await expect(runMigrations(target, [step(1), step(2), step(3)])).rejects.toThrow('syntax error');
    expect(tried).toEqual([1, 2]);
  });
});
