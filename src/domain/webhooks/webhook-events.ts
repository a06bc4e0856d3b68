import type { Booking, BookingStatus } from '../booking/booking.js';
import { DomainError } from '../errors.js';
import type { Instant } from '../time/instant.js';

/** What a subscription may ask to hear about: one event per change of a booking. */
export const webhookEventTypes = [
  'booking.held',
  'booking.confirmed',
  'booking.cancelled',
  'booking.expired',
  'booking.released',
  /** Paid after its hold lapsed: a person must reconcile (refund, or book the time again). */
  'booking.payment_flagged',
  'booking.rescheduled',
  /** A paid booking was cancelled: its money is owed back to the customer. */
  'booking.refund_due',
  /** Money owed back was returned. */
  'booking.refunded',
  /** Freed time was held for a waitlist entry's agent: the booking is the offer (HELD). */
  'waitlist.offered',
] as const;
export type WebhookEventType = (typeof webhookEventTypes)[number];

/** One change of one booking, as recorded in the outbox with the booking as it was then. */
export interface WebhookEvent {
  /** Stable across retries and redeliveries: receivers dedupe by it (`webhook-id`). */
  readonly id: string;
  readonly tenantId: string;
  readonly type: WebhookEventType;
  readonly createdAt: Instant;
  readonly booking: Booking;
}

/**
 * The event a booking entering `status` announces. The storage engines record it with the
 * change itself (triggers in migration 16); this is the same mapping for code and tests.
 * A hold ended by its payment (FAILED, CLOSED) is announced as released: its time is free.
 */
export function eventTypeForStatus(status: BookingStatus): WebhookEventType {
  switch (status) {
    case 'HELD':
      return 'booking.held';
    case 'CONFIRMED':
      return 'booking.confirmed';
    case 'CANCELLED':
      return 'booking.cancelled';
    case 'EXPIRED':
      return 'booking.expired';
    default:
      return 'booking.released';
  }
}

/** `all`, or a comma-separated list of event types (`booking.held,booking.confirmed`). */
export function parseEventTypes(text: string): WebhookEventType[] {
  if (text.trim() === 'all') return [...webhookEventTypes];
  const names = text
    .split(',')
    .map((name) => name.trim())
    .filter((name) => name !== '');
  const unknown = names.filter((name) => !webhookEventTypes.includes(name as WebhookEventType));
  if (names.length === 0 || unknown.length > 0)
    throw new DomainError(
      'INVALID_ARGUMENTS',
      `Unknown event type ${unknown.join(', ') || '(none given)'}: use all or ${webhookEventTypes.join(', ')}.`,
      { field: 'events' },
    );
  return webhookEventTypes.filter((type) => names.includes(type));
}
