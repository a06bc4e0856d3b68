import { describe, expect, it, beforeEach, afterEach } from 'vitest';
import type { Approval } from '../../../src/domain/approval/approval.js';
import type { Booking } from '../../../src/domain/booking/booking.js';
import type { AuditEntry } from '../../../src/ports/audit.js';
import { NotSingleCallError } from '../../../src/adapters/storage/sql/single-call.js';
import type { Calendar } from '../../../src/domain/calendar.js';
import { DomainError } from '../../../src/domain/errors.js';
import type {
  CalendarDetails,
  HoldPlan,
  OAuthRecord,
  Store,
  StoreTx,
} from '../../../src/ports/store/index.js';
import { ReferenceTakenError } from '../../../src/ports/store/index.js';
import type { Person, Scope } from '../../../src/domain/identity/identity.js';
import { defaultTenantLimits } from '../../../src/domain/identity/identity.js';
import { auditSearchContract } from './audit-search-contract.js';

/** What each store adapter provides to run the shared contract. */
export interface StoreHarness {
  readonly store: Store;
  /** Writes a booking row and its active allocations with plain SQL on a separate connection, bypassing Holdfast. */
  rawInsertBooking(booking: Booking): Promise<void>;
  /** Closes and opens the store again on the same data, as a restart would. */
  reopen(): Promise<Store>;
  close(): Promise<void>;
}

const H = 3_600_000;
const T0 = Date.UTC(2030, 0, 7, 9);

export const calendar = (id: string): Calendar => ({
  id,
  tenantId: 't1',
  name: id,
  timeZone: 'UTC',
  price: null,
  availability: { weekly: {}, overrides: [] },
  createdAt: T0,
  version: 1,
});

const person = (id: string, email: string): Person => ({
  id,
  tenantId: 't1',
  email,
  displayName: email,
  role: 'approver',
  passwordHash: 'scrypt$x',
  disabledAt: null,
  createdAt: T0,
  timeZone: null,
});

let seq = 0;
export function hold(
  calendarIds: string[],
  start: number,
  end: number,
  overrides: Partial<Booking> = {},
): Booking {
  seq += 1;
  return {
    id: `bk_${seq}_${Math.random().toString(36).slice(2)}`,
    tenantId: 't1',
    reference: `HF-${seq}${Math.random().toString(36).slice(2, 8)}`,
    calendarIds,
    start,
    end,
    status: 'HELD',
    version: 1,
    createdAt: T0,
    updatedAt: T0,
    expiresAt: T0 + 5 * 60_000,
    customer: { name: 'Zoë', phone: '+49 30 1234' },
    label: null,
    price: null,
    payment: null,
    owner: { subject: 'sub', clientId: 'cli', connectionId: 'conn' },
    externalKeys: {},
    paymentFollowUp: false,
    ...overrides,
  };
}

/** The hot path's plan for a booking on calendars still at version 1, keyed by the booking's id. */
export function planFor(booking: Booking, overrides: Partial<HoldPlan> = {}): HoldPlan {
  return {
    booking,
    calendarVersions: booking.calendarIds.map((id) => ({ id, version: 1 })),
    idempotency: {
      tenantId: booking.tenantId,
      subject: booking.owner.subject,
      tool: 'hold_slot',
      key: `key-${booking.id}`,
      argumentsDigest: 'hmac-sha256:test',
      result: { bookingId: booking.id },
      createdAt: T0,
      expiresAt: T0 + 24 * H,
    },
    cap: { perPerson: 1_000, perConnection: 1_000, heldMsPerPerson: null, thisHoldMs: 0 },
    occupies: booking.calendarIds.map((calendarId) => ({
      calendarId,
      start: booking.start,
      end: booking.end,
      capacity: 1,
    })),
    limits: [],
    ...overrides,
  };
}

/** Places a hold and insists it was written. */
export async function insertHold(tx: StoreTx, booking: Booking): Promise<void> {
  const placement = await tx.bookings.placeHold(planFor(booking));
  if (placement.outcome !== 'placed') throw new Error(`hold not placed: ${placement.outcome}`);
}

export const approval = (
  id: string,
  status: 'PENDING' | 'APPROVED',
  expiresAt: number,
  tenantId = 't1',
  createdAt = T0,
): Approval => ({
  id,
  tenantId,
  subject: 'sub',
  clientId: 'cli',
  action: 'confirm_booking',
  bookingId: 'bk_1',
  intent: { action: 'cancel_booking', bookingId: 'bk_1', reference: 'R', start: 's', end: 'e', version: 1 },
  intentHash: 'sha256:x',
  status,
  createdAt,
  expiresAt,
  decidedAt: null,
  decidedBy: null,
  burnedReason: null,
});

const auditEntry = (tool: string): AuditEntry => ({
  at: T0,
  tenantId: 't1',
  subject: 'sub',
  clientId: 'cli',
  transport: 'http',
  tool,
  kind: 'write',
  outcome: 'ok',
  errorCode: null,
  blockedReason: null,
  argumentsDigest: 'hmac-sha256:d',
  preview: '{}',
  traceId: `trace-${tool}`,
  operationId: `op_${tool}`,
  durationMs: 2.5,
});

async function codeOf(promise: Promise<unknown>): Promise<string | undefined> {
  try {
    await promise;
  } catch (error) {
    return error instanceof DomainError ? error.code : `non-domain: ${String(error)}`;
  }
  return undefined;
}

export function storeContract(name: string, make: () => Promise<StoreHarness>): void {
  describe(`Store contract: ${name}`, () => {
    let harness: StoreHarness;
    let store: Store;
    beforeEach(async () => {
      harness = await make();
      store = harness.store;
      await store.write(async (tx) => {
        await tx.calendars.insert(calendar('cal_a'));
        await tx.calendars.insert(calendar('cal_b'));
      });
    });
    afterEach(() => harness.close());
    auditSearchContract(() => store);

    it('round-trips a booking exactly, customer details included', async () => {
      const b = hold(['cal_a', 'cal_b'], T0 + H, T0 + 2 * H, {
        price: { amount: '500.00', currency: 'CNY' },
      });
      await store.write((tx) => insertHold(tx, b));
      expect(await store.read((tx) => tx.bookings.get('t1', b.id))).toEqual(b);
      expect(await store.read((tx) => tx.bookings.get('other-tenant', b.id))).toBeNull();
    });

    it('the engine refuses an overlapping active allocation written directly, bypassing the app', async () => {
      await store.write((tx) => insertHold(tx, hold(['cal_a'], T0 + H, T0 + 2 * H)));
      await expect(
        harness.rawInsertBooking(hold(['cal_a'], T0 + H + 30 * 60_000, T0 + 3 * H)),
      ).rejects.toThrow();
      // Touching half-open ranges and other calendars are fine.
      await harness.rawInsertBooking(hold(['cal_a'], T0 + 2 * H, T0 + 3 * H));
      await harness.rawInsertBooking(hold(['cal_b'], T0 + H, T0 + 2 * H));
    });

    it('maps an engine refusal through the store to SLOT_UNAVAILABLE and keeps nothing of the refused hold', async () => {
      await store.write((tx) => insertHold(tx, hold(['cal_b'], T0 + H, T0 + 2 * H)));
      const clash = hold(['cal_a', 'cal_b'], T0 + H, T0 + 2 * H);
      expect(await codeOf(store.write((tx) => insertHold(tx, clash)))).toBe('SLOT_UNAVAILABLE');
      expect(await store.read((tx) => tx.bookings.get('t1', clash.id))).toBeNull();
      const busy = await store.read((tx) =>
        tx.bookings.busyIntervals('t1', ['cal_a'], { start: T0, end: T0 + 5 * H }, T0),
      );
      expect(busy.get('cal_a') ?? []).toEqual([]);
    });

    it('refuses a reference already used in the tenant with ReferenceTakenError, writing nothing', async () => {
      const first = hold(['cal_a'], T0 + H, T0 + 2 * H);
      await store.write((tx) => insertHold(tx, first));
      const twin = hold(['cal_b'], T0 + H, T0 + 2 * H, { reference: first.reference });
      await expect(store.write((tx) => insertHold(tx, twin))).rejects.toBeInstanceOf(ReferenceTakenError);
      expect(await store.read((tx) => tx.bookings.get('t1', twin.id))).toBeNull();
    });

    it('keeps concurrent writes independent: one failing write does not undo the others', async () => {
      const first = hold(['cal_a'], T0 + H, T0 + 2 * H);
      const rival = hold(['cal_a'], T0 + H, T0 + 2 * H);
      const other = hold(['cal_b'], T0 + 3 * H, T0 + 4 * H);
      const outcomes = await Promise.allSettled([
        store.write((tx) => insertHold(tx, first)),
        store.write(async (tx) => {
          await insertHold(tx, hold(['cal_b'], T0 + 5 * H, T0 + 6 * H));
          throw new DomainError('INVALID_STATE', 'abort after a write');
        }),
        store.write((tx) => insertHold(tx, rival)),
        store.write((tx) => insertHold(tx, other)),
      ]);
      const [a, aborted, b, independent] = outcomes.map((o) => o.status);
      expect([aborted, independent]).toEqual(['rejected', 'fulfilled']);
      // The two holds of one time race: exactly one wins, whichever the engine ran first.
      expect([a, b].sort()).toEqual(['fulfilled', 'rejected']);
      const winner = a === 'fulfilled' ? first : rival;
      const listed = await store.read((tx) => tx.bookings.list('t1', { now: T0, offset: 0, limit: 10 }));
      expect(listed.items.map((x) => x.id).sort()).toEqual([winner.id, other.id].sort());
    });

    it('rolls back every write of a failed transaction', async () => {
      const b = hold(['cal_a'], T0 + H, T0 + 2 * H);
      const failed = store.write(async (tx) => {
        await insertHold(tx, b);
        throw new DomainError('INVALID_STATE', 'abort');
      });
      expect(await codeOf(failed)).toBe('INVALID_STATE');
      expect(await store.read((tx) => tx.bookings.get('t1', b.id))).toBeNull();
    });

    it('treats an unswept lapsed hold as free for readers and expires it for writers', async () => {
      const b = hold(['cal_a'], T0 + H, T0 + 2 * H, { expiresAt: T0 + 60_000 });
      await store.write((tx) => insertHold(tx, b));
      const range = { start: T0, end: T0 + 5 * H };
      expect(
        (await store.read((tx) => tx.bookings.busyIntervals('t1', ['cal_a'], range, T0)))?.get('cal_a'),
      ).toHaveLength(1);
      expect(
        (await store.read((tx) => tx.bookings.busyIntervals('t1', ['cal_a'], range, T0 + 60_000))).get(
          'cal_a',
        ) ?? [],
      ).toEqual([]);
      // Until swept, the engine still sees the lapsed hold's allocation.
      const taker = hold(['cal_a'], T0 + H, T0 + 2 * H);
      expect(await codeOf(store.write((tx) => insertHold(tx, taker)))).toBe('SLOT_UNAVAILABLE');
      const expired = await store.write(async (tx) => {
        const n = await tx.bookings.expireLapsed(T0 + 60_000);
        await insertHold(tx, taker);
        return n;
      });
      expect(expired).toBe(1);
      expect(await store.read((tx) => tx.bookings.get('t1', b.id))).toMatchObject({
        status: 'EXPIRED',
        version: 2,
      });
    });

    it('keeps a live hold longer at its version, only later, never a lapsed or moved one', async () => {
      const b = hold(['cal_a'], T0 + H, T0 + 2 * H, { expiresAt: T0 + 60_000 });
      await store.write((tx) => insertHold(tx, b));
      const keep = (until: number, now: number, version = 1) =>
        store.write((tx) => tx.bookings.keepHold('t1', b.id, version, until, now));
      expect(await keep(T0 + 30 * 60_000, T0 + 1_000, 2)).toBe(false); // another version
      expect(await keep(T0 + 30_000, T0 + 1_000)).toBe(false); // earlier: never shortened
      expect(await keep(T0 + 30 * 60_000, T0 + 1_000)).toBe(true);
      const kept = await store.read((tx) => tx.bookings.get('t1', b.id));
      expect(kept).toMatchObject({ status: 'HELD', version: 1, expiresAt: T0 + 30 * 60_000 });
      // The engine sees it live past its first expiry: the time stays taken.
      const range = { start: T0, end: T0 + 5 * H };
      expect(
        (await store.read((tx) => tx.bookings.busyIntervals('t1', ['cal_a'], range, T0 + 10 * 60_000))).get(
          'cal_a',
        ),
      ).toHaveLength(1);
      expect(await codeOf(store.write((tx) => insertHold(tx, hold(['cal_a'], T0 + H, T0 + 2 * H))))).toBe(
        'SLOT_UNAVAILABLE',
      );
      // Once lapsed, it is not revived.
      expect(await keep(T0 + 60 * 60_000, T0 + 30 * 60_000)).toBe(false);
    });

    it('writes an update only at the expected version', async () => {
      const b = hold(['cal_a'], T0 + H, T0 + 2 * H);
      await store.write((tx) => insertHold(tx, b));
      await store.write((tx) =>
        tx.bookings.update({ ...b, status: 'CONFIRMED', version: 2, expiresAt: null }),
      );
      const lost = store.write((tx) => tx.bookings.update({ ...b, status: 'RELEASED', version: 2 }));
      expect(await codeOf(lost)).toBe('VERSION_CONFLICT');
      expect(await store.read((tx) => tx.bookings.get('t1', b.id))).toMatchObject({
        status: 'CONFIRMED',
        version: 2,
      });
    });

    it('frees the time when a booking leaves HELD/CONFIRMED', async () => {
      const b = hold(['cal_a'], T0 + H, T0 + 2 * H);
      await store.write((tx) => insertHold(tx, b));
      await store.write((tx) =>
        tx.bookings.update({ ...b, status: 'RELEASED', version: 2, expiresAt: null }),
      );
      await store.write((tx) => insertHold(tx, hold(['cal_a'], T0 + H, T0 + 2 * H)));
    });

    it('stores, replays and purges idempotency records per scope', async () => {
      const scope = {
        tenantId: 't1',
        subject: 'sub',
        tool: 'hold_slot',
        key: '6f1c6c3e-4d2b-4d07-9d3e-1f5b1f7a2b10',
      };
      const record = {
        ...scope,
        argumentsDigest: 'sha256:abc',
        result: { a: [1, 'x'] },
        createdAt: T0,
        expiresAt: T0 + 1000,
      };
      await store.write((tx) => tx.idempotency.put(record));
      expect(await store.read((tx) => tx.idempotency.get(scope))).toEqual(record);
      expect(await store.read((tx) => tx.idempotency.get({ ...scope, subject: 'other' }))).toBeNull();
      expect(await store.write((tx) => tx.idempotency.purge(T0 + 1000))).toBe(1);
      expect(await store.read((tx) => tx.idempotency.get(scope))).toBeNull();
    });

    it('lists bookings by calendar, status and time, with a total for paging', async () => {
      const a = hold(['cal_a'], T0 + H, T0 + 2 * H);
      const b = hold(['cal_a', 'cal_b'], T0 + 3 * H, T0 + 4 * H, { expiresAt: T0 + 1 });
      const c = hold(['cal_b'], T0 + 5 * H, T0 + 6 * H);
      await store.write(async (tx) => {
        for (const x of [a, b, c]) await insertHold(tx, x);
      });
      const list = (q: object) =>
        store.read((tx) => tx.bookings.list('t1', { now: T0 + 10, offset: 0, limit: 10, ...q }));
      expect((await list({ calendarId: 'cal_a' })).items.map((x) => x.id)).toEqual([a.id, b.id]);
      expect((await list({ status: 'EXPIRED' })).items.map((x) => x.id)).toEqual([b.id]);
      expect((await list({ status: 'HELD' })).items.map((x) => x.id)).toEqual([a.id, c.id]);
      expect((await list({ from: T0 + 3.5 * H, to: T0 + 5.5 * H })).items.map((x) => x.id)).toEqual([
        b.id,
        c.id,
      ]);
      const page = await list({ limit: 1, offset: 1 });
      expect(page).toMatchObject({ total: 3 });
      expect(page.items.map((x) => x.id)).toEqual([b.id]);
    });

    it("finds bookings by text in the customer's name or email, any case, % and _ taken literally", async () => {
      const ada = hold(['cal_a'], T0 + H, T0 + 2 * H, {
        customer: { name: 'Ada Lovelace', email: 'ADA@example.com' },
      });
      const odd = hold(['cal_a'], T0 + 3 * H, T0 + 4 * H, { customer: { name: 'Per 100%_sure' } });
      const none = hold(['cal_a'], T0 + 5 * H, T0 + 6 * H, { customer: null });
      await store.write(async (tx) => {
        for (const x of [ada, odd, none]) await insertHold(tx, x);
      });
      const ids = async (customer: string, customerByEmail = true) =>
        (
          await store.read((tx) =>
            tx.bookings.list('t1', { now: T0, offset: 0, limit: 10, customer, customerByEmail }),
          )
        ).items.map((x) => x.id);
      expect(await ids('lovelace')).toEqual([ada.id]);
      expect(await ids('ada@EXAMPLE')).toEqual([ada.id]);
      // For a reader who sees emails masked, only the name is searched.
      expect(await ids('ada@EXAMPLE', false)).toEqual([]);
      expect(await ids('lovelace', false)).toEqual([ada.id]);
      expect(await ids('%_')).toEqual([odd.id]);
      expect(await ids('_')).toEqual([odd.id]);
      // A key of the stored JSON is not a match: only the values are searched.
      expect(await ids('name')).toEqual([]);
    });

    it('numbers customers per tenant in the order they first booked, for good: an erased number is never given again', async () => {
      await store.write((tx) =>
        tx.tenants.putTenant({
          id: 't1',
          name: 'T one',
          limits: defaultTenantLimits,
          defaultWritePolicy: 'draft',
          toolProfile: 'bookings',
          toolMode: 'inherit',
          approvalWindowMinutes: 30,
          disabledTools: [],
          createdAt: T0,
        }),
      );
      const booked = (email: string | null, at: number) =>
        hold(['cal_a'], at, at + H / 2, { customer: email ? { name: email, email } : { name: 'nobody' } });
      const [ada, bob, again, anon] = [
        booked('ada@example.com', T0 + H),
        booked('bob@example.com', T0 + 2 * H),
        booked('ADA@example.com', T0 + 3 * H),
        booked(null, T0 + 4 * H),
      ];
      for (const b of [ada, bob, again, anon]) await store.write((tx) => insertHold(tx, b));
      const keyOf = (id: string) => store.read((tx) => tx.customers.customerKeyOf('t1', id));
      const [adaKey, bobKey] = [(await keyOf(ada.id))!, (await keyOf(bob.id))!];
      expect(await keyOf(again.id)).toBe(adaKey);
      expect(await keyOf(anon.id)).toBeNull();
      const numbers = await store.read((tx) => tx.customers.numbersOf('t1', [adaKey, bobKey, 'c1:unknown']));
      expect([...numbers.entries()].sort()).toEqual(
        [
          ...new Map([
            [adaKey, 1],
            [bobKey, 2],
          ]).entries(),
        ].sort(),
      );
      expect(await store.read((tx) => tx.customers.keyOfNumber('t1', 2))).toBe(bobKey);
      expect(await store.read((tx) => tx.customers.keyOfNumber('t2', 2))).toBeNull();
      await store.write((tx) => tx.customers.erase('t1', 'email:bob@example.com'));
      expect(await store.read((tx) => tx.customers.keyOfNumber('t1', 2))).toBeNull();
      const carol = booked('carol@example.com', T0 + 5 * H);
      await store.write((tx) => insertHold(tx, carol));
      const carolKey = (await keyOf(carol.id))!;
      expect((await store.read((tx) => tx.customers.numbersOf('t1', [carolKey]))).get(carolKey)).toBe(3);
    });

    it('keeps everything across a restart', async () => {
      const b = hold(['cal_a'], T0 + H, T0 + 2 * H);
      await store.write((tx) => insertHold(tx, b));
      const reopened = await harness.reopen();
      expect(await reopened.read((tx) => tx.bookings.get('t1', b.id))).toEqual(b);
      expect(await codeOf(reopened.write((tx) => insertHold(tx, hold(['cal_a'], T0 + H, T0 + 2 * H))))).toBe(
        'SLOT_UNAVAILABLE',
      );
    });
    it('runs afterCommit callbacks only for transactions that committed', async () => {
      const heard: string[] = [];
      await store.write(async (tx) => tx.afterCommit(() => heard.push('committed')));
      await codeOf(
        store.write(async (tx) => {
          tx.afterCommit(() => heard.push('rolled back'));
          throw new DomainError('INVALID_STATE', 'abort');
        }),
      );
      await store.read(async (tx) => tx.afterCommit(() => heard.push('read')));
      expect(heard).toEqual(['committed', 'read']);
    });

    it('serialises check-then-insert under one key: racing writers cannot overshoot a count', async () => {
      const cap = 3;
      const attempts = Array.from({ length: 8 }, (_, i) =>
        store.write(async (tx) => {
          await tx.serialize('calendars:t1');
          if ((await tx.calendars.count('t1')) >= cap + 2) return false;
          await tx.calendars.insert(calendar(`cal_race_${i}`));
          return true;
        }),
      );
      expect((await Promise.all(attempts)).filter(Boolean)).toHaveLength(cap);
      expect(await store.read((tx) => tx.calendars.count('t1'))).toBe(cap + 2);
    });

    it('pages calendars oldest first with a total', async () => {
      await store.write(async (tx) => {
        for (const id of ['cal_c', 'cal_d'])
          await tx.calendars.insert({ ...calendar(id), createdAt: T0 + 1 });
      });
      const page = await store.read((tx) => tx.calendars.list('t1', { offset: 1, limit: 2 }));
      expect(page.total).toBe(4);
      expect(page.items.map((c) => c.id)).toEqual(['cal_b', 'cal_c']);
      expect((await store.read((tx) => tx.calendars.list('t2', { offset: 0, limit: 5 }))).total).toBe(0);
    });

    it('counts open approvals: pending and unexpired, per tenant', async () => {
      await store.write(async (tx) => {
        await tx.approvals.insert(approval('a1', 'PENDING', T0 + 1000), 'h1');
        await tx.approvals.insert(approval('a2', 'PENDING', T0 + 10), 'h2');
        await tx.approvals.insert(approval('a3', 'APPROVED', T0 + 1000), 'h3');
        await tx.approvals.insert(approval('a4', 'PENDING', T0 + 1000, 't2'), 'h4');
      });
      expect(await store.read((tx) => tx.approvals.countOpen('t1', T0 + 100))).toBe(1);
      expect(await store.read((tx) => tx.approvals.countOpen('t1', T0))).toBe(2);
    });

    it('marks expired priced holds for a payment follow-up and lists them; unpriced ones not', async () => {
      const priced = hold(['cal_a'], T0 + H, T0 + 2 * H, {
        expiresAt: T0 + 10,
        price: { amount: '1.00', currency: 'EUR' },
      });
      const free = hold(['cal_b'], T0 + H, T0 + 2 * H, { expiresAt: T0 + 10 });
      await store.write(async (tx) => {
        await insertHold(tx, priced);
        await insertHold(tx, free);
      });
      expect(await store.write((tx) => tx.bookings.expireLapsed(T0 + 10))).toBe(2);
      const due = await store.read((tx) => tx.bookings.paymentFollowUps(10));
      expect(due.map((b) => b.id)).toEqual([priced.id]);
      expect(due[0]).toMatchObject({ status: 'EXPIRED', paymentFollowUp: true, version: 2 });
      await store.write((tx) => tx.bookings.update({ ...due[0]!, version: 3, paymentFollowUp: false }));
      expect(await store.read((tx) => tx.bookings.paymentFollowUps(10))).toEqual([]);
    });

    it('keeps audit entries pending until sealed, then in sequence, exactly as written', async () => {
      const entry = (tool: string) => ({
        at: T0,
        tenantId: 't1',
        subject: 'sub',
        clientId: 'cli',
        transport: 'http',
        tool,
        kind: 'read' as const,
        outcome: 'ok' as const,
        errorCode: null,
        blockedReason: null,
        argumentsDigest: 'sha256:d',
        preview: '{"a":"Zoë \\u0000 安"}',
        traceId: `trace-${tool}`,
        operationId: `op_${tool}`,
        durationMs: 1.25,
      });
      await store.write(async (tx) => {
        await tx.audit.append(entry('one'), 'mac-one');
        await tx.audit.append(entry('two'), 'mac-two');
      });
      await codeOf(
        store.write(async (tx) => {
          await tx.audit.append(entry('rolled-back'), 'mac-x');
          throw new DomainError('INVALID_STATE', 'abort');
        }),
      );
      const pending = await store.read((tx) => tx.audit.pending(10));
      expect(pending.map((p) => p.tool)).toEqual(['one', 'two']);
      expect(await store.read((tx) => tx.audit.countPending())).toBe(2);
      expect(await store.read((tx) => tx.audit.head())).toBeNull();
      expect(pending.map((p) => p.mac)).toEqual(['mac-one', 'mac-two']);
      const sealed = pending.map(({ pendingId: _, mac: _mac, ...e }, i) => ({
        ...e,
        seq: i + 1,
        prevHash: i === 0 ? 'genesis' : 'h1',
        hash: `h${i + 1}`,
        macVersion: 2 as const,
        keyId: 'k',
      }));
      // Linked on a head that has moved: nothing is written.
      const stale = { seq: 7, hash: 'h7' };
      expect(
        await store.write((tx) =>
          tx.audit.link(
            sealed,
            pending.map((p) => p.pendingId),
            stale,
          ),
        ),
      ).toBe(false);
      expect(await store.read((tx) => tx.audit.countPending())).toBe(2);
      const linked = await store.write(async (tx) => {
        await tx.serialize('audit-chain');
        return tx.audit.link(
          sealed,
          pending.map((p) => p.pendingId),
          null,
        );
      });
      expect(linked).toBe(true);
      expect(await store.read((tx) => tx.audit.countPending())).toBe(0);
      expect(await store.read((tx) => tx.audit.head())).toEqual({
        seq: 2,
        hash: 'h2',
        macVersion: 2,
        keyId: 'k',
      });
      expect(await store.read((tx) => tx.audit.records(1, 10))).toEqual([sealed[1]]);
      expect(await store.read((tx) => tx.audit.records(0, 10))).toEqual(sealed);
    });

    it('gets calendars in the order asked, skipping unknown ids and other tenants', async () => {
      const found = await store.read((tx) => tx.calendars.get('t1', ['cal_b', 'cal_x', 'cal_a']));
      expect(found.map((c) => c.id)).toEqual(['cal_b', 'cal_a']);
      expect(found[1]).toEqual(calendar('cal_a'));
      expect(await store.read((tx) => tx.calendars.get('t2', ['cal_a']))).toEqual([]);
      expect(await store.read((tx) => tx.calendars.get('t1', []))).toEqual([]);
    });

    it('replaces availability whole and moves the calendar to its next version', async () => {
      const availability = {
        weekly: { mon: [{ start: '09:00', end: '12:00' }] },
        overrides: [{ date: '2030-01-07', windows: [] }],
      };
      await store.write((tx) => tx.calendars.replaceAvailability('t1', 'cal_a', availability));
      const [updated] = await store.read((tx) => tx.calendars.get('t1', ['cal_a']));
      expect(updated).toMatchObject({ availability, version: 2 });
      // Another tenant's calendar of the same id is not touched.
      await store.write((tx) => tx.calendars.replaceAvailability('t2', 'cal_b', availability));
      expect((await store.read((tx) => tx.calendars.get('t1', ['cal_b'])))[0]!.version).toBe(1);
    });

    it('replaces availability only at the version expected, when one is given', async () => {
      const availability = { weekly: { tue: [{ start: '10:00', end: '11:00' }] }, overrides: [] };
      const replace = (version: number) =>
        store.write((tx) => tx.calendars.replaceAvailability('t1', 'cal_a', availability, version));
      expect(await replace(2)).toBe(false);
      expect((await store.read((tx) => tx.calendars.get('t1', ['cal_a'])))[0]).toEqual(calendar('cal_a'));
      expect(await replace(1)).toBe(true);
      expect((await store.read((tx) => tx.calendars.get('t1', ['cal_a'])))[0]).toMatchObject({
        availability,
        version: 2,
      });
      expect(await replace(1)).toBe(false);
      expect(await store.write((tx) => tx.calendars.replaceAvailability('t1', 'cal_x', availability))).toBe(
        false,
      );
    });

    it('updates name, zone, price, description and tags at the version expected, moving the calendar on; nothing else', async () => {
      const details: CalendarDetails = {
        name: 'Room 2',
        timeZone: 'Asia/Tokyo',
        price: { amount: '12.50', currency: 'JPY' },
        description: 'A quiet room with a projector',
        tags: ['projector', '静か'],
      };
      const update = (tenantId: string, id: string, version: number, d = details) =>
        store.write((tx) => tx.calendars.updateDetails(tenantId, id, d, version));
      expect(await update('t1', 'cal_a', 1)).toBe(true);
      const [updated] = await store.read((tx) => tx.calendars.get('t1', ['cal_a']));
      expect(updated).toEqual({ ...calendar('cal_a'), ...details, version: 2 });
      // A stale version, an unknown id and another tenant change nothing.
      expect(await update('t1', 'cal_a', 1, { ...details, name: 'stale' })).toBe(false);
      expect(await update('t1', 'cal_x', 1)).toBe(false);
      expect(await update('t2', 'cal_b', 1)).toBe(false);
      expect((await store.read((tx) => tx.calendars.get('t1', ['cal_a'])))[0]!.name).toBe('Room 2');
      expect((await store.read((tx) => tx.calendars.get('t1', ['cal_b'])))[0]).toEqual(calendar('cal_b'));
      // The price, the description and the tags can be taken away again.
      expect(
        await update('t1', 'cal_a', 2, { ...details, price: null, description: undefined, tags: [] }),
      ).toBe(true);
      const [bare] = await store.read((tx) => tx.calendars.get('t1', ['cal_a']));
      expect(bare).toMatchObject({ price: null, version: 3 });
      expect(bare!.description).toBeUndefined();
      expect(bare!.tags).toBeUndefined();
    });

    it('places a hold with its key, answer and audit entry in one step, or writes nothing', async () => {
      const b = hold(['cal_b', 'cal_a'], T0 + H, T0 + 2 * H);
      const plan = planFor(b, { audit: { entry: auditEntry('hold_slot'), mac: 'mac-hold' } });
      expect(await store.writeOne((tx) => tx.bookings.placeHold(plan))).toEqual({ outcome: 'placed' });
      expect(await store.read((tx) => tx.bookings.get('t1', b.id))).toEqual(b);
      expect(await store.read((tx) => tx.idempotency.get(plan.idempotency))).toEqual(plan.idempotency);
      const [pending] = await store.read((tx) => tx.audit.pending(10));
      expect(pending).toMatchObject({ tool: 'hold_slot', mac: 'mac-hold' });
      // The same key again: the live record wins, nothing else is written.
      const again = hold(['cal_a'], T0 + 5 * H, T0 + 6 * H);
      const replay = await store.writeOne((tx) =>
        tx.bookings.placeHold(planFor(again, { idempotency: { ...plan.idempotency, result: 'other' } })),
      );
      expect(replay).toEqual({ outcome: 'replay', existing: plan.idempotency });
      expect(await store.read((tx) => tx.bookings.get('t1', again.id))).toBeNull();
      expect(await store.read((tx) => tx.audit.countPending())).toBe(1);
      // A refused hold writes neither its key nor its audit entry.
      const clash = hold(['cal_a'], T0 + H, T0 + 2 * H);
      const clashPlan = planFor(clash, { audit: { entry: auditEntry('clash'), mac: 'm' } });
      expect(await codeOf(store.writeOne((tx) => tx.bookings.placeHold(clashPlan)))).toBe('SLOT_UNAVAILABLE');
      expect(await store.read((tx) => tx.idempotency.get(clashPlan.idempotency))).toBeNull();
      expect(await store.read((tx) => tx.audit.countPending())).toBe(1);
    });

    it('refuses a plan made on a calendar that changed or does not exist: stale, nothing written', async () => {
      await store.write((tx) =>
        tx.calendars.replaceAvailability('t1', 'cal_a', { weekly: {}, overrides: [] }),
      );
      const b = hold(['cal_a'], T0 + H, T0 + 2 * H);
      expect(await store.writeOne((tx) => tx.bookings.placeHold(planFor(b)))).toEqual({ outcome: 'stale' });
      const ghost = hold(['cal_ghost'], T0 + H, T0 + 2 * H);
      expect(await store.writeOne((tx) => tx.bookings.placeHold(planFor(ghost)))).toEqual({
        outcome: 'stale',
      });
      expect(await store.read((tx) => tx.bookings.get('t1', b.id))).toBeNull();
      expect(await store.read((tx) => tx.idempotency.get(planFor(b).idempotency))).toBeNull();
      const fresh = planFor(b, { calendarVersions: [{ id: 'cal_a', version: 2 }] });
      expect(await store.writeOne((tx) => tx.bookings.placeHold(fresh))).toEqual({ outcome: 'placed' });
    });

    it('takes over an expired key: a day-old record is not a replay', async () => {
      const first = hold(['cal_a'], T0 + H, T0 + 2 * H);
      const plan = planFor(first);
      await store.writeOne((tx) => tx.bookings.placeHold(plan));
      const later = hold(['cal_b'], T0 + H, T0 + 2 * H);
      const retaken = planFor(later, {
        idempotency: {
          ...plan.idempotency,
          createdAt: plan.idempotency.expiresAt,
          expiresAt: plan.idempotency.expiresAt + H,
        },
      });
      expect(await store.writeOne((tx) => tx.bookings.placeHold(retaken))).toEqual({ outcome: 'placed' });
      expect(await store.read((tx) => tx.idempotency.get(plan.idempotency))).toEqual(retaken.idempotency);
    });

    it('claims a key once: a live record is returned, an expired one is taken over', async () => {
      const scope = { tenantId: 't1', subject: 'sub', tool: 'confirm_booking', key: 'k-claim' };
      const claim = { ...scope, argumentsDigest: 'd1', result: null, createdAt: T0, expiresAt: T0 + H };
      expect(await store.write((tx) => tx.idempotency.claim(claim))).toBeNull();
      await store.write((tx) => tx.idempotency.put({ ...claim, result: { done: true } }));
      const second = { ...claim, argumentsDigest: 'd2', createdAt: T0 + 1 };
      expect(await store.write((tx) => tx.idempotency.claim(second))).toEqual({
        ...claim,
        result: { done: true },
      });
      const afterExpiry = { ...claim, argumentsDigest: 'd3', createdAt: T0 + H, expiresAt: T0 + 2 * H };
      expect(await store.write((tx) => tx.idempotency.claim(afterExpiry))).toBeNull();
      expect(await store.read((tx) => tx.idempotency.get(scope))).toMatchObject({ argumentsDigest: 'd3' });
    });

    it('expires lapsed holds of one tenant only when asked for one', async () => {
      await store.write(async (tx) => {
        await tx.calendars.insert({ ...calendar('cal_a'), tenantId: 't2' });
        await insertHold(tx, hold(['cal_a'], T0 + H, T0 + 2 * H, { expiresAt: T0 + 1 }));
        await insertHold(tx, hold(['cal_a'], T0 + H, T0 + 2 * H, { expiresAt: T0 + 1, tenantId: 't2' }));
      });
      expect(await store.write((tx) => tx.bookings.expireLapsed(T0 + 1, 't2'))).toBe(1);
      expect(await store.write((tx) => tx.bookings.expireLapsed(T0 + 1, 't2'))).toBe(0);
      expect(await store.write((tx) => tx.bookings.expireLapsed(T0 + 1))).toBe(1);
      const busy = await store.read((tx) =>
        tx.bookings.busyIntervals('t1', ['cal_a'], { start: T0, end: T0 + 3 * H }, T0),
      );
      expect(busy.get('cal_a') ?? []).toEqual([]);
    });

    it('lists bookings paid after their hold lapsed, for a person to settle', async () => {
      const settled = hold(['cal_a'], T0 + H, T0 + 2 * H);
      const unsettled = hold(['cal_b'], T0 + H, T0 + 2 * H);
      await store.write(async (tx) => {
        await insertHold(tx, settled);
        await insertHold(tx, unsettled);
        await tx.bookings.update({
          ...unsettled,
          status: 'EXPIRED',
          version: 2,
          payment: { status: 'PAID', paidAt: T0 + 5, reconciliationRequired: true },
        });
        await tx.bookings.update({ ...settled, version: 2, payment: { status: 'PAID', paidAt: T0 + 5 } });
      });
      const due = await store.read((tx) => tx.bookings.toReconcile('t1'));
      expect(due.map((b) => b.id)).toEqual([unsettled.id]);
      expect(await store.read((tx) => tx.bookings.toReconcile('t2'))).toEqual([]);
    });

    it('keeps approvals: by id, by unspent page token, status moves only from the expected one', async () => {
      await store.write(async (tx) => {
        await tx.approvals.insert(approval('a1', 'PENDING', T0 + H), 'token-hash-1');
        await tx.approvals.insert(approval('a2', 'PENDING', T0 + H, 't1', T0 + 1), 'token-hash-2');
        await tx.approvals.insert(approval('a3', 'PENDING', T0 + H, 't2', T0 + 2), 'token-hash-3');
      });
      expect(await store.read((tx) => tx.approvals.get('t1', 'a1'))).toEqual(
        approval('a1', 'PENDING', T0 + H),
      );
      expect(await store.read((tx) => tx.approvals.get('t2', 'a1'))).toBeNull();
      expect(await store.read((tx) => tx.approvals.getByPageToken('token-hash-2'))).toMatchObject({
        id: 'a2',
      });
      await store.write((tx) => tx.approvals.spendPageToken('t1', 'a2'));
      expect(await store.read((tx) => tx.approvals.getByPageToken('token-hash-2'))).toBeNull();
      const decided = { ...approval('a1', 'APPROVED', T0 + H), decidedAt: T0 + 5, decidedBy: 'person' };
      expect(await store.write((tx) => tx.approvals.update(decided, 'PENDING'))).toBe(true);
      expect(
        await store.write((tx) => tx.approvals.update({ ...decided, decidedBy: 'late' }, 'PENDING')),
      ).toBe(false);
      expect(await store.read((tx) => tx.approvals.get('t1', 'a1'))).toEqual(decided);
      // Newest first; one tenant or all; by status.
      expect((await store.read((tx) => tx.approvals.list('t1'))).map((a) => a.id)).toEqual(['a2', 'a1']);
      expect((await store.read((tx) => tx.approvals.list(null))).map((a) => a.id)).toEqual([
        'a3',
        'a2',
        'a1',
      ]);
      expect((await store.read((tx) => tx.approvals.list(null, 'APPROVED'))).map((a) => a.id)).toEqual([
        'a1',
      ]);
    });

    it('approvals: keep their own window and fixed hold; an expiry moves only later', async () => {
      const own = { ...approval('ap_w', 'PENDING', T0 + H), windowMs: 600_000, holdFixed: true };
      await store.write((tx) => tx.approvals.insert(own, null));
      expect(await store.read((tx) => tx.approvals.get('t1', 'ap_w'))).toMatchObject({
        windowMs: 600_000,
        holdFixed: true,
      });
      expect(await store.write((tx) => tx.approvals.extendExpiry('t1', 'ap_w', T0 + 2 * H))).toBe(true);
      expect(await store.write((tx) => tx.approvals.extendExpiry('t1', 'ap_w', T0 + H))).toBe(false);
      expect(await store.write((tx) => tx.approvals.extendExpiry('t2', 'ap_w', T0 + 3 * H))).toBe(false);
      expect((await store.read((tx) => tx.approvals.get('t1', 'ap_w')))!.expiresAt).toBe(T0 + 2 * H);
      const plain = approval('ap_p', 'PENDING', T0 + H);
      await store.write((tx) => tx.approvals.insert(plain, null));
      const read = (await store.read((tx) => tx.approvals.get('t1', 'ap_p')))!;
      expect(read.windowMs).toBeUndefined();
      expect(read.holdFixed).toBeUndefined();
    });

    it('approval tokens: spent once in one step, the first use sees it unspent, every later one spent', async () => {
      const token = {
        tenantId: 't1',
        tokenHash: 'sha256:tok',
        approvalId: 'ap_t',
        tool: 'create_booking',
        argumentsHash: 'sha256:args',
        createdAt: T0,
        expiresAt: T0 + 600_000,
        usedAt: null,
        usedBy: null,
      };
      await store.write((tx) => tx.approvals.insertToken(token));
      const uses = await Promise.all(
        Array.from({ length: 4 }, (_, i) =>
          store.write((tx) => tx.approvals.spendToken('sha256:tok', T0 + i, `use ${i}`)),
        ),
      );
      const firsts = uses.filter((u) => u?.usedAt === null);
      expect(firsts).toHaveLength(1);
      expect(firsts[0]).toEqual(token);
      for (const later of uses.filter((u) => u?.usedAt !== null))
        expect(later).toMatchObject({ tokenHash: 'sha256:tok' });
      expect(await store.write((tx) => tx.approvals.spendToken('sha256:nope', T0, 'x'))).toBeNull();
    });

    it('remembers host attestations once per tenant: a second use is a replay', async () => {
      expect(await store.read((tx) => tx.approvals.attestationSeen('t1', 'att-1'))).toBe(false);
      expect(await store.write((tx) => tx.approvals.recordAttestation('t1', 'att-1', T0))).toBe(true);
      expect(await store.write((tx) => tx.approvals.recordAttestation('t1', 'att-1', T0 + 1))).toBe(false);
      expect(await store.read((tx) => tx.approvals.attestationSeen('t1', 'att-1'))).toBe(true);
      expect(await store.read((tx) => tx.approvals.attestationSeen('t2', 'att-1'))).toBe(false);
    });

    it('keeps what the payment simulator reports, replacing it on each set', async () => {
      expect(await store.read((tx) => tx.simulatedPayments.get('bk_pay'))).toBeNull();
      const pending = {
        bookingId: 'bk_pay',
        status: 'PENDING' as const,
        amount: null,
        currency: null,
        paidAt: null,
      };
      await store.write((tx) => tx.simulatedPayments.set(pending, T0));
      expect(await store.read((tx) => tx.simulatedPayments.get('bk_pay'))).toEqual(pending);
      const paid = {
        bookingId: 'bk_pay',
        status: 'PAID' as const,
        amount: '500.00',
        currency: 'CNY',
        paidAt: T0 + 9,
      };
      await store.write((tx) => tx.simulatedPayments.set(paid, T0 + 9));
      expect(await store.read((tx) => tx.simulatedPayments.get('bk_pay'))).toEqual(paid);
    });

    it('appends several audit entries in one step, in order', async () => {
      await store.writeOne((tx) =>
        tx.audit.appendAll(['a', 'b', 'c'].map((t) => ({ entry: auditEntry(t), mac: `mac-${t}` }))),
      );
      await store.writeOne((tx) => tx.audit.appendAll([]));
      const pending = await store.read((tx) => tx.audit.pending(10));
      expect(pending.map((p) => [p.tool, p.mac])).toEqual([
        ['a', 'mac-a'],
        ['b', 'mac-b'],
        ['c', 'mac-c'],
      ]);
      const { pendingId: _, mac: _mac, ...first } = pending[0]!;
      expect(first).toEqual(auditEntry('a'));
    });

    it('lets a writeOne unit make exactly one store call', async () => {
      const twice = store.writeOne(async (tx) => {
        await tx.calendars.count('t1');
        return tx.calendars.count('t1');
      });
      await expect(twice).rejects.toBeInstanceOf(NotSingleCallError);
      expect(await store.writeOne((tx) => tx.calendars.count('t1'))).toBe(2);
    });

    it('identity: tenants, people (one account per email), setup links spent once', async () => {
      const tenant = {
        id: 't1',
        name: 'T one',
        limits: defaultTenantLimits,
        defaultWritePolicy: 'draft' as const,
        toolProfile: 'inherit' as const,
        toolMode: 'inherit' as const,
        approvalWindowMinutes: 30,
        disabledTools: [],
        createdAt: T0,
      };
      await store.write((tx) => tx.tenants.putTenant(tenant));
      await store.write((tx) =>
        tx.tenants.putTenant({
          ...tenant,
          limits: { ...tenant.limits, callsPerMinute: 7 },
          defaultWritePolicy: 'readonly',
          approvalWindowMinutes: 90,
        }),
      );
      expect(await store.read((tx) => tx.tenants.getTenant('t1'))).toMatchObject({
        limits: { callsPerMinute: 7 },
        defaultWritePolicy: 'readonly',
        approvalWindowMinutes: 90,
      });
      expect(await store.read((tx) => tx.tenants.listTenants())).toHaveLength(1);
      const ana = person('usr_ana', 'ana@example.com');
      expect(await store.write((tx) => tx.people.insertPerson(ana))).toBe(true);
      expect(await store.write((tx) => tx.people.insertPerson({ ...ana, id: 'usr_other' }))).toBe(false);
      expect(await store.read((tx) => tx.people.getPersonByEmail('ana@example.com'))).toEqual(ana);
      await store.write((tx) => tx.people.updatePerson({ ...ana, role: 'viewer', disabledAt: T0 }));
      expect((await store.read((tx) => tx.people.getPerson('usr_ana')))!.role).toBe('viewer');
      // A person's own time zone: set, read back, and unset (their browser's again).
      await store.write((tx) => tx.people.setTimeZone('usr_ana', 'Asia/Shanghai'));
      expect((await store.read((tx) => tx.people.getPerson('usr_ana')))!.timeZone).toBe('Asia/Shanghai');
      await store.write((tx) => tx.people.setTimeZone('usr_ana', null));
      expect((await store.read((tx) => tx.people.getPerson('usr_ana')))!.timeZone).toBeNull();
      expect(await store.read((tx) => tx.people.listPeople('t1'))).toHaveLength(1);

      const link = { secretHash: 'h1', tenantId: 't1', personId: null, expiresAt: T0 + H };
      await store.write((tx) => tx.people.insertSetupLink(link));
      expect(await store.read((tx) => tx.people.peekSetupLink('h1', T0))).toEqual(link);
      expect(await store.read((tx) => tx.people.peekSetupLink('h1', T0 + H))).toBeNull(); // expired
      const spent = await Promise.all([
        store.write((tx) => tx.people.spendSetupLink('h1', T0)),
        store.write((tx) => tx.people.spendSetupLink('h1', T0)),
      ]);
      expect(spent.filter(Boolean)).toHaveLength(1);
      expect(await store.read((tx) => tx.people.peekSetupLink('h1', T0))).toBeNull();
    });

    it('identity: sessions, tokens with their person and tenant in one read, hosts', async () => {
      await store.write(async (tx) => {
        await tx.tenants.putTenant({
          id: 't1',
          name: 't1',
          limits: defaultTenantLimits,
          defaultWritePolicy: 'draft',
          toolProfile: 'inherit',
          toolMode: 'catalog',
          approvalWindowMinutes: 30,
          disabledTools: [],
          createdAt: T0,
        });
        await tx.people.insertPerson(person('usr_ana', 'ana@example.com'));
      });
      const session = {
        idHash: 's1',
        tenantId: 't1',
        personId: 'usr_ana',
        method: 'password',
        createdAt: T0,
        lastSeenAt: T0,
        csrfSecret: 'c',
      };
      await store.write((tx) => tx.sessions.insertSession(session));
      await store.write((tx) => tx.sessions.touchSession('s1', T0 + 5));
      expect(await store.read((tx) => tx.sessions.getSession('s1'))).toEqual({
        ...session,
        lastSeenAt: T0 + 5,
      });
      await store.write((tx) => tx.sessions.insertSession({ ...session, idHash: 's2' }));
      await store.write((tx) => tx.sessions.deleteSession('s1'));
      expect(await store.read((tx) => tx.sessions.getSession('s1'))).toBeNull();
      expect(await store.write((tx) => tx.sessions.deleteSessionsOf('usr_ana'))).toBe(1);
      expect(await store.read((tx) => tx.sessions.getSession('s2'))).toBeNull();

      const token = {
        id: 'tok_1',
        tenantId: 't1',
        personId: 'usr_ana',
        name: 'laptop',
        scopes: ['read', 'draft'] as const,
        writePolicy: 'draft' as const,
        secretHash: 'th',
        createdAt: T0,
        expiresAt: T0 + H,
        revokedAt: null,
        lastUsedAt: null,
      };
      await store.write((tx) => tx.tokens.insertToken({ ...token, scopes: [...token.scopes] }));
      const credential = await store.readOne((tx) => tx.tokens.credentialOf('th'));
      expect(credential!.token).toEqual(token);
      expect(credential!.person.email).toBe('ana@example.com');
      expect(credential!.tenant.id).toBe('t1');
      // The tool surface the tenant chose comes with the credential: no second read per call.
      expect(credential!.tenant.toolMode).toBe('catalog');
      expect(await store.readOne((tx) => tx.tokens.credentialOf('nope'))).toBeNull();
      await store.write((tx) => tx.tokens.touchToken('tok_1', T0 + 9));
      expect((await store.read((tx) => tx.tokens.getTokenBySecretHash('th')))!.lastUsedAt).toBe(T0 + 9);
      // What a live token may do changes in place, in its own tenant only.
      const narrow = { scopes: ['read'] as const, writePolicy: 'readonly' as const };
      expect(await store.write((tx) => tx.tokens.updateTokenAccess('other', 'tok_1', narrow))).toBe(false);
      expect(await store.write((tx) => tx.tokens.updateTokenAccess('t1', 'tok_1', narrow))).toBe(true);
      expect(await store.readOne((tx) => tx.tokens.credentialOf('th'))).toMatchObject({
        token: { scopes: ['read'], writePolicy: 'readonly' },
      });
      expect(await store.write((tx) => tx.tokens.revokeToken('other', 'tok_1', T0))).toBe(false);
      expect(await store.write((tx) => tx.tokens.revokeToken('t1', 'tok_1', T0))).toBe(true);
      expect(await store.write((tx) => tx.tokens.revokeToken('t1', 'tok_1', T0))).toBe(false);
      expect((await store.read((tx) => tx.tokens.listTokens('t1')))[0]!.revokedAt).toBe(T0);
      expect(await store.write((tx) => tx.tokens.updateTokenAccess('t1', 'tok_1', narrow))).toBe(false);

      const host = {
        id: 'host_1',
        tenantId: 't1',
        name: 'desk',
        publicKey: 'pk',
        createdAt: T0,
        revokedAt: null,
      };
      await store.write((tx) => tx.hosts.insertHost(host));
      expect(await store.read((tx) => tx.hosts.getHost('t1', 'host_1'))).toEqual(host);
      expect(await store.read((tx) => tx.hosts.getHost('other', 'host_1'))).toBeNull();
      expect(await store.write((tx) => tx.hosts.revokeHost('t1', 'host_1', T0))).toBe(true);
      expect((await store.read((tx) => tx.hosts.listHosts('t1')))[0]!.revokedAt).toBe(T0);
    });

    it('identity: the installation’s public address is recorded, read back and replaced', async () => {
      expect(await store.read((tx) => tx.tenants.publicUrl())).toBeNull();
      await store.write((tx) => tx.tenants.recordPublicUrl('http://127.0.0.1:41234', T0));
      expect(await store.read((tx) => tx.tenants.publicUrl())).toBe('http://127.0.0.1:41234');
      await store.write((tx) => tx.tenants.recordPublicUrl('https://book.example.com', T0 + 1));
      expect(await store.read((tx) => tx.tenants.publicUrl())).toBe('https://book.example.com');
    });

    it('identity: a person lists and ends their own sessions, never another person’s', async () => {
      await store.write(async (tx) => {
        await tx.tenants.putTenant({
          id: 't1',
          name: 't1',
          limits: defaultTenantLimits,
          defaultWritePolicy: 'draft',
          toolProfile: 'inherit',
          toolMode: 'catalog',
          approvalWindowMinutes: 30,
          disabledTools: [],
          createdAt: T0,
        });
        await tx.people.insertPerson(person('usr_ana', 'ana@example.com'));
        await tx.people.insertPerson(person('usr_bo', 'bo@example.com'));
      });
      const session = (idHash: string, personId: string, lastSeenAt: number) => ({
        idHash,
        tenantId: 't1',
        personId,
        method: 'password',
        createdAt: T0,
        lastSeenAt,
        csrfSecret: `c-${idHash}`,
      });
      await store.write(async (tx) => {
        await tx.sessions.insertSession(session('a1', 'usr_ana', T0 + 1));
        await tx.sessions.insertSession({ ...session('a2', 'usr_ana', T0 + 3), method: 'passkey' });
        await tx.sessions.insertSession(session('a3', 'usr_ana', T0 + 2));
        await tx.sessions.insertSession(session('b1', 'usr_bo', T0 + 9));
      });
      const ids = async (personId: string) =>
        (await store.read((tx) => tx.sessions.listSessionsOf(personId))).map((s) => s.idHash);
      // The most recently used first; each a whole session, as getSession reads it.
      expect(await ids('usr_ana')).toEqual(['a2', 'a3', 'a1']);
      expect((await store.read((tx) => tx.sessions.listSessionsOf('usr_ana')))[0]).toEqual({
        ...session('a2', 'usr_ana', T0 + 3),
        method: 'passkey',
      });
      expect(await ids('usr_nobody')).toEqual([]);
      // Ana cannot end Bo's session by naming it: nothing happens, and she is told so.
      expect(await store.write((tx) => tx.sessions.deleteSessionOf('usr_ana', 'b1'))).toBe(false);
      expect(await store.read((tx) => tx.sessions.getSession('b1'))).not.toBeNull();
      expect(await store.write((tx) => tx.sessions.deleteSessionOf('usr_ana', 'a1'))).toBe(true);
      expect(await store.write((tx) => tx.sessions.deleteSessionOf('usr_ana', 'a1'))).toBe(false);
      expect(await ids('usr_ana')).toEqual(['a2', 'a3']);
      // Everywhere else: all of Ana's but the one named, none of Bo's.
      expect(await store.write((tx) => tx.sessions.deleteSessionsOf('usr_ana', 'a3'))).toBe(1);
      expect(await ids('usr_ana')).toEqual(['a3']);
      expect(await ids('usr_bo')).toEqual(['b1']);
      // Another person's session as the one to keep keeps none of Ana's, and ends none of Bo's.
      expect(await store.write((tx) => tx.sessions.deleteSessionsOf('usr_ana', 'b1'))).toBe(1);
      expect(await ids('usr_ana')).toEqual([]);
      expect(await ids('usr_bo')).toEqual(['b1']);
    });

    it('passkeys: one per credential id, listed per person, counters kept; challenges spent once, expired ones swept', async () => {
      await store.write(async (tx) => {
        await tx.tenants.putTenant({
          id: 't1',
          name: 't1',
          limits: defaultTenantLimits,
          defaultWritePolicy: 'draft',
          toolProfile: 'inherit',
          toolMode: 'inherit',
          approvalWindowMinutes: 30,
          disabledTools: [],
          createdAt: T0,
        });
        await tx.people.insertPerson(person('usr_ana', 'ana@example.com'));
        await tx.people.insertPerson(person('usr_bob', 'bob@example.com'));
      });
      const key = {
        id: 'cred-1',
        tenantId: 't1',
        personId: 'usr_ana',
        name: 'laptop',
        publicKey: 'pk',
        counter: 0,
        transports: ['internal'],
        rpId: 'localhost',
        createdAt: T0,
        lastUsedAt: null,
      };
      expect(await store.write((tx) => tx.passkeys.insert(key))).toBe(true);
      expect(await store.write((tx) => tx.passkeys.insert({ ...key, personId: 'usr_bob' }))).toBe(false);
      await store.write((tx) => tx.passkeys.recordUse('cred-1', 7, T0 + 5));
      expect(await store.read((tx) => tx.passkeys.get('cred-1'))).toEqual({
        ...key,
        counter: 7,
        lastUsedAt: T0 + 5,
      });
      // An authenticator that keeps no counter reports 0 every time: always recorded.
      await store.write((tx) => tx.passkeys.insert({ ...key, id: 'cred-0' }));
      expect(await store.write((tx) => tx.passkeys.recordUse('cred-0', 0, T0 + 1))).toBe(true);
      expect(await store.write((tx) => tx.passkeys.recordUse('cred-0', 0, T0 + 2))).toBe(true);
      await store.write((tx) => tx.passkeys.remove('usr_ana', 'cred-0'));
      expect(await store.read((tx) => tx.passkeys.listOf('usr_bob'))).toEqual([]);
      expect(await store.write((tx) => tx.passkeys.remove('usr_bob', 'cred-1'))).toBe(false);
      expect(await store.write((tx) => tx.passkeys.remove('usr_ana', 'cred-1'))).toBe(true);
      expect(await store.read((tx) => tx.passkeys.listOf('usr_ana'))).toEqual([]);

      const challenge = {
        challenge: 'ch-1',
        purpose: 'sign-in' as const,
        personId: null,
        rpId: 'localhost',
        expiresAt: T0 + 60_000,
      };
      await store.write((tx) => tx.passkeys.insertChallenge(challenge, T0));
      expect(await store.read((tx) => tx.passkeys.countOpenChallenges('sign-in', T0))).toBe(1);
      expect(await store.read((tx) => tx.passkeys.countOpenChallenges('register', T0))).toBe(0);
      expect(await store.write((tx) => tx.passkeys.spendChallenge('ch-1', 'register', T0))).toBeNull();
      const spent = await Promise.all([
        store.write((tx) => tx.passkeys.spendChallenge('ch-1', 'sign-in', T0)),
        store.write((tx) => tx.passkeys.spendChallenge('ch-1', 'sign-in', T0)),
      ]);
      expect(spent.filter(Boolean)).toEqual([challenge]);
      // Expired: refused when answered, and swept when the next ceremony starts.
      await store.write((tx) => tx.passkeys.insertChallenge({ ...challenge, challenge: 'ch-2' }, T0));
      expect(
        await store.write((tx) => tx.passkeys.spendChallenge('ch-2', 'sign-in', T0 + 60_000)),
      ).toBeNull();
      await store.write((tx) => tx.passkeys.insertChallenge({ ...challenge, challenge: 'ch-3' }, T0));
      await store.write((tx) =>
        tx.passkeys.insertChallenge({ ...challenge, challenge: 'ch-4', expiresAt: T0 + 3 * H }, T0 + H),
      );
      expect(await store.write((tx) => tx.passkeys.spendChallenge('ch-3', 'sign-in', T0))).toBeNull();
      expect(await store.write((tx) => tx.passkeys.spendChallenge('ch-4', 'sign-in', T0 + H))).not.toBeNull();
    });

    it('oauth: records found while live, by id, uid or user code; a grant revoked with all it issued; keys rotated; connections per tenant', async () => {
      const record = (kind: string, id: string, extra: Partial<OAuthRecord> = {}): OAuthRecord => ({
        kind,
        id,
        payload: JSON.stringify({ kind, id }),
        grantId: null,
        uid: null,
        userCode: null,
        expiresAt: T0 + H,
        consumedAt: null,
        ...extra,
      });
      await store.write(async (tx) => {
        await tx.oauth.upsert(record('Client', 'cl-1', { expiresAt: null }));
        await tx.oauth.upsert(record('Interaction', 'in-1', { uid: 'uid-1' }));
        await tx.oauth.upsert(record('DeviceCode', 'dc-1', { userCode: 'ABCD' }));
        await tx.oauth.upsert(record('Grant', 'gr-1'));
        await tx.oauth.upsert(record('AuthorizationCode', 'ac-1', { grantId: 'gr-1' }));
        await tx.oauth.upsert(record('RefreshToken', 'rt-1', { grantId: 'gr-1' }));
        await tx.oauth.upsert(record('RefreshToken', 'rt-2', { grantId: 'gr-2' }));
      });
      expect((await store.read((tx) => tx.oauth.find('Client', 'cl-1', T0 + 100 * H)))!.payload).toContain(
        'cl-1',
      );
      expect(await store.read((tx) => tx.oauth.findByUid('Interaction', 'uid-1', T0))).toMatchObject({
        id: 'in-1',
      });
      expect(await store.read((tx) => tx.oauth.findByUserCode('DeviceCode', 'ABCD', T0))).toMatchObject({
        id: 'dc-1',
      });
      // Expired: gone for find, and for the sweep.
      expect(await store.read((tx) => tx.oauth.find('Interaction', 'in-1', T0 + H))).toBeNull();
      // An upsert replaces the payload; a consumed code says when.
      await store.write((tx) =>
        tx.oauth.upsert(record('AuthorizationCode', 'ac-1', { grantId: 'gr-1', payload: '{"v":2}' })),
      );
      await store.write((tx) => tx.oauth.consume('AuthorizationCode', 'ac-1', T0 + 5));
      expect(await store.read((tx) => tx.oauth.find('AuthorizationCode', 'ac-1', T0))).toMatchObject({
        payload: '{"v":2}',
        consumedAt: T0 + 5,
      });

      const connection = {
        grantId: 'gr-1',
        tenantId: 't1',
        personId: 'usr_ana',
        clientId: 'cl-1',
        clientName: 'Host',
        redirectHost: '127.0.0.1:9',
        scopes: ['read', 'draft'] as Scope[],
        writePolicy: 'draft' as const,
        createdAt: T0,
        revokedAt: null,
        lastUsedAt: null,
      };
      await store.write(async (tx) => {
        await tx.tenants.putTenant({
          id: 't1',
          name: 't1',
          limits: defaultTenantLimits,
          defaultWritePolicy: 'draft',
          toolProfile: 'inherit',
          toolMode: 'inherit',
          approvalWindowMinutes: 30,
          disabledTools: [],
          createdAt: T0,
        });
        await tx.tenants.putTenant({
          id: 't2',
          name: 't2',
          limits: defaultTenantLimits,
          defaultWritePolicy: 'draft',
          toolProfile: 'inherit',
          toolMode: 'inherit',
          approvalWindowMinutes: 30,
          disabledTools: [],
          createdAt: T0,
        });
        await tx.people.insertPerson(person('usr_ana', 'ana@example.com'));
        await tx.people.insertPerson({ ...person('usr_zed', 'zed@example.com'), tenantId: 't2' });
      });
      await store.write((tx) => tx.oauth.insertConnection(connection));
      await store.write((tx) =>
        tx.oauth.insertConnection({ ...connection, grantId: 'gr-9', tenantId: 't2', personId: 'usr_zed' }),
      );
      expect(await store.read((tx) => tx.oauth.getConnection('gr-1'))).toEqual(connection);
      expect((await store.read((tx) => tx.oauth.listConnections('t1'))).map((c) => c.grantId)).toEqual([
        'gr-1',
      ]);
      expect(await store.read((tx) => tx.oauth.listConnections('t1', 'usr_bob'))).toEqual([]);
      await store.write((tx) => tx.oauth.touchConnection('gr-1', T0 + 7));
      expect((await store.read((tx) => tx.oauth.getConnection('gr-1')))!.lastUsedAt).toBe(T0 + 7);
      const narrower = { scopes: ['read'] as const, writePolicy: 'readonly' as const };
      expect(await store.write((tx) => tx.oauth.updateConnectionAccess('t2', 'gr-1', narrower))).toBe(false);
      expect(await store.write((tx) => tx.oauth.updateConnectionAccess('t1', 'gr-1', narrower))).toBe(true);
      expect(await store.read((tx) => tx.oauth.getConnection('gr-1'))).toMatchObject(narrower);
      // Another tenant cannot revoke it; its own revocation takes the grant and everything it issued.
      expect(await store.write((tx) => tx.oauth.revokeConnection('t2', 'gr-1', T0))).toBe(false);
      await store.write((tx) => tx.oauth.revokeGrant('gr-1', T0 + 8));
      for (const [kind, id] of [
        ['Grant', 'gr-1'],
        ['AuthorizationCode', 'ac-1'],
        ['RefreshToken', 'rt-1'],
      ])
        expect(await store.read((tx) => tx.oauth.find(kind!, id!, T0)), `${kind} ${id}`).toBeNull();
      expect(await store.read((tx) => tx.oauth.find('RefreshToken', 'rt-2', T0))).not.toBeNull();
      expect((await store.read((tx) => tx.oauth.getConnection('gr-1')))!.revokedAt).toBe(T0 + 8);
      expect(await store.write((tx) => tx.oauth.revokeConnection('t1', 'gr-1', T0 + 9))).toBe(false);
      expect(await store.write((tx) => tx.oauth.updateConnectionAccess('t1', 'gr-1', narrower))).toBe(false);
      await store.write((tx) => tx.oauth.destroy('Client', 'cl-1'));
      expect(await store.read((tx) => tx.oauth.find('Client', 'cl-1', T0))).toBeNull();
      // A client someone connected is kept past its registration's expiry.
      await store.write((tx) => tx.oauth.upsert(record('Client', 'cl-3')));
      await store.write((tx) => tx.oauth.keepClient('cl-3'));
      expect(await store.read((tx) => tx.oauth.find('Client', 'cl-3', T0 + 100 * H))).not.toBeNull();
      // Expired records swept; a record without expiry never.
      await store.write((tx) => tx.oauth.upsert(record('Client', 'cl-2', { expiresAt: null })));
      expect(await store.write((tx) => tx.oauth.sweep(T0 + 2 * H))).toBe(3);
      expect(await store.read((tx) => tx.oauth.find('Client', 'cl-2', T0 + 2 * H))).not.toBeNull();

      // Signing keys: one active, the rest retired with a time; retired ones removed when due.
      const key = (kid: string, createdAt: number) => ({
        kid,
        sealed: `sealed-${kid}`,
        createdAt,
        retiredAt: null,
      });
      await store.write(async (tx) => {
        await tx.oauth.addSigningKey(key('k1', T0));
        await tx.oauth.addSigningKey(key('k2', T0 + 1));
        await tx.oauth.retireSigningKeysExcept('k2', T0 + 2);
      });
      expect(await store.read((tx) => tx.oauth.signingKeys())).toEqual([
        key('k2', T0 + 1),
        { ...key('k1', T0), retiredAt: T0 + 2 },
      ]);
      expect(await store.write((tx) => tx.oauth.removeRetiredSigningKeys(T0 + 2))).toBe(0);
      expect(await store.write((tx) => tx.oauth.removeRetiredSigningKeys(T0 + 3))).toBe(1);
      expect((await store.read((tx) => tx.oauth.signingKeys())).map((k) => k.kid)).toEqual(['k2']);
    });

    it('a hold past the person’s held calendar-hours is `full`; heldBy sums length × calendars of live holds', async () => {
      // At most 4 calendar-hours held at once.
      const cap = (hold: Booking) => ({
        perPerson: 100,
        perConnection: 100,
        heldMsPerPerson: 4 * H,
        thisHoldMs: (hold.end - hold.start) * hold.calendarIds.length,
      });
      const twoRooms = hold(['cal_a', 'cal_b'], T0 + H, T0 + 2 * H); // 2 calendar-hours
      const twoHours = hold(['cal_a'], T0 + 3 * H, T0 + 5 * H); // 2 more: 4 in all
      const oneMore = hold(['cal_b'], T0 + 6 * H, T0 + 7 * H); // would be 5
      for (const b of [twoRooms, twoHours])
        expect(
          (await store.writeOne((tx) => tx.bookings.placeHold(planFor(b, { cap: cap(b) })))).outcome,
        ).toBe('placed');
      expect(
        (await store.writeOne((tx) => tx.bookings.placeHold(planFor(oneMore, { cap: cap(oneMore) }))))
          .outcome,
      ).toBe('full');
      expect(await store.read((tx) => tx.bookings.get('t1', oneMore.id))).toBeNull();
      expect(await store.read((tx) => tx.bookings.heldBy('t1', 'sub', T0))).toEqual({
        holds: 2,
        calendarMs: 4 * H,
        firstExpiry: twoRooms.expiresAt,
      });
      // Once they lapse, nothing is held.
      expect(await store.read((tx) => tx.bookings.heldBy('t1', 'sub', T0 + 24 * H))).toEqual({
        holds: 0,
        calendarMs: 0,
        firstExpiry: null,
      });
    });

    it('a hold beyond the cap of its person or its connection is `full` and writes nothing; a retry replays', async () => {
      const cap = { perPerson: 2, perConnection: 1, heldMsPerPerson: null, thisHoldMs: 0 };
      const first = hold(['cal_a'], T0 + H, T0 + 2 * H);
      expect((await store.writeOne((tx) => tx.bookings.placeHold(planFor(first, { cap })))).outcome).toBe(
        'placed',
      );
      const sameConnection = hold(['cal_a'], T0 + 3 * H, T0 + 4 * H);
      expect(
        (await store.writeOne((tx) => tx.bookings.placeHold(planFor(sameConnection, { cap })))).outcome,
      ).toBe('full');
      expect(await store.read((tx) => tx.bookings.get('t1', sameConnection.id))).toBeNull();
      // The retry of the placed one replays even at the cap.
      expect((await store.writeOne((tx) => tx.bookings.placeHold(planFor(first, { cap })))).outcome).toBe(
        'replay',
      );
      const otherConnection = hold(['cal_a'], T0 + 5 * H, T0 + 6 * H, {
        owner: { subject: 'sub', clientId: 'cli', connectionId: 'conn-2' },
      });
      expect(
        (await store.writeOne((tx) => tx.bookings.placeHold(planFor(otherConnection, { cap })))).outcome,
      ).toBe('placed');
      const third = hold(['cal_a'], T0 + 7 * H, T0 + 8 * H, {
        owner: { subject: 'sub', clientId: 'cli', connectionId: 'conn-3' },
      });
      expect((await store.writeOne((tx) => tx.bookings.placeHold(planFor(third, { cap })))).outcome).toBe(
        'full',
      );
      // An hour later the earlier holds (five minutes each) have lapsed and no longer count.
      const later = hold(['cal_a'], T0 + 9 * H, T0 + 10 * H, { createdAt: T0 + H, expiresAt: T0 + 2 * H });
      expect(
        (
          await store.writeOne((tx) =>
            tx.bookings.placeHold(
              planFor(later, {
                cap: { perPerson: 2, perConnection: 9, heldMsPerPerson: null, thisHoldMs: 0 },
              }),
            ),
          )
        ).outcome,
      ).toBe('placed');
    });

    it('reads never see a write that has not committed', async () => {
      const b = hold(['cal_a'], T0 + H, T0 + 2 * H);
      let releaseWriter!: () => void;
      const gate = new Promise<void>((resolve) => (releaseWriter = resolve));
      const writing = store.write(async (tx) => {
        await insertHold(tx, b);
        await gate;
      });
      // Give the write time to reach the database, then read while it is open.
      await new Promise((resolve) => setTimeout(resolve, 50));
      expect(await store.read((tx) => tx.bookings.get('t1', b.id))).toBeNull();
      releaseWriter();
      await writing;
      expect(await store.read((tx) => tx.bookings.get('t1', b.id))).toEqual(b);
    });
  });
}
