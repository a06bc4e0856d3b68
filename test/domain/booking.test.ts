import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { Booking } from '../../src/domain/booking/booking.js';
import {
  cancelBooking,
  confirmHold,
  effectiveStatus,
  expireHold,
  occupiesTime,
  releaseHold,
} from '../../src/domain/booking/booking.js';
import { sumPrices, validateMoney } from '../../src/domain/booking/money.js';
import { DomainError, errorCatalog, errorCodes } from '../../src/domain/errors.js';
import { heldBooking } from '../support/booking-fixture.js';

const T0 = Date.UTC(2030, 0, 7, 9);
const held: Booking = heldBooking(T0);

function codeOf(fn: () => unknown): string | undefined {
  try {
    fn();
  } catch (error) {
    return (error as DomainError).code;
  }
  return undefined;
}

describe('booking state machine', () => {
  it('confirms a live hold, bumping the version and dropping the expiry', () => {
    const confirmed = confirmHold(held, 1, T0 + 1000);
    expect(confirmed).toMatchObject({
      status: 'CONFIRMED',
      version: 2,
      expiresAt: null,
      updatedAt: T0 + 1000,
    });
    expect(cancelBooking(confirmed, 2, T0 + 2000)).toMatchObject({ status: 'CANCELLED', version: 3 });
  });

  it('refuses a stale version with the current one in details', () => {
    let caught: DomainError | undefined;
    try {
      confirmHold(held, 4, T0);
    } catch (error) {
      caught = error as DomainError;
    }
    expect(caught?.code).toBe('VERSION_CONFLICT');
    expect(caught?.details.currentVersion).toBe(1);
  });

  it('treats a hold at or after expiresAt as lapsed', () => {
    expect(effectiveStatus(held, T0 + 299_999)).toBe('HELD');
    expect(effectiveStatus(held, T0 + 300_000)).toBe('EXPIRED');
    expect(codeOf(() => confirmHold(held, 1, T0 + 300_000))).toBe('HOLD_EXPIRED');
    expect(codeOf(() => releaseHold(held, 1, T0 + 300_000))).toBe('HOLD_EXPIRED');
    expect(expireHold(held, T0 + 300_000)).toMatchObject({
      status: 'EXPIRED',
      version: 2,
      expiresAt: T0 + 300_000,
    });
  });

  it('allows only the documented transitions', () => {
    const released = releaseHold(held, 1, T0);
    expect(released.status).toBe('RELEASED');
    expect(codeOf(() => confirmHold(released, 2, T0))).toBe('INVALID_STATE');
    expect(codeOf(() => cancelBooking(held, 1, T0))).toBe('INVALID_STATE');
    expect(codeOf(() => cancelBooking(cancelBooking(confirmHold(held, 1, T0), 2, T0), 3, T0))).toBe(
      'INVALID_STATE',
    );
  });

  it('occupies time only while HELD or CONFIRMED', () => {
    expect(
      ['HELD', 'CONFIRMED', 'CANCELLED', 'EXPIRED', 'RELEASED'].filter((s) =>
        occupiesTime(s as Booking['status']),
      ),
    ).toEqual(['HELD', 'CONFIRMED']);
  });
});

describe('money', () => {
  it('adds decimal strings exactly, never through floats', () => {
    expect(
      sumPrices([{ amount: '0.10', currency: 'EUR' }, { amount: '0.2', currency: 'EUR' }, null]),
    ).toEqual({
      amount: '0.30',
      currency: 'EUR',
    });
    expect(sumPrices([{ amount: '500.00', currency: 'CNY' }])).toEqual({ amount: '500.00', currency: 'CNY' });
    expect(sumPrices([null, null])).toBeNull();
  });
  it('refuses mixed currencies and malformed amounts', () => {
    expect(
      codeOf(() =>
        sumPrices([
          { amount: '1', currency: 'EUR' },
          { amount: '1', currency: 'USD' },
        ]),
      ),
    ).toBe('INVALID_ARGUMENTS');
    expect(codeOf(() => validateMoney({ amount: '1e3', currency: 'EUR' }, 'price'))).toBe(
      'INVALID_ARGUMENTS',
    );
    expect(codeOf(() => validateMoney({ amount: '10.00', currency: 'eur' }, 'price'))).toBe(
      'INVALID_ARGUMENTS',
    );
  });
});

describe('error catalog', () => {
  it('is the closed set of codes docs/tools.md lists, each with a recovery sentence', () => {
    // The docs' table, row by row: code, retryable, the recovery sentence exactly.
    const rows = [
      ...readFileSync('docs/tools.md', 'utf8').matchAll(/^\| `([A-Z_]+)` +\| (yes|no) +\| (.+?) *\|$/gm),
    ].map((m) => [m[1], m[2] === 'yes', m[3]!.replace(/\\\|/g, '|')]);
    expect(rows).toEqual(errorCodes.map((c) => [c, errorCatalog[c].retryable, errorCatalog[c].recovery]));
    expect(errorCodes).toHaveLength(25);
    expect(errorCodes).toContain('QUOTA_EXCEEDED');
    expect(errorCodes).toContain('UNAVAILABLE');
    expect(errorCodes).toContain('OUTSIDE_BOOKING_RULES');
    for (const code of errorCodes) expect(errorCatalog[code].recovery.length).toBeGreaterThan(10);
    expect(new DomainError('VERSION_CONFLICT', 'x').retryable).toBe(true);
    expect(new DomainError('SLOT_UNAVAILABLE', 'x').retryable).toBe(false);
  });
});
