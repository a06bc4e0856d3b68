import { describe, expect, it } from 'vitest';
import { readConfig } from '../../src/main/config/config.js';
import { UsageError } from '../../src/main/config/usage-error.js';

describe('readConfig', () => {
  it('--pg-pool-size bounds the PostgreSQL connections of an instance: flag over environment, default 20', () => {
    expect(readConfig(['serve'], {}).pgPoolSize).toBe(20);
    expect(readConfig(['serve'], { HOLDFAST_PG_POOL_SIZE: '8' }).pgPoolSize).toBe(8);
    expect(readConfig(['serve', '--pg-pool-size', '3'], { HOLDFAST_PG_POOL_SIZE: '8' }).pgPoolSize).toBe(3);
    for (const bad of ['0', '501', 'many', '2.5'])
      expect(() => readConfig(['serve', '--pg-pool-size', bad], {})).toThrow(UsageError);
  });
});
