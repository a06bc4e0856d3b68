import { calendarsLock } from '../../app/calendars/calendars.js';
import type { AppDeps } from '../../app/deps.js';
import { gatedBookingChange } from '../../app/booking/gated-booking.js';
import { holdSlot } from '../../app/booking/hold-slot.js';
import { ensureTenant } from '../../app/identity/people.js';
import { DEFAULT_BOOKING_RULES } from '../../domain/availability/booking-rules.js';
import type { Calendar } from '../../domain/calendar.js';
import { NO_LIMITS } from '../../domain/identity/identity.js';
import type { Principal } from '../../domain/identity/principal.js';
import { DomainError } from '../../domain/errors.js';
import { weekdays } from './weekdays.js';

/** bookings-mcp's fictional store: three customers, each with a confirmed booking, days from now. */
const STORE_CUSTOMERS = [
  {
    name: 'Ada Miranda',
    email: 'ada.miranda@example.com',
    phone: '+1 555 0101',
    at: '09:00',
    service: 'consultation',
  },
  {
    name: 'Bruno Salas',
    email: 'bruno.salas@example.com',
    phone: '+1 555 0102',
    at: '10:30',
    service: 'follow-up',
  },
  {
    name: 'Chen Wei',
    email: 'chen.wei@example.com',
    phone: '+1 555 0103',
    at: '14:00',
    service: 'consultation',
  },
];

/**
 * The store bookings-mcp starts with (--profile bookings, --seed): one calendar of 30-minute slots
 * from 09:00 to 16:30 on weekdays, and three fictional customers with a confirmed booking each on
 * the next weekdays. The bookings belong to the tenant's first owner (an agent sees only its own
 * person's bookings), so they are made once an owner exists: at the first start that has one —
 * `stdio --as`, or the next start after the setup link created the owner. They are booked through
 * the use cases, as that owner's operator would, and audited so. Returns 1 when it seeded anything.
 */
export async function seedBookingsStore(deps: AppDeps, tenantId: string): Promise<number> {
  const calendar = await storeCalendar(deps, tenantId);
  const booked = await seedStoreBookings(deps, tenantId, calendar.id);
  return calendar.created || booked > 0 ? 1 : 0;
}

/** The store's calendar: created on an empty tenant; otherwise the seeded one, if it is still there. */
async function storeCalendar(
  deps: AppDeps,
  tenantId: string,
): Promise<{ id: string | null; created: boolean }> {
  return deps.store.write(async (tx) => {
    await tx.serialize(calendarsLock(tenantId));
    if ((await tx.calendars.count(tenantId)) > 0) {
      const { items } = await tx.calendars.list(tenantId, { offset: 0, limit: 2 });
      const seeded = items.length === 1 && items[0]!.name === STORE_CALENDAR ? items[0]!.id : null;
      return { id: seeded, created: false };
    }
    // The tenant counts its customers' numbers.
    await ensureTenant(deps, tx, tenantId);
    const calendar: Calendar = {
      id: deps.ids.newId('cal'),
      tenantId,
      name: STORE_CALENDAR,
      timeZone: 'UTC',
      price: null,
      availability: { weekly: weekdays('09:00', '17:00'), overrides: [] },
      description: 'The store’s 30-minute slots, 09:00–16:30 on weekdays.',
      tags: ['consultation'],
      rules: { ...DEFAULT_BOOKING_RULES, slotStepMinutes: 30, allowedDurationsMinutes: [30] },
      createdAt: deps.clock.now(),
      version: 1,
    };
    await tx.calendars.insert(calendar);
    return { id: calendar.id, created: true };
  });
}

/** The three bookings, once, for the tenant's first owner; none while nobody owns the tenant. */
async function seedStoreBookings(
  deps: AppDeps,
  tenantId: string,
  calendarId: string | null,
): Promise<number> {
  if (calendarId === null) return 0;
  const found = await deps.store.read(async (tx) => ({
    owner: (await tx.people.listPeople(tenantId))
      .filter((p) => p.role === 'owner' && p.disabledAt === null)
      .sort((a, b) => a.createdAt - b.createdAt)[0],
    // Any booking ever made on it (a cancelled one too) means the store was seeded or is in use.
    used:
      (await tx.bookings.list(tenantId, { calendarId, now: deps.clock.now(), offset: 0, limit: 1 })).total >
      0,
  }));
  if (!found.owner || found.used) return 0;
  const operator: Principal = {
    tenantId,
    subject: found.owner.id,
    clientId: 'seed "bookings-mcp store"',
    connectionId: 'seed',
    scopes: ['read', 'draft', 'write', 'sensitive'],
    writePolicy: 'direct',
    limits: NO_LIMITS,
  };
  const DAY = 86_400_000;
  let day = Math.floor(deps.clock.now() / DAY) + 1;
  let booked = 0;
  for (const customer of STORE_CUSTOMERS) {
    while ([0, 6].includes(new Date(day * DAY).getUTCDay())) day++;
    const start = new Date(day * DAY + minutesOf(customer.at) * 60_000);
    try {
      const held = await holdSlot(deps, operator, {
        calendarIds: [calendarId],
        start: start.toISOString(),
        end: new Date(start.getTime() + 30 * 60_000).toISOString(),
        customer: { name: customer.name, email: customer.email, phone: customer.phone },
        label: customer.service,
        idempotencyKey: deps.ids.newUuid(),
      });
      const booking = held.value.booking;
      await gatedBookingChange(
        deps,
        operator,
        'confirm_booking',
        { bookingId: booking.id, expectedVersion: booking.version, idempotencyKey: deps.ids.newUuid() },
        { traceId: 'seed' },
      );
      booked++;
    } catch (error) {
      // Another instance starting on the same database seeded these times first.
      if (error instanceof DomainError && error.code === 'SLOT_UNAVAILABLE') return booked;
      throw error;
    }
    day++;
  }
  return booked;
}

const STORE_CALENDAR = 'Consultations';
const minutesOf = (hhmm: string) => Number(hhmm.slice(0, 2)) * 60 + Number(hhmm.slice(3, 5));
