import type { Customer } from '../booking/customer.js';
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
  /**
   * A recurring series confirmed as one: every occurrence held now, in time order. Then
   * bookingId and version are the first occurrence's, start/end span the series, and the amount
   * is the sum, paid once under the series id.
   */
  readonly series?: SeriesOccurrences;
  /**
   * A change set committed as one: each hold, move and cancellation. Then bookingId names the
   * set's first booking, version is the set's, and amount is what its new holds cost together
   * (paid once under the set's id); moves keep their payment, cancellations owe theirs back.
   */
  readonly changeSet?: ChangeSetLines;
}

export interface ChangeSetLines {
  readonly changeSetId: string;
  readonly changes: readonly {
    readonly kind: 'hold' | 'move' | 'cancel';
    /** The booking it ends (move, cancel) or the new hold (hold). */
    readonly bookingId: string;
    readonly reference: string;
    readonly calendarIds: readonly string[];
    readonly start: string;
    readonly end: string;
    /** A move: where the booking is now. */
    readonly from: {
      readonly start: string;
      readonly end: string;
      readonly calendarIds: readonly string[];
    } | null;
    /** The new hold standing for a move's new time, or null. */
    readonly holdId: string | null;
    /** The booking's version (move, cancel) or the hold's (hold, move's hold). */
    readonly versions: readonly number[];
    readonly amount: string | null;
    readonly currency: string | null;
  }[];
}

export interface SeriesOccurrences {
  readonly seriesId: string;
  readonly occurrences: readonly {
    readonly bookingId: string;
    readonly reference: string;
    readonly calendarIds: readonly string[];
    readonly start: string;
    readonly end: string;
    readonly version: number;
  }[];
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
  /** "This and the following": the series' confirmed occurrences from this one on, all cancelled. */
  readonly series?: SeriesOccurrences;
}

export type Intent = ConfirmIntent | CancelIntent;

/** An intent as a person reads it: names, local times, money (see app/approvals/approvals.ts describeIntent). */
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
  /** A series: every occurrence the change takes in, its local time in the first calendar's zone. */
  readonly occurrences?: readonly {
    readonly reference: string;
    readonly startUtc: string;
    readonly endUtc: string;
    readonly when: string;
  }[];
  /** A change set: each change in words, old → new. */
  readonly changes?: readonly string[];
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
