import type { ErrorCode } from '../../domain/errors.js';

/** The statuses a page answers a refused action with. */
export type PageStatus = 400 | 403 | 404 | 409 | 429 | 500 | 503;

/**
 * The one mapping from a domain error to the HTTP status of a page (console, account, sign-in,
 * passkeys): the person's input was wrong (400), they may not (403), it is not there for them
 * (404), too often (429), the payment provider or the database is away (503), or the thing is not in a state
 * that allows it — moved on meanwhile, waiting, full (409).
 */
export function pageStatusOf(code: ErrorCode): PageStatus {
  switch (code) {
    case 'INVALID_ARGUMENTS':
    case 'INVALID_CURSOR':
      return 400;
    case 'FORBIDDEN':
      return 403;
    case 'NOT_FOUND':
      return 404;
    case 'RATE_LIMITED':
      return 429;
    case 'PAYMENT_UNAVAILABLE':
    case 'UNAVAILABLE':
      return 503;
    case 'INTERNAL':
      return 500;
    default:
      return 409;
  }
}
