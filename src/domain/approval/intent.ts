import type { Booking, Customer } from '../booking/booking.js';
import { formatInstant } from '../time/instant.js';
import type { Consequence } from './consequence.js';

/**
 * The exact action a human approves. Computed by the server from current state,
 * never taken from the caller; its hash (sha256 over RFC 8785 canonical JSON)
 * is what an approval is bound to.
 */
export interface ConfirmIntent {
  readonly action: 'confirm_booking';
  readonly bookingId: string;
  readonly calendarIds: readonly string[];
  readonly start: string;
  readonly end: string;
  readonly amount: string | null;
  readonly currency: string | null;
  readonly version: number;
  /** A move (reschedule_booking): the confirmed booking this one replaces, as it is now. */
  readonly replaces?: MovedFrom;
}

/** What a move ends: confirming the replacement cancels this booking in the same transaction. */
export interface MovedFrom {
  readonly bookingId: string;
  readonly reference: string;
  readonly calendarIds: readonly string[];
  readonly start: string;
  readonly end: string;
  readonly version: number;
}

export interface CancelIntent {
  readonly action: 'cancel_booking';
  readonly bookingId: string;
  readonly reference: string;
  readonly start: string;
  readonly end: string;
  readonly version: number;
}

export type Intent = ConfirmIntent | CancelIntent;

/** An intent as a person reads it: names, local times, money (see app/approvals describeIntent). */
export interface IntentSummary {
  readonly action: string;
  readonly reference: string;
  readonly calendars: readonly {
    readonly name: string;
    readonly timeZone: string;
    readonly start: string;
    readonly end: string;
  }[];
  readonly startUtc: string;
  readonly endUtc: string;
  readonly amount: string | null;
  readonly currency: string | null;
  readonly customer: Customer | null;
  readonly label: string | null;
  readonly version: number;
  /** A move: the booking it ends and that booking's time. */
  readonly movedFrom?: {
    readonly reference: string;
    readonly startUtc: string;
    readonly endUtc: string;
    readonly calendars: IntentSummary['calendars'];
  };
  /** What approving does to the time, the money and the customer, in words. */
  readonly consequence: Consequence;
  /** Set when the booking moved on since the intent was taken. */
  readonly stale: {
    readonly currentVersion: number;
    readonly currentStatus: string;
    /** What changed since the ask, in words: "the time", "the price", "it was cancelled". */
    readonly changes: readonly string[];
  } | null;
}
export type GatedAction = Intent['action'];

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
