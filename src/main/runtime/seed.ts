import { calendarsLock } from '../../app/calendars/calendars.js';
import type { AppDeps } from '../../app/deps.js';
import { validateAvailability } from '../../domain/availability/availability.js';
import type { Calendar } from '../../domain/calendar.js';
import type { ContractProfile } from '../../domain/identity/identity.js';
import { weekdays } from './weekdays.js';

/** Two people and a room in three time zones, so a first find_slots returns something. */
export const demoCalendars = [
  {
    name: 'Dr. Lena Vogel (physiotherapist)',
    timeZone: 'Europe/Berlin',
    price: null,
    availability: { weekly: weekdays('08:00', '18:00'), overrides: [] },
    description: 'Physiotherapy for sports injuries and back pain; sessions in German or English.',
    tags: ['physiotherapy', 'sports injuries', 'German', 'English'],
  },
  {
    name: 'Marcus Reed (consultant)',
    timeZone: 'America/New_York',
    price: null,
    availability: { weekly: weekdays('07:00', '15:00'), overrides: [] },
    description: 'Business consulting: strategy reviews and pricing.',
    tags: ['consulting', 'strategy', 'English'],
  },
  {
    name: 'Jade Room (meeting room)',
    timeZone: 'Asia/Shanghai',
    price: { amount: '500.00', currency: 'CNY' },
    availability: {
      weekly: { ...weekdays('08:00', '22:00'), sat: [{ start: '10:00', end: '18:00' }] },
      overrides: [],
    },
    description: 'Meeting room for up to 8 people with a projector and video calls.',
    tags: ['meeting room', 'projector', 'video'],
  },
];

/**
 * Seeds an empty tenant in one transaction that holds the tenant's calendar lock, so
 * instances starting together on an empty database seed exactly once. Returns how many
 * calendars it created.
 */
export async function seedIfEmpty(
  deps: AppDeps,
  tenantId: string,
  profile: ContractProfile = 'standard',
): Promise<number> {
  if (profile === 'bookings') return (await import('./seed-bookings.js')).seedBookingsStore(deps, tenantId);
  if (profile === 'expert-booking') return (await import('./seed-experts.js')).seedExperts(deps, tenantId);
  return deps.store.write(async (tx) => {
    await tx.serialize(calendarsLock(tenantId));
    if ((await tx.calendars.count(tenantId)) > 0) return 0;
    for (const demo of demoCalendars) {
      validateAvailability(demo.availability);
      const calendar: Calendar = {
        ...demo,
        id: deps.ids.newId('cal'),
        tenantId,
        createdAt: deps.clock.now(),
        version: 1,
      };
      await tx.calendars.insert(calendar);
    }
    return demoCalendars.length;
  });
}
