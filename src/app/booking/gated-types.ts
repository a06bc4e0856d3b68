import type { ProofRequest } from '../approvals/approval-proof.js';
import type { BookingSnapshot } from './snapshot.js';

/** confirm_booking / cancel_booking as the use case takes them. */
export interface GatedBookingInput extends ProofRequest {
  readonly bookingId: string;
  readonly expectedVersion: number;
  readonly idempotencyKey: string;
  /** cancel_booking of a series occurrence: `following` ends it and every later one (default: this one). */
  readonly scope?: 'this' | 'following';
  /** confirm_booking: the title the confirmed booking gets (deltat's commit_hold names it then). */
  readonly label?: string;
}

/** What the committing transaction decided; stored for replays, so a retry gets the same answer. */
export interface CommitResult {
  readonly snapshot: BookingSnapshot;
  readonly paymentFailed?: 'FAILED' | 'CLOSED';
  readonly lapsedButPaid?: boolean;
}
