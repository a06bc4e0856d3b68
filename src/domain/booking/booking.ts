import { DomainError } from '../errors.js';
import type { Instant } from '../time/instant.js';
import type { Money } from './money.js';

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

/** Customer details are opaque to the core: stored and returned exactly as given. */
export type Customer = Readonly<Record<string, unknown>>;

export interface Owner {
  readonly subject: string;
  readonly clientId: string;
}

export interface PaymentState {
  readonly status: 'PENDING' | 'PAID' | 'FAILED' | 'CLOSED';
  readonly paidAt: Instant | null;
  /** Paid, but the hold had lapsed: money arrived for time we no longer hold. A human must settle it. */
  readonly reconciliationRequired?: boolean;
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

export function expireHold(booking: Booking, now: Instant): Booking {
  return transition(booking, 'EXPIRED', now);
}

export function releaseHold(booking: Booking, expectedVersion: number, now: Instant): Booking {
  assertVersion(booking, expectedVersion);
  assertHoldLive(booking, now);
  return transition(booking, 'RELEASED', now);
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
