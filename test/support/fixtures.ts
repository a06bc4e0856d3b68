import { randomUUID } from 'node:crypto';
import type { Client } from '@modelcontextprotocol/client';
import { ok } from './mcp-clients.js';

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
