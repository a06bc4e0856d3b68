import type { BookingRuleName } from '../../domain/availability/booking-rules.js';
import type { Booking, BookingStatus } from '../../domain/booking/booking.js';
import type { Instant } from '../../domain/time/instant.js';
import type { Interval } from '../../domain/time/interval.js';
import type { Occupied } from '../../domain/availability/ruled-slots.js';
import type { AuditEntry } from '../audit-entry.js';
import type { IdempotencyRecord } from './idempotency.js';

export interface BookingQuery {
  /** Only the bookings made for this person. */
  readonly owner?: string;
  readonly calendarId?: string;
  readonly status?: BookingStatus;
  /** Bookings that end after `from` and start before `to`. */
  readonly from?: Instant;
  readonly to?: Instant;
  /** Text the customer's name (or email, with `customerByEmail`) contains, in any case. */
  readonly customer?: string;
  /** Whether `customer` may match the email: not for readers who see emails masked. */
  readonly customerByEmail?: boolean;
  readonly now: Instant;
  readonly offset: number;
  readonly limit: number;
}

/** Thrown when a booking's short reference is already taken in the tenant; pick another. */
export class ReferenceTakenError extends Error {
  override readonly name = 'ReferenceTakenError';
}

/** Everything a new hold writes, for the store to write in one step. */
export interface HoldPlan {
  readonly booking: Booking;
  /** The key's record with the answer already in it: claimed and stored in the same step. */
  readonly idempotency: IdempotencyRecord;
  /** The calendars as the plan saw them: a calendar changed since makes the placement `stale`. */
  readonly calendarVersions: readonly CalendarVersion[];
  /** The call's audit entry and its MAC, committed with the hold. */
  readonly audit?: { readonly entry: AuditEntry; readonly mac: string };
  /** Active holds the booking's person and connection may have at once, counting this one; null: no cap. */
  readonly cap: HoldCap | null;
  /** The time each calendar's allocation occupies: the booking with that calendar's buffers. */
  readonly occupies: readonly CalendarSpan[];
  /** Per-day and per-week limits to count under a lock before writing, sorted by calendar; the first full one refuses. */
  readonly limits: readonly LimitCheck[];
}

export interface CalendarSpan {
  readonly calendarId: string;
  readonly start: Instant;
  readonly end: Instant;
  /** The calendar's seat lanes: the allocation takes the lowest one free for the whole span. */
  readonly capacity: number;
}

/** Fewer than `max` occupying bookings of the calendar (of the customer, if set) may start in [from, to). */
export interface LimitCheck {
  /** The rule it enforces, for the refusal to name. */
  readonly rule: BookingRuleName;
  readonly calendarId: string;
  readonly from: Instant;
  readonly to: Instant;
  readonly max: number;
  readonly customerKey: string | null;
  /** A move does not count the booking it moves. */
  readonly excludeBookingId: string | null;
}

export interface HoldCap {
  readonly perPerson: number;
  readonly perConnection: number;
  /**
   * Milliseconds of calendar time (length × calendars) the person's live holds may cover,
   * counting this one; null: no such cap.
   */
  readonly heldMsPerPerson: number | null;
  /** What this hold adds to it: its length times its calendars. */
  readonly thisHoldMs: number;
}

/** What a person holds now: for the words of a refusal. */
export interface HeldByPerson {
  readonly holds: number;
  /** Length × calendars, summed over their live holds. */
  readonly calendarMs: number;
  /** When the first of them lapses; null when they hold nothing. */
  readonly firstExpiry: Instant | null;
}

export interface CalendarVersion {
  readonly id: string;
  readonly version: number;
}

/**
 * `placed`: written. `replay`: a live record of the key won and nothing was written.
 * `stale`: a calendar is gone or changed since the plan read it; nothing was written.
 * `full`: the person or the connection already has as many active holds as the cap allows.
 */
export type HoldPlacement =
  | { readonly outcome: 'placed' }
  | { readonly outcome: 'full' }
  | { readonly outcome: 'replay'; readonly existing: IdempotencyRecord }
  | { readonly outcome: 'stale' }
  | { readonly outcome: 'limited'; readonly check: LimitCheck };

/** Bookings and the allocations that make them occupy calendars. */
export interface BookingStore {
  /** Every booking of a recurring series (each occurrence, and what replaced one), by start. */
  ofSeries(tenantId: string, seriesId: string): Promise<Booking[]>;
  /** The tenant's booking with this id; null when there is none in the tenant. */
  get(tenantId: string, id: string): Promise<Booking | null>;
  /** The person's live holds (HELD, not lapsed at `now`), summed up. */
  heldBy(tenantId: string, subject: string, now: Instant): Promise<HeldByPerson>;
  /**
   * The hot path in one step (one statement on PostgreSQL): claims the idempotency key, writes
   * the HELD booking, its allocations (the engine refuses an overlap: SLOT_UNAVAILABLE), the
   * key's answer and the audit entry. A live record for the key wins: nothing is written and
   * it is returned. A calendar whose version moved makes it `stale`. A clash of the short
   * reference throws ReferenceTakenError.
   */
  placeHold(plan: HoldPlan): Promise<HoldPlacement>;
  /** The time a booking's active allocations occupy, per calendar (with the buffers it was made with). */
  allocationsOf(tenantId: string, bookingId: string): Promise<Omit<CalendarSpan, 'capacity'>[]>;
  /** The first of `checks` with no room left (counted under the same lock as a hold), or null. */
  fullLimit(tenantId: string, checks: readonly LimitCheck[], now: Instant): Promise<LimitCheck | null>;
  /** A confirmed move: the booking's allocations become exactly `spans` (lowest free lanes); the engine checks them. */
  replaceAllocations(booking: Booking, spans: readonly CalendarSpan[]): Promise<void>;
  /** Writes `next` if the stored version is still `next.version - 1`; allocations follow the status. */
  update(next: Booking): Promise<void>;
  /**
   * A live hold at `version` is kept until `until` (only ever later), without a new version: the
   * intent a person is asked about stays the same. False when the hold lapsed or moved on.
   */
  keepHold(
    tenantId: string,
    bookingId: string,
    version: number,
    until: Instant,
    now: Instant,
  ): Promise<boolean>;
  /** Bookings matching a filter, ordered by start, and how many match. */
  list(tenantId: string, query: BookingQuery): Promise<{ items: Booking[]; total: number }>;
  /** Occupied time per calendar within `range` (bookings, and busy time imported from external calendars), ignoring holds that lapsed before `now`. */
  busyIntervals(
    tenantId: string,
    calendarIds: readonly string[],
    range: Interval,
    now: Instant,
  ): Promise<Map<string, Occupied[]>>;
  /**
   * Marks lapsed holds EXPIRED and frees their time; priced ones get `paymentFollowUp` so a
   * later pass asks the provider whether money came anyway. Returns how many.
   */
  expireLapsed(now: Instant, tenantId?: string): Promise<number>;
  /** Starts of the bookings occupying each calendar that start within `range` (lapsed holds left out). */
  occupyingStarts(
    tenantId: string,
    calendarIds: readonly string[],
    range: Interval,
    now: Instant,
  ): Promise<Map<string, Instant[]>>;
  /** Priced bookings whose payment must still be asked about, least recently changed first. */
  paymentFollowUps(limit: number): Promise<Booking[]>;
  /** Bookings paid after their hold lapsed, for a person to settle. */
  toReconcile(tenantId: string): Promise<Booking[]>;
  /** Cancelled paid bookings whose money is owed back and not yet returned, oldest first. */
  toRefund(tenantId: string): Promise<Booking[]>;
}
