import { describe, expect, it } from 'vitest';
import { pendingMigrations } from '../../../src/adapters/storage/migration.js';

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
});
