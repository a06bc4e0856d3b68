import type { Intent } from '../domain/approval/intent.js';
import type { Booking } from '../domain/booking/booking.js';
import { cancelBooking } from '../domain/booking/booking.js';
import { DomainError } from '../domain/errors.js';
import type { Instant } from '../domain/time/instant.js';
import type { StoreTx } from '../ports/store/index.js';
import type { AppDeps } from './deps.js';
import { occupancy } from './hold-slot.js';
import { loadCalendars } from './snapshot.js';
import { recordBookingEvent } from './webhooks/record-booking-event.js';

/**
 * Inside the confirming transaction of a replacement hold: the moved booking is cancelled (its
 * time freed), the replacement takes its whole new time (the engine checks it again) and is
 * confirmed with the moved booking's payment. All of it commits, or none — never both, never neither.
 */
export async function completeMove(
  deps: AppDeps,
  tx: StoreTx,
  confirmed: Booking,
  intent: Intent,
  now: Instant,
): Promise<Booking> {
  const moved = await tx.bookings.get(confirmed.tenantId, confirmed.replaces!);
  const expected = intent.action === 'confirm_booking' ? intent.replaces : undefined;
  if (!moved || !expected || moved.version !== expected.version)
    throw new DomainError(
      'VERSION_CONFLICT',
      'The booking being moved changed since the move was approved.',
      {
        bookingId: confirmed.replaces!,
        currentVersion: moved?.version ?? null,
      },
    );
  await tx.bookings.update(cancelBooking(moved, moved.version, now));
  const calendars = await loadCalendars(tx, confirmed.tenantId, confirmed.calendarIds);
  const { occupies } = occupancy(calendars, confirmed, confirmed.customer);
  await tx.bookings.replaceAllocations(confirmed, occupies);
  const stored: Booking = { ...confirmed, payment: moved.payment };
  await tx.bookings.update(stored);
  await recordBookingEvent(tx, deps.ids, 'booking.rescheduled', stored, now);
  return stored;
}
