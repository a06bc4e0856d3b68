import { ruledFreeWindows } from '../../domain/availability/ruled-slots.js';
import { rulesOf } from '../../domain/calendar.js';
import type { Principal } from '../../domain/identity/principal.js';
import type { Interval } from '../../domain/time/interval.js';
import { requireScope } from '../authorize.js';
import type { AppDeps } from '../deps.js';
import { searchRange } from './find-slots.js';
import type { CalendarRef } from './snapshot.js';
import { calendarRef, loadCalendars } from './snapshot.js';

export interface FreeWindowsInput {
  readonly calendarIds: readonly string[];
  readonly from: string;
  readonly to: string;
  readonly limit: number;
}

export interface FreeWindows {
  readonly calendars: readonly CalendarRef[];
  /** Every stretch when all the calendars are free together, in order; at most `limit`. */
  readonly windows: readonly Interval[];
  /** How many there are in the range (more than `windows` when the limit cut them). */
  readonly total: number;
}

/**
 * When all the calendars are free together, as stretches of time rather than slots of one
 * length: a search that names no duration (deltat's find_slots). Bookings, holds, buffers,
 * external busy time, hours, notice and horizon all count, as in find_slots.
 */
export async function freeWindows(
  deps: AppDeps,
  principal: Principal,
  input: FreeWindowsInput,
): Promise<FreeWindows> {
  requireScope(principal, 'read');
  const { from, to } = searchRange(input);
  const now = deps.clock.now();
  return deps.store.read(async (tx) => {
    const calendars = await loadCalendars(tx, principal.tenantId, input.calendarIds);
    const range = { start: from, end: to };
    const busy = await tx.bookings.busyIntervals(
      principal.tenantId,
      calendars.map((c) => c.id),
      range,
      now,
    );
    const windows = ruledFreeWindows(
      calendars.map((calendar) => ({
        zone: calendar.timeZone,
        availability: calendar.availability,
        rules: rulesOf(calendar),
        occupied: busy.get(calendar.id) ?? [],
        bookedStarts: [],
      })),
      range,
      now,
    );
    return {
      calendars: calendars.map(calendarRef),
      windows: windows.slice(0, input.limit),
      total: windows.length,
    };
  });
}
