import { describe, expect, it } from 'vitest';
import { pageStatusOf } from '../../../src/adapters/http/page-status.js';
import { errorCodes } from '../../../src/domain/errors.js';
import type { ErrorCode } from '../../../src/domain/errors.js';

/** Every domain error a page can meet, and the status every page answers it with. */
const expected: Record<ErrorCode, number> = {
  INVALID_ARGUMENTS: 400,
  INVALID_CURSOR: 400,
  FORBIDDEN: 403,
  NOT_FOUND: 404,
  RATE_LIMITED: 429,
  PAYMENT_UNAVAILABLE: 503,
  UNAVAILABLE: 503,
  INTERNAL: 500,
  SLOT_UNAVAILABLE: 409,
  OUTSIDE_AVAILABILITY: 409,
  OUTSIDE_BOOKING_RULES: 409,
  HOLD_EXPIRED: 409,
  VERSION_CONFLICT: 409,
  INVALID_STATE: 409,
  IDEMPOTENCY_CONFLICT: 409,
  APPROVAL_REQUIRED: 409,
  APPROVAL_PENDING: 409,
  APPROVAL_DENIED: 409,
  APPROVAL_EXPIRED: 409,
  APPROVAL_MISMATCH: 409,
  APPROVAL_USED: 409,
  PAYMENT_PENDING: 409,
  PAYMENT_FAILED: 409,
  PAYMENT_MISMATCH: 409,
  QUOTA_EXCEEDED: 409,
};

describe('one domain error → page status mapping', () => {
  it('covers every error code', () => {
    expect(Object.keys(expected).sort()).toEqual([...errorCodes].sort());
  });

  it.each(errorCodes.map((code) => [code, expected[code]] as const))('%s → %i', (code, status) => {
    expect(pageStatusOf(code)).toBe(status);
  });
});
