import type { GatedAction, Intent } from '../../domain/approval/intent.js';
import { seriesCancelIntentOf, seriesConfirmIntentOf } from '../../domain/approval/intent.js';
import type { Booking } from '../../domain/booking/booking.js';
import { effectiveStatus } from '../../domain/booking/booking.js';
import type { Instant } from '../../domain/time/instant.js';
import type { StoreTx } from '../../ports/store/index.js';

/**
 * The occurrences a series change takes in, in time order: to confirm, every held one (a move's
 * replacement hold is confirmed on its own); to cancel "following", this one and every later
 * confirmed one. Only the same person's.
 */
export async function seriesMembers(
  tx: StoreTx,
  action: GatedAction,
  called: Booking,
  now: Instant,
): Promise<Booking[]> {
  const all = await tx.bookings.ofSeries(called.tenantId, called.seriesId!);
  const own = all.filter((b) => b.owner.subject === called.owner.subject);
  const members =
    action === 'confirm_booking'
      ? own.filter((b) => !b.replaces && (b.id === called.id || effectiveStatus(b, now) === 'HELD'))
      : own.filter((b) => b.status === 'CONFIRMED' && (b.id === called.id || b.start >= called.start));
  return members.sort((a, b) => a.start - b.start || (a.id < b.id ? -1 : 1));
}

export function seriesIntentFor(action: GatedAction, seriesId: string, members: readonly Booking[]): Intent {
  return action === 'confirm_booking'
    ? seriesConfirmIntentOf(seriesId, members)
    : seriesCancelIntentOf(seriesId, members);
}
