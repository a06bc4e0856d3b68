import { DomainError } from '../errors.js';
import type { Instant } from '../time/instant.js';
import type { Money } from './money.js';
import type { Customer } from './customer.js';

export const bookingStatuses = [
  'HELD',
  'CONFIRMED',
  'CANCELLED',
  'EXPIRED',
  'RELEASED',
  'PAYMENT_FAILED',
  'PAYMENT_CLOSED',
] as const;
export type BookingStatus = (typeof bookingStatuses)[number];

export type { Customer } from './customer.js';

export interface Owner {
  /** The person the booking was made for. */
  readonly subject: string;
  readonly clientId: string;
  /** The connection that made it (a token id, `stdio`); '' for bookings older than connections. */
  readonly connectionId: string;
}

export interface PaymentState {
  readonly status: 'PENDING' | 'PAID' | 'FAILED' | 'CLOSED';
  readonly paidAt: Instant | null;
  /** Paid, but the hold had lapsed: money arrived for time we no longer hold. A human must settle it. */
  readonly reconciliationRequired?: boolean;
  /** When the follow-up of a lapsed hold last asked the provider (and heard PENDING). */
  readonly checkedAt?: Instant;
  /** Money owed back: a paid booking was cancelled. Recorded in the cancelling transaction. */
  readonly refund?: Refund;
}

export interface Refund {
  readonly status: 'DUE' | 'RETURNED';
  readonly amount: string;
  readonly currency: string;
  readonly dueAt: Instant;
  readonly returnedAt?: Instant;
  /** Who recorded it returned: "Olga Petrova <olga@example.com>", "operator-cli". */
  readonly returnedBy?: string;
  /** The payment provider's reference of the refund, when it was asked to make it. */
  readonly providerReference?: string;
}

export interface ExternalKeys {
  readonly confirmationNumber?: string;
  readonly groupCode?: string;
  readonly externalReservationNumber?: string;
}

export interface Booking {
  readonly id: string;
  readonly tenantId: string;
  readonly reference: string;
  readonly calendarIds: readonly string[];
  readonly start: Instant;
  readonly end: Instant;
  readonly status: BookingStatus;
  readonly version: number;
  readonly createdAt: Instant;
  readonly updatedAt: Instant;
  readonly expiresAt: Instant | null;
  readonly customer: Customer | null;
  readonly label: string | null;
  readonly price: Money | null;
  readonly payment: PaymentState | null;
  readonly owner: Owner;
  readonly externalKeys: ExternalKeys;
  /**
   * A priced hold lapsed unconfirmed: the provider must still be asked whether the customer
   * paid anyway, so late money is always found and flagged for a person.
   */
  readonly paymentFollowUp: boolean;
  /** A replacement hold made by reschedule_booking: the confirmed booking it moves, once confirmed. */
  readonly replaces?: string | null;
  /** The recurring series (`ser_…`) this booking is one occurrence of; held, approved and paid as one. */
  readonly seriesId?: string | null;
  /** A hold made by a change set (`chg_…`): confirmed only with the set, by confirm_changes. */
  readonly changeSetId?: string | null;
  /** The customer's details were erased (on request, or by the tenant's retention): `customer` is null for good. */
  readonly customerErased?: boolean;
}

const transitions: Readonly<Record<BookingStatus, readonly BookingStatus[]>> = {
  HELD: ['CONFIRMED', 'EXPIRED', 'RELEASED', 'PAYMENT_FAILED', 'PAYMENT_CLOSED'],
  CONFIRMED: ['CANCELLED'],
  CANCELLED: [],
  EXPIRED: [],
  RELEASED: [],
  PAYMENT_FAILED: [],
  PAYMENT_CLOSED: [],
};

/** Statuses whose allocations occupy the calendar. */
export function occupiesTime(status: BookingStatus): boolean {
  return status === 'HELD' || status === 'CONFIRMED';
}

export function isHoldLapsed(booking: Booking, now: Instant): boolean {
  return booking.status === 'HELD' && booking.expiresAt !== null && booking.expiresAt <= now;
}

/** What a reader should see: a lapsed hold is EXPIRED even before the sweeper writes it. */
export function effectiveStatus(booking: Booking, now: Instant): BookingStatus {
  return isHoldLapsed(booking, now) ? 'EXPIRED' : booking.status;
}

export function assertVersion(booking: Booking, expectedVersion: number): void {
  if (booking.version !== expectedVersion) {
    throw new DomainError(
      'VERSION_CONFLICT',
      `Booking ${booking.id} is at version ${booking.version}, not ${expectedVersion}.`,
      { bookingId: booking.id, currentVersion: booking.version, expectedVersion },
    );
  }
}

function transition(booking: Booking, to: BookingStatus, now: Instant): Booking {
  if (!transitions[booking.status].includes(to)) {
    throw new DomainError('INVALID_STATE', `A ${booking.status} booking cannot become ${to}.`, {
      bookingId: booking.id,
      status: booking.status,
      requested: to,
    });
  }
  return {
    ...booking,
    status: to,
    version: booking.version + 1,
    updatedAt: now,
    // An expired hold keeps its deadline for the record; every other non-hold has none.
    expiresAt: to === 'HELD' || to === 'EXPIRED' ? booking.expiresAt : null,
  };
}

function assertHoldLive(booking: Booking, now: Instant): void {
  if (isHoldLapsed(booking, now)) {
    throw new DomainError('HOLD_EXPIRED', `The hold on booking ${booking.id} expired.`, {
      bookingId: booking.id,
      expiredAt: booking.expiresAt,
    });
  }
}

/** A lapsed hold ends; if it had a price, its payment is followed up (money may still arrive). */
export function expireHold(booking: Booking, now: Instant): Booking {
  return { ...transition(booking, 'EXPIRED', now), paymentFollowUp: booking.price !== null };
}

/** Confirmation of a priced hold whose payment cleared. */
export function markPaid(booking: Booking, paidAt: Instant): Booking {
  return { ...booking, payment: { status: 'PAID', paidAt } };
}

/**
 * Money arrived for time Holdfast no longer holds (or holds too late to confirm): never
 * confirm it; keep the payment on the booking, flagged for a person to settle.
 */
export function flagPaidAfterLapse(booking: Booking, paidAt: Instant, now: Instant): Booking {
  const ended =
    booking.status === 'HELD'
      ? transition(booking, 'EXPIRED', now)
      : { ...booking, version: booking.version + 1, updatedAt: now };
  return {
    ...ended,
    payment: { status: 'PAID', paidAt, reconciliationRequired: true },
    paymentFollowUp: false,
  };
}

const FOLLOW_UP_MIN_MS = 30_000;
const FOLLOW_UP_MAX_MS = 60 * 60_000;

/**
 * Whether a lapsed priced hold's payment should be asked about again: at once, then less
 * often the longer ago it lapsed (a quarter of that age, between 30 s and one hour).
 */
export function paymentFollowUpDue(booking: Booking, now: Instant): boolean {
  const checkedAt = booking.payment?.checkedAt;
  if (!booking.paymentFollowUp) return false;
  if (checkedAt === undefined) return true;
  const age = now - (booking.expiresAt ?? booking.updatedAt);
  return now - checkedAt >= Math.min(FOLLOW_UP_MAX_MS, Math.max(FOLLOW_UP_MIN_MS, age / 4));
}

/** The provider still says PENDING: remember when it was asked. */
export function notePaymentPending(booking: Booking, now: Instant): Booking {
  return {
    ...booking,
    version: booking.version + 1,
    updatedAt: now,
    payment: { status: 'PENDING', paidAt: null, checkedAt: now },
  };
}

/** The follow-up of a lapsed priced hold learned the payment failed or closed, or gave up waiting. */
export function endPaymentFollowUp(
  booking: Booking,
  outcome: 'FAILED' | 'CLOSED' | 'NONE',
  now: Instant,
): Booking {
  return {
    ...booking,
    version: booking.version + 1,
    updatedAt: now,
    payment: outcome === 'NONE' ? booking.payment : { status: outcome, paidAt: null },
    paymentFollowUp: false,
  };
}

/** The hold is given back; if it had a price, its payment is followed up (the customer may already be paying). */
export function releaseHold(booking: Booking, expectedVersion: number, now: Instant): Booking {
  assertVersion(booking, expectedVersion);
  assertHoldLive(booking, now);
  return { ...transition(booking, 'RELEASED', now), paymentFollowUp: booking.price !== null };
}

export function confirmHold(booking: Booking, expectedVersion: number, now: Instant): Booking {
  assertVersion(booking, expectedVersion);
  assertHoldLive(booking, now);
  return transition(booking, 'CONFIRMED', now);
}

/** The provider reported the payment FAILED or CLOSED: the hold ends and its time is freed. */
export function failPayment(booking: Booking, outcome: 'FAILED' | 'CLOSED', now: Instant): Booking {
  const next = transition(booking, outcome === 'FAILED' ? 'PAYMENT_FAILED' : 'PAYMENT_CLOSED', now);
  return { ...next, payment: { status: outcome, paidAt: null } };
}

export function cancelBooking(booking: Booking, expectedVersion: number, now: Instant): Booking {
  assertVersion(booking, expectedVersion);
  return transition(booking, 'CANCELLED', now);
}

/**
 * A person's cancellation: the time is freed and, when the customer paid, the money becomes owed
 * back (a move cancels with `cancelBooking`: its payment goes on with the new time).
 */
export function cancelOwingRefund(booking: Booking, expectedVersion: number, now: Instant): Booking {
  const cancelled = cancelBooking(booking, expectedVersion, now);
  const { payment, price } = booking;
  if (!price || payment?.status !== 'PAID' || payment.refund) return cancelled;
  return {
    ...cancelled,
    payment: {
      ...payment,
      refund: { status: 'DUE', amount: price.amount, currency: price.currency, dueAt: now },
    },
  };
}

/** Money owed back was returned (by the provider, or by hand); the booking moves to its next version. */
export function markRefunded(
  booking: Booking,
  now: Instant,
  by: string,
  providerReference?: string,
): Booking {
  const refund = booking.payment?.refund;
  if (!refund || refund.status !== 'DUE')
    throw new DomainError(
      'INVALID_STATE',
      refund
        ? `The money of booking ${booking.id} was already returned.`
        : `Booking ${booking.id} owes no money back.`,
      { bookingId: booking.id },
    );
  return {
    ...booking,
    version: booking.version + 1,
    updatedAt: now,
    payment: {
      ...booking.payment!,
      refund: {
        ...refund,
        status: 'RETURNED',
        returnedAt: now,
        returnedBy: by,
        ...(providerReference ? { providerReference } : {}),
      },
    },
  };
}

/** Whether cancelling made money owed back that nobody has returned yet. */
export const owesRefund = (booking: Booking): boolean => booking.payment?.refund?.status === 'DUE';
