import type { Availability } from '../../domain/availability/availability.js';
import { validateAvailability } from '../../domain/availability/availability.js';
import type { BookingRules } from '../../domain/availability/booking-rules.js';
import { completeRules, validateBookingRules } from '../../domain/availability/booking-rules.js';
import type { Money } from '../../domain/booking/money.js';
import { validateMoney } from '../../domain/booking/money.js';
import type { Calendar } from '../../domain/calendar.js';
import type { Principal } from '../../domain/identity/principal.js';
import { DomainError, invalidArgument } from '../../domain/errors.js';
import { isValidTimeZone } from '../../domain/time/instant.js';
import type { StoreTx } from '../../ports/store/index.js';
import { requireScope, requireWriter } from '../authorize.js';
import type { AppDeps } from '../deps.js';
import type { Outcome, WriteCall } from '../idempotent.js';
import { idempotent } from '../idempotent.js';
import { decodeCursor, encodeCursor } from '../page-cursor.js';
import { loadCalendars } from '../booking/snapshot.js';
import { calendarDescription, calendarTags, queryWords } from '../../domain/calendar-profile.js';
import { calendarsMatching } from './calendars-by-need.js';

export interface ListCalendarsInput {
  readonly limit: number;
  readonly cursor?: string;
  /** Words each listed calendar's name, description or tags must hold (case and accents ignored). */
  readonly query?: string;
}

export interface ListCalendarsResult {
  readonly calendars: readonly Calendar[];
  readonly total: number;
  readonly nextCursor: string | null;
}

export async function listCalendars(
  deps: AppDeps,
  principal: Principal,
  input: ListCalendarsInput,
): Promise<ListCalendarsResult> {
  requireScope(principal, 'read');
  const words = input.query === undefined ? undefined : queryWords(input.query);
  const query = words ? { list: 'calendars', words } : { list: 'calendars' };
  const offset = decodeCursor(deps.digest, query, input.cursor) ?? 0;
  const page = await deps.store.read(async (tx) => {
    if (!words) return tx.calendars.list(principal.tenantId, { offset, limit: input.limit });
    const matching = await calendarsMatching(tx, principal.tenantId, words);
    return { items: matching.slice(offset, offset + input.limit), total: matching.length };
  });
  const next = offset + page.items.length;
  return {
    calendars: page.items,
    total: page.total,
    nextCursor: next < page.total ? encodeCursor(deps.digest, query, next) : null,
  };
}

/** One calendar of the caller's tenant; another tenant's id is as unknown as a made-up one. */
export async function getCalendar(deps: AppDeps, principal: Principal, id: string): Promise<Calendar> {
  requireScope(principal, 'read');
  const [calendar] = await deps.store.read((tx) => tx.calendars.get(principal.tenantId, [id]));
  if (!calendar) throw new DomainError('NOT_FOUND', `No calendar ${id}.`, { calendarIds: [id] });
  return calendar;
}

export interface CreateCalendarInput {
  readonly name: string;
  readonly timeZone: string;
  readonly price?: Money;
  readonly availability?: Availability;
  readonly description?: string;
  readonly tags?: readonly string[];
  readonly idempotencyKey: string;
}

/** The calendar as storage gives it back: no blank description, no empty tag list. */
export function profiled(calendar: Calendar): Calendar {
  const { description, tags, ...rest } = calendar;
  return {
    ...rest,
    ...(description ? { description } : {}),
    ...(tags && tags.length > 0 ? { tags } : {}),
  };
}

export async function createCalendar(
  deps: AppDeps,
  principal: Principal,
  input: CreateCalendarInput,
  call: WriteCall = {},
): Promise<Outcome<Calendar>> {
  requireWriter(principal, 'sensitive');
  if (!isValidTimeZone(input.timeZone))
    throw invalidArgument('timeZone', `"${input.timeZone}" is not an IANA time zone`);
  if (input.price) validateMoney(input.price, 'price');
  const availability = input.availability ?? { weekly: {}, overrides: [] };
  validateAvailability(availability);
  const description = input.description === undefined ? undefined : calendarDescription(input.description);
  const tags = calendarTags(input.tags ?? []);
  const record = {
    principal,
    tool: 'create_calendar',
    key: input.idempotencyKey,
    args: input,
    audit: call.audit,
  };
  return deps.store.write((tx) =>
    idempotent(deps, tx, record, async () => {
      await withinCalendarQuota(deps, tx, principal.tenantId);
      const calendar: Calendar = profiled({
        id: deps.ids.newId('cal'),
        tenantId: principal.tenantId,
        name: input.name,
        timeZone: input.timeZone,
        price: input.price ?? null,
        availability,
        createdAt: deps.clock.now(),
        version: 1,
        description,
        tags,
      });
      await tx.calendars.insert(calendar);
      return calendar;
    }),
  );
}

/** The lock under which a tenant's calendars are counted and added. */
export const calendarsLock = (tenantId: string) => `calendars:${tenantId}`;

/** Check and insert under one tenant-wide lock, so racing creations cannot overshoot the cap. */
async function withinCalendarQuota(deps: AppDeps, tx: StoreTx, tenantId: string): Promise<void> {
  await tx.serialize(calendarsLock(tenantId));
  const limit = deps.config.maxCalendarsPerTenant;
  if ((await tx.calendars.count(tenantId)) >= limit) {
    throw new DomainError('QUOTA_EXCEEDED', `This tenant already has ${limit} calendars, its limit.`, {
      quota: 'calendars',
      limit,
    });
  }
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
  call: WriteCall = {},
): Promise<Outcome<Calendar>> {
  requireWriter(principal, 'sensitive');
  validateAvailability(input.availability);
  const record = {
    principal,
    tool: 'set_availability',
    key: input.idempotencyKey,
    args: input,
    audit: call.audit,
  };
  const outcome = await deps.store.write((tx) =>
    idempotent(deps, tx, record, async () => {
      const [calendar] = await loadCalendars(tx, principal.tenantId, [input.calendarId]);
      await tx.calendars.replaceAvailability(principal.tenantId, input.calendarId, input.availability);
      return { ...calendar!, availability: input.availability, version: calendar!.version + 1 };
    }),
  );
  deps.calendarCache.forget(principal.tenantId, [input.calendarId]);
  deps.slotCache.invalidate(principal.tenantId, [input.calendarId]);
  return outcome;
}

export interface SetBookingRulesInput {
  readonly calendarId: string;
  /** Every rule not given takes its default. */
  readonly rules: Partial<BookingRules>;
  readonly idempotencyKey: string;
}

/** Replaces a calendar's booking rules whole; bookings already made are kept as they are. */
export async function setBookingRules(
  deps: AppDeps,
  principal: Principal,
  input: SetBookingRulesInput,
  call: WriteCall = {},
): Promise<Outcome<Calendar>> {
  requireWriter(principal, 'sensitive');
  const rules = completeRules(input.rules);
  validateBookingRules(rules);
  const record = {
    principal,
    tool: 'set_booking_rules',
    key: input.idempotencyKey,
    args: input,
    audit: call.audit,
  };
  const outcome = await deps.store.write((tx) =>
    idempotent(deps, tx, record, async () => {
      const [calendar] = await loadCalendars(tx, principal.tenantId, [input.calendarId]);
      await tx.calendars.replaceRules(principal.tenantId, input.calendarId, rules);
      return { ...calendar!, rules, version: calendar!.version + 1 };
    }),
  );
  deps.calendarCache.forget(principal.tenantId, [input.calendarId]);
  deps.slotCache.invalidate(principal.tenantId, [input.calendarId]);
  return outcome;
}
