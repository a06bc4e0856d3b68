import type { Booking } from '../domain/booking/booking.js';
import type { DomainError } from '../domain/errors.js';
import type { Instant } from '../domain/time/instant.js';
import type { CallEnd, EffectAudit } from '../ports/audit.js';

/** What a gated change is told about the call it serves. */
export interface CallContext {
  readonly traceId: string;
  /** The call's audit record, written with whatever this call commits. */
  readonly audit?: EffectAudit;
  /**
   * A contract's own check of the call against the booking, after the booking is loaded and
   * before any proof is weighed or payment asked (expert-booking's v1 intent binding).
   */
  readonly contractCheck?: (booking: Booking, now: Instant) => void;
  /** The digest of the call's arguments as sent, where they hold more than the use case's input. */
  readonly argumentsDigest?: string;
  /** A person must decide this one (the console asks on their behalf): no standing rule applies. */
  readonly personDecides?: boolean;
  /**
   * The client can ask its user directly (2026-07-28 clients that declared
   * elicitation). `answer` is present when this call is the re-entry carrying
   * the user's answer, already checked for integrity by the transport.
   */
  readonly elicitation?: {
    readonly answer?: {
      readonly approvalId: string;
      readonly intentHash: string;
      readonly approved: boolean;
    };
  };
}

/** Records the call with a refusal that itself wrote something (a pending approval, a burned one). */
export function refusedWith(error: DomainError): CallEnd {
  return { outcome: 'error', code: error.code, message: error.message };
}
