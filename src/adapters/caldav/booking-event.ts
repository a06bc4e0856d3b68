import ical, { ICalEventStatus } from 'ical-generator';
import type { Booking } from '../../domain/booking/booking.js';
import { feedUid } from '../feeds/feed-uid.js';

/** What an event written for a booking says, and whether the customer's details go with it. */
export interface BookingEventInput {
  readonly booking: Booking;
  readonly calendarName: string;
  /** The booking whose event this is: the one first written at this address (a move keeps its UID). */
  readonly eventOf: string;
  readonly shareContact: boolean;
  readonly now: number;
}

/** The customer's name, e-mail and phone, for owners who chose to share them with their calendar. */
function contactLines(booking: Booking): string[] {
  const c = booking.customer;
  if (!c) return [];
  return [
    c.name && `Customer: ${c.name}`,
    c.email && `E-mail: ${c.email}`,
    c.phone && `Phone: ${c.phone}`,
  ].filter((line): line is string => Boolean(line));
}

/** A confirmed booking as one iCalendar event: UTC times, its reference, and contact details only when shared. */
export function bookingEventIcs(input: BookingEventInput): string {
  const { booking } = input;
  const calendar = ical({ prodId: { company: 'Holdfast', product: 'caldav sync', language: 'EN' } });
  const lines = [
    `Holdfast booking ${booking.reference} on ${input.calendarName}.`,
    booking.price ? `Price: ${booking.price.amount} ${booking.price.currency}.` : null,
    ...(input.shareContact ? contactLines(booking) : []),
  ].filter((line): line is string => line !== null);
  calendar.createEvent({
    id: feedUid(booking.tenantId, input.eventOf),
    start: new Date(booking.start),
    end: new Date(booking.end),
    stamp: new Date(input.now),
    lastModified: new Date(booking.updatedAt),
    sequence: booking.version,
    summary: booking.label ?? `Booking ${booking.reference}`,
    description: lines.join('\n'),
    status: ICalEventStatus.CONFIRMED,
  });
  return calendar.toString();
}
