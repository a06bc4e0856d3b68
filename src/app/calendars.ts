import type { Availability } from '../domain/availability/availability.js';
import { validateAvailability } from '../domain/availability/availability.js';
import type { Money } from '../domain/booking/money.js';
import { validateMoney } from '../domain/booking/money.js';
import type { Calendar, Principal } from '../domain/calendar.js';
import { invalidArgument } from '../domain/errors.js';
import { isValidTimeZone } from '../domain/time/instant.js';
import { requireScope, requireWriter } from './authorize.js';
import type { AppDeps } from './deps.js';
import type { Outcome } from './idempotent.js';
import { idempotent } from './idempotent.js';
import { loadCalendars } from './snapshot.js';

export async function listCalendars(deps: AppDeps, principal: Principal): Promise<Calendar[]> {
  requireScope(principal, 'bookings:read');
  return deps.store.read((tx) => tx.listCalendars(principal.tenantId));
}

export interface CreateCalendarInput {
  readonly name: string;
  readonly timeZone: string;
  readonly price?: Money;
  readonly availability?: Availability;
  readonly idempotencyKey: string;
}

export async function createCalendar(
  deps: AppDeps,
  principal: Principal,
  input: CreateCalendarInput,
): Promise<Outcome<Calendar>> {
  requireWriter(principal, 'calendars:admin');
  if (!isValidTimeZone(input.timeZone))
    throw invalidArgument('timeZone', `"${input.timeZone}" is not an IANA time zone`);
  if (input.price) validateMoney(input.price, 'price');
  const availability = input.availability ?? { weekly: {}, overrides: [] };
  validateAvailability(availability);
  return deps.store.write((tx) =>
    idempotent(deps, tx, principal, 'create_calendar', input.idempotencyKey, input, async () => {
      const calendar: Calendar = {
        id: deps.ids.newId('cal'),
        tenantId: principal.tenantId,
        name: input.name,
        timeZone: input.timeZone,
        price: input.price ?? null,
        availability,
        createdAt: deps.clock.now(),
      };
      await tx.insertCalendar(calendar);
      return calendar;
    }),
  );
}

export interface SetAvailabilityInput {
  readonly calendarId: string;
  readonly availability: Availability;
  readonly idempotencyKey: string;
}

/** Replaces the whole week and every date override at once. */
export async function setAvailability(
  deps: AppDeps,
  principal: Principal,
  input: SetAvailabilityInput,
): Promise<Outcome<Calendar>> {
  requireWriter(principal, 'calendars:admin');
  validateAvailability(input.availability);
  const outcome = await deps.store.write((tx) =>
    idempotent(deps, tx, principal, 'set_availability', input.idempotencyKey, input, async () => {
      const [calendar] = await loadCalendars(tx, principal.tenantId, [input.calendarId]);
      await tx.replaceAvailability(principal.tenantId, input.calendarId, input.availability);
      return { ...calendar!, availability: input.availability };
    }),
  );
  deps.slotCache.invalidate(principal.tenantId, [input.calendarId]);
  return outcome;
}
