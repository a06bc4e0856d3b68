import type { Booking } from '../../domain/booking/booking.js';
import {
  endPaymentFollowUp,
  flagPaidAfterLapse,
  notePaymentPending,
  paymentFollowUpDue,
} from '../../domain/booking/booking.js';
import type { PaymentReport } from '../../domain/payment/payment.js';
import type { AppDeps } from '../deps.js';

export interface FollowUpResult {
  readonly asked: number;
  /** Paid after (or despite) the lapse: flagged for a person. */
  readonly flagged: number;
  readonly ended: number;
}

/**
 * Asks the payment provider about priced holds that lapsed unconfirmed, whichever path
 * expired them (sweeper, a hold that met them, a late confirm). PAID is flagged for a person
 * to reconcile; FAILED/CLOSED and long silence end the follow-up. Queries run outside any
 * transaction; each result is committed only if the booking did not move meanwhile.
 */
export async function followUpPayments(deps: AppDeps, limit = 100): Promise<FollowUpResult> {
  const now = deps.clock.now();
  const candidates = await deps.store.read((tx) => tx.bookings.paymentFollowUps(limit));
  let asked = 0;
  let flagged = 0;
  let ended = 0;
  for (const booking of candidates.filter((b) => paymentFollowUpDue(b, now))) {
    // No answer (provider down, or it never heard of the booking) counts as "not paid yet": the
    // booking goes to the back of the queue and the follow-up still ends after its window.
    const report = await deps.payments
      .queryPayment(booking.id, { traceId: deps.ids.newUuid().replace(/-/g, '') })
      .catch((): PaymentReport => ({
        bookingId: booking.id,
        status: 'PENDING',
        amount: null,
        currency: null,
        paidAt: null,
      }));
    asked++;
    const next = nextState(booking, report, deps);
    const applied = await deps.store.write(async (tx) => {
      const current = await tx.bookings.get(booking.tenantId, booking.id);
      if (!current?.paymentFollowUp || current.version !== booking.version) return false;
      await tx.bookings.update(next);
      return true;
    });
    if (applied && next.payment?.reconciliationRequired) flagged++;
    else if (applied && !next.paymentFollowUp) ended++;
  }
  return { asked, flagged, ended };
}

function nextState(booking: Booking, report: PaymentReport, deps: AppDeps): Booking {
  const now = deps.clock.now();
  // Any money, even a mismatched amount, needs a person: the customer paid for time not held.
  if (report.status === 'PAID') return flagPaidAfterLapse(booking, report.paidAt ?? now, now);
  if (report.status === 'FAILED' || report.status === 'CLOSED')
    return endPaymentFollowUp(booking, report.status, now);
  const lapsedAt = booking.expiresAt ?? booking.updatedAt;
  return now - lapsedAt > deps.config.paymentFollowUpMs
    ? endPaymentFollowUp(booking, 'NONE', now)
    : notePaymentPending(booking, now);
}
