import type { DateOverride, WeeklyHours } from '../../domain/availability/availability.js';
import { openIntervals } from '../../domain/availability/availability.js';
import type { BookingRules } from '../../domain/availability/booking-rules.js';
import type { Money } from '../../domain/booking/money.js';
import type { Calendar } from '../../domain/calendar.js';
import type { Principal } from '../../domain/identity/principal.js';
import { rulesOf } from '../../domain/calendar.js';
import { DomainError, isDomainError } from '../../domain/errors.js';
import type { Person } from '../../domain/identity/identity.js';
import { scopesOfRole } from '../../domain/identity/identity.js';
import type { Instant } from '../../domain/time/instant.js';
import { formatInstant } from '../../domain/time/instant.js';
import { isoDateOfDay, localEpochDay, wallClockToInstant } from '../../domain/time/zone.js';
import { requireScope } from '../authorize.js';
import type { CalendarDetailsInput } from '../calendars/calendar-edits.js';
import { calendarName, reviseAvailability, updateCalendarDetails } from '../calendars/calendar-edits.js';
import { createCalendar, setBookingRules } from '../calendars/calendars.js';
import type { AppDeps } from '../deps.js';
import { findSlots } from '../booking/find-slots.js';
import type { WriteCall } from '../idempotent.js';
import { principalFor } from '../identity/tokens.js';

/**
 * The console's calendars, as the signed-in person: everyone looks (hours, overrides, the open
 * slots agents will be offered); only an owner creates and changes them. The role is checked
 * here, not only by the page, so a hand-made request gets no further than the form.
 */

/** "Owners administer calendars"; approvers book and viewers look. */
export const mayEditCalendars = (person: Person): boolean =>
  person.role === 'owner' && person.disabledAt === null;

function requireOwner(person: Person): void {
  if (!mayEditCalendars(person))
    throw new DomainError(
      'FORBIDDEN',
      `Only an owner creates and changes calendars; you (${person.role}) may look.`,
    );
}

/** The person acting through the console, with their role's reach (what their own agent could get at most). */
async function principalOf(deps: AppDeps, person: Person): Promise<Principal> {
  const tenant = await deps.store.read((tx) => tx.tenants.getTenant(person.tenantId));
  if (!tenant) throw new DomainError('FORBIDDEN', 'This person has no tenant.');
  return principalFor(tenant, person, {
    connectionId: `console:${person.id}`,
    name: 'console',
    scopes: scopesOfRole(person.role),
    writePolicy: 'direct',
  });
}

/** How the preview cuts open time into slots: what an agent's find_slots would ask. */
export interface SlotLength {
  readonly durationMinutes: number;
  readonly stepMinutes: number;
}

export const DEFAULT_SLOT_LENGTH: SlotLength = { durationMinutes: 60, stepMinutes: 60 };
export const PREVIEW_DAYS = 14;
const MAX_PREVIEW_SLOTS = 2_000;

export interface PreviewDay {
  /** The local date, YYYY-MM-DD, in the calendar's zone. */
  readonly date: string;
  /** Its local midnight. */
  readonly midnight: Instant;
  /** The date's own hours (an override) rather than the week's. */
  readonly override: boolean;
  /** Whether the calendar has any hours that day (booked or past ones included). */
  readonly open: boolean;
  readonly slots: readonly { start: Instant; end: Instant }[];
}

export interface SlotPreview {
  /** The find_slots query the preview is: local midnight today to local midnight PREVIEW_DAYS later. */
  readonly from: Instant;
  readonly to: Instant;
  readonly length: SlotLength;
  readonly days: readonly PreviewDay[];
}

/**
 * The length the preview can show under the calendar's rules: a length it does not offer would
 * find nothing (find_slots refuses it), so its shortest allowed one is shown instead; its own
 * start grid replaces the step asked for, as find_slots does.
 */
export function previewLength(rules: BookingRules, asked: SlotLength): SlotLength {
  const allowed = rules.allowedDurationsMinutes;
  const durationMinutes =
    allowed === null || allowed.includes(asked.durationMinutes)
      ? asked.durationMinutes
      : Math.min(...allowed);
  return { durationMinutes, stepMinutes: rules.slotStepMinutes ?? asked.stepMinutes };
}

/** The local days from today in the calendar's zone, as find_slots sees them (bookings, rules and the past taken out). */
async function previewOf(
  deps: AppDeps,
  principal: Principal,
  calendar: Calendar,
  asked: SlotLength,
  limit = MAX_PREVIEW_SLOTS,
): Promise<SlotPreview> {
  const length = previewLength(rulesOf(calendar), asked);
  const zone = calendar.timeZone;
  const today = localEpochDay(deps.clock.now(), zone);
  const from = wallClockToInstant(today, 0, zone);
  const to = wallClockToInstant(today + PREVIEW_DAYS, 0, zone);
  const found = await findSlots(deps, principal, {
    calendarIds: [calendar.id],
    from: formatInstant(from),
    to: formatInstant(to),
    ...length,
    limit,
  });
  const days = Array.from({ length: PREVIEW_DAYS }, (_, i) => {
    const day = today + i;
    const midnight = wallClockToInstant(day, 0, zone);
    const date = isoDateOfDay(day);
    const hours = { start: midnight, end: wallClockToInstant(day + 1, 0, zone) };
    return {
      date,
      midnight,
      override: calendar.availability.overrides.some((o) => o.date === date),
      open: openIntervals(calendar.availability, zone, hours).length > 0,
      slots: found.slots.filter((s) => localEpochDay(s.start, zone) === day),
    };
  });
  return { from, to, length, days };
}

export interface CalendarRow {
  readonly calendar: Calendar;
  /** Today's local date in its zone: what "this week" counts from. */
  readonly today: string;
  readonly nextSlots: readonly { start: Instant; end: Instant }[];
}

export interface CalendarsOverview {
  readonly rows: readonly CalendarRow[];
  readonly total: number;
  readonly page: number;
  readonly pageSize: number;
  readonly mayEdit: boolean;
}

export const CALENDARS_PER_PAGE = 20;
const NEXT_SLOTS = 3;

/** A page of the tenant's calendars, oldest first, each with its next open slots. */
export async function calendarsOverview(
  deps: AppDeps,
  person: Person,
  page: number,
): Promise<CalendarsOverview> {
  const principal = await principalOf(deps, person);
  requireScope(principal, 'read');
  // Past the tenant's calendar quota there is nothing to show; the bound keeps the offset a safe integer.
  const offset = (Math.min(Math.max(1, page), 100_000) - 1) * CALENDARS_PER_PAGE;
  const { items, total } = await deps.store.read((tx) =>
    tx.calendars.list(person.tenantId, { offset, limit: CALENDARS_PER_PAGE }),
  );
  const rows = await Promise.all(
    items.map(async (calendar) => {
      const preview = await previewOf(deps, principal, calendar, DEFAULT_SLOT_LENGTH, NEXT_SLOTS);
      return {
        calendar,
        today: preview.days[0]!.date,
        nextSlots: preview.days.flatMap((d) => d.slots),
      };
    }),
  );
  return {
    rows,
    total,
    page: Math.max(1, page),
    pageSize: CALENDARS_PER_PAGE,
    mayEdit: mayEditCalendars(person),
  };
}

export interface CalendarDetail {
  readonly calendar: Calendar;
  readonly preview: SlotPreview;
  readonly mayEdit: boolean;
}

/** One calendar of the person's tenant with the next two weeks' open slots; null when there is none (another tenant's included). */
export async function calendarDetail(
  deps: AppDeps,
  person: Person,
  calendarId: string,
  length: SlotLength = DEFAULT_SLOT_LENGTH,
): Promise<CalendarDetail | null> {
  const principal = await principalOf(deps, person);
  requireScope(principal, 'read');
  const [calendar] = await deps.store.read((tx) => tx.calendars.get(person.tenantId, [calendarId]));
  if (!calendar) return null;
  try {
    const preview = await previewOf(deps, principal, calendar, length);
    return { calendar, preview, mayEdit: mayEditCalendars(person) };
  } catch (error) {
    // Deleted between the two reads: as unknown as a made-up id.
    if (isDomainError(error, 'NOT_FOUND')) return null;
    throw error;
  }
}

export interface NewCalendarInput {
  readonly name: string;
  readonly timeZone: string;
  readonly price: Money | null;
  readonly weekly: WeeklyHours;
  readonly description?: string;
  readonly tags?: readonly string[];
  readonly idempotencyKey: string;
}

export async function createCalendarAs(
  deps: AppDeps,
  person: Person,
  input: NewCalendarInput,
  call: WriteCall = {},
): Promise<Calendar> {
  requireOwner(person);
  const name = calendarName(input.name);
  const principal = await principalOf(deps, person);
  const created = await createCalendar(
    deps,
    principal,
    {
      name,
      timeZone: input.timeZone,
      ...(input.price ? { price: input.price } : {}),
      availability: { weekly: input.weekly, overrides: [] },
      ...(input.description !== undefined ? { description: input.description } : {}),
      ...(input.tags ? { tags: input.tags } : {}),
      idempotencyKey: input.idempotencyKey,
    },
    call,
  );
  return created.value;
}

export async function updateDetailsAs(
  deps: AppDeps,
  person: Person,
  input: CalendarDetailsInput,
  call: WriteCall = {},
): Promise<Calendar> {
  requireOwner(person);
  return (await updateCalendarDetails(deps, await principalOf(deps, person), input, call)).value;
}

/** The whole week at once; the date overrides stay as they are. */
export async function replaceWeekAs(
  deps: AppDeps,
  person: Person,
  input: { calendarId: string; weekly: WeeklyHours; idempotencyKey: string },
  call: WriteCall = {},
): Promise<Calendar> {
  requireOwner(person);
  const { calendarId, weekly, idempotencyKey } = input;
  const principal = await principalOf(deps, person);
  return (await reviseAvailability(deps, principal, { calendarId, change: { weekly }, idempotencyKey }, call))
    .value;
}

/** A date closed all day (no windows) or open other hours; any earlier override of that date is replaced. */
export async function setOverrideAs(
  deps: AppDeps,
  person: Person,
  input: { calendarId: string; override: DateOverride; idempotencyKey: string },
  call: WriteCall = {},
): Promise<Calendar> {
  requireOwner(person);
  const { calendarId, override, idempotencyKey } = input;
  const principal = await principalOf(deps, person);
  const change = { setOverride: override };
  return (await reviseAvailability(deps, principal, { calendarId, change, idempotencyKey }, call)).value;
}

/** The date goes back to the week's hours. */
export async function removeOverrideAs(
  deps: AppDeps,
  person: Person,
  input: { calendarId: string; date: string; idempotencyKey: string },
  call: WriteCall = {},
): Promise<Calendar> {
  requireOwner(person);
  const { calendarId, date, idempotencyKey } = input;
  const principal = await principalOf(deps, person);
  const change = { removeOverride: date };
  return (await reviseAvailability(deps, principal, { calendarId, change, idempotencyKey }, call)).value;
}

/** The calendar's booking rules replaced whole (what set_booking_rules does); bookings already made are kept. */
export async function setRulesAs(
  deps: AppDeps,
  person: Person,
  input: { calendarId: string; rules: BookingRules; idempotencyKey: string },
  call: WriteCall = {},
): Promise<Calendar> {
  requireOwner(person);
  return (await setBookingRules(deps, await principalOf(deps, person), input, call)).value;
}
