import { invalidArgument } from '../errors.js';
import type { Instant } from '../time/instant.js';
import type { Interval } from '../time/interval.js';
import { intersect, normalize, subtract, clip } from '../time/interval.js';

export interface CalendarTime {
  readonly open: readonly Interval[];
  readonly busy: readonly Interval[];
}

/** Times when every calendar is open and not busy: the intersection across calendars. */
export function commonFreeTime(calendars: readonly CalendarTime[], range: Interval): Interval[] {
  let free: Interval[] = [range];
  for (const calendar of calendars) {
    free = intersect(free, subtract(clip(calendar.open, range), calendar.busy));
    if (free.length === 0) break;
  }
  return calendars.length === 0 ? [] : normalize(free);
}

export interface SlotGrid {
  readonly durationMs: number;
  readonly stepMs: number;
  /** Wall-clock offset used to align slot starts (e.g. on :00/:15 local time). */
  readonly alignOffsetMs: (instant: Instant) => number;
}

function firstAligned(from: Instant, grid: SlotGrid): Instant {
  const offset = grid.alignOffsetMs(from);
  const wall = from + offset;
  const aligned = Math.ceil(wall / grid.stepMs) * grid.stepMs;
  return aligned - offset;
}

/**
 * The first start at or after `from` that lies on the wall-clock grid at its own offset. Across
 * a DST change the offset at `from` may differ from the one at the candidate: realign on that.
 */
function nextOnGrid(from: Instant, grid: SlotGrid): Instant {
  let t = firstAligned(from, grid);
  for (let tries = 0; tries < 4; tries++) {
    const offset = grid.alignOffsetMs(t);
    const wall = t + offset;
    if (wall % grid.stepMs === 0) return t;
    t = Math.ceil(wall / grid.stepMs) * grid.stepMs - offset;
  }
  return t;
}

/** Every slot start of the grid that fits entirely inside a free interval. */
export function slotStarts(free: readonly Interval[], grid: SlotGrid): Instant[] {
  if (grid.durationMs <= 0) throw invalidArgument('durationMinutes', 'must be positive');
  if (grid.stepMs <= 0) throw invalidArgument('stepMinutes', 'must be positive');
  const starts: Instant[] = [];
  for (const interval of free) {
    // One offset throughout (no DST change inside): step in plain UTC arithmetic.
    const steady = grid.alignOffsetMs(interval.start) === grid.alignOffsetMs(interval.end);
    let t = steady ? firstAligned(interval.start, grid) : nextOnGrid(interval.start, grid);
    while (t + grid.durationMs <= interval.end) {
      starts.push(t);
      t = steady ? t + grid.stepMs : nextOnGrid(t + grid.stepMs, grid);
    }
  }
  return starts;
}
