import type { Booking } from '../../domain/booking/booking.js';
import { flagPaidAfterLapse } from '../../domain/booking/booking.js';
import type { Principal } from '../../domain/identity/principal.js';
import { DomainError } from '../../domain/errors.js';
import type { PaymentVerdict } from '../../domain/payment/payment.js';
import { judgePayment } from '../../domain/payment/payment.js';
import { PaymentUnavailableError } from '../../ports/payment-query.js';
import type { CallContext } from '../call-context.js';
import { refusedWith } from '../call-context.js';
import type { AppDeps } from '../deps.js';
import { loadOwnBooking } from '../booking/snapshot.js';

/**
 * The payment side of a confirmation: the provider is asked outside any transaction; a priced
 * booking is confirmed only once its money cleared, and money that arrives for a hold that
 * lapsed is flagged for a person, never confirmed.
 */

/** Asks the provider; PAYMENT_PENDING while the money has not cleared (the hold is kept). */
export async function requireCleared(
  deps: AppDeps,
  /** A booking, or a series paid as one (its id, the sum, its first hold's expiry). */
  booking: Pick<Booking, 'id' | 'price' | 'expiresAt'>,
  traceId: string,
): Promise<{ verdict: PaymentVerdict; paidAt: number | null }> {
  const answer = await queryPayment(deps, booking, traceId);
  if (answer.verdict === 'PENDING') {
    throw new DomainError('PAYMENT_PENDING', 'The payment has not cleared yet; the hold is kept.', {
      bookingId: booking.id,
      holdExpiresAt: booking.expiresAt,
    });
  }
  return answer;
}

async function queryPayment(
  deps: AppDeps,
  booking: Pick<Booking, 'id' | 'price'>,
  traceId: string,
): Promise<{ verdict: PaymentVerdict; paidAt: number | null }> {
  try {
    const report = await deps.payments.queryPayment(booking.id, { traceId });
    return { verdict: judgePayment(booking, report), paidAt: report.paidAt };
  } catch (error) {
    if (error instanceof PaymentUnavailableError) {
      const why = error.message ? ` (${error.message})` : '';
      throw new DomainError('PAYMENT_UNAVAILABLE', `The payment provider gave no usable answer${why}.`, {
        bookingId: booking.id,
      });
    }
    throw error;
  }
}

/**
 * A priced hold lapsed: nothing will be confirmed, but if the customer paid anyway the money
 * needs a person. Read-only query; the booking is flagged with the call's audit record.
 */
export async function flagLatePayment(
  deps: AppDeps,
  principal: Principal,
  booking: Booking,
  call: CallContext,
): Promise<void> {
  if (booking.payment?.reconciliationRequired) throw lateMoney(booking);
  const paidAt = await queryPayment(deps, booking, call.traceId).then(
    (r) => (r.verdict === 'PAID' ? (r.paidAt ?? deps.clock.now()) : undefined),
    () => undefined,
  );
  if (paidAt === undefined) return;
  const flagged = await deps.store.write(async (tx) => {
    const current = await loadOwnBooking(tx, principal, booking.id);
    const next = flagPaidAfterLapse(current, paidAt, deps.clock.now());
    await tx.bookings.update(next);
    await call.audit?.recordIn(tx, refusedWith(lateMoney(next)));
    return next;
  });
  throw lateMoney(flagged);
}

/** HOLD_EXPIRED for a hold whose money a person must settle; says whether it was paid in time. */
export function lateMoney(booking: Booking): DomainError {
  const paidAt = booking.payment?.paidAt ?? null;
  const paidInTime = paidAt !== null && booking.expiresAt !== null && paidAt <= booking.expiresAt;
  return new DomainError(
    'HOLD_EXPIRED',
    paidInTime
      ? 'The hold lapsed before it was confirmed, although the payment had cleared in time; a human must reconcile it.'
      : 'Payment arrived after the hold lapsed; a human must reconcile it.',
    { bookingId: booking.id, reconciliationRequired: true },
  );
}
