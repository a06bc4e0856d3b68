import type { RuledCalendar } from '../../domain/availability/ruled-slots.js';
import { ruledSlotStarts, withinStartWindow } from '../../domain/availability/ruled-slots.js';
import type { Calendar } from '../../domain/calendar.js';
import { rulesOf } from '../../domain/calendar.js';
import type { Instant } from '../../domain/time/instant.js';
import type { Interval } from '../../domain/time/interval.js';
import type { StoreTx } from '../../ports/store/index.js';

export interface SlotQuery {
  readonly calendars: readonly Calendar[];
  readonly range: Interval;
  readonly durationMinutes: number;
  readonly stepMinutes: number;
}

/** Limits count whole local weeks: the bookings a week either side of the range are read too. */
const LIMIT_MARGIN_MS = 8 * 24 * 60 * 60 * 1000;

const hasLimits = (calendar: Calendar): boolean => {
  const rules = rulesOf(calendar);
  return rules.maxBookingsPerDay !== null || rules.maxBookingsPerWeek !== null;
};

/**
 * Every start when all calendars are open and free for the whole duration, under their booking
 * rules, aligned on the first calendar's wall clock. Starts before `now` (and inside a notice or
 * past a horizon) are kept: the grid does not depend on the clock, so callers filter by the time
 * they serve the result (`servable`), which lets a cached result stay correct as time passes.
 */
export async function searchSlotStarts(
  tx: StoreTx,
  tenantId: string,
  query: SlotQuery,
  now: Instant,
): Promise<Instant[]> {
  return (await searchSlotStartsUntil(tx, tenantId, query, now)).starts;
}

/**
 * The starts, and until when they hold without any write: the earliest expiry of a hold they
 * counted as busy (null: none). A cached copy is never served past it, so a lapsed hold's time
 * shows as free the moment it lapses.
 */
export async function searchSlotStartsUntil(
  tx: StoreTx,
  tenantId: string,
  query: SlotQuery,
  now: Instant,
): Promise<{ starts: Instant[]; until: Instant | null }> {
  const range = query.range;
  if (range.end <= range.start) return { starts: [], until: null };
  const ids = query.calendars.map((c) => c.id);
  const busy = await tx.bookings.busyIntervals(tenantId, ids, range, now);
  const limited = query.calendars.filter(hasLimits).map((c) => c.id);
  const starts =
    limited.length === 0
      ? new Map<string, Instant[]>()
      : await tx.bookings.occupyingStarts(
          tenantId,
          limited,
          { start: range.start - LIMIT_MARGIN_MS, end: range.end + LIMIT_MARGIN_MS },
          now,
        );
  const calendars: RuledCalendar[] = query.calendars.map((calendar) => ({
    zone: calendar.timeZone,
    availability: calendar.availability,
    rules: rulesOf(calendar),
    occupied: busy.get(calendar.id) ?? [],
    bookedStarts: starts.get(calendar.id) ?? [],
  }));
  let until: Instant | null = null;
  for (const list of busy.values())
    for (const occupied of list)
      if (occupied.lapsesAt !== undefined && (until === null || occupied.lapsesAt < until))
        until = occupied.lapsesAt;
  return { starts: ruledSlotStarts(calendars, query), until };
}

/** The starts that may be booked at `now`: not past, and within every calendar's notice and horizon. */
export function servable(
  starts: readonly Instant[],
  calendars: readonly Calendar[],
  now: Instant,
): Instant[] {
  return withinStartWindow(starts, calendars.map(rulesOf), now);
}
