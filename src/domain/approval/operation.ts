import type { Booking } from '../booking/booking.js';
import { effectiveStatus } from '../booking/booking.js';
import type { Instant } from '../time/instant.js';
import type { Approval } from './approval.js';
import { effectiveApprovalStatus } from './approval.js';

/**
 * agent-access (seed 004) as a booking server: an agent's write is a pending operation — an
 * approval whose yes runs the write — until the person who confirms it on its page is done.
 */
export type OperationStatus = 'pending' | 'completed' | 'cancelled' | 'expired';

/** How long a draft waits for its person (the seed's 10 minutes), never past the hold it would confirm. */
export const OPERATION_TTL_MS = 10 * 60_000;

/**
 * An approved operation whose run failed (a payment not cleared yet) is still pending: the person
 * retries or cancels it. A used one ran; a denied one was cancelled.
 */
export function operationStatus(approval: Approval, now: Instant): OperationStatus {
  const status = effectiveApprovalStatus(approval, now);
  if (status === 'USED') return 'completed';
  if (status === 'DENIED') return 'cancelled';
  if (status === 'EXPIRED') return 'expired';
  return 'pending';
}

/**
 * What a write's expectedState stands for: the booking it acts on as it is now — its version,
 * status (a lapsed hold is EXPIRED), price and payment. Any change to it (by the console, another
 * agent, the hold lapsing) gives another state; a hold kept longer while a person decides does
 * not. Digested by the caller; only the digest is ever shown.
 */
export function stateBasis(booking: Booking, now: Instant) {
  return {
    bookingId: booking.id,
    version: booking.version,
    status: effectiveStatus(booking, now),
    price: booking.price,
    payment: booking.payment,
  };
}

/** The person cancels an operation whose run failed: it is over, and the agent reads cancelled. */
export function cancelFailed(approval: Approval, by: string, now: Instant): Approval {
  return {
    ...approval,
    status: 'DENIED',
    decidedAt: now,
    decidedBy: by,
    burnedReason: 'cancelled after a failed run',
  };
}

/** Whether a person may retry or cancel it: approved, its run failed, and it is still in time. */
export const isRetryable = (approval: Approval, now: Instant): boolean =>
  approval.executes === true &&
  effectiveApprovalStatus(approval, now) === 'APPROVED' &&
  (approval.lastFailure ?? null) !== null;
