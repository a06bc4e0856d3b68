import { openIntervals } from '../../domain/availability/availability.js';
import { invalidArgument } from '../../domain/errors.js';
import type { Principal } from '../../domain/identity/principal.js';
import { MINUTE_MS } from '../../domain/time/instant.js';
import type { Instant } from '../../domain/time/instant.js';
import { overlaps } from '../../domain/time/interval.js';
import { daysFromCivil, daysInMonth, wallClockToInstant } from '../../domain/time/zone.js';
import { requireScope } from '../authorize.js';
import type { AppDeps } from '../deps.js';
import type { CalendarRef } from './snapshot.js';
import { calendarRef, loadCalendars } from './snapshot.js';
import { searchSlotStarts, servable } from './slot-search.js';

export interface CheckAvailabilityInput {
  readonly calendarIds: readonly string[];
  /** A local date, YYYY-MM-DD, in the first calendar's zone. */
  readonly date: string;
  /** 1-16 local times, HH:MM on a 5-minute grid. */
  readonly times: readonly string[];
  readonly durationMinutes?: number;
}

/** Why a time is not free: outside the hours, taken, against a booking rule, or already past. */
export type NotFreeReason = 'closed' | 'taken' | 'rules' | 'past';

export interface TimeAnswer {
  readonly time: string;
  readonly start: Instant;
  readonly end: Instant;
  readonly free: boolean;
  readonly reason: NotFreeReason | null;
}

export interface CheckAvailabilityResult {
  readonly calendars: readonly CalendarRef[];
  readonly date: string;
  readonly timeZone: string;
  readonly durationMinutes: number;
  readonly times: readonly TimeAnswer[];
}

export const MAX_CHECKED_TIMES = 16;

/**
 * A person-facing agent's quick question — "is 09:00, 11:00 or 16:30 free on Monday?" — answered
 * for each local time: free on every named calendar for the whole duration, under the same rules
 * a hold applies, or why not. Nothing is reserved; hold a free time with hold_slot.
 */
export async function checkAvailability(
  deps: AppDeps,
  principal: Principal,
  input: CheckAvailabilityInput,
): Promise<CheckAvailabilityResult> {
  requireScope(principal, 'read');
  const epochDay = localDay(input.date);
  const minutes = input.times.map((time, i) => minuteOfDay(time, `times[${i}]`));
  if (input.times.length === 0 || input.times.length > MAX_CHECKED_TIMES)
    throw invalidArgument('times', `give 1 to ${MAX_CHECKED_TIMES} times`);
  const durationMinutes = input.durationMinutes ?? 30;
  const now = deps.clock.now();
  return deps.store.read(async (tx) => {
    const calendars = await loadCalendars(tx, principal.tenantId, input.calendarIds);
    const zone = calendars[0]!.timeZone;
    const times: TimeAnswer[] = [];
    for (const [i, minute] of minutes.entries()) {
      const start = wallClockToInstant(epochDay, minute, zone);
      const range = { start, end: start + durationMinutes * MINUTE_MS };
      const answer = (free: boolean, reason: NotFreeReason | null) =>
        times.push({ time: input.times[i]!, start: range.start, end: range.end, free, reason });
      if (start < now) {
        answer(false, 'past');
        continue;
      }
      const open = calendars.every((c) =>
        openIntervals(c.availability, c.timeZone, range).some((o) => o.start <= start && o.end >= range.end),
      );
      if (!open) {
        answer(false, 'closed');
        continue;
      }
      const query = { calendars, range, durationMinutes, stepMinutes: 5 };
      const found = servable(await searchSlotStarts(tx, principal.tenantId, query, now), calendars, now);
      if (found.includes(start)) {
        answer(true, null);
        continue;
      }
      const busy = await tx.bookings.busyIntervals(principal.tenantId, input.calendarIds, range, now);
      const taken = [...busy.values()].some((intervals) => intervals.some((b) => overlaps(b, range)));
      answer(false, taken ? 'taken' : 'rules');
    }
    return {
      calendars: calendars.map(calendarRef),
      date: input.date,
      timeZone: zone,
      durationMinutes,
      times,
    };
  });
}

function localDay(date: string): number {
  const match = /^(\d{4})-(\d{2})-(\d{2})$/.exec(date);
  const [year, month, day] = match ? [Number(match[1]), Number(match[2]), Number(match[3])] : [0, 0, 0];
  if (!match || month < 1 || month > 12 || day < 1 || day > daysInMonth(year, month))
    throw invalidArgument('date', 'must be a real date, YYYY-MM-DD');
  return daysFromCivil(year, month, day);
}

function minuteOfDay(time: string, field: string): number {
  const match = /^(\d{2}):(\d{2})$/.exec(time);
  const minutes = match ? Number(match[1]) * 60 + Number(match[2]) : -1;
  if (!match || Number(match[1]) > 23 || Number(match[2]) > 59)
    throw invalidArgument(field, 'must be a local time HH:MM');
  if (minutes % 5 !== 0) throw invalidArgument(field, 'must be on the 5-minute grid (HH:00, HH:05, …)');
  return minutes;
}
