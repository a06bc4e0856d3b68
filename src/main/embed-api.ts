/**
 * The public types of `import { createHoldfast } from 'holdfast'` (src/main/embed.ts), kept
 * apart so the package's declarations are these and the domain's records, nothing internal.
 * The implementation is checked against them when it compiles.
 */
import type { Availability } from '../domain/availability/availability.js';
import type { Approval } from '../domain/approval/approval.js';
import type { Intent, IntentSummary } from '../domain/approval/intent-types.js';
import type { Booking } from '../domain/booking/booking.js';
import type { Customer } from '../domain/booking/customer.js';
import type { Money } from '../domain/booking/money.js';
import type { Calendar } from '../domain/calendar.js';

export type { Approval, Availability, Booking, Calendar, Customer, Intent, IntentSummary, Money };
export type { ErrorCode } from '../domain/errors.js';

export interface HoldfastOptions {
  /** A SQLite file (created on first use, with its audit key beside it) or a postgres:// URL. */
  readonly database: string;
  /** The email of the person the application acts for; made the tenant's owner when it has nobody yet. */
  readonly actAs: string;
  /** Default `local`, the tenant the command line and the server use by default. */
  readonly tenantId?: string;
  /** How long a hold keeps its time, in seconds (default 300). */
  readonly holdTtlSeconds?: number;
  /** The audit key file (default: beside the SQLite database; required with PostgreSQL). */
  readonly auditKeyFile?: string;
  /**
   * `draft` (default): confirming and cancelling need a person's approval (decideApproval);
   * `direct`: the application is trusted automation, or the person themselves (deltat's
   * single-operator mode) — still audited.
   */
  readonly writePolicy?: 'draft' | 'direct';
}

/** A write may carry the key of its first try: a retry with it answers the first outcome, once. */
export interface Retryable {
  readonly idempotencyKey?: string;
}

export interface NewCalendar extends Retryable {
  readonly name: string;
  /** IANA, e.g. Europe/Berlin: opening hours are wall-clock times there. */
  readonly timeZone: string;
  readonly price?: Money;
  readonly availability?: Availability;
  readonly description?: string;
  readonly tags?: readonly string[];
}

export interface CalendarPage {
  readonly calendars: readonly Calendar[];
  readonly total: number;
  readonly nextCursor: string | null;
}

export interface FindSlotsOptions {
  /** All of these calendars free together; or give `query` instead. */
  readonly calendarIds?: readonly string[];
  /** Words a calendar's name, description or tags must all hold; each matching calendar on its own. */
  readonly query?: string;
  /** RFC 3339 instants with an offset. */
  readonly from: string;
  readonly to: string;
  readonly durationMinutes: number;
  readonly stepMinutes?: number;
  /** Default 50, at most 100. */
  readonly limit?: number;
  readonly cursor?: string;
}

export interface SlotPage {
  /** With `query`, each slot names the one calendar free then. */
  readonly slots: readonly { start: number; end: number; calendarId?: string }[];
  readonly calendars: readonly { id: string; name: string; timeZone: string }[];
  readonly total: number;
  readonly nextCursor: string | null;
  /** HIT: the free times came from the slot cache. */
  readonly cache: 'HIT' | 'MISS';
}

export interface NewHold extends Retryable {
  readonly calendarIds: readonly string[];
  /** RFC 3339 instants with an offset. */
  readonly start: string;
  readonly end: string;
  readonly customer?: Customer;
  readonly label?: string;
}

export interface PendingApproval {
  readonly approvalId: string;
  /** What the person approves, exactly; a booking that changes meanwhile needs a new approval. */
  readonly intent: Intent;
  readonly intentHash: string;
  /** The same in words and local times, for a page. */
  readonly summary: IntentSummary;
  readonly expiresAt: number;
  /** The approval page a person decides on. */
  readonly approveUrl: string;
}

export interface GatedChange extends Retryable {
  readonly bookingId: string;
  /** The version last read: a booking that moved on since is VERSION_CONFLICT. */
  readonly expectedVersion: number;
  /** The approval a person gave for this exact change. */
  readonly approvalId: string;
}

/** Instants in the answers are milliseconds since the epoch (UTC); calendars carry their zone. */
export interface Holdfast {
  /** The person every call is made for and audited under. */
  readonly actingFor: string;
  createCalendar(input: NewCalendar): Promise<Calendar>;
  listCalendars(input?: { query?: string; limit?: number; cursor?: string }): Promise<CalendarPage>;
  findSlots(input: FindSlotsOptions): Promise<SlotPage>;
  holdSlot(input: NewHold): Promise<Booking>;
  getBooking(bookingId: string): Promise<Booking>;
  releaseHold(input: { bookingId: string; expectedVersion: number } & Retryable): Promise<Booking>;
  /** Opens the approval a person decides on its page (`approveUrl`) or in the application's own. */
  requestApproval(
    input: { bookingId: string; action: 'confirm_booking' | 'cancel_booking' } & Retryable,
  ): Promise<PendingApproval>;
  /**
   * Records a person's decision, for an application whose own signed-in page asked them (as
   * `holdfast approvals approve` does for an operator). `by` names who decided, for the audit.
   */
  decideApproval(input: { approvalId: string; decision: 'APPROVE' | 'DENY'; by: string }): Promise<Approval>;
  /** Confirms a hold a person approved, once its payment cleared when it has a price. */
  confirmBooking(input: GatedChange): Promise<Booking>;
  /** Cancels a confirmed booking a person approved cancelling. */
  cancelBooking(input: GatedChange): Promise<Booking>;
  /** Writes what is pending to the audit trail and closes the database. */
  close(): Promise<void>;
}

export type CreateHoldfast = (options: HoldfastOptions) => Promise<Holdfast>;
