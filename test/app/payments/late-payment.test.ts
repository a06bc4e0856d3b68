import { randomUUID } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createCalendar } from '../../../src/app/calendars/calendars.js';
import { gatedBookingChange } from '../../../src/app/booking/gated-booking.js';
import { releaseHold } from '../../../src/app/booking/release-hold.js';
import { holdSlot } from '../../../src/app/booking/hold-slot.js';
import { getBooking } from '../../../src/app/booking/read-bookings.js';
import { sweep } from '../../../src/app/booking/sweep.js';
import type { DomainError } from '../../../src/domain/errors.js';
import { appHarness, operator } from '../../support/app-harness.js';

const T0 = Date.UTC(2030, 0, 7, 8);
const TTL = 5 * 60_000;
const allDay = [{ start: '00:00', end: '24:00' }];
const open = { weekly: { mon: allDay, tue: allDay, wed: allDay, thu: allDay, fri: allDay }, overrides: [] };

let h: Awaited<ReturnType<typeof appHarness>>;
let room: string;
beforeEach(async () => {
  h = await appHarness(T0);
  room = (
    await createCalendar(h.deps, operator, {
      name: 'Jade Room',
      timeZone: 'UTC',
      price: { amount: '500.00', currency: 'CNY' },
      availability: open,
      idempotencyKey: randomUUID(),
    })
  ).value.id;
});
afterEach(() => h.close());

const hold = async (start = '2030-01-07T09:00:00Z', end = '2030-01-07T10:00:00Z') =>
  (await holdSlot(h.deps, operator, { calendarIds: [room], start, end, idempotencyKey: randomUUID() })).value
    .booking;
const paid = (bookingId: string, at: number, amount = '500.00') =>
  h.payments.set(bookingId, { bookingId, status: 'PAID', amount, currency: 'CNY', paidAt: at });
const flagged = async (bookingId: string) =>
  (await getBooking(h.deps, operator, bookingId)).booking.payment?.reconciliationRequired === true;
const toReconcile = () => h.deps.store.read((tx) => tx.bookings.toReconcile(operator.tenantId));

describe('late money is always found, whichever path expired the hold', () => {
  it('the sweeper: expires the priced hold, asks the provider, flags the payment', async () => {
    const b = await hold();
    paid(b.id, T0 + TTL - 1000);
    h.clock.advance(TTL + 1);
    const result = await sweep(h.deps);
    expect(result.expired).toBe(1);
    expect(result.payments).toEqual({ asked: 1, flagged: 1, ended: 0 });
    expect(await flagged(b.id)).toBe(true);
    expect((await toReconcile()).map((x) => x.id)).toEqual([b.id]);
    const { booking } = await getBooking(h.deps, operator, b.id);
    expect(booking.status).toBe('EXPIRED');
    expect(booking.payment).toMatchObject({ status: 'PAID', paidAt: T0 + TTL - 1000 });
  });

  it('a hold that meets the lapsed one: it takes the time, the next sweep flags the money', async () => {
    const first = await hold();
    h.clock.advance(TTL + 1);
    paid(first.id, T0 + TTL + 500);
    const second = await hold();
    expect(second.status).toBe('HELD');
    expect((await getBooking(h.deps, operator, first.id)).booking.paymentFollowUp).toBe(true);
    await sweep(h.deps);
    expect(await flagged(first.id)).toBe(true);
    expect(await flagged(second.id)).toBe(false);
  });

  it('a confirm after the lapse: refused, flagged at once, and the wording says when the money came', async () => {
    const inTime = await hold();
    paid(inTime.id, T0 + 1000);
    const late = await hold('2030-01-07T11:00:00Z', '2030-01-07T12:00:00Z');
    paid(late.id, T0 + TTL + 2000);
    h.clock.advance(TTL + 5000);
    const confirm = (id: string) =>
      gatedBookingChange(
        h.deps,
        { ...operator, writePolicy: 'direct' },
        'confirm_booking',
        {
          bookingId: id,
          expectedVersion: 1,
          idempotencyKey: randomUUID(),
        },
        { traceId: 't' },
      ).then(
        () => null,
        (e: unknown) => e as DomainError,
      );
    const a = await confirm(inTime.id);
    expect(a?.code).toBe('HOLD_EXPIRED');
    expect(a?.details.reconciliationRequired).toBe(true);
    expect(a?.message).toMatch(/cleared in time/);
    const b = await confirm(late.id);
    expect(b?.message).toMatch(/arrived after the hold lapsed/);
    expect(await flagged(inTime.id)).toBe(true);
    expect(await flagged(late.id)).toBe(true);
    expect((await toReconcile()).length).toBe(2);
  });

  it('keeps asking while the provider says PENDING (less often as time passes), then flags a late PAID', async () => {
    const b = await hold();
    h.clock.advance(TTL + 1);
    expect((await sweep(h.deps)).payments).toEqual({ asked: 1, flagged: 0, ended: 0 });
    // Asked again only after the back-off (at least 30 s).
    h.clock.advance(10_000);
    expect((await sweep(h.deps)).payments.asked).toBe(0);
    h.clock.advance(30_000);
    expect((await sweep(h.deps)).payments.asked).toBe(1);
    paid(b.id, h.clock.now());
    h.clock.advance(60 * 60_000);
    expect((await sweep(h.deps)).payments).toEqual({ asked: 1, flagged: 1, ended: 0 });
    expect(await flagged(b.id)).toBe(true);
  });

  it('ends the follow-up on FAILED or CLOSED, and after a day of silence; flags a mismatched amount too', async () => {
    const failed = await hold('2030-01-07T09:00:00Z', '2030-01-07T10:00:00Z');
    const silent = await hold('2030-01-07T11:00:00Z', '2030-01-07T12:00:00Z');
    const wrong = await hold('2030-01-07T13:00:00Z', '2030-01-07T14:00:00Z');
    h.payments.set(failed.id, {
      bookingId: failed.id,
      status: 'FAILED',
      amount: null,
      currency: null,
      paidAt: null,
    });
    paid(wrong.id, T0 + 1000, '5.00');
    h.clock.advance(TTL + 1);
    expect((await sweep(h.deps)).payments).toEqual({ asked: 3, flagged: 1, ended: 1 });
    expect(await flagged(wrong.id)).toBe(true);
    expect((await getBooking(h.deps, operator, failed.id)).booking.paymentFollowUp).toBe(false);
    h.clock.advance(25 * 60 * 60_000);
    expect((await sweep(h.deps)).payments).toEqual({ asked: 1, flagged: 0, ended: 1 });
    const quiet = (await getBooking(h.deps, operator, silent.id)).booking;
    expect(quiet.paymentFollowUp).toBe(false);
    expect(quiet.payment?.reconciliationRequired ?? false).toBe(false);
  });

  it('never follows up an unpriced hold', async () => {
    const free = (
      await createCalendar(h.deps, operator, {
        name: 'Free',
        timeZone: 'UTC',
        availability: open,
        idempotencyKey: randomUUID(),
      })
    ).value.id;
    const b = (
      await holdSlot(h.deps, operator, {
        calendarIds: [free],
        start: '2030-01-07T09:00:00Z',
        end: '2030-01-07T10:00:00Z',
        idempotencyKey: randomUUID(),
      })
    ).value.booking;
    expect(b.payment).toBeNull();
    h.clock.advance(TTL + 1);
    expect((await sweep(h.deps)).payments.asked).toBe(0);
    expect((await getBooking(h.deps, operator, b.id)).booking.paymentFollowUp).toBe(false);
  });

  it('a priced hold waits for its money from the start: payment PENDING, not null', async () => {
    const b = await hold();
    expect(b.payment).toEqual({ status: 'PENDING', paidAt: null });
    expect((await getBooking(h.deps, operator, b.id)).booking.payment).toEqual({
      status: 'PENDING',
      paidAt: null,
    });
  });
});

describe('the follow-up cannot be starved or sidestepped', () => {
  it('a hundred holds the provider never heard of do not keep a paid one from being found', async () => {
    // 200 priced holds nobody ever opened checkout for, on 10 weekdays at 20 half hours each.
    const weekdays = [8, 9, 10, 11, 14, 15, 16, 17, 18, 21];
    for (const day of weekdays)
      for (let slot = 0; slot < 20; slot++) {
        const at = Date.UTC(2030, 0, day, 6) + slot * 30 * 60_000;
        await hold(new Date(at).toISOString(), new Date(at + 30 * 60_000).toISOString());
      }
    const victim = await hold('2030-01-07T09:00:00Z', '2030-01-07T10:00:00Z');
    paid(victim.id, T0 + 1000);
    // The provider answers an error for every booking it never saw (as an HTTP 404 would).
    const real = h.deps.payments.queryPayment;
    (h.deps as { payments: typeof h.deps.payments }).payments = {
      queryPayment: async (id, trace) => {
        if (!h.payments.has(id)) throw new Error('provider: unknown payment');
        return real(id, trace);
      },
    };
    h.clock.advance(TTL + 1);
    for (let pass = 0; pass < 4 && !(await flagged(victim.id)); pass++) {
      await sweep(h.deps);
      h.clock.advance(60_000);
    }
    expect(await flagged(victim.id)).toBe(true);
  });

  it('money paid for a hold the agent released is found too', async () => {
    const b = await hold();
    await releaseHold(h.deps, operator, {
      bookingId: b.id,
      expectedVersion: 1,
      idempotencyKey: randomUUID(),
    });
    paid(b.id, T0 + 2000);
    expect((await sweep(h.deps)).payments.flagged).toBe(1);
    const { booking } = await getBooking(h.deps, operator, b.id);
    expect(booking.status).toBe('RELEASED');
    expect(booking.payment).toMatchObject({ status: 'PAID', reconciliationRequired: true });
  });
});
