import type { FindSlotsResult } from '../../app/find-slots.js';
import type { BookingSnapshot, CalendarRef } from '../../app/snapshot.js';
import { effectiveStatus } from '../../domain/booking/booking.js';
import type { Calendar } from '../../domain/calendar.js';
import type { Instant } from '../../domain/time/instant.js';
import { formatInstant, formatLocal } from '../../domain/time/instant.js';

/** Wire shapes: instants as UTC RFC 3339 plus each calendar's wall-clock form. */
function localForms(calendars: readonly CalendarRef[], start: Instant, end: Instant) {
  const zones = [...new Set(calendars.map((c) => c.timeZone))];
  return zones.map((timeZone) => ({
    timeZone,
    start: formatLocal(start, timeZone),
    end: formatLocal(end, timeZone),
  }));
}

export function calendarView(calendar: Calendar) {
  return {
    id: calendar.id,
    name: calendar.name,
    timeZone: calendar.timeZone,
    price: calendar.price,
    availability: calendar.availability,
  };
}

export function bookingView({ booking, calendars }: BookingSnapshot, now: Instant) {
  return {
    id: booking.id,
    reference: booking.reference,
    status: effectiveStatus(booking, now),
    version: booking.version,
    calendarIds: [...booking.calendarIds],
    calendars: [...calendars],
    start: formatInstant(booking.start),
    end: formatInstant(booking.end),
    local: localForms(calendars, booking.start, booking.end),
    expiresAt: booking.expiresAt === null ? null : formatInstant(booking.expiresAt),
    customer: booking.customer,
    label: booking.label,
    price: booking.price,
    payment: booking.payment && {
      status: booking.payment.status,
      paidAt: booking.payment.paidAt === null ? null : formatInstant(booking.payment.paidAt),
    },
    owner: booking.owner,
    externalKeys: { ...booking.externalKeys },
    createdAt: formatInstant(booking.createdAt),
    updatedAt: formatInstant(booking.updatedAt),
  };
}

export function slotsView(result: FindSlotsResult) {
  return {
    slots: result.slots.map((slot) => ({
      start: formatInstant(slot.start),
      end: formatInstant(slot.end),
      local: localForms(result.calendars, slot.start, slot.end),
    })),
    total: result.total,
    nextCursor: result.nextCursor,
  };
}

/** Alternatives offered on SLOT_UNAVAILABLE, in wire form. */
export function alternativesView(details: Record<string, unknown>): Record<string, unknown> {
  const alternatives = details.alternatives as
    { start: Instant; end: Instant; reserved: false }[] | undefined;
  if (!alternatives) return details;
  return {
    ...details,
    alternatives: alternatives.map((a) => ({
      start: formatInstant(a.start),
      end: formatInstant(a.end),
      reserved: false,
    })),
  };
}
