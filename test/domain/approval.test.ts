import { describe, expect, it } from 'vitest';
import type { Approval } from '../../src/domain/approval/approval.js';
import {
  APPROVAL_TTL_MS,
  approvalExpiry,
  holdKeptFor,
  attestationMessage,
  attestationRefusal,
  decide,
  effectiveApprovalStatus,
  refusalOf,
} from '../../src/domain/approval/approval.js';
import type { Intent } from '../../src/domain/approval/intent.js';
import { sameIntent } from '../../src/domain/approval/intent.js';

const T0 = Date.UTC(2030, 0, 7, 9);
const intent: Intent = {
  action: 'confirm_booking',
  bookingId: 'bk_1',
  calendarIds: ['cal_a'],
  start: '2030-01-07T10:00:00Z',
  end: '2030-01-07T11:00:00Z',
  amount: '500.00',
  currency: 'CNY',
  version: 1,
};
const pending: Approval = {
  id: 'ap-1',
  tenantId: 't',
  subject: 'alice',
  clientId: 'c',
  action: 'confirm_booking',
  bookingId: 'bk_1',
  intent,
  intentHash: 'sha256:aa',
  status: 'PENDING',
  createdAt: T0,
  expiresAt: T0 + APPROVAL_TTL_MS,
  decidedAt: null,
  decidedBy: null,
  burnedReason: null,
};
const use = {
  tenantId: 't',
  subject: 'alice',
  action: 'confirm_booking' as const,
  bookingId: 'bk_1',
  intentHash: 'sha256:aa',
  now: T0 + 1,
};

describe('approvals', () => {
  it("last the tenant's window, never past the hold", () => {
    expect(approvalExpiry(T0, 1_800_000, null)).toBe(T0 + 1_800_000);
    expect(approvalExpiry(T0, 1_800_000, T0 + 60_000)).toBe(T0 + 60_000);
  });

  it('keep a hold that waits for a person for the window, never past two windows from when it was taken', () => {
    const window = 30 * 60_000;
    const hold = { createdAt: T0, expiresAt: T0 + 5 * 60_000 };
    // Asked a minute in: kept 30 minutes from the ask.
    expect(holdKeptFor(hold, window, T0 + 60_000)).toBe(T0 + 60_000 + window);
    // Asked again and again: never past an hour from when it was held.
    expect(holdKeptFor({ createdAt: T0, expiresAt: T0 + 59 * 60_000 }, window, T0 + 50 * 60_000)).toBe(
      T0 + 2 * window,
    );
    // Already kept as long, lapsed, or not a hold: nothing to do.
    expect(holdKeptFor({ createdAt: T0, expiresAt: T0 + 2 * window }, window, T0 + 50 * 60_000)).toBeNull();
    expect(holdKeptFor(hold, window, T0 + 5 * 60_000)).toBeNull();
    expect(holdKeptFor({ createdAt: T0, expiresAt: null }, window, T0)).toBeNull();
  });

  it('authorise only the exact use, once decided and before expiry', () => {
    const approved = decide(pending, 'APPROVE', 'page', T0);
    expect(refusalOf(approved, use)).toBeNull();
    expect(refusalOf(pending, use)?.error.code).toBe('APPROVAL_PENDING');
    expect(refusalOf(decide(pending, 'DENY', 'page', T0), use)?.error.code).toBe('APPROVAL_DENIED');
    expect(refusalOf(approved, { ...use, now: T0 + APPROVAL_TTL_MS })?.error.code).toBe('APPROVAL_EXPIRED');
    expect(effectiveApprovalStatus(pending, T0 + APPROVAL_TTL_MS)).toBe('EXPIRED');
    expect(refusalOf({ ...approved, status: 'USED' }, use)?.error.code).toBe('APPROVAL_USED');
  });

  it.each([
    ['other principal', { subject: 'bob' }],
    ['other booking', { bookingId: 'bk_2' }],
    ['other action', { action: 'cancel_booking' as const }],
    ['other intent', { intentHash: 'sha256:bb' }],
    ['other tenant', { tenantId: 'u' }],
  ])('a mismatch (%s) is refused and burns the approval', (_name, change) => {
    const refusal = refusalOf(decide(pending, 'APPROVE', 'page', T0), { ...use, ...change });
    expect(refusal?.error.code).toBe('APPROVAL_MISMATCH');
    expect(refusal?.burn).toBe(true);
  });

  it('can be decided once', () => {
    expect(() => decide(decide(pending, 'APPROVE', 'page', T0), 'DENY', 'cli', T0)).toThrow(
      /only a pending approval/,
    );
  });
});

describe('host attestations', () => {
  const current = { intent, intentHash: 'sha256:aa' };
  const attestation = {
    hostId: 'host_a',
    approvalId: 'x',
    approvedAt: '',
    intentHash: 'sha256:aa',
    signature: 'sig',
  };
  const code = (approvedAt: number, overrides: Partial<typeof attestation> = {}) =>
    attestationRefusal({ ...attestation, ...overrides }, current, approvedAt, T0)?.code ?? null;

  it('accept approvals up to 120 s old and at most 5 s in the future', () => {
    expect(code(T0 - 120_000)).toBeNull();
    expect(code(T0 - 120_001)).toBe('APPROVAL_EXPIRED');
    expect(code(T0 + 5_000)).toBeNull();
    expect(code(T0 + 5_001)).toBe('APPROVAL_MISMATCH');
  });

  it('refuse a hash of another intent', () => {
    expect(code(T0, { intentHash: 'sha256:bb' })).toBe('APPROVAL_MISMATCH');
  });

  it('sign one field per line, so no field can stand in for another', () => {
    expect(attestationMessage(attestation)).toBe('holdfast-attestation-v1\nhost_a\nx\nsha256:aa\n');
  });

  it('compare intents field by field', () => {
    expect(sameIntent({ ...intent }, intent)).toBe(true);
    expect(sameIntent({ ...intent, calendarIds: ['cal_b'] }, intent)).toBe(false);
    expect(sameIntent({ ...intent, extra: 1 }, intent)).toBe(false);
    expect(sameIntent({ ...intent, version: '1' }, intent)).toBe(false);
  });
});
