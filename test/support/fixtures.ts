import { randomUUID } from 'node:crypto';
import type { Client } from '@modelcontextprotocol/client';
import type { Envelope } from './mcp-clients.js';
import { call, ok } from './mcp-clients.js';

const HOUR = 3_600_000;
const allDay = [{ start: '00:00', end: '24:00' }];
export const openAllWeek = {
  weekly: { mon: allDay, tue: allDay, wed: allDay, thu: allDay, fri: allDay, sat: allDay, sun: allDay },
  overrides: [],
};

/** A whole UTC hour at least `daysAhead` days from now, as RFC 3339. */
export function futureHour(daysAhead: number, hourOffset = 0): string {
  const base = Math.ceil((Date.now() + daysAhead * 24 * HOUR) / HOUR) * HOUR;
  return new Date(base + hourOffset * HOUR).toISOString();
}

export function plusMinutes(iso: string, minutes: number): string {
  return new Date(Date.parse(iso) + minutes * 60_000).toISOString();
}

export async function createOpenCalendar(
  client: Client,
  name: string,
  price?: { amount: string; currency: string },
) {
  const data = await ok<{ calendar: { id: string } }>(client, 'create_calendar', {
    name,
    timeZone: 'UTC',
    availability: openAllWeek,
    ...(price ? { price } : {}),
    idempotencyKey: randomUUID(),
  });
  return data.calendar.id;
}

/**
 * The booking flow up to the person: the first calendar's first free half hour in the week
 * three days ahead, held, then confirm — which must come back asking for approval. Returns
 * that refusal.
 */
export async function holdThenAskToConfirm(client: Client): Promise<Envelope> {
  const { calendars } = await ok<{ calendars: { id: string }[] }>(client, 'list_calendars', {});
  const calendarIds = [calendars[0]!.id];
  const from = futureHour(3);
  const { slots } = await ok<{ slots: { start: string; end: string }[] }>(client, 'find_slots', {
    calendarIds,
    from,
    to: plusMinutes(from, 7 * 24 * 60),
    durationMinutes: 30,
    limit: 1,
  });
  const { booking } = await ok<{ booking: { id: string; version: number } }>(client, 'hold_slot', {
    calendarIds,
    start: slots[0]!.start,
    end: slots[0]!.end,
    customer: { name: 'Ana' },
    idempotencyKey: randomUUID(),
  });
  return call(client, 'confirm_booking', {
    bookingId: booking.id,
    expectedVersion: booking.version,
    idempotencyKey: randomUUID(),
  });
}
