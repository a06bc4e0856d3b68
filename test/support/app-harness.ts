import { LazyReceiptSigner } from '../../src/adapters/receipts/lazy-receipt-signer.js';
import { randomUUID } from 'node:crypto';
import { jcsDigest } from '../../src/adapters/ids/jcs-digest.js';
import { KeyedDigest } from '../../src/adapters/ids/keyed-digest.js';
import { KeyedPageTokens } from '../../src/adapters/ids/keyed-page-tokens.js';
import { randomIds } from '../../src/adapters/ids/random-ids.js';
import { SqliteStore } from '../../src/adapters/storage/sqlite/sqlite-store.js';
import { createCalendar } from '../../src/app/calendars/calendars.js';
import type { AppConfig, AppDeps } from '../../src/app/deps.js';
import { defaultAppConfig } from '../../src/app/deps.js';
import type { PaymentReport } from '../../src/domain/payment/payment.js';
import type { Availability } from '../../src/domain/availability/availability.js';
import type { Principal } from '../../src/domain/identity/principal.js';
import { tempDbPath } from './spawn-server.js';
import { freshSchema } from './postgres.js';
import { openStore } from '../../src/adapters/storage/index.js';
import type { Store } from '../../src/ports/store/index.js';
import { MemorySlotCache } from '../../src/adapters/cache/memory-slot-cache.js';
import { CalendarCache } from '../../src/app/calendars/calendar-cache.js';
import { scryptCredentials } from '../../src/adapters/ids/node-credentials.js';
import { webAuthnCeremonies } from '../../src/adapters/ids/webauthn-ceremonies.js';
import { FlexibleRateLimits } from '../../src/adapters/limits/flexible-rate-limits.js';
import { NO_LIMITS } from '../../src/domain/identity/identity.js';

/** A clock the test moves by hand. */
export function manualClock(start: number) {
  let now = start;
  return { now: () => now, advance: (ms: number) => void (now += ms), set: (t: number) => void (now = t) };
}

export const operator: Principal = {
  tenantId: 't1',
  subject: 'tester',
  clientId: 'vitest',
  connectionId: 'test-connection',
  scopes: ['read', 'draft', 'write', 'sensitive'],
  limits: NO_LIMITS,
  writePolicy: 'direct',
};

/** The harness on either engine: SQLite in a temporary file, or PostgreSQL in a schema of its own. */
export async function appHarnessOn(
  engine: 'sqlite' | 'postgres',
  start: number,
  config: Partial<AppConfig> = {},
) {
  if (engine === 'sqlite') return appHarness(start, config);
  const schema = freshSchema();
  const { store } = await openStore(schema.url, { create: true, longRunning: false, maxConnections: 4 });
  return appHarness(start, config, { store, cleanup: () => schema.drop() });
}

export async function appHarness(
  start: number,
  config: Partial<AppConfig> = {},
  engine?: { readonly store: Store; cleanup(): void | Promise<void> },
) {
  const db = engine ?? { ...tempDbPath(), store: undefined };
  const clock = manualClock(start);
  // What the fake provider reports per booking id; PENDING when unset.
  const payments = new Map<string, PaymentReport>();
  const store = engine?.store ?? (await SqliteStore.open((db as { path: string }).path));
  const deps: AppDeps = {
    store,
    clock,
    ids: randomIds,
    digest: jcsDigest,
    requestDigest: new KeyedDigest(Buffer.from('test-request-digest-key')),
    pageTokens: new KeyedPageTokens(Buffer.from('test-page-token-secret')),
    payments: {
      queryPayment: async (bookingId: string) =>
        payments.get(bookingId) ?? {
          bookingId,
          status: 'PENDING',
          amount: null,
          currency: null,
          paidAt: null,
        },
    },
    receipts: new LazyReceiptSigner(store, clock, Buffer.alloc(32, 7), 'http://127.0.0.1:0'),
    flushAudit: async () => undefined,
    slotCache: new MemorySlotCache(2_000),
    calendarCache: new CalendarCache(),
    // Real scrypt at 1/32 of production's cost: sign-in rules, not the work factor, are under test.
    credentials: scryptCredentials(2 ** 10),
    webAuthn: webAuthnCeremonies,
    rateLimits: FlexibleRateLimits.memory(),
    config: { ...defaultAppConfig, ...config },
  };
  return {
    deps,
    clock,
    payments,
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
      await db.cleanup();
    },
  };
}
