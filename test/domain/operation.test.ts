import { describe, expect, it } from 'vitest';
import type { Approval } from '../../src/domain/approval/approval.js';
import {
  cancelFailed,
  isRetryable,
  OPERATION_TTL_MS,
  operationStatus,
  stateBasis,
} from '../../src/domain/approval/operation.js';
import { heldBooking } from '../support/booking-fixture.js';

const T0 = Date.UTC(2030, 0, 7, 9);
const operation: Approval = {
  id: 'op-1',
  tenantId: 't',
  subject: 'alice',
  clientId: 'c',
  action: 'confirm_booking',
  bookingId: 'bk_1',
  intent: {
    action: 'confirm_booking',
    bookingId: 'bk_1',
    calendarIds: ['cal_a'],
    start: '2030-01-07T10:00:00Z',
    end: '2030-01-07T11:00:00Z',
    amount: null,
    currency: null,
    version: 1,
  },
  intentHash: 'sha256:aa',
  status: 'PENDING',
  createdAt: T0,
  expiresAt: T0 + OPERATION_TTL_MS,
  decidedAt: null,
  decidedBy: null,
  burnedReason: null,
  executes: true,
};

describe('a pending operation (agent-access)', () => {
  it('reads pending while undecided or approved with a failed run; completed once used; cancelled when denied; expired in the end', () => {
    expect(operationStatus(operation, T0)).toBe('pending');
    expect(operationStatus({ ...operation, status: 'APPROVED', lastFailure: 'PAYMENT_PENDING: …' }, T0)).toBe(
      'pending',
    );
    expect(operationStatus({ ...operation, status: 'USED' }, T0)).toBe('completed');
    expect(operationStatus({ ...operation, status: 'DENIED' }, T0)).toBe('cancelled');
    expect(operationStatus(operation, T0 + OPERATION_TTL_MS)).toBe('expired');
    expect(operationStatus({ ...operation, status: 'APPROVED' }, T0 + OPERATION_TTL_MS)).toBe('expired');
  });

  it('may be retried or cancelled only when approved, executing, failed and in time', () => {
    const failed = { ...operation, status: 'APPROVED' as const, lastFailure: 'PAYMENT_PENDING: not yet' };
    expect(isRetryable(failed, T0)).toBe(true);
    expect(isRetryable({ ...failed, lastFailure: null }, T0)).toBe(false);
    expect(isRetryable({ ...failed, executes: false }, T0)).toBe(false);
    expect(isRetryable(operation, T0)).toBe(false);
    expect(isRetryable(failed, T0 + OPERATION_TTL_MS)).toBe(false);
    const cancelled = cancelFailed(failed, 'person:p1', T0 + 5);
    expect(cancelled).toMatchObject({ status: 'DENIED', decidedBy: 'person:p1', decidedAt: T0 + 5 });
    expect(operationStatus(cancelled, T0 + 6)).toBe('cancelled');
  });

  it('its state is the booking’s version, status, price and payment: a lapse changes it, a longer hold does not', () => {
    const booking = heldBooking(T0);
    const before = stateBasis(booking, T0);
    expect(stateBasis({ ...booking, expiresAt: (booking.expiresAt ?? T0) + 60_000 }, T0)).toEqual(before);
    expect(stateBasis({ ...booking, version: booking.version + 1 }, T0)).not.toEqual(before);
    expect(stateBasis(booking, (booking.expiresAt ?? T0) + 1).status).toBe('EXPIRED');
    expect(Object.keys(before).sort()).toEqual(['bookingId', 'payment', 'price', 'status', 'version']);
  });
});
