import { DomainError } from '../../domain/errors.js';
import type { Booking } from '../../domain/booking/booking.js';
import type { ExternalOverlap } from '../../domain/calendar-sync/caldav.js';
import type { Calendar } from '../../domain/calendar.js';
import type { Principal } from '../../domain/identity/principal.js';
import type { StoreTx } from '../../ports/store/index.js';
import type { ResultStorage } from '../idempotent.js';

export interface CalendarRef {
  readonly id: string;
  readonly name: string;
  readonly timeZone: string;
}

/** A booking with the calendar facts needed to show it; JSON-safe so it can be replayed. */
export interface BookingSnapshot {
  readonly booking: Booking;
  readonly calendars: readonly CalendarRef[];
  /** A replacement hold (reschedule_booking): the booking it moves, for the intent to show. */
  readonly replaced?: Booking;
  /** get_booking of a confirmed booking: events of a connected CalDAV calendar over it. */
  readonly overlaps?: readonly ExternalOverlap[];
}

export function calendarRef(calendar: Calendar): CalendarRef {
  return { id: calendar.id, name: calendar.name, timeZone: calendar.timeZone };
}

export async function loadBooking(tx: StoreTx, tenantId: string, bookingId: string): Promise<Booking> {
  const booking = await tx.bookings.get(tenantId, bookingId);
  if (!booking) throw new DomainError('NOT_FOUND', `No booking ${bookingId}.`, { bookingId });
  return booking;
}

/**
 * A booking as an agent connection may see it: only those made for the person it acts for.
 * Anyone else's is indistinguishable from one that does not exist.
 */
export async function loadOwnBooking(tx: StoreTx, principal: Principal, bookingId: string): Promise<Booking> {
  const booking = await tx.bookings.get(principal.tenantId, bookingId);
  if (!booking || booking.owner.subject !== principal.subject)
    throw new DomainError('NOT_FOUND', `No booking ${bookingId}.`, { bookingId });
  return booking;
}

export async function loadCalendars(
  tx: StoreTx,
  tenantId: string,
  ids: readonly string[],
): Promise<Calendar[]> {
  const found = await tx.calendars.get(tenantId, ids);
  const missing = ids.filter((id) => !found.some((c) => c.id === id));
  if (missing.length > 0) {
    throw new DomainError('NOT_FOUND', `No calendar ${missing.join(', ')}.`, { calendarIds: missing });
  }
  return found;
}

export async function snapshotOf(tx: StoreTx, booking: Booking): Promise<BookingSnapshot> {
  const calendars = await tx.calendars.get(booking.tenantId, booking.calendarIds);
  const replaced = booking.replaces ? await tx.bookings.get(booking.tenantId, booking.replaces) : null;
  return { booking, calendars: calendars.map(calendarRef), ...(replaced ? { replaced } : {}) };
}

/**
 * Replays keep a booking answer without its customer details and label: the bookings row
 * holds them (they never change), so the idempotency table keeps no second copy.
 */
export const snapshotStorage: ResultStorage<BookingSnapshot> = {
  persist: (snapshot) => ({
    ...snapshot,
    booking: { ...snapshot.booking, customer: null, label: null },
    ...(snapshot.replaced ? { replaced: { ...snapshot.replaced, customer: null, label: null } } : {}),
  }),
  revive: async (stored, tx) => {
    const snapshot = stored as BookingSnapshot;
    const current = await tx.bookings.get(snapshot.booking.tenantId, snapshot.booking.id);
    return {
      ...snapshot,
      booking: { ...snapshot.booking, customer: current?.customer ?? null, label: current?.label ?? null },
    };
  },
};
