import type { GatedAction } from '../../domain/approval/intent.js';
import { intentOf } from '../../domain/approval/intent.js';
import type { Booking } from '../../domain/booking/booking.js';
import {
  cancelOwingRefund,
  confirmHold,
  failPayment,
  flagPaidAfterLapse,
  isHoldLapsed,
  markPaid,
  owesRefund,
} from '../../domain/booking/booking.js';
import type { Principal } from '../../domain/identity/principal.js';
import { DomainError } from '../../domain/errors.js';
import type { CallEnd } from '../../ports/audit.js';
import { authorize, requirePerson, spend } from '../approvals/approval-proof.js';
import { StandingRuleSpent } from '../approvals/standing-rules.js';
import { requireWriter } from '../authorize.js';
import type { CallContext } from '../call-context.js';
import type { AppDeps } from '../deps.js';
import type { IdempotentCall, Outcome, ResultStorage } from '../idempotent.js';
import { findReplay, idempotent } from '../idempotent.js';
import { flagLatePayment, lateMoney, requireCleared } from '../payments/payment-gate.js';
import { completeMove } from './complete-move.js';
import { recordReceipt } from './receipts.js';
import { actsOnSeries, gatedSeriesChange } from './gated-series.js';
import type { CommitResult, GatedBookingInput } from './gated-types.js';

export type { GatedBookingInput } from './gated-types.js';
import { recordBookingEvent } from '../webhooks/record-booking-event.js';
import type { BookingSnapshot } from './snapshot.js';
import { loadOwnBooking, snapshotOf, snapshotStorage } from './snapshot.js';

const toolOf: Record<GatedAction, string> = {
  confirm_booking: 'confirm_booking',
  cancel_booking: 'cancel_booking',
};

function dryRun(action: GatedAction, booking: Booking, expectedVersion: number, now: number): Booking {
  return action === 'confirm_booking'
    ? confirmHold(booking, expectedVersion, now)
    : cancelOwingRefund(booking, expectedVersion, now);
}

/**
 * confirm_booking / cancel_booking: check the call could succeed, prove a human
 * said yes to this exact intent, (confirm) ask the payment provider outside any
 * transaction, then commit in one transaction if nothing moved meanwhile.
 */
export async function gatedBookingChange(
  deps: AppDeps,
  principal: Principal,
  action: GatedAction,
  input: GatedBookingInput,
  call: CallContext,
): Promise<Outcome<BookingSnapshot>> {
  requireWriter(principal, 'write');
  const record: IdempotentCall<CommitResult> = {
    principal,
    tool: toolOf[action],
    key: input.idempotencyKey,
    args: input,
    ...(call.argumentsDigest ? { argumentsDigest: call.argumentsDigest } : {}),
    audit: call.audit,
    endOf: endOfCommit,
    storage: commitStorage,
  };
  const replay = await deps.store.read((tx) => findReplay(deps, tx, record));
  if (replay) return settle(replay);

  const { booking, moved } = await deps.store.read(async (tx) => {
    const booking = await loadOwnBooking(tx, principal, input.bookingId);
    const moved =
      action === 'confirm_booking' && booking.replaces
        ? ((await tx.bookings.get(booking.tenantId, booking.replaces)) ?? undefined)
        : undefined;
    return { booking, moved };
  });
  // A change set's hold is confirmed with its set or not at all (one may lie on time the set frees).
  if (action === 'confirm_booking' && booking.changeSetId)
    throw new DomainError(
      'INVALID_STATE',
      `Booking ${booking.id} is held by change set ${booking.changeSetId}: confirm_changes commits it with the rest, abandon_changes gives it back.`,
      { bookingId: booking.id, status: booking.status, requested: 'CONFIRMED' },
    );
  if (actsOnSeries(action, booking, input))
    return settle(await gatedSeriesChange(deps, principal, action, input, call, record, booking));
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
  call.contractCheck?.(booking, deps.clock.now());
  const intent = intentOf(action, booking, moved);
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

  // A move carries the payment of the booking it moves: nothing new is charged.
  const { verdict, paidAt } =
    action === 'confirm_booking' && booking.price !== null && !booking.replaces
      ? await requireCleared(deps, booking, call.traceId)
      : { verdict: 'PAID' as const, paidAt: null };

  const commit = () =>
    deps.store.write((tx) =>
      idempotent(deps, tx, record, async () => {
        const now = deps.clock.now();
        const current = await loadOwnBooking(tx, principal, input.bookingId);
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
        const checked = dryRun(action, current, input.expectedVersion, now);
        // A title given with the confirmation is the booking's from then on (not part of the intent).
        const next =
          action === 'confirm_booking' && input.label !== undefined
            ? { ...checked, label: input.label }
            : checked;
        const approved = await spend(deps, tx, principal, authorization, now);
        if (action === 'confirm_booking' && current.replaces) {
          const stored = await completeMove(deps, tx, next, intent, now);
          await recordReceipt(tx, stored, intentHash, approved, call.audit, now);
          return { snapshot: await snapshotOf(tx, stored) };
        }
        const stored =
          action === 'confirm_booking' && booking.price !== null ? markPaid(next, paidAt ?? now) : next;
        await tx.bookings.update(stored);
        if (action === 'confirm_booking')
          await recordReceipt(tx, stored, intentHash, approved, call.audit, now);
        // The refund owed is part of the cancellation: it commits (and is announced) with it, or not at all.
        if (owesRefund(stored)) await recordBookingEvent(tx, deps.ids, 'booking.refund_due', stored, now);
        return { snapshot: await snapshotOf(tx, stored) };
      }),
    );
  // A standing rule revoked, lapsed or used up for the day since the check: a person decides.
  const outcome = await commit().catch((error: unknown) => {
    if (error instanceof StandingRuleSpent)
      return requirePerson(deps, principal, action, booking, input, call, `standing rule: ${error.message}`);
    throw error;
  });
  deps.slotCache.invalidate(principal.tenantId, [...booking.calendarIds, ...(moved?.calendarIds ?? [])]);
  return settle(outcome);
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
