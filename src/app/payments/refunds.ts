import type { Booking } from '../../domain/booking/booking.js';
import { markRefunded } from '../../domain/booking/booking.js';
import { DomainError } from '../../domain/errors.js';
import type { Person } from '../../domain/identity/identity.js';
import { mayApprove } from '../../domain/identity/identity.js';
import { canRefund, PaymentUnavailableError } from '../../ports/payment-query.js';
import type { BookingLine } from '../console/bookings.js';
import { linesOf } from '../console/bookings.js';
import type { AppDeps } from '../deps.js';
import type { WriteCall } from '../idempotent.js';
import { recordBookingEvent } from '../webhooks/record-booking-event.js';

/** Money owed back to customers of one tenant: cancelled paid bookings, oldest first. */
export function refundsDue(deps: AppDeps, tenantId: string): Promise<Booking[]> {
  return deps.store.read((tx) => tx.bookings.toRefund(tenantId));
}

/** How the money went back: asked of the payment provider, or returned by a person outside Holdfast. */
export type RefundWay = 'provider' | 'by-hand';

/**
 * Settles money owed back on one booking. `provider` asks the payment provider first (outside any
 * transaction; the booking id keys the refund, so a retry cannot pay twice), then records the
 * refund returned with the provider's reference; `by-hand` records what a person did elsewhere.
 */
export async function settleRefund(
  deps: AppDeps,
  tenantId: string,
  bookingId: string,
  way: RefundWay,
  by: string,
  call: WriteCall & { readonly traceId?: string } = {},
): Promise<Booking> {
  const booking = await deps.store.read((tx) => tx.bookings.get(tenantId, bookingId));
  if (!booking) throw new DomainError('NOT_FOUND', `No booking ${bookingId}.`, { bookingId });
  markRefunded(booking, deps.clock.now(), by); // refuses at once when nothing is owed
  const refund = booking.payment!.refund!;
  let reference: string | undefined;
  if (way === 'provider') {
    if (!canRefund(deps.payments))
      throw new DomainError(
        'INVALID_STATE',
        'This payment provider cannot refund; return the money yourself, then record it.',
        { bookingId },
      );
    try {
      ({ reference } = await deps.payments.requestRefund(
        bookingId,
        { amount: refund.amount, currency: refund.currency },
        { traceId: call.traceId ?? '0'.repeat(32) },
      ));
    } catch (error) {
      if (error instanceof PaymentUnavailableError)
        throw new DomainError(
          'PAYMENT_UNAVAILABLE',
          `The payment provider did not refund: ${error.message}.`,
          {
            bookingId,
          },
        );
      throw error;
    }
  }
  return deps.store.write(async (tx) => {
    const now = deps.clock.now();
    const current = await tx.bookings.get(tenantId, bookingId);
    if (!current) throw new DomainError('NOT_FOUND', `No booking ${bookingId}.`, { bookingId });
    const returned = markRefunded(current, now, by, reference);
    await tx.bookings.update(returned);
    await recordBookingEvent(tx, deps.ids, 'booking.refunded', returned, now);
    await call.audit?.recordIn(tx);
    return returned;
  });
}

/** A person settles a refund in the console: owners and approvers, who may also cancel. */
export function settleRefundAs(
  deps: AppDeps,
  person: Person,
  bookingId: string,
  way: RefundWay,
  call: WriteCall = {},
): Promise<Booking> {
  if (!mayApprove(person))
    throw new DomainError('FORBIDDEN', 'Only owners and approvers may settle money owed back.');
  const name = person.displayName ? `${person.displayName} <${person.email}>` : person.email;
  return settleRefund(deps, person.tenantId, bookingId, way, name, call);
}

/** The tenant's money to return as the console lists it (owners and approvers only). */
export async function moneyToReturn(deps: AppDeps, person: Person): Promise<BookingLine[]> {
  if (!mayApprove(person))
    throw new DomainError('FORBIDDEN', 'Only owners and approvers see money owed back.');
  return deps.store.read(async (tx) =>
    linesOf(deps, tx, person, await tx.bookings.toRefund(person.tenantId)),
  );
}

/** Whether the booking's money owed back is recorded as returned (the page's confirmation checks it). */
export async function refundReturned(deps: AppDeps, person: Person, bookingId: string): Promise<boolean> {
  const booking = await deps.store.read((tx) => tx.bookings.get(person.tenantId, bookingId));
  return booking?.payment?.refund?.status === 'RETURNED';
}
