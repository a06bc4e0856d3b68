import type { Booking } from '../../domain/booking/booking.js';
import {
  cancelBooking,
  cancelOwingRefund,
  confirmHold,
  effectiveStatus,
  failPayment,
  markPaid,
  owesRefund,
  releaseHold,
} from '../../domain/booking/booking.js';
import type { ChangeSet } from '../../domain/booking/change-set.js';
import { settle } from '../../domain/booking/change-set.js';
import { DomainError } from '../../domain/errors.js';
import type { Principal } from '../../domain/identity/principal.js';
import type { Instant } from '../../domain/time/instant.js';
import { MINUTE_MS } from '../../domain/time/instant.js';
import type { StoreTx } from '../../ports/store/index.js';
import type { ProofRequest } from '../approvals/approval-proof.js';
import { authorize, spend } from '../approvals/approval-proof.js';
import { requireWriter } from '../authorize.js';
import type { CallContext } from '../call-context.js';
import { refusedWith } from '../call-context.js';
import type { AppDeps } from '../deps.js';
import type { IdempotentCall, Outcome, WriteCall } from '../idempotent.js';
import { findReplay, idempotent } from '../idempotent.js';
import { requireCleared } from '../payments/payment-gate.js';
import { recordBookingEvent } from '../webhooks/record-booking-event.js';
import { bookingsOfSet, changeSetIntentOf, newMoneyOf } from './change-set-intent.js';
import type { ChangeSetView } from './change-sets.js';
import { viewOf } from './change-sets.js';
import { MAX_BOOKING_MINUTES, occupancy } from './occupancy.js';
import { recordReceipt } from './receipts.js';
import { limitReached } from './refusals.js';
import { loadCalendars } from './snapshot.js';

export interface SettleChangesInput extends ProofRequest {
  readonly changeSetId: string;
  readonly expectedVersion: number;
  readonly idempotencyKey: string;
}

const setStorage = (principal: Principal) => ({
  persist: (value: ChangeSetView) => ({ setId: value.set.id }),
  revive: (stored: unknown, tx: StoreTx) =>
    viewOf(tx, principal.tenantId, (stored as { setId: string }).setId, principal.subject),
});

/** Each booking of the set could take its step now: holds live, bookings ended still as proposed. */
function requireStanding(set: ChangeSet, bookings: ReadonlyMap<string, Booking>, now: Instant): void {
  for (const change of set.changes) {
    const hold = change.holdId ? bookings.get(change.holdId) : undefined;
    if (hold) confirmHold(hold, hold.version, now);
    const target = change.targetId ? bookings.get(change.targetId) : undefined;
    if (change.targetId && (!target || effectiveStatus(target, now) !== 'CONFIRMED'))
      throw new DomainError(
        'INVALID_STATE',
        `Booking ${change.targetId} is no longer confirmed; abandon the change set and propose again.`,
        {
          bookingId: change.targetId,
        },
      );
  }
}

/**
 * confirm_changes: one person approves the set's exact intent (every change, old → new, and the
 * money), the new holds' sum is paid once under the set's id, then one transaction ends every
 * booking the set ends, places the new times (the engine checks them again, so a swap lands) and
 * confirms them — all of it, or none.
 */
export async function confirmChanges(
  deps: AppDeps,
  principal: Principal,
  input: SettleChangesInput,
  call: CallContext,
): Promise<Outcome<ChangeSetView>> {
  requireWriter(principal, 'write');
  const record: IdempotentCall<ChangeSetView> = {
    principal,
    tool: 'confirm_changes',
    key: input.idempotencyKey,
    args: input,
    audit: call.audit,
    storage: setStorage(principal),
  };
  const replay = await deps.store.read((tx) => findReplay(deps, tx, record));
  if (replay) return replay;
  const now = deps.clock.now();
  const { set, bookings } = await deps.store.read(async (tx) => {
    const { set } = await viewOf(tx, principal.tenantId, input.changeSetId, principal.subject);
    return { set, bookings: await bookingsOfSet(tx, set) };
  });
  if (set.version !== input.expectedVersion || set.status !== 'PROPOSED')
    throw new DomainError(
      'INVALID_STATE',
      `Change set ${set.id} is ${set.status} at version ${set.version}.`,
      {
        status: set.status,
        requested: 'PROPOSED',
      },
    );
  requireStanding(set, bookings, now);
  const intent = changeSetIntentOf(set, bookings);
  const intentHash = deps.digest.ofJson(intent);
  const anchor = bookings.get(intent.bookingId)!;
  const authorization = await authorize(
    deps,
    principal,
    'confirm_booking',
    anchor,
    { intent, intentHash },
    input,
    call,
  );
  const owed = newMoneyOf(set, bookings);
  const firstExpiry = Math.min(...[...bookings.values()].map((b) => b.expiresAt ?? Infinity));
  const { verdict, paidAt } = owed
    ? await requireCleared(
        deps,
        { id: set.id, price: owed, expiresAt: Number.isFinite(firstExpiry) ? firstExpiry : null },
        call.traceId,
      )
    : { verdict: 'PAID' as const, paidAt: null };
  if (verdict === 'FAILED' || verdict === 'CLOSED') throw await failedPayment(deps, set, verdict, call);
  const outcome = await deps.store.write((tx) =>
    idempotent(deps, tx, record, async () => {
      const at = deps.clock.now();
      const current = await tx.changeSets.get(set.tenantId, set.id);
      const now2 = await bookingsOfSet(tx, current ?? set);
      if (
        !current ||
        current.status !== 'PROPOSED' ||
        deps.digest.ofJson(changeSetIntentOf(current, now2)) !== intentHash
      )
        throw new DomainError(
          'VERSION_CONFLICT',
          `Change set ${set.id} or one of its bookings changed since it was approved; propose again.`,
          { bookingId: intent.bookingId, currentVersion: null },
        );
      requireStanding(current, now2, at);
      const approved = await spend(deps, tx, principal, authorization, at);
      const confirmed = await commitSet(deps, tx, current, now2, paidAt ?? at, at);
      for (const booking of confirmed) await recordReceipt(tx, booking, intentHash, approved, call.audit, at);
      const settled = settle(current, 'CONFIRMED', at);
      if (!(await tx.changeSets.update(settled, 'PROPOSED')))
        throw new DomainError('VERSION_CONFLICT', `Change set ${set.id} changed meanwhile.`, {
          bookingId: intent.bookingId,
          currentVersion: null,
        });
      return { set: settled, bookings: [...(await bookingsOfSet(tx, settled)).values()] };
    }),
  );
  deps.slotCache.invalidate(principal.tenantId, [
    ...new Set(set.changes.flatMap((c) => [...c.calendarIds, ...(c.from?.calendarIds ?? [])])),
  ]);
  return outcome;
}

/**
 * The set's payment failed or was closed: its new holds end as unpaid (their time is freed), the
 * set is abandoned, and nothing it would end is touched. Recorded with the call's audit record.
 */
async function failedPayment(
  deps: AppDeps,
  set: ChangeSet,
  verdict: 'FAILED' | 'CLOSED',
  call: CallContext,
): Promise<DomainError> {
  const error = new DomainError(
    'PAYMENT_FAILED',
    `The payment is ${verdict}; the change set's holds were released and nothing changed.`,
    {
      bookingId: set.id,
      status: verdict,
    },
  );
  await deps.store.write(async (tx) => {
    const now = deps.clock.now();
    const current = await tx.changeSets.get(set.tenantId, set.id);
    if (!current || current.status !== 'PROPOSED') return;
    const bookings = await bookingsOfSet(tx, current);
    for (const change of current.changes) {
      const hold = change.holdId ? bookings.get(change.holdId) : undefined;
      if (hold && effectiveStatus(hold, now) === 'HELD')
        await tx.bookings.update(failPayment(hold, verdict, now));
    }
    await tx.changeSets.update(settle(current, 'ABANDONED', now), 'PROPOSED');
    await call.audit?.recordIn(tx, refusedWith(error));
  });
  deps.slotCache.invalidate(set.tenantId, [...new Set(set.changes.flatMap((c) => c.calendarIds))]);
  return error;
}

/** Ends what the set ends, then places and confirms its new times: the caller's one transaction. */
async function commitSet(
  deps: AppDeps,
  tx: StoreTx,
  set: ChangeSet,
  bookings: ReadonlyMap<string, Booking>,
  paidAt: Instant,
  now: Instant,
): Promise<Booking[]> {
  const placed: Booking[] = [];
  // First every booking the set ends, so the time it gives up is free for the set's new times.
  for (const change of set.changes) {
    if (!change.targetId) continue;
    const target = bookings.get(change.targetId)!;
    const ended =
      change.kind === 'cancel'
        ? cancelOwingRefund(target, target.version, now) // a paid booking owes its money back
        : cancelBooking(target, target.version, now); // a move's payment goes on with its new time
    await tx.bookings.update(ended);
    if (owesRefund(ended)) await recordBookingEvent(tx, deps.ids, 'booking.refund_due', ended, now);
  }
  for (const change of set.changes) {
    if (!change.holdId) continue;
    const hold = bookings.get(change.holdId)!;
    const target = change.targetId ? bookings.get(change.targetId)! : null;
    const calendars = await loadCalendars(tx, hold.tenantId, hold.calendarIds);
    // A move's hold, or one left to a released booking, takes its whole new time now (checked by the engine).
    if (target || change.deferred) {
      const { occupies, limits } = occupancy(calendars, hold, hold.customer);
      if (occupies.some((span) => span.end - span.start > MAX_BOOKING_MINUTES * MINUTE_MS))
        throw new DomainError(
          'INVALID_STATE',
          "With the calendar's buffers the booking would last more than 7 days.",
          {
            bookingId: hold.id,
          },
        );
      const full = await tx.bookings.fullLimit(
        hold.tenantId,
        limits.map((check) => ({ ...check, excludeBookingId: hold.id })),
        now,
      );
      if (full) throw limitReached(calendars, full);
      await tx.bookings.replaceAllocations(hold, occupies);
    }
    const confirmed = confirmHold(hold, hold.version, now);
    const stored = target
      ? { ...confirmed, payment: target.payment }
      : confirmed.price !== null
        ? markPaid(confirmed, paidAt)
        : confirmed;
    await tx.bookings.update(stored);
    if (target) await recordBookingEvent(tx, deps.ids, 'booking.rescheduled', stored, now);
    placed.push(stored);
  }
  return placed;
}

/** abandon_changes: every time the set holds is given back; nothing else ever happened. */
export async function abandonChanges(
  deps: AppDeps,
  principal: Principal,
  input: { readonly changeSetId: string; readonly expectedVersion: number; readonly idempotencyKey: string },
  call: WriteCall = {},
): Promise<Outcome<ChangeSetView>> {
  requireWriter(principal, 'draft');
  const record: IdempotentCall<ChangeSetView> = {
    principal,
    tool: 'abandon_changes',
    key: input.idempotencyKey,
    args: input,
    argumentsDigest: call.argumentsDigest,
    audit: call.audit,
    storage: setStorage(principal),
  };
  const outcome = await deps.store.write((tx) =>
    idempotent(deps, tx, record, async () => {
      const now = deps.clock.now();
      const { set } = await viewOf(tx, principal.tenantId, input.changeSetId, principal.subject);
      if (set.version !== input.expectedVersion)
        throw new DomainError('VERSION_CONFLICT', `Change set ${set.id} is at version ${set.version}.`, {
          bookingId: set.id,
          currentVersion: set.version,
          expectedVersion: input.expectedVersion,
        });
      const settled = settle(set, 'ABANDONED', now);
      const bookings = await bookingsOfSet(tx, set);
      for (const change of set.changes) {
        const hold = change.holdId ? bookings.get(change.holdId) : undefined;
        if (hold && effectiveStatus(hold, now) === 'HELD')
          await tx.bookings.update(releaseHold(hold, hold.version, now));
      }
      if (!(await tx.changeSets.update(settled, 'PROPOSED')))
        throw new DomainError('VERSION_CONFLICT', `Change set ${set.id} changed meanwhile.`, {
          bookingId: set.id,
          currentVersion: null,
        });
      return { set: settled, bookings: [...(await bookingsOfSet(tx, settled)).values()] };
    }),
  );
  deps.slotCache.invalidate(principal.tenantId, [
    ...new Set(outcome.value.set.changes.flatMap((c) => c.calendarIds)),
  ]);
  return outcome;
}
