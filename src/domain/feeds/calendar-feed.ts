import type { Booking } from '../booking/booking.js';
import { isHoldLapsed } from '../booking/booking.js';
import type { Instant } from '../time/instant.js';
import type { Interval } from '../time/interval.js';
import { DAY_MS } from '../time/zone.js';

/** A published feed shows a month back and a year ahead, at most this many events. */
export const FEED_DAYS_BACK = 30;
export const FEED_DAYS_AHEAD = 365;
export const MAX_FEED_EVENTS = 5_000;

/** What a calendar feed says about one booking: when, whether it is firm, and a name without contact details. */
export interface FeedEvent {
  readonly bookingId: string;
  readonly start: Instant;
  readonly end: Instant;
  /** CONFIRMED bookings, and TENTATIVE for holds still alive. */
  readonly status: 'CONFIRMED' | 'TENTATIVE';
  /** The booking's label, else its reference: never the customer's name, email or phone. */
  readonly summary: string;
  /** Grows with every change (the booking's version): calendar apps update their copy by it. */
  readonly sequence: number;
  readonly changedAt: Instant;
}

export function feedWindow(now: Instant): Interval {
  return { start: now - FEED_DAYS_BACK * DAY_MS, end: now + FEED_DAYS_AHEAD * DAY_MS };
}

/**
 * The events of a feed. Cancelled, expired, released and lapsed bookings are left out, so a
 * subscribed calendar drops them at its next refresh (no STATUS:CANCELLED tombstones to keep).
 */
export function feedEventsOf(bookings: readonly Booking[], now: Instant): FeedEvent[] {
  const events: FeedEvent[] = [];
  for (const b of bookings) {
    const firm = b.status === 'CONFIRMED';
    const tentative = b.status === 'HELD' && !isHoldLapsed(b, now);
    if (!firm && !tentative) continue;
    events.push({
      bookingId: b.id,
      start: b.start,
      end: b.end,
      status: firm ? 'CONFIRMED' : 'TENTATIVE',
      summary: b.label ?? b.reference,
      sequence: b.version,
      changedAt: b.updatedAt,
    });
  }
  return events
    .sort((x, y) => x.start - y.start || (x.bookingId < y.bookingId ? -1 : 1))
    .slice(0, MAX_FEED_EVENTS);
}
