import { calendarsLock } from '../../app/calendars/calendars.js';
import type { AppDeps } from '../../app/deps.js';
import { gatedBookingChange } from '../../app/booking/gated-booking.js';
import { holdSlot } from '../../app/booking/hold-slot.js';
import { ensureTenant } from '../../app/identity/people.js';
import { DEFAULT_BOOKING_RULES } from '../../domain/availability/booking-rules.js';
import type { Calendar } from '../../domain/calendar.js';
import { NO_LIMITS } from '../../domain/identity/identity.js';
import type { Principal } from '../../domain/identity/principal.js';
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
 * the next weekdays — booked through the use cases, as an operator would, and audited so.
 */
export async function seedBookingsStore(deps: AppDeps, tenantId: string): Promise<number> {
  const created = await deps.store.write(async (tx) => {
    await tx.serialize(calendarsLock(tenantId));
    if ((await tx.calendars.count(tenantId)) > 0) return null;
    // The tenant counts its customers' numbers.
    await ensureTenant(deps, tx, tenantId);
    const calendar: Calendar = {
      id: deps.ids.newId('cal'),
      tenantId,
      name: 'Consultations',
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
    return calendar;
  });
  if (!created) return 0;
  const operator: Principal = {
    tenantId,
    subject: 'seed',
    clientId: 'seed "bookings-mcp store"',
    connectionId: 'seed',
    scopes: ['read', 'draft', 'write', 'sensitive'],
    writePolicy: 'direct',
    limits: NO_LIMITS,
  };
  const DAY = 86_400_000;
  let day = Math.floor(deps.clock.now() / DAY) + 1;
  for (const customer of STORE_CUSTOMERS) {
    while ([0, 6].includes(new Date(day * DAY).getUTCDay())) day++;
    const start = new Date(day * DAY + minutesOf(customer.at) * 60_000);
    const held = await holdSlot(deps, operator, {
      calendarIds: [created.id],
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
      {
        bookingId: booking.id,
        expectedVersion: booking.version,
        idempotencyKey: deps.ids.newUuid(),
      },
      { traceId: 'seed' },
    );
    day++;
  }
  return 1;
}

const minutesOf = (hhmm: string) => Number(hhmm.slice(0, 2)) * 60 + Number(hhmm.slice(3, 5));
