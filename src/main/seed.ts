import { randomUUID } from 'node:crypto';
import { createCalendar } from '../app/calendars.js';
import type { AppDeps } from '../app/deps.js';
import type { Principal } from '../domain/calendar.js';

const weekdays = (start: string, end: string) =>
  Object.fromEntries(['mon', 'tue', 'wed', 'thu', 'fri'].map((d) => [d, [{ start, end }]]));

/** Two people and a room in three time zones, so a first find_slots returns something. */
export const demoCalendars = [
  {
    name: 'Dr. Lena Vogel (physiotherapist)',
    timeZone: 'Europe/Berlin',
    availability: { weekly: weekdays('08:00', '18:00'), overrides: [] },
  },
  {
    name: 'Marcus Reed (consultant)',
    timeZone: 'America/New_York',
    availability: { weekly: weekdays('07:00', '15:00'), overrides: [] },
  },
  {
    name: 'Jade Room (meeting room)',
    timeZone: 'Asia/Shanghai',
    price: { amount: '500.00', currency: 'CNY' },
    availability: {
      weekly: { ...weekdays('08:00', '22:00'), sat: [{ start: '10:00', end: '18:00' }] },
      overrides: [],
    },
  },
];

/** Seeds an empty tenant; returns how many calendars it created. */
export async function seedIfEmpty(deps: AppDeps, admin: Principal): Promise<number> {
  const existing = await deps.store.read((tx) => tx.listCalendars(admin.tenantId));
  if (existing.length > 0) return 0;
  for (const calendar of demoCalendars) {
    await createCalendar(deps, admin, { ...calendar, idempotencyKey: randomUUID() });
  }
  return demoCalendars.length;
}
