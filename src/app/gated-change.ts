import type { Approval, HostAttestation } from '../domain/approval/approval.js';
import { attestationRefusal, burn, consume, decide, refusalOf } from '../domain/approval/approval.js';
import type { GatedAction, Intent } from '../domain/approval/intent.js';
import { intentOf, sameIntent } from '../domain/approval/intent.js';
import type { Booking } from '../domain/booking/booking.js';
import {
  cancelBooking,
  confirmHold,
  failPayment,
  flagPaidAfterLapse,
  isHoldLapsed,
  markPaid,
} from '../domain/booking/booking.js';
import type { Principal } from '../domain/calendar.js';
import { DomainError } from '../domain/errors.js';
import type { PaymentVerdict } from '../domain/payment/payment.js';
import { judgePayment } from '../domain/payment/payment.js';
import { formatInstant, parseInstant } from '../domain/time/instant.js';
import type { CallEnd, EffectAudit } from '../ports/audit.js';
import { PaymentUnavailableError } from '../ports/payment-query.js';
import type { StoreTx } from '../ports/store/index.js';
import type { PendingApproval } from './approvals.js';
import { openApproval, ownApproval } from './approvals.js';
import { requireWriter } from './authorize.js';
import type { AppDeps } from './deps.js';
import type { IdempotentCall, Outcome, ResultStorage } from './idempotent.js';
import { findReplay, idempotent } from './idempotent.js';
import type { BookingSnapshot } from './snapshot.js';
import { loadBooking, snapshotOf, snapshotStorage } from './snapshot.js';

export interface GatedChangeInput {
  readonly bookingId: string;
  readonly expectedVersion: number;
  readonly idempotencyKey: string;
  /** A decision made on a server-side surface (approval page, CLI). */
  readonly approval?: { readonly approvalId: string };
  /** Policy `attested`: the host swears the user approved this intent. */
  readonly humanApproval?: HostAttestation;
}

export interface CallContext {
  readonly traceId: string;
  /** The call's audit record, written with whatever this call commits. */
  readonly audit?: EffectAudit;
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

/** Thrown to ask the transport to put the pending approval to the user and call again with the answer. */
export class UserApprovalNeeded extends Error {
  override readonly name = 'UserApprovalNeeded';
  constructor(readonly pending: PendingApproval) {
    super('user approval needed');
  }
}

type Authorization =
  | { readonly kind: 'direct' }
  | { readonly kind: 'approval'; readonly approval: Approval }
  | { readonly kind: 'attestation'; readonly approvalId: string };

const toolOf: Record<GatedAction, string> = {
  confirm_booking: 'confirm_booking',
  cancel_booking: 'cancel_booking',
};

function dryRun(action: GatedAction, booking: Booking, expectedVersion: number, now: number): Booking {
  return action === 'confirm_booking'
    ? confirmHold(booking, expectedVersion, now)
    : cancelBooking(booking, expectedVersion, now);
}

/**
 * confirm_booking / cancel_booking: check the call could succeed, prove a human
 * said yes to this exact intent, (confirm) ask the payment provider outside any
 * transaction, then commit in one transaction if nothing moved meanwhile.
 */
export async function gatedChange(
  deps: AppDeps,
  principal: Principal,
  action: GatedAction,
  input: GatedChangeInput,
  call: CallContext,
): Promise<Outcome<BookingSnapshot>> {
  requireWriter(principal);
  const record: IdempotentCall<CommitResult> = {
    principal,
    tool: toolOf[action],
    key: input.idempotencyKey,
    args: input,
    audit: call.audit,
    endOf: endOfCommit,
    storage: commitStorage,
  };
  const replay = await deps.store.read((tx) => findReplay(deps, tx, record));
  if (replay) return settle(replay);

  const booking = await deps.store.read((tx) => loadBooking(tx, principal.tenantId, input.bookingId));
  try {
    dryRun(action, booking, input.expectedVersion, deps.clock.now());
  } catch (error) {
    if (
      error instanceof DomainError &&
      error.code === 'HOLD_EXPIRED' &&
      action === 'confirm_booking' &&
      booking.price
    ) {
      await flagLatePayment(deps, principal, booking, call);
    }
    throw error;
  }
  const intent = intentOf(action, booking);
  const intentHash = deps.digest.ofJson(intent);
  const authorization = await authorize(
    deps,
    principal,
    action,
    booking,
    { intent, intentHash },
    input,
    call,
  );

  let verdict: PaymentVerdict = 'PAID';
  let paidAt: number | null = null;
  if (action === 'confirm_booking' && booking.price !== null) {
    ({ verdict, paidAt } = await queryPayment(deps, booking, call.traceId));
    if (verdict === 'PENDING') {
      throw new DomainError('PAYMENT_PENDING', 'The payment has not cleared yet; the hold is kept.', {
        bookingId: booking.id,
        paymentUrl: `${deps.config.paymentUrlBase}${booking.id}`,
        holdExpiresAt: booking.expiresAt === null ? null : formatInstant(booking.expiresAt),
      });
    }
  }

  const outcome = await deps.store.write((tx) =>
    idempotent(deps, tx, record, async () => {
      const now = deps.clock.now();
      const current = await loadBooking(tx, principal.tenantId, input.bookingId);
      if (verdict === 'FAILED' || verdict === 'CLOSED') {
        if (current.version !== input.expectedVersion) dryRun(action, current, input.expectedVersion, now);
        const failed = failPayment(current, verdict, now);
        await tx.bookings.update(failed);
        return { paymentFailed: verdict, snapshot: await snapshotOf(tx, failed) };
      }
      if (action === 'confirm_booking' && booking.price !== null && isHoldLapsed(current, now)) {
        // Money arrived for time we no longer hold: never confirm it, flag it for a human.
        const flagged = flagPaidAfterLapse(current, paidAt ?? now, now);
        await tx.bookings.update(flagged);
        return { lapsedButPaid: true, snapshot: await snapshotOf(tx, flagged) };
      }
      const next = dryRun(action, current, input.expectedVersion, now);
      await spend(tx, principal, authorization, now);
      const stored =
        action === 'confirm_booking' && booking.price !== null ? markPaid(next, paidAt ?? now) : next;
      await tx.bookings.update(stored);
      return { snapshot: await snapshotOf(tx, stored) };
    }),
  );
  deps.slotCache.invalidate(principal.tenantId, booking.calendarIds);
  return settle(outcome);
}

/** What the committing transaction decided; stored for replays, so a retry gets the same answer. */
interface CommitResult {
  readonly snapshot: BookingSnapshot;
  readonly paymentFailed?: 'FAILED' | 'CLOSED';
  readonly lapsedButPaid?: boolean;
}

/** Replays keep the committed snapshot without the booking's personal fields. */
const commitStorage: ResultStorage<CommitResult> = {
  persist: (result) => ({ ...result, snapshot: snapshotStorage.persist(result.snapshot) }),
  revive: async (stored, tx) => {
    const result = stored as CommitResult;
    return { ...result, snapshot: await snapshotStorage.revive(result.snapshot, tx) };
  },
};

/** The failure a committed outcome is answered with, or null for success. */
function failureOf(result: CommitResult): DomainError | null {
  const { snapshot, paymentFailed, lapsedButPaid } = result;
  if (paymentFailed) {
    return new DomainError('PAYMENT_FAILED', `The payment is ${paymentFailed}; the hold was released.`, {
      bookingId: snapshot.booking.id,
      status: snapshot.booking.status,
    });
  }
  return lapsedButPaid ? lateMoney(snapshot.booking) : null;
}

function endOfCommit(result: CommitResult): CallEnd | undefined {
  const failure = failureOf(result);
  return failure ? { outcome: 'error', code: failure.code, message: failure.message } : undefined;
}

/** Turns the committed outcome into the answer; failures that changed state are reported once they are durable. */
function settle(result: Outcome<CommitResult>): Outcome<BookingSnapshot> {
  const failure = failureOf(result.value);
  if (failure) throw failure;
  return { value: result.value.snapshot, replayed: result.replayed };
}

/** Records the call with a refusal that itself wrote something (a pending approval, a burned one). */
function refusedWith(error: DomainError): CallEnd {
  return { outcome: 'error', code: error.code, message: error.message };
}

/** The user answered the elicitation: decide the pending approval it was about, if it still fits this call. */
async function recordUserAnswer(
  deps: AppDeps,
  principal: Principal,
  action: GatedAction,
  booking: Booking,
  current: { intent: Intent; intentHash: string },
  answer: { approvalId: string; intentHash: string; approved: boolean },
): Promise<Approval> {
  // The decision (a "no", a burn) is committed before it is reported: a declined or mismatched
  // answer must stick, so the same sealed request cannot be replayed later as a "yes".
  const { decided, refusal } = await deps.store.write(async (tx) => {
    const approval = await ownApproval(tx, principal, answer.approvalId);
    if (!approval || answer.intentHash !== current.intentHash) {
      throw new DomainError('APPROVAL_MISMATCH', 'The answer was given for another intent; ask again.');
    }
    const now = deps.clock.now();
    const next = decide(
      approval,
      answer.approved ? 'APPROVE' : 'DENY',
      `user-elicitation:${principal.subject}`,
      now,
    );
    const refused = refusalOf(next, useBy(principal, action, booking, current, now));
    const stored = refused?.burn ? burn(approval, refused.error.message) : next;
    if (!(await tx.approvals.update(stored, 'PENDING')))
      throw new DomainError('APPROVAL_USED', 'The approval was already decided.');
    return { decided: next, refusal: refused };
  });
  if (refusal) throw refusal.error;
  return decided;
}

/** The use an approval must match: this principal, this action, this booking, this intent, now. */
function useBy(
  principal: Principal,
  action: GatedAction,
  booking: Booking,
  current: { intentHash: string },
  now: number,
) {
  return {
    tenantId: principal.tenantId,
    subject: principal.subject,
    action,
    bookingId: booking.id,
    intentHash: current.intentHash,
    now,
  };
}

async function queryPayment(
  deps: AppDeps,
  booking: Booking,
  traceId: string,
): Promise<{ verdict: PaymentVerdict; paidAt: number | null }> {
  try {
    const report = await deps.payments.queryPayment(booking.id, { traceId });
    return { verdict: judgePayment(booking, report), paidAt: report.paidAt };
  } catch (error) {
    if (error instanceof PaymentUnavailableError) {
      throw new DomainError('PAYMENT_UNAVAILABLE', 'The payment provider did not answer in time.', {
        bookingId: booking.id,
      });
    }
    throw error;
  }
}

/**
 * A priced hold lapsed: nothing will be confirmed, but if the customer paid anyway the money
 * needs a person. Read-only query; the booking is flagged with the call's audit record.
 */
async function flagLatePayment(
  deps: AppDeps,
  principal: Principal,
  booking: Booking,
  call: CallContext,
): Promise<void> {
  if (booking.payment?.reconciliationRequired) throw lateMoney(booking);
  const paidAt = await queryPayment(deps, booking, call.traceId).then(
    (r) => (r.verdict === 'PAID' ? (r.paidAt ?? deps.clock.now()) : undefined),
    () => undefined,
  );
  if (paidAt === undefined) return;
  const flagged = await deps.store.write(async (tx) => {
    const current = await loadBooking(tx, principal.tenantId, booking.id);
    const next = flagPaidAfterLapse(current, paidAt, deps.clock.now());
    await tx.bookings.update(next);
    await call.audit?.recordIn(tx, refusedWith(lateMoney(next)));
    return next;
  });
  throw lateMoney(flagged);
}

/** HOLD_EXPIRED for a hold whose money a person must settle; says whether it was paid in time. */
function lateMoney(booking: Booking): DomainError {
  const paidAt = booking.payment?.paidAt ?? null;
  const paidInTime = paidAt !== null && booking.expiresAt !== null && paidAt <= booking.expiresAt;
  return new DomainError(
    'HOLD_EXPIRED',
    paidInTime
      ? 'The hold lapsed before it was confirmed, although the payment had cleared in time; a human must reconcile it.'
      : 'Payment arrived after the hold lapsed; a human must reconcile it.',
    { bookingId: booking.id, reconciliationRequired: true },
  );
}

/** Marks the proof as used in the committing transaction; a concurrent second use loses. */
async function spend(
  tx: StoreTx,
  principal: Principal,
  authorization: Authorization,
  now: number,
): Promise<void> {
  const used = new DomainError('APPROVAL_USED', 'This approval was already used.');
  if (
    authorization.kind === 'approval' &&
    !(await tx.approvals.update(consume(authorization.approval), 'APPROVED'))
  )
    throw used;
  if (
    authorization.kind === 'attestation' &&
    !(await tx.approvals.recordAttestation(principal.tenantId, authorization.approvalId, now))
  ) {
    throw used;
  }
}

async function authorize(
  deps: AppDeps,
  principal: Principal,
  action: GatedAction,
  booking: Booking,
  current: { intent: Intent; intentHash: string },
  input: GatedChangeInput,
  call: CallContext,
): Promise<Authorization> {
  const policy = principal.writePolicy;
  if (policy === 'direct') return { kind: 'direct' };
  const now = deps.clock.now();

  if (input.approval) {
    const approvalId = input.approval.approvalId;
    const approval = await deps.store.read((tx) => ownApproval(tx, principal, approvalId));
    if (!approval)
      throw new DomainError('NOT_FOUND', `No approval ${approvalId}.`, {
        field: 'approval.approvalId',
        approvalId,
      });
    const refusal = refusalOf(approval, useBy(principal, action, booking, current, now));
    if (refusal) {
      if (refusal.burn)
        await deps.store.write(async (tx) => {
          await tx.approvals.update(burn(approval, refusal.error.message), approval.status);
          await call.audit?.recordIn(tx, refusedWith(refusal.error));
        });
      throw refusal.error;
    }
    return { kind: 'approval', approval };
  }

  if (input.humanApproval && policy === 'attested') {
    const attestation = input.humanApproval;
    const approvedAt = parseInstant(attestation.approvedAt, 'humanApproval.approvedAt');
    const refusal =
      attestationRefusal(attestation, current, deps.digest.ofJson(attestation.intent), approvedAt, now) ??
      (sameIntent(attestation.intent, current.intent)
        ? null
        : new DomainError('APPROVAL_MISMATCH', 'The attested intent differs from the current one.', {
            approvalId: attestation.approvalId,
          }));
    if (refusal) throw refusal;
    if (
      await deps.store.read((tx) => tx.approvals.attestationSeen(principal.tenantId, attestation.approvalId))
    ) {
      throw new DomainError('APPROVAL_USED', 'This attested approval id was already used.', {
        approvalId: attestation.approvalId,
      });
    }
    return { kind: 'attestation', approvalId: attestation.approvalId };
  }

  const answer = call.elicitation?.answer;
  if (policy === 'attested' && answer)
    return {
      kind: 'approval',
      approval: await recordUserAnswer(deps, principal, action, booking, current, answer),
    };

  const elicit = policy === 'attested' && call.elicitation !== undefined && !input.humanApproval;
  const required = (pending: PendingApproval) =>
    new DomainError(
      'APPROVAL_REQUIRED',
      input.humanApproval
        ? 'This principal may not attest approvals; a person must decide on the approval page or CLI.'
        : 'A person must approve this exact action first.',
      { ...pending },
      `Show details.summary to the user and ask them to open details.approveUrl (or run details.cli); then retry with approval: { approvalId: "${pending.approvalId}" }.`,
    );
  const pending = await deps.store.write(async (tx) => {
    const opened = await openApproval(deps, tx, principal, action, booking);
    await call.audit?.recordIn(
      tx,
      elicit
        ? { outcome: 'input_required', code: 'APPROVAL_REQUIRED', message: '' }
        : refusedWith(required(opened)),
    );
    return opened;
  });
  if (elicit) throw new UserApprovalNeeded(pending);
  throw required(pending);
}
