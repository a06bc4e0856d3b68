import { openIntervals } from '../domain/availability/availability.js';
import { commonFreeTime, slotStarts } from '../domain/availability/free-slots.js';
import type { Calendar } from '../domain/calendar.js';
import { MINUTE_MS, zoneOffsetMs } from '../domain/time/instant.js';
import type { Instant } from '../domain/time/instant.js';
import type { Interval } from '../domain/time/interval.js';
import type { StoreTx } from '../ports/store/index.js';

export interface SlotQuery {
  readonly calendars: readonly Calendar[];
  readonly range: Interval;
  readonly durationMinutes: number;
  readonly stepMinutes: number;
}

/**
 * Every start when all calendars are open and free for the whole duration,
 * aligned on the first calendar's wall clock. Starts before `now` are kept:
 * the grid does not depend on the range start, so callers filter by the time
 * they serve the result (which lets a cached result stay correct as time passes).
 */
export async function searchSlotStarts(
  tx: StoreTx,
  tenantId: string,
  query: SlotQuery,
  now: Instant,
): Promise<Instant[]> {
  const range = query.range;
  if (range.end <= range.start) return [];
  const ids = query.calendars.map((c) => c.id);
  const busy = await tx.bookings.busyIntervals(tenantId, ids, range, now);
  const perCalendar = query.calendars.map((calendar) => ({
    open: openIntervals(calendar.availability, calendar.timeZone, range),
    busy: busy.get(calendar.id) ?? [],
  }));
  const free = commonFreeTime(perCalendar, range);
  const alignZone = query.calendars[0]!.timeZone;
  return slotStarts(free, {
    durationMs: query.durationMinutes * MINUTE_MS,
    stepMs: query.stepMinutes * MINUTE_MS,
    alignOffsetMs: (t) => zoneOffsetMs(t, alignZone),
  });
}
