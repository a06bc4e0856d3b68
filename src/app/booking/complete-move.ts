import type { Intent } from '../../domain/approval/intent.js';
import type { Booking } from '../../domain/booking/booking.js';
import { cancelBooking } from '../../domain/booking/booking.js';
import { DomainError } from '../../domain/errors.js';
import type { Instant } from '../../domain/time/instant.js';
import type { StoreTx } from '../../ports/store/index.js';
import type { AppDeps } from '../deps.js';
import { MAX_BOOKING_MINUTES, occupancy } from './occupancy.js';
import { limitReached } from './refusals.js';
import { requireMovable } from './reschedule.js';
import { samePrice } from '../../domain/booking/money.js';
import { MINUTE_MS } from '../../domain/time/instant.js';
import { loadCalendars } from './snapshot.js';
import { recordBookingEvent } from '../webhooks/record-booking-event.js';

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
  requireMovable(moved, now);
  if (!samePrice(confirmed.price, moved.price))
    throw new DomainError(
      'INVALID_STATE',
      'The price changed since the move was held; release it and move again.',
      {
        bookingId: confirmed.id,
      },
    );
  await tx.bookings.update(cancelBooking(moved, moved.version, now));
  const calendars = await loadCalendars(tx, confirmed.tenantId, confirmed.calendarIds);
  const { occupies, limits } = occupancy(calendars, confirmed, confirmed.customer);
  if (occupies.some((span) => span.end - span.start > MAX_BOOKING_MINUTES * MINUTE_MS))
    throw new DomainError(
      'INVALID_STATE',
      "With the calendar's buffers as they are now the booking would last more than 7 days; release the move and move again.",
      { bookingId: confirmed.id },
    );
  // Limits again, now that the moved booking is gone: others may have booked that day meanwhile.
  const full = await tx.bookings.fullLimit(
    confirmed.tenantId,
    limits.map((check) => ({ ...check, excludeBookingId: confirmed.id })),
    now,
  );
  if (full) throw limitReached(calendars, full);
  await tx.bookings.replaceAllocations(confirmed, occupies);
  const stored: Booking = { ...confirmed, payment: moved.payment };
  await tx.bookings.update(stored);
  await recordBookingEvent(tx, deps.ids, 'booking.rescheduled', stored, now);
  return stored;
}
