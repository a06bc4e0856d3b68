import type { Availability, DateOverride, WeeklyHours } from '../../domain/availability/availability.js';
import { validateAvailability, weekdays } from '../../domain/availability/availability.js';
import type { Money } from '../../domain/booking/money.js';
import { validateMoney } from '../../domain/booking/money.js';
import type { Calendar } from '../../domain/calendar.js';
import type { Principal } from '../../domain/identity/principal.js';
import { DomainError, invalidArgument } from '../../domain/errors.js';
import { isValidTimeZone } from '../../domain/time/instant.js';
import type { StoreTx } from '../../ports/store/index.js';
import { requireWriter } from '../authorize.js';
import type { AppDeps } from '../deps.js';
import type { Outcome, WriteCall } from '../idempotent.js';
import { idempotent } from '../idempotent.js';
import { loadCalendars } from '../booking/snapshot.js';
import { calendarDescription, calendarTags } from '../../domain/calendar-profile.js';
import { profiled } from './calendars.js';

/** Changes to a calendar made from what it is now (the console's edits), each retry-safe and versioned. */

/** The longest name a calendar may have (as create_calendar's schema allows). */
export const MAX_NAME_LENGTH = 200;

/** A calendar's name as kept: trimmed, not blank, not too long. */
export function calendarName(name: string): string {
  const trimmed = name.trim();
  if (trimmed.length === 0) throw invalidArgument('name', 'give the calendar a name');
  if (trimmed.length > MAX_NAME_LENGTH)
    throw invalidArgument('name', `at most ${MAX_NAME_LENGTH} characters`);
  return trimmed;
}

export interface CalendarDetailsInput {
  readonly calendarId: string;
  readonly name: string;
  readonly timeZone: string;
  readonly price: Money | null;
  /** Absent: kept as it is. Blank: none. */
  readonly description?: string;
  /** Absent: kept as they are. */
  readonly tags?: readonly string[];
  readonly idempotencyKey: string;
}

/**
 * Renames, re-zones, re-prices or re-describes a calendar; bookings already made keep their
 * times and prices.
 */
export async function updateCalendarDetails(
  deps: AppDeps,
  principal: Principal,
  input: CalendarDetailsInput,
  call: WriteCall = {},
): Promise<Outcome<Calendar>> {
  requireWriter(principal, 'sensitive');
  const name = calendarName(input.name);
  if (!isValidTimeZone(input.timeZone))
    throw invalidArgument('timeZone', `"${input.timeZone}" is not an IANA time zone`);
  if (input.price) validateMoney(input.price, 'price');
  const description = input.description === undefined ? undefined : calendarDescription(input.description);
  const tags = input.tags === undefined ? undefined : calendarTags(input.tags);
  const record = {
    principal,
    tool: 'update_calendar',
    key: input.idempotencyKey,
    args: input,
    audit: call.audit,
  };
  const outcome = await deps.store.write((tx) =>
    idempotent(deps, tx, record, () =>
      revise(tx, principal.tenantId, input.calendarId, async (calendar) => {
        const details = {
          name,
          timeZone: input.timeZone,
          price: input.price,
          description: input.description === undefined ? calendar.description : description,
          tags: tags ?? calendar.tags ?? [],
        };
        return (await tx.calendars.updateDetails(principal.tenantId, calendar.id, details, calendar.version))
          ? profiled({ ...calendar, ...details, version: calendar.version + 1 })
          : null;
      }),
    ),
  );
  deps.calendarCache.forget(principal.tenantId, [input.calendarId]);
  deps.slotCache.invalidate(principal.tenantId, [input.calendarId]);
  return outcome;
}

/** One change of hours: the whole week (overrides kept), or one date's override set or removed. */
export type AvailabilityChange =
  | { readonly weekly: WeeklyHours }
  | { readonly setOverride: DateOverride }
  | { readonly removeOverride: string };

export interface ReviseAvailabilityInput {
  readonly calendarId: string;
  readonly change: AvailabilityChange;
  readonly idempotencyKey: string;
}

/** The availability after a change; an override replaces any other of its date. Pure. */
export function applyChange(availability: Availability, change: AvailabilityChange): Availability {
  if ('weekly' in change) return { weekly: tidyWeek(change.weekly), overrides: availability.overrides };
  const date = 'setOverride' in change ? change.setOverride.date : change.removeOverride;
  const others = availability.overrides.filter((o) => o.date !== date);
  const overrides =
    'setOverride' in change
      ? [...others, { date, windows: byStart(change.setOverride.windows) }].sort((a, b) =>
          a.date.localeCompare(b.date),
        )
      : others;
  return { weekly: availability.weekly, overrides };
}

/** Changes part of a calendar's hours, leaving the rest as it is at that moment. */
export async function reviseAvailability(
  deps: AppDeps,
  principal: Principal,
  input: ReviseAvailabilityInput,
  call: WriteCall = {},
): Promise<Outcome<Calendar>> {
  requireWriter(principal, 'sensitive');
  validateChange(input.change);
  const record = {
    principal,
    tool: 'revise_availability',
    key: input.idempotencyKey,
    args: input,
    audit: call.audit,
  };
  const outcome = await deps.store.write((tx) =>
    idempotent(deps, tx, record, () =>
      revise(tx, principal.tenantId, input.calendarId, async (calendar) => {
        const availability = applyChange(calendar.availability, input.change);
        validateAvailability(availability);
        const written = await tx.calendars.replaceAvailability(
          principal.tenantId,
          calendar.id,
          availability,
          calendar.version,
        );
        return written ? { ...calendar, availability, version: calendar.version + 1 } : null;
      }),
    ),
  );
  deps.calendarCache.forget(principal.tenantId, [input.calendarId]);
  deps.slotCache.invalidate(principal.tenantId, [input.calendarId]);
  return outcome;
}

/** Checked alone first, so a message names the field as the person entered it. */
function validateChange(change: AvailabilityChange): void {
  if ('weekly' in change) validateAvailability({ weekly: change.weekly, overrides: [] });
  else if ('setOverride' in change) validateAvailability({ weekly: {}, overrides: [change.setOverride] });
  else validateAvailability({ weekly: {}, overrides: [{ date: change.removeOverride, windows: [] }] });
}

const byStart = <T extends { start: string }>(windows: readonly T[]) =>
  [...windows].sort((a, b) => a.start.localeCompare(b.start));

/** Closed days left out, each day's windows in order: the document reads as the week does. */
function tidyWeek(weekly: WeeklyHours): WeeklyHours {
  return Object.fromEntries(
    weekdays.flatMap((day) => {
      const windows = weekly[day];
      return windows && windows.length > 0 ? [[day, byStart(windows)]] : [];
    }),
  );
}

const ATTEMPTS = 3;

/**
 * Reads the calendar, lets `write` decide and write from it, and starts over when the store
 * says the calendar moved on meanwhile (another instance changed it between read and write).
 */
async function revise(
  tx: StoreTx,
  tenantId: string,
  calendarId: string,
  write: (calendar: Calendar) => Promise<Calendar | null>,
): Promise<Calendar> {
  for (let attempt = 1; ; attempt++) {
    const [calendar] = await loadCalendars(tx, tenantId, [calendarId]);
    const written = await write(calendar!);
    if (written) return written;
    if (attempt === ATTEMPTS)
      throw new DomainError('INTERNAL', 'The calendar kept changing while this change was made; try again.');
  }
}
