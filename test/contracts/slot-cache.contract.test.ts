import pg from 'pg';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { MemorySlotCache } from '../../src/adapters/cache/memory-slot-cache.js';
import { PgNotifySlotCache } from '../../src/adapters/cache/pg-notify-slot-cache.js';
import type { Logger } from '../../src/adapters/log/json-logger.js';
import type { SlotCache } from '../../src/ports/slot-cache.js';
import { freshSchema, PG_URL } from '../support/postgres.js';

const MAX_AGE_MS = 5_000;
const T0 = Date.UTC(2030, 0, 7, 9);
const quiet: Logger = { info() {}, warn() {}, error() {} } as unknown as Logger;

/** Two caches serving one database: the same instance (one process) or two instances. */
interface CacheHarness {
  readonly here: SlotCache;
  readonly there: SlotCache;
  close(): Promise<void>;
}

const adapters: Record<string, () => Promise<CacheHarness>> = {
  'memory (one process)': async () => {
    const cache = new MemorySlotCache(MAX_AGE_MS);
    return { here: cache, there: cache, close: async () => undefined };
  },
  'PostgreSQL LISTEN/NOTIFY (two instances)': async () => {
    const schema = freshSchema();
    const pools = [new pg.Pool({ connectionString: PG_URL }), new pg.Pool({ connectionString: PG_URL })];
    const [here, there] = await Promise.all(
      pools.map((pool) =>
        PgNotifySlotCache.start(new MemorySlotCache(MAX_AGE_MS), pool, PG_URL, schema.name, quiet),
      ),
    );
    return {
      here: here!,
      there: there!,
      async close() {
        await here!.close();
        await there!.close();
        for (const pool of pools) await pool.end();
        await schema.drop();
      },
    };
  },
};

/** Waits (up to 2 s) until `check` holds: invalidations between instances travel asynchronously. */
async function eventually(check: () => boolean): Promise<boolean> {
  for (let i = 0; i < 200 && !check(); i++) await new Promise((resolve) => setTimeout(resolve, 10));
  return check();
}

const entry = (cache: SlotCache, key: string, calendarIds: string[], tenantId = 't1', now = T0) => ({
  tenantId,
  key,
  calendarIds,
  starts: [T0 + 1, T0 + 2],
  now,
  generation: cache.generation(tenantId),
});

for (const [name, make] of Object.entries(adapters)) {
  describe(`SlotCache contract: ${name}`, () => {
    let h: CacheHarness;
    beforeEach(async () => {
      h = await make();
    });
    afterEach(() => h.close());

    it('serves what was stored for the same tenant and key only', () => {
      h.here.set(entry(h.here, 'q1', ['cal_a']));
      expect(h.here.get('t1', 'q1', T0)).toEqual([T0 + 1, T0 + 2]);
      expect(h.here.get('t1', 'q2', T0)).toBeUndefined();
      expect(h.here.get('t2', 'q1', T0)).toBeUndefined();
    });

    it('never serves an entry past its age bound', () => {
      h.here.set(entry(h.here, 'q1', ['cal_a']));
      expect(h.here.get('t1', 'q1', T0 + MAX_AGE_MS - 1)).toBeDefined();
      expect(h.here.get('t1', 'q1', T0 + MAX_AGE_MS)).toBeUndefined();
    });

    it('drops entries that involve an invalidated calendar, keeps the others and other tenants', () => {
      h.here.set(entry(h.here, 'q-a', ['cal_a', 'cal_b']));
      h.here.set(entry(h.here, 'q-c', ['cal_c']));
      h.here.set(entry(h.here, 'q-a', ['cal_a'], 't2'));
      h.here.invalidate('t1', ['cal_b']);
      expect(h.here.get('t1', 'q-a', T0)).toBeUndefined();
      expect(h.here.get('t1', 'q-c', T0)).toBeDefined();
      expect(h.here.get('t2', 'q-a', T0)).toBeDefined();
      h.here.invalidate('t1');
      expect(h.here.get('t1', 'q-c', T0)).toBeUndefined();
      expect(h.here.get('t2', 'q-a', T0)).toBeDefined();
    });

    it('refuses a result computed before an invalidation (the generation moved)', () => {
      const stale = entry(h.here, 'q1', ['cal_a']);
      h.here.invalidate('t1', ['cal_z']);
      h.here.set(stale);
      expect(h.here.get('t1', 'q1', T0)).toBeUndefined();
    });

    it('an invalidation on one instance reaches every instance serving the database', async () => {
      h.there.set(entry(h.there, 'q1', ['cal_a']));
      h.there.set(entry(h.there, 'q2', ['cal_b']));
      h.here.invalidate('t1', ['cal_a']);
      expect(await eventually(() => h.there.get('t1', 'q1', T0) === undefined)).toBe(true);
      expect(h.there.get('t1', 'q2', T0)).toBeDefined();
      h.here.invalidate('t1');
      expect(await eventually(() => h.there.get('t1', 'q2', T0) === undefined)).toBe(true);
    });
  });
}
