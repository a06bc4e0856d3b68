import type { Approval, ApprovalStatus } from '../domain/approval/approval.js';
import type { PaymentReport } from '../domain/payment/payment.js';
import type { AuditEntry, AuditHead, AuditRecord, PendingAuditEntry } from './audit.js';
import type { Availability } from '../domain/availability/availability.js';
import type { Booking, BookingStatus } from '../domain/booking/booking.js';
import type { Calendar } from '../domain/calendar.js';
import type { Instant } from '../domain/time/instant.js';
import type { Interval } from '../domain/time/interval.js';

export interface BookingQuery {
  readonly calendarId?: string;
  readonly status?: BookingStatus;
  /** Bookings that end after `from` and start before `to`. */
  readonly from?: Instant;
  readonly to?: Instant;
  readonly now: Instant;
  readonly offset: number;
  readonly limit: number;
}

export interface IdempotencyScope {
  readonly tenantId: string;
  readonly subject: string;
  readonly tool: string;
  readonly key: string;
}

export interface IdempotencyRecord extends IdempotencyScope {
  readonly argumentsDigest: string;
  readonly result: unknown;
  readonly createdAt: Instant;
  readonly expiresAt: Instant;
}

/** Thrown by insertHold when the booking's short reference is already taken in the tenant; pick another. */
export class ReferenceTakenError extends Error {
  override readonly name = 'ReferenceTakenError';
}

export interface Page {
  readonly offset: number;
  readonly limit: number;
}

/** The subset of persistence the use cases need, inside one transaction. */
export interface StoreTx {
  /** Runs `callback` once this transaction has committed; never if it rolls back. */
  afterCommit(callback: () => void): void;
  /**
   * Serialises this transaction with every other transaction that calls it with the same
   * key, until it ends (check-then-insert quotas, seeding, the audit chain across instances).
   */
  serialize(key: string): Promise<void>;

  /** A page of the tenant's calendars, oldest first, and how many there are. */
  listCalendars(tenantId: string, page: Page): Promise<{ items: Calendar[]; total: number }>;
  countCalendars(tenantId: string): Promise<number>;
  /** The calendars that exist among `ids`, in the order asked. */
  getCalendars(tenantId: string, ids: readonly string[]): Promise<Calendar[]>;
  insertCalendar(calendar: Calendar): Promise<void>;
  replaceAvailability(tenantId: string, calendarId: string, availability: Availability): Promise<void>;

  getBooking(tenantId: string, id: string): Promise<Booking | null>;
  /**
   * Inserts a HELD booking and its allocations; the engine refuses overlaps with SLOT_UNAVAILABLE.
   * A clash of the short reference throws ReferenceTakenError and writes nothing.
   */
  insertHold(booking: Booking): Promise<void>;
  /** Writes `next` if the stored version is still `next.version - 1`; allocations follow the status. */
  updateBooking(next: Booking): Promise<void>;
  listBookings(tenantId: string, query: BookingQuery): Promise<{ items: Booking[]; total: number }>;
  /** Occupied time per calendar, ignoring holds that lapsed before `now`. */
  busyIntervals(
    tenantId: string,
    calendarIds: readonly string[],
    range: Interval,
    now: Instant,
  ): Promise<Map<string, Interval[]>>;
  /**
   * Marks lapsed holds EXPIRED and frees their time; priced ones get `paymentFollowUp` so a
   * later pass asks the provider whether money came anyway. Returns how many.
   */
  expireLapsedHolds(now: Instant, tenantId?: string): Promise<number>;
  /** Expired priced bookings whose payment must still be asked about, oldest first. */
  paymentFollowUps(limit: number): Promise<Booking[]>;

  insertApproval(approval: Approval, pageTokenHash: string): Promise<void>;
  getApproval(tenantId: string, id: string): Promise<Approval | null>;
  /** The approval a one-time page token opens, if the token is still unspent. */
  getApprovalByPageToken(pageTokenHash: string): Promise<Approval | null>;
  /** Writes `next` only if the stored status is still `expected`; false when it moved. */
  updateApproval(next: Approval, expected: ApprovalStatus): Promise<boolean>;
  /** Spends a page token so the URL cannot be used again. */
  spendPageToken(tenantId: string, approvalId: string): Promise<void>;
  listApprovals(tenantId: string | null, status?: ApprovalStatus): Promise<Approval[]>;
  /** Approvals still PENDING and not expired at `now` in the tenant (the open-approval quota). */
  countOpenApprovals(tenantId: string, now: Instant): Promise<number>;
  /** Remembers a host-attested approval id; false when it was seen before (a replay). */
  recordAttestation(tenantId: string, approvalId: string, now: Instant): Promise<boolean>;
  attestationSeen(tenantId: string, approvalId: string): Promise<boolean>;

  /** Bookings paid after their hold lapsed, for a person to settle. */
  bookingsToReconcile(tenantId: string): Promise<Booking[]>;

  /** The local payment simulator's state (no record = PENDING). */
  simulatedPayment(bookingId: string): Promise<PaymentReport | null>;
  setSimulatedPayment(report: PaymentReport, now: Instant): Promise<void>;

  /** Writes an entry, with its MAC, to be linked into the chain by the sealer; cheap, takes no chain lock. */
  appendAudit(entry: AuditEntry, mac: string): Promise<void>;
  /** Written entries not yet in the chain, oldest first. */
  pendingAudit(limit: number): Promise<PendingAuditEntry[]>;
  countPendingAudit(): Promise<number>;
  removePendingAudit(pendingIds: readonly number[]): Promise<void>;
  /** The newest sealed record, or null for an empty chain. Call `serialize` first when extending it. */
  auditHead(): Promise<AuditHead | null>;
  /** Appends sealed records; the caller computed their links. */
  insertAuditRecords(records: readonly AuditRecord[]): Promise<void>;
  auditRecords(afterSeq: number, limit: number): Promise<AuditRecord[]>;

  getIdempotency(scope: IdempotencyScope): Promise<IdempotencyRecord | null>;
  /**
   * Claims the key for this transaction before the effect runs, so concurrent
   * first uses of one key serialise on it: returns the live record another call
   * already committed, or null when this transaction now holds the key.
   */
  claimIdempotency(record: IdempotencyRecord): Promise<IdempotencyRecord | null>;
  putIdempotency(record: IdempotencyRecord): Promise<void>;
  purgeIdempotency(now: Instant): Promise<number>;
}

/** Unit of work: every use case runs inside exactly one read or write transaction. */
export interface Store {
  read<T>(work: (tx: StoreTx) => Promise<T>): Promise<T>;
  write<T>(work: (tx: StoreTx) => Promise<T>): Promise<T>;
  close(): Promise<void>;
}
