import { randomUUID } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { candidateOf } from '../../../src/app/approvals/standing-rules.js';
import { gatedBookingChange } from '../../../src/app/booking/gated-booking.js';
import { holdSlot } from '../../../src/app/booking/hold-slot.js';
import { getBooking } from '../../../src/app/booking/read-bookings.js';
import { createCalendar } from '../../../src/app/calendars/calendars.js';
import type { StandingRule } from '../../../src/domain/approval/standing-rule.js';
import type { DomainError } from '../../../src/domain/errors.js';
import type { Principal } from '../../../src/domain/identity/principal.js';
import { appHarnessOn, operator } from '../../support/app-harness.js';

// The moments a standing rule can stop applying between the check and the commit, with the
// clock injected and the payment provider as the gap: revoked while the payment is asked for;
// and a confirmation the console asks a person for on their behalf, which no rule may decide.

const T0 = Date.UTC(2030, 0, 7, 8); // Monday
const HOUR = 3_600_000;
const allDay = [{ start: '00:00', end: '24:00' }];
const open = {
  weekly: { mon: allDay, tue: allDay, wed: allDay, thu: allDay, fri: allDay, sat: allDay, sun: allDay },
  overrides: [],
};
const agent: Principal = { ...operator, writePolicy: 'draft', subject: 'usr_olga', connectionId: 'tok_1' };

const rule = (calendarId: string): StandingRule => ({
  id: 'rule_test',
  tenantId: operator.tenantId,
  personId: 'usr_olga',
  personName: 'Olga Petrova',
  connectionId: null,
  actions: ['confirm'],
  calendarIds: [calendarId],
  maxPerBooking: null,
  maxPerDay: null,
  weekdays: [1, 2, 3, 4, 5, 6, 7],
  hours: null,
  maxPerDayCount: null,
  customers: 'any',
  timeZone: 'UTC',
  createdAt: T0,
  expiresAt: T0 + 30 * 24 * HOUR,
  revokedAt: null,
  grantedVia: 'test',
  replaced: [],
});

let close: (() => Promise<void>) | undefined;
afterEach(async () => {
  // Each harness closes once: the tests that open none leave nothing to close.
  await close?.();
  close = undefined;
});

describe.each(['sqlite', 'postgres'] as const)('a standing rule between check and commit (%s)', (engine) => {
  async function setUp(price?: { amount: string; currency: string }) {
    const h = await appHarnessOn(engine, T0);
    close = () => h.close();
    const { value } = await createCalendar(h.deps, operator, {
      name: 'Dr. Lena Vogel',
      timeZone: 'UTC',
      availability: open,
      ...(price ? { price } : {}),
      idempotencyKey: randomUUID(),
    });
    await h.deps.store.write((tx) => tx.standingRules.insert(rule(value.id)));
    const hold = async (hour: number) => {
      const { value: held } = await holdSlot(h.deps, agent, {
        calendarIds: [value.id],
        start: new Date(T0 + (48 + hour) * HOUR).toISOString(),
        end: new Date(T0 + (49 + hour) * HOUR).toISOString(),
        idempotencyKey: randomUUID(),
      });
      return held.booking;
    };
    const confirm = (booking: { id: string; version: number }, personDecides = false) =>
      gatedBookingChange(
        h.deps,
        agent,
        'confirm_booking',
        { bookingId: booking.id, expectedVersion: booking.version, idempotencyKey: randomUUID() },
        { traceId: 'test', ...(personDecides ? { personDecides: true } : {}) },
      );
    return { h, hold, confirm };
  }

  it('revoked while the payment is asked for: the confirmation goes to a person, the booking stays held', async () => {
    const { h, hold, confirm } = await setUp({ amount: '80.00', currency: 'EUR' });
    const paid = (bookingId: string) => ({
      bookingId,
      status: 'PAID' as const,
      amount: '80.00',
      currency: 'EUR',
      paidAt: T0,
    });
    // Control: paid, the rule confirms it.
    const first = await hold(0);
    h.payments.set(first.id, paid(first.id));
    expect((await confirm(first)).value.booking.status).toBe('CONFIRMED');
    // The provider's answer is the gap between the check and the commit: the rule is revoked there.
    const second = await hold(2);
    const provider = h.deps.payments.queryPayment;
    h.deps.payments.queryPayment = async (bookingId) => {
      await h.deps.store.write((tx) => tx.standingRules.revoke(operator.tenantId, 'rule_test', T0));
      return paid(bookingId);
    };
    const refused = await confirm(second).catch((error: DomainError) => error);
    h.deps.payments.queryPayment = provider;
    expect((refused as DomainError).code).toBe('APPROVAL_REQUIRED');
    expect((refused as DomainError).message).toContain('standing rule: rule_test was revoked');
    expect((await getBooking(h.deps, agent, second.id)).booking.status).toBe('HELD');
  });

  it('a confirmation the console asks a person for is never decided by a rule', async () => {
    const { hold, confirm } = await setUp();
    const asked = await confirm(await hold(0), true).catch((error: DomainError) => error);
    expect((asked as DomainError).code).toBe('APPROVAL_REQUIRED');
    // The same call from the agent is the rule's to decide.
    expect((await confirm(await hold(2))).value.booking.status).toBe('CONFIRMED');
  });
});

describe('what a rule judges of a change (candidateOf)', () => {
  const booking = {
    calendarIds: ['cal_b'],
    price: { amount: '5000.00', currency: 'EUR' },
  } as unknown as Parameters<typeof candidateOf>[1];
  const times = { start: '2030-01-09T10:00:00Z', end: '2030-01-09T11:00:00Z', version: 1, bookingId: 'bk_1' };

  it("a cancellation puts the booking's price at stake: the rule's money bounds apply to it", () => {
    const candidate = candidateOf({ action: 'cancel_booking', reference: 'HF-1', ...times }, booking);
    expect(candidate).toMatchObject({ action: 'cancel', price: { amount: '5000.00', currency: 'EUR' } });
  });

  it('a move is judged on the calendars it leaves as well as those it lands on', () => {
    const candidate = candidateOf(
      {
        action: 'confirm_booking',
        calendarIds: ['cal_a'],
        amount: null,
        currency: null,
        ...times,
        replaces: { ...times, bookingId: 'bk_0', reference: 'HF-0', calendarIds: ['cal_b'] },
      },
      booking,
    );
    expect(candidate.action).toBe('move');
    expect([...candidate.calendarIds].sort()).toEqual(['cal_a', 'cal_b']);
    expect(candidate.price).toBeNull();
  });
});
