import type { Intent, IntentSummary } from './approval/intent-types.js';
import type { Instant } from './time/epoch.js';
/**
 * The closed set of failures the core can report. Each code carries whether a
 * retry of the same call can succeed and one sentence a model can act on.
 * No transport knowledge lives here: adapters map codes to their own shapes.
 */
export const errorCatalog = {
  INVALID_ARGUMENTS: {
    retryable: false,
    recovery: 'Fix the argument named in details.field and call again.',
  },
  NOT_FOUND: { retryable: false, recovery: 'Check the id; list the resource to find valid ids.' },
  SLOT_UNAVAILABLE: {
    retryable: false,
    recovery:
      'The time is taken. Offer one of details.alternatives to the user, then hold it. A series: each of details.occurrences has its own alternatives; call hold_series again with instead for those.',
  },
  OUTSIDE_AVAILABILITY: {
    retryable: false,
    recovery:
      'The time is outside the calendar hours. Offer one of details.alternatives to the user, or use find_slots to pick an open time.',
  },
  OUTSIDE_BOOKING_RULES: {
    retryable: false,
    recovery:
      "The time breaks the calendar's booking rule named in details.rule. Offer one of details.alternatives, or use find_slots.",
  },
  HOLD_EXPIRED: {
    retryable: false,
    recovery: 'The hold lapsed. Hold the slot again, then confirm promptly.',
  },
  VERSION_CONFLICT: {
    retryable: true,
    recovery: 'The booking changed. Read it with get_booking and retry with details.currentVersion.',
  },
  INVALID_STATE: {
    retryable: false,
    recovery: 'The booking is not in a state that allows this. Read it with get_booking.',
  },
  IDEMPOTENCY_CONFLICT: {
    retryable: false,
    recovery: 'This idempotencyKey was used with other arguments. Use a new UUID for a new request.',
  },
  APPROVAL_REQUIRED: {
    retryable: true,
    recovery:
      'Show details.summary to the user and ask them to open details.approveUrl (or run details.cli); then retry with approval: { approvalId: details.approvalId }.',
  },
  APPROVAL_PENDING: { retryable: true, recovery: 'The human has not decided yet. Wait, then check again.' },
  APPROVAL_DENIED: {
    retryable: false,
    recovery: 'The human said no. Do not retry; ask the user what to do.',
  },
  APPROVAL_EXPIRED: {
    retryable: false,
    recovery: 'The approval lapsed. Call the same action again without approval: that asks the person anew.',
  },
  APPROVAL_MISMATCH: {
    retryable: false,
    recovery:
      'The approval was for a different action. Call this exact action without approval: that asks the person about it.',
  },
  APPROVAL_USED: {
    retryable: false,
    recovery:
      'The approval was already used. Call the same action again without approval: that asks the person anew.',
  },
  PAYMENT_PENDING: { retryable: true, recovery: 'Payment has not cleared. Ask the user to pay, then retry.' },
  PAYMENT_FAILED: { retryable: false, recovery: 'Payment failed and the hold was released. Start over.' },
  PAYMENT_MISMATCH: {
    retryable: false,
    recovery: 'The payment does not match the booking. Ask a human to reconcile it.',
  },
  PAYMENT_UNAVAILABLE: {
    retryable: true,
    recovery: 'The payment provider did not answer. Retry shortly.',
  },
  INVALID_CURSOR: {
    retryable: false,
    recovery: 'The cursor belongs to another query. Repeat the query without a cursor.',
  },
  FORBIDDEN: { retryable: false, recovery: 'This connection may not do this. Ask the person it acts for.' },
  RATE_LIMITED: {
    retryable: true,
    recovery:
      'A limit was reached (details.limit). Wait details.retryAfterMs, or release holds you no longer need.',
  },
  QUOTA_EXCEEDED: {
    retryable: false,
    recovery:
      'The tenant reached a limit (details.quota, details.limit). Resolve or let existing items expire, or ask an administrator to raise it.',
  },
  UNAVAILABLE: {
    retryable: true,
    recovery:
      'Holdfast cannot reach its database for a moment. Retry the same call (same idempotencyKey) after details.retryAfterMs: a retried write is never applied twice.',
  },
  INTERNAL: {
    retryable: true,
    recovery: 'An unexpected error occurred. Retry once; report the traceId if it persists.',
  },
} as const satisfies Record<string, { retryable: boolean; recovery: string }>;

export type ErrorCode = keyof typeof errorCatalog;

export const errorCodes = Object.keys(errorCatalog) as ErrorCode[];

/** Approval statuses as details report them (the domain's own type lives with approvals). */
type StatusText = string;

/**
 * What each code's details carry. Instants are epoch milliseconds here: each transport gives
 * them its own wire form, and adds what only it knows (links, command lines).
 */
/** A free time of the same length offered instead of a refused one; nothing is reserved. */
export interface AlternativeSlot {
  readonly start: Instant;
  readonly end: Instant;
  readonly reserved: false;
  /** The (first) calendar's zone, so the time can be said in its local time too. */
  readonly timeZone?: string;
}

export interface ErrorDetailsByCode {
  INVALID_ARGUMENTS: { readonly field: string; readonly issueCount?: number };
  NOT_FOUND: {
    readonly bookingId?: string;
    readonly calendarIds?: readonly string[];
    readonly approvalId?: string;
    readonly field?: string;
  };
  SLOT_UNAVAILABLE: {
    /** The calendars actually taken then, so the agent can offer to drop one. */
    readonly calendarIds?: readonly string[];
    /** Free ranges of the same length nearest the one asked for; not reserved. */
    readonly alternatives?: readonly AlternativeSlot[];
    /** What takes the time: a confirmed booking, a hold (which may lapse), or other (buffers, imported busy time, seats). */
    readonly takenBy?: 'booking' | 'hold' | 'other';
    /** takenBy hold: when the last of those holds lapses unless confirmed. */
    readonly holdLapsesAt?: Instant;
    /** Whether asking for the same time again can succeed: only if what takes it is a hold. */
    readonly retryCanSucceed?: boolean;
    /** The nearest free alternative at or after the time asked for; null when none was found. */
    readonly nextFree?: AlternativeSlot | null;
    /** propose_changes: the changes (by index) whose new time is taken. */
    readonly changes?: readonly number[];
    /** hold_series: each occurrence that cannot be held, why, and the free times nearest it. */
    readonly occurrences?: readonly {
      readonly occurrence: number;
      readonly start: Instant;
      readonly end: Instant;
      readonly calendarIds: readonly string[];
      readonly code: string;
      readonly reason: string;
      readonly alternatives: readonly AlternativeSlot[];
    }[];
  };
  OUTSIDE_AVAILABILITY: {
    readonly calendarId: string;
    readonly alternatives?: readonly AlternativeSlot[];
  };
  OUTSIDE_BOOKING_RULES: {
    readonly calendarId: string;
    /** Which rule: minimumNotice, maximumHorizon, slotStep, allowedDurations, maxBookingsPerDay, … */
    readonly rule: string;
    /** The rule's setting and, for a limit, the local day or week it counts in. */
    readonly [setting: string]: unknown;
    readonly alternatives?: readonly AlternativeSlot[];
  };
  HOLD_EXPIRED: {
    readonly bookingId: string;
    readonly expiredAt?: Instant | null;
    readonly reconciliationRequired?: boolean;
  };
  VERSION_CONFLICT: {
    readonly bookingId: string;
    readonly currentVersion: number | null;
    readonly expectedVersion?: number;
  };
  INVALID_STATE: {
    readonly bookingId?: string;
    readonly status?: StatusText;
    readonly requested?: StatusText;
    readonly approvalId?: string;
    /** book_slot: the steps that book instead. */
    readonly steps?: readonly string[];
    /** The booking moved on since the approval was asked. */
    readonly stale?: boolean;
  };
  IDEMPOTENCY_CONFLICT: { readonly idempotencyKey: string; readonly tool: string };
  APPROVAL_REQUIRED: {
    readonly approvalId: string;
    readonly intent: Intent;
    readonly intentHash: string;
    readonly summary: IntentSummary;
    readonly expiresAt: Instant;
  };
  APPROVAL_PENDING: {
    readonly approvalId: string;
    readonly status?: StatusText;
    readonly expiresAt?: Instant;
  };
  APPROVAL_DENIED: { readonly approvalId?: string; readonly status?: StatusText };
  APPROVAL_EXPIRED: { readonly approvalId?: string; readonly status?: StatusText } & ContractRefusal;
  APPROVAL_MISMATCH: { readonly approvalId?: string } & ContractRefusal;
  APPROVAL_USED: { readonly approvalId?: string; readonly status?: StatusText };
  PAYMENT_PENDING: { readonly bookingId: string; readonly holdExpiresAt: Instant | null };
  PAYMENT_FAILED: { readonly bookingId: string; readonly status: StatusText };
  PAYMENT_MISMATCH: {
    readonly bookingId: string;
    readonly expected: unknown;
    readonly reported: {
      readonly bookingId: string;
      readonly amount: string | null;
      readonly currency: string | null;
    };
  };
  PAYMENT_UNAVAILABLE: { readonly bookingId: string };
  INVALID_CURSOR: { readonly field: string };
  FORBIDDEN: {
    readonly requiredScope?: string;
    readonly writePolicy?: string;
    readonly steps?: readonly string[];
  };
  RATE_LIMITED: {
    readonly retryAfterMs?: number;
    /**
     * Which limit: calls_per_minute, active_holds, held_calendar_hours, login.
     */
    readonly limit?: string;
    readonly max?: number;
    /** held_calendar_hours: what the person holds now, and what this hold would add. */
    readonly heldCalendarHours?: number;
    readonly askedCalendarHours?: number;
  };
  QUOTA_EXCEEDED: { readonly quota: string; readonly limit: number };
  /** The database is unreachable (restarting, failing over, cut off): nothing can be read or written now. */
  UNAVAILABLE: { readonly retryAfterMs: number };
  INTERNAL: { readonly retryAfterMs?: number };
}

/**
 * A contract profile's own check refused (expert-booking's approval binding): the code that
 * contract answers with, and what it names. Holdfast's code is what the audit records.
 */
interface ContractRefusal {
  readonly contractCode?: string;
  readonly bookingId?: string;
  readonly field?: string;
  readonly fields?: readonly string[];
  readonly confirmationIntent?: unknown;
}

export type ErrorDetails<C extends ErrorCode = ErrorCode> = ErrorDetailsByCode[C];

/**
 * Details as read: typed fields for an error of a known code, and (for an error of any code) a
 * plain record to inspect. Constructing one checks the details against its code exactly.
 */
export type ErrorDetailsView<C extends ErrorCode> = ErrorDetailsByCode[C] & Readonly<Record<string, unknown>>;

/** Where counter-offers are off (a calendar's or a tenant's), a refusal offers none: say what to do instead. */
const WITHOUT_ALTERNATIVES: Partial<Record<ErrorCode, string>> = {
  SLOT_UNAVAILABLE:
    'The time is taken and no other time is offered. Use find_slots to pick an open time, then hold it.',
  OUTSIDE_AVAILABILITY: 'The time is outside the calendar hours. Use find_slots to pick an open time.',
  OUTSIDE_BOOKING_RULES:
    "The time breaks the calendar's booking rule named in details.rule. Use find_slots to pick a time the rules allow.",
};

/** The catalog's recovery sentence, unless it points at alternatives the refusal does not carry. */
function recoveryFor(code: ErrorCode, details: unknown): string {
  const alternatives = (details as { alternatives?: unknown } | undefined)?.alternatives;
  const instead = WITHOUT_ALTERNATIVES[code];
  return Array.isArray(alternatives) && alternatives.length === 0 && instead
    ? instead
    : errorCatalog[code].recovery;
}

export class DomainError<C extends ErrorCode = ErrorCode> extends Error {
  override readonly name = 'DomainError';
  readonly details: ErrorDetailsView<C>;
  constructor(
    readonly code: C,
    message: string,
    details?: ErrorDetails<C>,
    /** Overrides the catalog's recovery sentence when the situation needs a more specific one. */
    readonly recovery: string = recoveryFor(code, details),
  ) {
    super(message);
    this.details = (details ?? {}) as ErrorDetailsView<C>;
  }

  get retryable(): boolean {
    return errorCatalog[this.code].retryable;
  }
}

export function isDomainError(value: unknown): value is DomainError;
export function isDomainError<C extends ErrorCode>(value: unknown, code: C): value is DomainError<C>;
export function isDomainError(value: unknown, code?: ErrorCode): value is DomainError {
  return value instanceof DomainError && (code === undefined || value.code === code);
}

export function invalidArgument(field: string, message: string): DomainError<'INVALID_ARGUMENTS'> {
  return new DomainError('INVALID_ARGUMENTS', `${field}: ${message}`, { field });
}
