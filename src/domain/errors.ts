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
    recovery: 'The time is taken. Offer one of details.alternatives to the user, then hold it.',
  },
  OUTSIDE_AVAILABILITY: {
    retryable: false,
    recovery: 'The time is outside the calendar hours. Use find_slots to pick an open time.',
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
    recovery: 'Show details.intent to the user, get their approval, then retry with the approval.',
  },
  APPROVAL_PENDING: { retryable: true, recovery: 'The human has not decided yet. Wait, then check again.' },
  APPROVAL_DENIED: {
    retryable: false,
    recovery: 'The human said no. Do not retry; ask the user what to do.',
  },
  APPROVAL_EXPIRED: { retryable: false, recovery: 'The approval lapsed. Request a new approval.' },
  APPROVAL_MISMATCH: {
    retryable: false,
    recovery: 'The approval was for a different action. Request a new approval for this exact action.',
  },
  APPROVAL_USED: { retryable: false, recovery: 'The approval was already used. Request a new approval.' },
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
  FORBIDDEN: { retryable: false, recovery: 'This principal may not do this. Ask an administrator.' },
  RATE_LIMITED: { retryable: true, recovery: 'Too many calls. Wait a moment, then retry.' },
  QUOTA_EXCEEDED: {
    retryable: false,
    recovery:
      'The tenant reached a limit (details.quota, details.limit). Resolve or let existing items expire, or ask an administrator to raise it.',
  },
  INTERNAL: {
    retryable: true,
    recovery: 'An unexpected error occurred. Retry once; report the traceId if it persists.',
  },
} as const satisfies Record<string, { retryable: boolean; recovery: string }>;

export type ErrorCode = keyof typeof errorCatalog;

export const errorCodes = Object.keys(errorCatalog) as ErrorCode[];

export type ErrorDetails = Readonly<Record<string, unknown>>;

export class DomainError extends Error {
  override readonly name = 'DomainError';
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly details: ErrorDetails = {},
    /** Overrides the catalog's recovery sentence when the situation needs a more specific one. */
    readonly recovery: string = errorCatalog[code].recovery,
  ) {
    super(message);
  }

  get retryable(): boolean {
    return errorCatalog[this.code].retryable;
  }
}

export function isDomainError(value: unknown): value is DomainError {
  return value instanceof DomainError;
}

export function invalidArgument(field: string, message: string): DomainError {
  return new DomainError('INVALID_ARGUMENTS', `${field}: ${message}`, { field });
}
