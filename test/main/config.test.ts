import { describe, expect, it } from 'vitest';
import { readCommand, readConfig } from '../../src/main/config/config.js';
import { UsageError } from '../../src/main/config/usage-error.js';

describe('readConfig', () => {
  it('--pg-pool-size bounds the PostgreSQL connections of an instance: flag over environment, default 20', () => {
    expect(readConfig(['serve'], {}).pgPoolSize).toBe(20);
    expect(readConfig(['serve'], { HOLDFAST_PG_POOL_SIZE: '8' }).pgPoolSize).toBe(8);
    expect(readConfig(['serve', '--pg-pool-size', '3'], { HOLDFAST_PG_POOL_SIZE: '8' }).pgPoolSize).toBe(3);
    for (const bad of ['0', '501', 'many', '2.5'])
      expect(() => readConfig(['serve', '--pg-pool-size', bad], {})).toThrow(UsageError);
  });

  it('counts a variable set to nothing as unset: HOLDFAST_DB= is the default file, HOLDFAST_PORT= the default port', () => {
    const config = readConfig(['serve'], { HOLDFAST_DB: '', HOLDFAST_PORT: '', PORT: '', DATABASE_URL: '' });
    expect([config.database, config.port]).toEqual(['data/holdfast.db', 3000]);
    expect(readConfig(['serve'], { HOLDFAST_DB: '', DATABASE_URL: '/srv/h.db' }).database).toBe('/srv/h.db');
    expect(() => readConfig(['serve'], { HOLDFAST_PORT: 'many' })).toThrow(UsageError);
  });

  it('finds --version and --help from the arguments alone', () => {
    expect(readCommand(['--version'])).toEqual({ command: 'version', helpFor: null });
    expect(readCommand(['help', 'approvals'])).toEqual({ command: 'help', helpFor: 'approvals' });
    expect(readCommand(['tokens', '--help'])).toEqual({ command: 'help', helpFor: 'tokens' });
    expect(readCommand([])).toEqual({ command: 'serve', helpFor: null });
  });
});
