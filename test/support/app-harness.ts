import { randomUUID } from 'node:crypto';
import { jcsDigest } from '../../src/adapters/ids/jcs-digest.js';
import { randomIds } from '../../src/adapters/ids/random-ids.js';
import { SqliteStore } from '../../src/adapters/storage/sqlite/sqlite-store.js';
import { createCalendar } from '../../src/app/calendars.js';
import type { AppDeps } from '../../src/app/deps.js';
import { defaultAppConfig } from '../../src/app/deps.js';
import { openGate } from '../../src/app/write-gate.js';
import type { Availability } from '../../src/domain/availability/availability.js';
import type { Principal } from '../../src/domain/calendar.js';
import { tempDbPath } from './spawn-server.js';
import { MemorySlotCache } from '../../src/adapters/cache/memory-slot-cache.js';

/** A clock the test moves by hand. */
export function manualClock(start: number) {
  let now = start;
  return { now: () => now, advance: (ms: number) => void (now += ms), set: (t: number) => void (now = t) };
}

export const operator: Principal = {
  tenantId: 't1',
  subject: 'tester',
  clientId: 'vitest',
  scopes: ['bookings:read', 'bookings:write', 'calendars:admin'],
  writePolicy: 'direct',
};

export function appHarness(start: number) {
  const db = tempDbPath();
  const clock = manualClock(start);
  const deps: AppDeps = {
    store: SqliteStore.open(db.path),
    clock,
    ids: randomIds,
    digest: jcsDigest,
    gate: openGate,
    slotCache: new MemorySlotCache(2_000),
    config: defaultAppConfig,
  };
  return {
    deps,
    clock,
    async calendar(name: string, timeZone: string, availability: Availability) {
      const { value } = await createCalendar(deps, operator, {
        name,
        timeZone,
        availability,
        idempotencyKey: randomUUID(),
      });
      return value.id;
    },
    async close() {
      await deps.store.close();
      db.cleanup();
    },
  };
}
