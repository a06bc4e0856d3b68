import type { Booking } from '../booking/booking.js';
import { formatInstant } from '../time/instant.js';

export type {
  ChangeSetLines,
  SeriesOccurrences,
  CancelIntent,
  ConfirmIntent,
  GatedAction,
  Intent,
  IntentSummary,
  MovedFrom,
} from './intent-types.js';
import type {
  CancelIntent,
  ConfirmIntent,
  GatedAction,
  Intent,
  MovedFrom,
  SeriesOccurrences,
} from './intent-types.js';
import { sumPrices } from '../booking/money.js';

export function confirmIntentOf(booking: Booking, moved?: Booking): ConfirmIntent {
  return {
    ...(moved ? { replaces: movedFrom(moved) } : {}),
    action: 'confirm_booking',
    bookingId: booking.id,
    calendarIds: [...booking.calendarIds],
    start: formatInstant(booking.start),
    end: formatInstant(booking.end),
    amount: booking.price?.amount ?? null,
    currency: booking.price?.currency ?? null,
    version: booking.version,
  };
}

function movedFrom(booking: Booking): MovedFrom {
  return {
    bookingId: booking.id,
    reference: booking.reference,
    calendarIds: [...booking.calendarIds],
    start: formatInstant(booking.start),
    end: formatInstant(booking.end),
    version: booking.version,
  };
}

export function cancelIntentOf(booking: Booking): CancelIntent {
  return {
    action: 'cancel_booking',
    bookingId: booking.id,
    reference: booking.reference,
    start: formatInstant(booking.start),
    end: formatInstant(booking.end),
    version: booking.version,
  };
}

/** The series' occurrences as an intent lists them. */
export function seriesOccurrencesOf(seriesId: string, occurrences: readonly Booking[]): SeriesOccurrences {
  return {
    seriesId,
    occurrences: occurrences.map((o) => ({
      bookingId: o.id,
      reference: o.reference,
      calendarIds: [...o.calendarIds],
      start: formatInstant(o.start),
      end: formatInstant(o.end),
      version: o.version,
    })),
  };
}

/** Confirming a held series: every occurrence, one price (the sum), named by its first occurrence. */
export function seriesConfirmIntentOf(seriesId: string, occurrences: readonly Booking[]): ConfirmIntent {
  const first = occurrences[0]!;
  const last = occurrences[occurrences.length - 1]!;
  const price = sumPrices(occurrences.map((o) => o.price));
  return {
    action: 'confirm_booking',
    bookingId: first.id,
    calendarIds: [...first.calendarIds],
    start: formatInstant(first.start),
    end: formatInstant(last.end),
    amount: price?.amount ?? null,
    currency: price?.currency ?? null,
    version: first.version,
    series: seriesOccurrencesOf(seriesId, occurrences),
  };
}

/** Cancelling this occurrence and every later one of its series (each confirmed). */
export function seriesCancelIntentOf(seriesId: string, occurrences: readonly Booking[]): CancelIntent {
  const first = occurrences[0]!;
  const last = occurrences[occurrences.length - 1]!;
  return {
    action: 'cancel_booking',
    bookingId: first.id,
    reference: first.reference,
    start: formatInstant(first.start),
    end: formatInstant(last.end),
    version: first.version,
    series: seriesOccurrencesOf(seriesId, occurrences),
  };
}

export function intentOf(action: GatedAction, booking: Booking, moved?: Booking): Intent {
  return action === 'confirm_booking' ? confirmIntentOf(booking, moved) : cancelIntentOf(booking);
}

/** Field-by-field equality of two intents (order of calendar ids matters: it is part of the action). */
export function sameIntent(a: unknown, b: Intent): boolean {
  return sameFields(a, b as unknown as Record<string, unknown>);
}

function sameFields(a: unknown, expected: Readonly<Record<string, unknown>>): boolean {
  if (typeof a !== 'object' || a === null || Array.isArray(a)) return false;
  const given = a as Record<string, unknown>;
  const keys = Object.keys(expected);
  if (Object.keys(given).length !== keys.length) return false;
  return keys.every((key) => {
    const x = given[key];
    const y = expected[key];
    if (Array.isArray(y)) return Array.isArray(x) && x.length === y.length && x.every((v, i) => v === y[i]);
    if (typeof y === 'object' && y !== null) return sameFields(x, y as Record<string, unknown>);
    return x === y;
  });
}

const statusWords: Readonly<Record<string, string>> = {
  CONFIRMED: 'it was confirmed',
  CANCELLED: 'it was cancelled',
  EXPIRED: 'its hold lapsed',
  RELEASED: 'its hold was released',
  PAYMENT_FAILED: 'its payment failed',
  PAYMENT_CLOSED: 'its payment was closed',
};

/** What moved on in a booking since `intent` was taken from it, as a person would say it. */
export function changesSince(intent: Intent, booking: Booking, wasStatus: string): string[] {
  const changes: string[] = [];
  if (booking.status !== wasStatus)
    changes.push(statusWords[booking.status] ?? `it is now ${booking.status}`);
  if (formatInstant(booking.start) !== intent.start || formatInstant(booking.end) !== intent.end)
    changes.push('the time changed');
  if (intent.action === 'confirm_booking') {
    if (intent.calendarIds.join() !== booking.calendarIds.join()) changes.push('the calendars changed');
    if (
      intent.amount !== (booking.price?.amount ?? null) ||
      intent.currency !== (booking.price?.currency ?? null)
    )
      changes.push('the price changed');
  }
  if (changes.length === 0) changes.push('its details (customer, label or payment) changed');
  return changes;
}
