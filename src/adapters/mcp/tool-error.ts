import type { AlternativeSlot, ErrorCode } from '../../domain/errors.js';
import { DomainError, errorCatalog, isDomainError } from '../../domain/errors.js';
import { formatInstant, formatLocal } from '../../domain/time/instant.js';
import type { Instant } from '../../domain/time/instant.js';
import type { Links } from './links.js';
import { pendingApprovalView } from './views.js';

export interface ToolError {
  readonly code: ErrorCode;
  readonly message: string;
  readonly retryable: boolean;
  readonly details: Record<string, unknown>;
  readonly recovery: { readonly action: string };
}

const instant = (value: Instant | null | undefined) =>
  value === undefined ? undefined : value === null ? null : formatInstant(value);

/** An alternative in UTC and, where its calendar's zone is known, in that zone's local time. */
const wireAlternative = (a: AlternativeSlot) => ({
  start: formatInstant(a.start),
  end: formatInstant(a.end),
  ...(a.timeZone
    ? {
        startLocal: formatLocal(a.start, a.timeZone),
        endLocal: formatLocal(a.end, a.timeZone),
        timeZone: a.timeZone,
      }
    : {}),
  reserved: false,
});

/**
 * Details on the wire: instants as RFC 3339, and what only this transport knows — how a person
 * reaches an approval (page link, command line) or a payment page.
 */
function wireDetails(error: DomainError, links: Links): Record<string, unknown> {
  if (isDomainError(error, 'SLOT_UNAVAILABLE')) {
    const { alternatives, holdLapsesAt, nextFree, occurrences } = error.details;
    return {
      ...error.details,
      // hold_series: each occurrence that cannot be held, with its own alternatives.
      ...(occurrences
        ? {
            occurrences: occurrences.map((o) => ({
              ...o,
              start: formatInstant(o.start),
              end: formatInstant(o.end),
              alternatives: o.alternatives.map(wireAlternative),
            })),
          }
        : {}),
      ...(alternatives ? { alternatives: alternatives.map(wireAlternative) } : {}),
      ...(holdLapsesAt !== undefined ? { holdLapsesAt: formatInstant(holdLapsesAt) } : {}),
      ...(nextFree !== undefined ? { nextFree: nextFree && wireAlternative(nextFree) } : {}),
    };
  }
  if (isDomainError(error, 'OUTSIDE_AVAILABILITY') && error.details.alternatives) {
    return { ...error.details, alternatives: error.details.alternatives.map(wireAlternative) };
  }
  if (isDomainError(error, 'OUTSIDE_BOOKING_RULES')) {
    const details: Record<string, unknown> = { ...error.details };
    for (const key of ['earliestStart', 'latestStart', 'countedFrom', 'countedTo'])
      if (typeof details[key] === 'number') details[key] = formatInstant(details[key]);
    if (error.details.alternatives) details.alternatives = error.details.alternatives.map(wireAlternative);
    return details;
  }
  if (isDomainError(error, 'HOLD_EXPIRED') && error.details.expiredAt !== undefined)
    return { ...error.details, expiredAt: instant(error.details.expiredAt) };
  if (isDomainError(error, 'APPROVAL_REQUIRED')) return pendingApprovalView(error.details, links);
  if (isDomainError(error, 'APPROVAL_PENDING') && error.details.expiresAt !== undefined)
    return { ...error.details, expiresAt: instant(error.details.expiresAt) };
  if (isDomainError(error, 'PAYMENT_PENDING')) {
    return {
      ...error.details,
      paymentUrl: links.paymentUrl(error.details.bookingId),
      holdExpiresAt: instant(error.details.holdExpiresAt),
    };
  }
  return { ...error.details };
}

/**
 * The one mapping from anything thrown to what a model sees. Unknown errors
 * become INTERNAL with no message, stack or driver text from the original.
 */
export function toToolError(error: unknown, links: Links): ToolError {
  if (error instanceof DomainError) {
    return {
      code: error.code,
      message: error.message,
      retryable: error.retryable,
      details: wireDetails(error, links),
      recovery: { action: error.recovery },
    };
  }
  return {
    code: 'INTERNAL',
    message: 'Holdfast hit an unexpected error. Report meta.traceId if it persists.',
    retryable: errorCatalog.INTERNAL.retryable,
    details: {},
    recovery: { action: errorCatalog.INTERNAL.recovery },
  };
}
