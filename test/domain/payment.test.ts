import { describe, expect, it } from 'vitest';
import type { Booking } from '../../src/domain/booking/booking.js';
import { DomainError } from '../../src/domain/errors.js';
import type { PaymentReport } from '../../src/domain/payment/payment.js';
import { judgePayment } from '../../src/domain/payment/payment.js';
import { heldBooking } from '../support/booking-fixture.js';

const T0 = Date.UTC(2030, 0, 7, 9);
const priced: Booking = heldBooking(T0, {
  price: { amount: '500.00', currency: 'CNY' },
  payment: { status: 'PENDING', paidAt: null },
});

const paid: PaymentReport = {
  bookingId: 'bk_1',
  status: 'PAID',
  amount: '500.00',
  currency: 'CNY',
  paidAt: T0,
};

function codeOf(report: PaymentReport): string {
  try {
    return judgePayment(priced, report);
  } catch (error) {
    if (error instanceof DomainError) return error.code;
    throw error;
  }
}

describe('judging what the payment provider reports', () => {
  it('PAID counts only with the exact booking id, amount string, currency and a paidAt', () => {
    expect(codeOf(paid)).toBe('PAID');
    expect(codeOf({ ...paid, amount: '500.0' })).toBe('PAYMENT_MISMATCH');
    expect(codeOf({ ...paid, currency: 'cny' })).toBe('PAYMENT_MISMATCH');
    expect(codeOf({ ...paid, bookingId: 'bk_2' })).toBe('PAYMENT_MISMATCH');
    // The contract: PAID must carry paidAt. Without it nothing is confirmed, from any provider.
    expect(codeOf({ ...paid, paidAt: null })).toBe('PAYMENT_UNAVAILABLE');
  });

  it('passes other statuses through as they are', () => {
    for (const status of ['PENDING', 'FAILED', 'CLOSED'] as const)
      expect(codeOf({ ...paid, status, paidAt: null })).toBe(status);
  });
});
