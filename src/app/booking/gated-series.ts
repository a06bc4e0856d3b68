import type { GatedAction } from '../../domain/approval/intent.js';
import type { Booking } from '../../domain/booking/booking.js';
import {
  assertVersion,
  cancelOwingRefund,
  confirmHold,
  effectiveStatus,
  failPayment,
  markPaid,
  owesRefund,
} from '../../domain/booking/booking.js';
import { seriesPrice } from '../../domain/booking/series.js';
import { DomainError } from '../../domain/errors.js';
import type { Principal } from '../../domain/identity/principal.js';
import type { Instant } from '../../domain/time/instant.js';
import { authorize, spend } from '../approvals/approval-proof.js';
import type { CallContext } from '../call-context.js';
import type { AppDeps } from '../deps.js';
import type { IdempotentCall, Outcome } from '../idempotent.js';
import { idempotent } from '../idempotent.js';
import { requireCleared } from '../payments/payment-gate.js';
import { recordBookingEvent } from '../webhooks/record-booking-event.js';
import type { CommitResult, GatedBookingInput } from './gated-types.js';
import { seriesIntentFor, seriesMembers } from './series-members.js';
import { recordReceipt } from './receipts.js';
import { snapshotOf } from './snapshot.js';

/**
 * Whether a gated call on this booking acts on its series: confirming a held occurrence confirms
 * them all (one approval, one payment); cancelling with scope `following` ends this occurrence and
 * every later one. A move's replacement hold is confirmed on its own, like every move.
 */
export function actsOnSeries(action: GatedAction, booking: Booking, input: GatedBookingInput): boolean {
  if (!booking.seriesId) return false;
  return action === 'confirm_booking' ? !booking.replaces : input.scope === 'following';
}

function step(action: GatedAction, booking: Booking, now: Instant): Booking {
  return action === 'confirm_booking'
    ? confirmHold(booking, booking.version, now)
    : cancelOwingRefund(booking, booking.version, now);
}

/**
 * The series' gated change: checked, approved by a person for the exact list of occurrences
 * (never by a standing rule), (confirm) paid once for the sum under the series id, then committed
 * for every occurrence in one transaction — all confirmed or cancelled, or none.
 */
export async function gatedSeriesChange(
  deps: AppDeps,
  principal: Principal,
  action: GatedAction,
  input: GatedBookingInput,
  call: CallContext,
  record: IdempotentCall<CommitResult>,
  called: Booking,
): Promise<Outcome<CommitResult>> {
  const seriesId = called.seriesId!;
  assertVersion(called, input.expectedVersion);
  const now = deps.clock.now();
  const members = await deps.store.read((tx) => seriesMembers(tx, action, called, now));
  // "From here on" starts at a confirmed occurrence (a held one is released, not cancelled).
  if (!members.some((m) => m.id === called.id))
    throw new DomainError(
      'INVALID_STATE',
      `Booking ${called.id} is ${effectiveStatus(called, now)}; only a confirmed occurrence is cancelled with the following ones.`,
      { bookingId: called.id, status: effectiveStatus(called, now), requested: 'CONFIRMED' },
    );
  // Each occurrence could take the step now (a lapsed hold, a cancelled one: refused as for one booking).
  for (const member of members) step(action, member, now);
  const intent = seriesIntentFor(action, seriesId, members);
  const intentHash = deps.digest.ofJson(intent);
  const lead = members[0]!;
  const authorization = await authorize(deps, principal, action, lead, { intent, intentHash }, input, call);

  const price = seriesPrice(members);
  const { verdict, paidAt } =
    action === 'confirm_booking' && price !== null
      ? await requireCleared(deps, { id: seriesId, price, expiresAt: lead.expiresAt }, call.traceId)
      : { verdict: 'PAID' as const, paidAt: null };

  const outcome = await deps.store.write((tx) =>
    idempotent(deps, tx, record, async () => {
      const at = deps.clock.now();
      const current = await seriesMembers(tx, action, called, at);
      // Anything that moved since the approval (an occurrence released, moved, changed) is another intent.
      if (deps.digest.ofJson(seriesIntentFor(action, seriesId, current)) !== intentHash)
        throw new DomainError(
          'VERSION_CONFLICT',
          `Series ${seriesId} changed while the change was being made; read it again and retry.`,
          { bookingId: called.id, currentVersion: called.version, expectedVersion: input.expectedVersion },
        );
      if (verdict === 'FAILED' || verdict === 'CLOSED') {
        for (const member of current) await tx.bookings.update(failPayment(member, verdict, at));
        return {
          paymentFailed: verdict,
          snapshot: await snapshotOf(tx, (await tx.bookings.get(called.tenantId, called.id))!),
        };
      }
      const approved = await spend(deps, tx, principal, authorization, at);
      let answered = called;
      for (const member of current) {
        const next = step(action, member, at);
        const stored =
          action === 'confirm_booking' && next.price !== null ? markPaid(next, paidAt ?? at) : next;
        await tx.bookings.update(stored);
        if (action === 'confirm_booking')
          await recordReceipt(tx, stored, intentHash, approved, call.audit, at);
        if (owesRefund(stored)) await recordBookingEvent(tx, deps.ids, 'booking.refund_due', stored, at);
        if (stored.id === called.id) answered = stored;
      }
      return { snapshot: await snapshotOf(tx, answered) };
    }),
  );
  deps.slotCache.invalidate(principal.tenantId, [...new Set(members.flatMap((m) => m.calendarIds))]);
  return outcome;
}
