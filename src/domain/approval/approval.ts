import { DomainError } from '../errors.js';
import type { Instant } from '../time/instant.js';
import type { GatedAction, Intent } from './intent.js';

export const approvalStatuses = ['PENDING', 'APPROVED', 'DENIED', 'EXPIRED', 'USED'] as const;
export type ApprovalStatus = (typeof approvalStatuses)[number];

/** A human's decision about one exact action, usable once. */
export interface Approval {
  readonly id: string;
  readonly tenantId: string;
  readonly subject: string;
  readonly clientId: string;
  readonly action: GatedAction;
  readonly bookingId: string;
  readonly intent: Intent;
  readonly intentHash: string;
  readonly status: ApprovalStatus;
  readonly createdAt: Instant;
  readonly expiresAt: Instant;
  readonly decidedAt: Instant | null;
  readonly decidedBy: string | null;
  /** Why a use failed and burned it, for the audit trail. */
  readonly burnedReason: string | null;
  /** The standing rule that approved it at once, when a person's rule (not the person) decided. */
  readonly standingRuleId?: string | null;
  /**
   * How long the person has to decide once they look (a contract's own window: bookings-mcp's 10
   * minutes); absent: the tenant's window at that moment.
   */
  readonly windowMs?: number | null;
  /** The hold keeps the TTL it was placed with, even while a person decides (expert-booking's 5 minutes). */
  readonly holdFixed?: boolean;
  /**
   * The person's yes runs the write itself (agent-access's pending operation): the agent needs
   * only `draft`, and asks operation_get how it ended.
   */
  readonly executes?: boolean;
  /** Why the last run of such a write failed (a payment not cleared yet): kept for a retry. */
  readonly lastFailure?: string | null;
  /** What the agent wrote for the person deciding (bookings-mcp's requester_note), shown as written. */
  readonly requesterNote?: string | null;
  /** The connection that drafted a pending operation (executes): checked again when it runs. */
  readonly connectionId?: string | null;
}

/** The approval window of a tenant that never set one (`holdfast tenants set --approval-window`). */
export const APPROVAL_TTL_MS = 30 * 60_000;

/**
 * How long a hold that waits for a person is kept: the tenant's window from the ask, but never
 * past two windows from when it was taken — asking again and again cannot keep time forever.
 * Null when the hold already lasts as long (an agent's plain hold keeps its own TTL otherwise).
 */
export function holdKeptFor(
  hold: { readonly createdAt: Instant; readonly expiresAt: Instant | null },
  windowMs: number,
  now: Instant,
): Instant | null {
  if (hold.expiresAt === null || hold.expiresAt <= now) return null;
  const until = Math.min(now + windowMs, hold.createdAt + 2 * windowMs);
  return until > hold.expiresAt ? until : null;
}

/** Approvals last the tenant's window, and never past the hold they would confirm. */
export function approvalExpiry(now: Instant, windowMs: number, holdExpiresAt: Instant | null): Instant {
  const ttl = now + windowMs;
  return holdExpiresAt === null ? ttl : Math.min(ttl, holdExpiresAt);
}

/**
 * When a person looks at a pending approval (opens its page or card) or decides it, the hold it
 * would confirm is kept for their window — never before: an agent asking alone keeps nothing
 * longer than the hold's own TTL. The approval then lasts as long as that, still never past the
 * window from when it was asked twice over (holdKeptFor caps the hold). Null: nothing to keep.
 */
export function keptForPerson(
  approval: Approval,
  hold: { readonly createdAt: Instant; readonly expiresAt: Instant | null },
  windowMs: number,
  now: Instant,
): { holdUntil: Instant; approvalUntil: Instant } | null {
  if (approval.holdFixed || approval.action !== 'confirm_booking') return null;
  if (effectiveApprovalStatus(approval, now) === 'EXPIRED') return null;
  const holdUntil = holdKeptFor(hold, windowMs, now);
  if (holdUntil === null) return null;
  const approvalUntil = Math.max(approval.expiresAt, approvalExpiry(now, windowMs, holdUntil));
  return { holdUntil, approvalUntil };
}

export function effectiveApprovalStatus(approval: Approval, now: Instant): ApprovalStatus {
  if ((approval.status === 'PENDING' || approval.status === 'APPROVED') && approval.expiresAt <= now)
    return 'EXPIRED';
  return approval.status;
}

export function decide(approval: Approval, decision: 'APPROVE' | 'DENY', by: string, now: Instant): Approval {
  const status = effectiveApprovalStatus(approval, now);
  if (status !== 'PENDING') {
    throw new DomainError(
      'INVALID_STATE',
      `Approval ${approval.id} is ${status}; only a pending approval can be decided.`,
      {
        approvalId: approval.id,
        status,
      },
    );
  }
  return {
    ...approval,
    status: decision === 'APPROVE' ? 'APPROVED' : 'DENIED',
    decidedAt: now,
    decidedBy: by,
  };
}

export interface ApprovalUse {
  readonly tenantId: string;
  readonly subject: string;
  readonly action: GatedAction;
  readonly bookingId: string;
  readonly intentHash: string;
  readonly now: Instant;
}

/**
 * Why this approval cannot authorise this use, or null when it can. A
 * mismatch (other principal, booking, action or intent) burns the approval.
 */
export function refusalOf(
  approval: Approval,
  use: ApprovalUse,
): { error: DomainError; burn: boolean } | null {
  const details = { approvalId: approval.id };
  const status = effectiveApprovalStatus(approval, use.now);
  if (status === 'USED')
    return {
      error: new DomainError('APPROVAL_USED', 'This approval was already used.', details),
      burn: false,
    };
  const matches =
    approval.tenantId === use.tenantId &&
    approval.subject === use.subject &&
    approval.action === use.action &&
    approval.bookingId === use.bookingId &&
    approval.intentHash === use.intentHash;
  if (!matches) {
    return {
      error: new DomainError(
        'APPROVAL_MISMATCH',
        'This approval was given for a different action; it is now void.',
        details,
      ),
      burn: true,
    };
  }
  if (status === 'PENDING') {
    return {
      error: new DomainError('APPROVAL_PENDING', 'The human has not decided yet.', {
        ...details,
        expiresAt: approval.expiresAt,
      }),
      burn: false,
    };
  }
  if (status === 'DENIED')
    return {
      error: new DomainError('APPROVAL_DENIED', 'The human denied this action.', details),
      burn: false,
    };
  if (status === 'EXPIRED')
    return { error: new DomainError('APPROVAL_EXPIRED', 'The approval expired.', details), burn: false };
  return null;
}

export function burn(approval: Approval, reason: string): Approval {
  return { ...approval, status: 'USED', burnedReason: reason };
}

export function consume(approval: Approval): Approval {
  return { ...approval, status: 'USED' };
}

/**
 * Host-attested approval (write policy `attested`): a registered host signs, with its own key,
 * that its user approved this intent. The model cannot make one: it has no key.
 */
export interface HostAttestation {
  readonly hostId: string;
  readonly approvalId: string;
  readonly approvedAt: string;
  readonly intentHash: string;
  /** Ed25519 signature (base64url) of attestationMessage(...). */
  readonly signature: string;
}

/** Exactly what a host signs: one field per line, none of which can hold a line break. */
export function attestationMessage(a: Omit<HostAttestation, 'signature'>): string {
  return `holdfast-attestation-v1\n${a.hostId}\n${a.approvalId}\n${a.intentHash}\n${a.approvedAt}`;
}

export const ATTESTATION_MAX_AGE_MS = 120_000;
export const ATTESTATION_MAX_SKEW_MS = 5_000;

/**
 * Checks a host attestation against the current intent. `recomputedHash` is
 * the hash of the intent exactly as the host sent it.
 */
export function attestationRefusal(
  attestation: HostAttestation,
  current: { readonly intentHash: string },
  approvedAt: Instant,
  now: Instant,
  /** A contract's own window (expert-booking: 120 s and its 5 s of skew). */
  maxAgeMs: number = ATTESTATION_MAX_AGE_MS,
): DomainError | null {
  const details = { approvalId: attestation.approvalId };
  if (approvedAt > now + ATTESTATION_MAX_SKEW_MS) {
    return new DomainError(
      'APPROVAL_MISMATCH',
      'approvedAt lies in the future; the attestation is not trusted.',
      details,
    );
  }
  if (approvedAt < now - maxAgeMs) {
    return new DomainError(
      'APPROVAL_EXPIRED',
      `The attested approval is older than ${Math.round(maxAgeMs / 1000)} seconds.`,
      details,
    );
  }
  if (attestation.intentHash !== current.intentHash) {
    return new DomainError(
      'APPROVAL_MISMATCH',
      'The attested intentHash does not match the current intent.',
      details,
    );
  }
  return null;
}
