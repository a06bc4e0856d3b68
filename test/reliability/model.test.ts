import { randomUUID } from 'node:crypto';
import { nodeCredentials } from '../../src/adapters/ids/node-credentials.js';
import { webAuthnCeremonies } from '../../src/adapters/ids/webauthn-ceremonies.js';
import { FlexibleRateLimits } from '../../src/adapters/limits/flexible-rate-limits.js';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MemorySlotCache } from '../../src/adapters/cache/memory-slot-cache.js';
import { jcsDigest } from '../../src/adapters/ids/jcs-digest.js';
import { KeyedDigest } from '../../src/adapters/ids/keyed-digest.js';
import { KeyedPageTokens } from '../../src/adapters/ids/keyed-page-tokens.js';
import { randomIds } from '../../src/adapters/ids/random-ids.js';
import { PgStore } from '../../src/adapters/storage/postgres/pg-store.js';
import { SqliteStore } from '../../src/adapters/storage/sqlite/sqlite-store.js';
import { createCalendar } from '../../src/app/calendars/calendars.js';
import { releaseHold } from '../../src/app/booking/release-hold.js';
import { LazyReceiptSigner } from '../../src/adapters/receipts/lazy-receipt-signer.js';
import type { AppDeps } from '../../src/app/deps.js';
import { defaultAppConfig } from '../../src/app/deps.js';
import { gatedBookingChange } from '../../src/app/booking/gated-booking.js';
import { holdSlot } from '../../src/app/booking/hold-slot.js';
import { getBooking } from '../../src/app/booking/read-bookings.js';
import type { Principal } from '../../src/domain/identity/principal.js';
import { DomainError } from '../../src/domain/errors.js';
import type { Store } from '../../src/ports/store/index.js';
import { freshSchema } from '../support/postgres.js';
import { tempDbPath } from '../support/spawn-server.js';
import { record, scale } from './harness.js';
import { CalendarCache } from '../../src/app/calendars/calendar-cache.js';
import { NO_LIMITS } from '../../src/domain/identity/identity.js';

/** The lifecycle as a plain in-memory model: what a booking system must do, nothing else. */
interface ModelBooking {
  slot: number;
  status: 'HELD' | 'CONFIRMED' | 'CANCELLED' | 'EXPIRED' | 'RELEASED';
  version: number;
  expiresAt: number;
}
interface Model {
  now: number;
  bookings: ModelBooking[];
}
interface Real {
  deps: AppDeps;
  principal: Principal;
  calendarId: string;
  ids: string[];
  clock: { now: number };
}

const T0 = Date.UTC(2031, 0, 6, 0);
const TTL = 5 * 60_000;
const HOUR = 3_600_000;
const lapsed = (b: ModelBooking, now: number) => b.status === 'HELD' && b.expiresAt <= now;
const effective = (b: ModelBooking, now: number) => (lapsed(b, now) ? 'EXPIRED' : b.status);

async function codeOf<T>(promise: Promise<T>): Promise<string | T> {
  try {
    return await promise;
  } catch (error) {
    if (error instanceof DomainError) return error.code;
    throw error;
  }
}

class Hold implements fc.AsyncCommand<Model, Real> {
  constructor(readonly slot: number) {}
  check = () => true;
  async run(m: Model, r: Real) {
    // The engine still counts unswept lapsed holds; when the hold meets one (or any conflict),
    // the server expires the tenant's lapsed holds (bumping their version) and tries again.
    const occupied = (b: ModelBooking) =>
      b.slot === this.slot && (b.status === 'HELD' || b.status === 'CONFIRMED');
    const taken = m.bookings.some((b) => occupied(b) && !lapsed(b, m.now));
    if (m.bookings.some(occupied)) {
      for (const b of m.bookings)
        if (lapsed(b, m.now)) Object.assign(b, { status: 'EXPIRED', version: b.version + 1 });
    }
    const start = new Date(T0 + 48 * HOUR + this.slot * HOUR).toISOString();
    const end = new Date(T0 + 49 * HOUR + this.slot * HOUR).toISOString();
    const result = await codeOf(
      holdSlot(r.deps, r.principal, {
        calendarIds: [r.calendarId],
        start,
        end,
        idempotencyKey: randomUUID(),
      }),
    );
    if (taken) expect(result).toBe('SLOT_UNAVAILABLE');
    else {
      expect(typeof result).toBe('object');
      m.bookings.push({ slot: this.slot, status: 'HELD', version: 1, expiresAt: m.now + TTL });
      r.ids.push((result as Awaited<ReturnType<typeof holdSlot>>).value.booking.id);
    }
  }
  toString = () => `Hold(${this.slot})`;
}

type Change = 'release' | 'confirm' | 'cancel';

class ChangeBooking implements fc.AsyncCommand<Model, Real> {
  constructor(
    readonly change: Change,
    readonly pick: number,
    readonly stale: boolean,
  ) {}
  check = (m: Readonly<Model>) => m.bookings.length > 0;
  async run(m: Model, r: Real) {
    const i = this.pick % m.bookings.length;
    const b = m.bookings[i]!;
    const expectedVersion = this.stale ? b.version + 1 : b.version;
    const input = { bookingId: r.ids[i]!, expectedVersion, idempotencyKey: randomUUID() };
    const result = await codeOf(
      this.change === 'release'
        ? releaseHold(r.deps, r.principal, input)
        : gatedBookingChange(
            r.deps,
            r.principal,
            this.change === 'confirm' ? 'confirm_booking' : 'cancel_booking',
            input,
            { traceId: 'model' },
          ),
    );
    const allowed = { release: 'HELD', confirm: 'HELD', cancel: 'CONFIRMED' }[this.change];
    const next = { release: 'RELEASED', confirm: 'CONFIRMED', cancel: 'CANCELLED' }[
      this.change
    ] as ModelBooking['status'];
    let expected: string;
    if (expectedVersion !== b.version) expected = 'VERSION_CONFLICT';
    else if (this.change !== 'cancel' && lapsed(b, m.now)) expected = 'HOLD_EXPIRED';
    else if (b.status !== allowed) expected = 'INVALID_STATE';
    else expected = 'ok';
    expect(typeof result === 'string' ? result : 'ok').toBe(expected);
    if (expected === 'ok') Object.assign(b, { status: next, version: b.version + 1 });
  }
  toString = () => `${this.change}(#${this.pick}${this.stale ? ', stale' : ''})`;
}

class Advance implements fc.AsyncCommand<Model, Real> {
  constructor(readonly minutes: number) {}
  check = () => true;
  async run(m: Model, r: Real) {
    m.now += this.minutes * 60_000;
    r.clock.now = m.now;
  }
  toString = () => `Advance(${this.minutes}m)`;
}

class Inspect implements fc.AsyncCommand<Model, Real> {
  check = (m: Readonly<Model>) => m.bookings.length > 0;
  async run(m: Model, r: Real) {
    for (let i = 0; i < m.bookings.length; i++) {
      const { booking } = await getBooking(r.deps, r.principal, r.ids[i]!);
      expect({
        status: booking.status === 'HELD' && booking.expiresAt! <= m.now ? 'EXPIRED' : booking.status,
        version: booking.version,
      }).toEqual({
        status: effective(m.bookings[i]!, m.now),
        version: m.bookings[i]!.version,
      });
    }
  }
  toString = () => 'Inspect';
}

const commands = [
  fc.integer({ min: 0, max: 3 }).map((s) => new Hold(s)),
  fc
    .tuple(fc.constantFrom<Change>('release', 'confirm', 'cancel'), fc.nat(20), fc.boolean())
    .map(([c, p, s]) => new ChangeBooking(c, p, s)),
  fc.constantFrom(1, 3, 6).map((minutes) => new Advance(minutes)),
  fc.constant(new Inspect()),
];

const backends: { name: string; open: () => Promise<{ store: Store; close: () => Promise<void> }> }[] = [
  {
    name: 'SQLite',
    open: async () => {
      const db = tempDbPath();
      const store = await SqliteStore.open(db.path);
      return { store, close: async () => (await store.close(), db.cleanup()) };
    },
  },
  {
    name: 'PostgreSQL',
    open: async () => {
      const schema = freshSchema();
      const store = await PgStore.open(schema.url);
      return { store, close: async () => (await store.close(), await schema.drop()) };
    },
  },
];

describe.each(backends)('model-based lifecycle on $name', ({ name, open }) => {
  let backend: Awaited<ReturnType<typeof open>>;
  beforeAll(async () => {
    backend = await open();
  });
  afterAll(() => backend.close());

  it('never diverges from the in-memory model', async () => {
    const runs = scale(30, 200);
    let executed = 0;
    await fc.assert(
      fc.asyncProperty(fc.commands(commands, { maxCommands: scale(25, 60) }), async (cmds) => {
        executed++;
        const clock = { now: T0 };
        // A tenant per run keeps runs independent on one database.
        const principal: Principal = {
          tenantId: `model-${randomUUID()}`,
          subject: 'model',
          clientId: 'fast-check',
          connectionId: 'test-connection',
          scopes: ['read', 'draft', 'write', 'sensitive'],
          limits: NO_LIMITS,
          writePolicy: 'direct',
        };
        const deps: AppDeps = {
          store: backend.store,
          clock: { now: () => clock.now },
          ids: randomIds,
          digest: jcsDigest,
          requestDigest: new KeyedDigest(Buffer.from('test-request-digest-key')),
          pageTokens: new KeyedPageTokens(Buffer.from('model-test-page-token-secret')),
          payments: {
            queryPayment: async () => {
              throw new Error('unpriced: never queried');
            },
          },
          receipts: new LazyReceiptSigner(
            backend.store,
            { now: () => clock.now },
            Buffer.alloc(32, 7),
            'http://127.0.0.1:0',
          ),
          slotCache: new MemorySlotCache(2_000),
          calendarCache: new CalendarCache(),
          credentials: nodeCredentials,
          webAuthn: webAuthnCeremonies,
          rateLimits: FlexibleRateLimits.memory(),
          config: { ...defaultAppConfig, holdTtlMs: TTL },
        };
        const allDay = [{ start: '00:00', end: '24:00' }];
        const weekly = {
          mon: allDay,
          tue: allDay,
          wed: allDay,
          thu: allDay,
          fri: allDay,
          sat: allDay,
          sun: allDay,
        };
        const calendar = await createCalendar(deps, principal, {
          name: 'Model room',
          timeZone: 'UTC',
          availability: { weekly, overrides: [] },
          idempotencyKey: randomUUID(),
        });
        await fc.asyncModelRun(
          () => ({
            model: { now: T0, bookings: [] },
            real: { deps, principal, calendarId: calendar.value.id, ids: [], clock },
          }),
          cmds,
        );
      }),
      { numRuns: runs },
    );
    record('6 model-based', name, { runs: executed, divergences: 0 });
  }, 600_000);
});
