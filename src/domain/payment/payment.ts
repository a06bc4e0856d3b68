import type { Booking } from '../booking/booking.js';
import { DomainError } from '../errors.js';
import type { Instant } from '../time/instant.js';

export const paymentStatuses = ['PENDING', 'PAID', 'FAILED', 'CLOSED'] as const;
export type PaymentStatus = (typeof paymentStatuses)[number];

/** What the payment provider says about the payment whose query id is the booking id. */
export interface PaymentReport {
  readonly bookingId: string;
  readonly status: PaymentStatus;
  readonly amount: string | null;
  readonly currency: string | null;
  readonly paidAt: Instant | null;
}

export type PaymentVerdict = 'PAID' | 'PENDING' | 'FAILED' | 'CLOSED';

/**
 * A PAID report counts only when booking id, amount string and currency match exactly, and it
 * says when the money arrived: PAID without `paidAt` is not an answer (the contract requires it),
 * whichever provider sent it.
 */
export function judgePayment(booking: Pick<Booking, 'id' | 'price'>, report: PaymentReport): PaymentVerdict {
  if (report.status !== 'PAID') return report.status;
  if (report.paidAt === null)
    throw new DomainError(
      'PAYMENT_UNAVAILABLE',
      'The payment provider said PAID without saying when (paidAt): that is not an answer. Nothing was confirmed; try again later.',
      { bookingId: booking.id },
    );
  const price = booking.price;
  const matches =
    report.bookingId === booking.id &&
    price !== null &&
    report.amount === price.amount &&
    report.currency === price.currency;
  if (!matches) {
    throw new DomainError(
      'PAYMENT_MISMATCH',
      'The payment does not match this booking (id, amount or currency).',
      {
        bookingId: booking.id,
        expected: price,
        reported: { bookingId: report.bookingId, amount: report.amount, currency: report.currency },
      },
    );
  }
  return 'PAID';
}
