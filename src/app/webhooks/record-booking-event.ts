import type { Booking } from '../../domain/booking/booking.js';
import type { Instant } from '../../domain/time/instant.js';
import type { WebhookEventType } from '../../domain/webhooks/webhook-events.js';
import type { Ids } from '../../ports/ids.js';
import type { StoreTx } from '../../ports/store/index.js';

/**
 * Records a booking event in the outbox inside the caller's write transaction, so it commits
 * (or rolls back) with the change it announces. Status changes need no call: the engines record
 * those in the statement that makes them. This is for changes a status does not show — a
 * reschedule: `await recordBookingEvent(tx, deps.ids, 'booking.rescheduled', moved, now)`.
 * Returns the event id, or null when no active subscription of the tenant wants the type.
 */
export async function recordBookingEvent(
  tx: StoreTx,
  ids: Ids,
  type: WebhookEventType,
  booking: Booking,
  at: Instant,
): Promise<string | null> {
  const id = `evt_${ids.newUuid().replace(/-/g, '')}`;
  const written = await tx.webhooks.record({ id, tenantId: booking.tenantId, type, createdAt: at, booking });
  return written ? id : null;
}
