import type { Booking } from '../../domain/booking/booking.js';
import { keyRowsOf } from '../../domain/booking/business-keys.js';
import type { Principal } from '../../domain/identity/principal.js';
import type { Transition } from '../../domain/inbox/submit-payload.js';
import type { StoreTx } from '../../ports/store/index.js';

/** What a change or cancellation result is about, decided once, when it is submitted. */
export type Target = { readonly objectId: string } | { readonly problem: string };

const NEEDS_TARGET = new Set(['reservation.update', 'reservation.cancel']);

/** A booking the agent may name: its person's own, or one the hotel's case files know by a key. */
const visibleTo = (principal: Principal, b: Booking) =>
  b.owner.subject === principal.subject || keyRowsOf(b.externalKeys).length > 0;

/**
 * The booking a change or cancellation names: `target_object_id` if given — a booking the agent
 * can see, whose numbers agree with the case keys given beside it — else the one booking a
 * confirmation or reservation number names. Null for results that need no target.
 */
export async function targetOf(tx: StoreTx, principal: Principal, t: Transition): Promise<Target | null> {
  if (t.kind !== 'task' || !NEEDS_TARGET.has(t.eventType ?? '')) return null;
  const keys = t.caseKeys;
  if (t.targetObjectId) {
    const id = /^ORDER:([\x21-\x7e]{1,64})$/.exec(t.targetObjectId)?.[1];
    const booking = id ? await tx.bookings.get(principal.tenantId, id) : null;
    if (!booking || !visibleTo(principal, booking))
      return { problem: `target_object_id ${t.targetObjectId} names no booking this connection can see` };
    const theirs = booking.externalKeys;
    const disagree =
      (keys.confirmationNumber && keys.confirmationNumber !== theirs.confirmationNumber) ||
      (keys.reservationNo && keys.reservationNo !== theirs.externalReservationNumber);
    if (disagree) return { problem: 'case_keys name another booking than target_object_id' };
    return { objectId: `ORDER:${booking.id}` };
  }
  for (const [kind, value] of [
    ['confirmation', keys.confirmationNumber],
    ['reservation', keys.reservationNo],
  ] as const) {
    if (!value) continue;
    const [id] = await tx.inbox.bookingsWithKey(principal.tenantId, kind, value.trim());
    const booking = id ? await tx.bookings.get(principal.tenantId, id) : null;
    if (booking) return { objectId: `ORDER:${booking.id}` };
  }
  return { problem: 'no booking carries the confirmation or reservation number given' };
}
