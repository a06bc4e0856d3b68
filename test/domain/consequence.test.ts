import { describe, expect, it } from 'vitest';
import type { ConsequenceAction, PaymentStanding } from '../../src/domain/approval/consequence.js';
import { consequenceOf, paymentStandingOf } from '../../src/domain/approval/consequence.js';

const actions: ConsequenceAction[] = ['confirm', 'cancel', 'move'];
const payments: PaymentStanding[] = ['none', 'pending', 'paid', 'failed'];
const prices = [null, { amount: '500.00', currency: 'CNY' }] as const;

const when = 'Thu 3 Dec 2026, 08:00–09:00 (Shanghai)';
const movedFromWhen = 'Wed 2 Dec 2026, 08:00–09:00 (Shanghai)';

/** What each action says about the time, whatever the money. */
const timeWords: Record<ConsequenceAction, RegExp> = {
  confirm: /^Books Room 1 for Mei Chen on Thu 3 Dec 2026, 08:00–09:00 \(Shanghai\)/,
  cancel: /^Cancels Mei Chen's booking on Thu 3 Dec 2026, 08:00–09:00 \(Shanghai\).*free for others/,
  move: /^Moves Mei Chen's booking \(Room 1\) from Wed 2 Dec 2026, 08:00–09:00 \(Shanghai\) to Thu 3 Dec/,
};

/** The money sentence of every priced combination: the heart of what a person approves. */
const pricedMoney: Record<ConsequenceAction, Record<PaymentStanding, RegExp>> = {
  confirm: {
    none: /^Mei Chen pays 500\.00 CNY: the booking is confirmed only once the payment provider reports 500\.00 CNY paid/,
    pending: /^Mei Chen pays 500\.00 CNY: the booking is confirmed only once/,
    paid: /^Mei Chen already paid 500\.00 CNY: nothing more is charged\.$/,
    failed: /^The payment of 500\.00 CNY failed: the booking cannot be confirmed and nothing is charged\.$/,
  },
  cancel: {
    none: /^500\.00 CNY was never paid: nothing is owed back\.$/,
    pending: /^The payment of 500\.00 CNY has not cleared: nothing is owed back now/,
    paid: /^Mei Chen paid 500\.00 CNY: approving makes 500\.00 CNY owed back to Mei Chen\.$/,
    failed: /^The payment of 500\.00 CNY failed: nothing was taken and nothing is owed back\.$/,
  },
  move: {
    none: /^500\.00 CNY is not paid yet; .*charges nothing new\.$/,
    pending: /^500\.00 CNY is not paid yet; .*charges nothing new\.$/,
    paid: /^Mei Chen already paid 500\.00 CNY; the payment moves with the booking: nothing new is charged and nothing is owed back\.$/,
    failed: /^The payment of 500\.00 CNY failed; moving charges nothing new/,
  },
};

const freeMoney: Record<ConsequenceAction, string> = {
  confirm: 'Nothing is charged: the booking is free.',
  cancel: 'No money is involved: the booking was free.',
  move: 'No money is involved: the booking is free.',
};

const combinations = actions.flatMap((action) =>
  payments.flatMap((payment) => prices.map((price) => ({ action, payment, price }))),
);

describe('the statement of consequence of every action × payment state × price', () => {
  it('covers 3 actions × 4 payment states × 2 prices', () => {
    expect(combinations).toHaveLength(24);
  });

  it.each(combinations)('$action, payment $payment, price $price.amount', ({ action, payment, price }) => {
    const said = consequenceOf({
      action,
      payment,
      price,
      customerName: 'Mei Chen',
      calendars: 'Room 1',
      when,
      ...(action === 'move' ? { movedFromWhen } : {}),
    });
    expect(said.time).toMatch(timeWords[action]);
    if (price) expect(said.money).toMatch(pricedMoney[action][payment]);
    else expect(said.money).toBe(freeMoney[action]);
    // Money owed back exactly when a paid, priced booking is cancelled.
    const owed = action === 'cancel' && payment === 'paid' && price !== null;
    expect(said.refundDue).toEqual(owed ? { amount: '500.00', currency: 'CNY' } : null);
    expect(said.customer.includes('owed 500.00 CNY back')).toBe(owed);
    expect(said.customer).toMatch(/^Mei Chen /);
    // A free booking's words never mention a currency.
    if (!price) expect(`${said.time} ${said.money} ${said.customer}`).not.toContain('CNY');
  });

  it('says "the customer" when the booking has no name', () => {
    const said = consequenceOf({
      action: 'cancel',
      payment: 'paid',
      price: { amount: '20.00', currency: 'EUR' },
      customerName: null,
      calendars: 'Room 1 and Room 2',
      when,
    });
    expect(said.time).toBe(
      "Cancels the customer's booking on Thu 3 Dec 2026, 08:00–09:00 (Shanghai) (Room 1 and Room 2); the time becomes free for others.",
    );
    expect(said.money).toBe(
      'The customer paid 20.00 EUR: approving makes 20.00 EUR owed back to the customer.',
    );
    expect(said.customer).toBe('The customer loses this booking and is owed 20.00 EUR back.');
  });

  it.each([
    [null, 'none'],
    [{ status: 'PENDING' }, 'pending'],
    [{ status: 'PAID' }, 'paid'],
    [{ status: 'FAILED' }, 'failed'],
    [{ status: 'CLOSED' }, 'failed'],
  ] as const)('reads payment %j as %s', (payment, standing) => {
    expect(paymentStandingOf(payment)).toBe(standing);
  });
});

describe('the statement of a series or several bookings at once', () => {
  it('speaks of the bookings, plural, for confirming and cancelling several dates', () => {
    const facts = {
      payment: 'pending' as const,
      price: { amount: '120.00', currency: 'EUR' },
      customerName: 'Ana Lima',
      calendars: 'Room 1',
      when: '3 dates, from Mon 7 Dec 2026, 18:00–19:00 (UTC) to Fri 11 Dec 2026, 18:00–19:00 (UTC) (each listed)',
      dates: 3,
    };
    const confirm = consequenceOf({ ...facts, action: 'confirm' });
    expect(confirm.time).toMatch(/nobody else can take those times\.$/);
    expect(confirm.money).toMatch(/^Ana Lima pays 120\.00 EUR: the bookings are confirmed only once/);
    expect(confirm.customer).toBe('Ana Lima gets 3 confirmed bookings once the payment clears.');
    const cancel = consequenceOf({ ...facts, action: 'cancel', payment: 'paid' });
    expect(cancel.time).toMatch(/^Cancels Ana Lima's 3 bookings on .*those times become free for others\.$/);
    expect(cancel.customer).toBe('Ana Lima loses these 3 bookings and is owed 120.00 EUR back.');
    expect(consequenceOf({ ...facts, action: 'confirm', price: null }).money).toBe(
      'Nothing is charged: the bookings are free.',
    );
  });
});
