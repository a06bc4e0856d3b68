import type { Instant } from '../time/instant.js';
import type { Interval } from '../time/interval.js';
import { normalize, subtract } from '../time/interval.js';
import { offsetAt } from '../time/zone.js';
import type { Availability } from './availability.js';
import { openIntervals } from './availability.js';
import type { BookingRules } from './booking-rules.js';
import {
  blockingBusy,
  countIn,
  countWindows,
  firstAtOrAfter,
  onStepGrid,
  startWindow,
} from './booking-rules.js';
import { commonFreeTime, slotStarts } from './free-slots.js';

const MINUTE_MS = 60_000;

/** Taken time in one seat lane, or in all of them (`lane: null`, e.g. external busy time). */
export interface Occupied extends Interval {
  readonly lane: number | null;
  /** A hold's expiry: from then on this time is free again, without any write (absent: stays). */
  readonly lapsesAt?: Instant;
}

/** One calendar as slot search sees it. */
export interface RuledCalendar {
  readonly zone: string;
  readonly availability: Availability;
  readonly rules: BookingRules;
  /** Time the engine holds as taken: other bookings with their buffers, external busy time. */
  readonly occupied: readonly Occupied[];
  /** Starts of the bookings that count towards its limits (covering the weeks of the range). */
  readonly bookedStarts: readonly Instant[];
}

export interface RuledQuery {
  readonly range: Interval;
  readonly durationMinutes: number;
  /** The caller's grid; a calendar's own slotStepMinutes replaces it. */
  readonly stepMinutes: number;
}

function gcd(a: number, b: number): number {
  return b === 0 ? a : gcd(b, a % b);
}

/**
 * Every start on which all calendars are open for the whole duration, free with their buffers,
 * on their step grids, of an allowed length and under their per-day and per-week limits.
 * Independent of the clock: notice and horizon are applied by `withinStartWindow` when served.
 */
export function ruledSlotStarts(calendars: readonly RuledCalendar[], query: RuledQuery): Instant[] {
  if (calendars.length === 0) return [];
  const { range, durationMinutes } = query;
  if (calendars.some((c) => c.rules.allowedDurationsMinutes?.includes(durationMinutes) === false)) return [];
  // A calendar of one seat is free where nothing is taken; one of several seats is checked per start.
  const free = commonFreeTime(
    calendars.map((c) => ({
      open: openIntervals(c.availability, c.zone, range),
      busy:
        c.rules.capacity === 1
          ? blockingBusy(c.rules, c.occupied)
          : blockingBusy(c.rules, allLanes(c.occupied, c.rules.capacity)),
    })),
    range,
  );
  const durationMs = durationMinutes * MINUTE_MS;
  const pooled = calendars.filter((c) => c.rules.capacity > 1).map((c) => seatFinder(c, range, durationMs));
  // Sorted once, counted by binary search for every start.
  const booked = calendars.map((c) => [...c.bookedStarts].sort((a, b) => a - b));
  const ruleSteps = calendars.flatMap((c) =>
    c.rules.slotStepMinutes === null ? [] : [c.rules.slotStepMinutes],
  );
  // Wall-clock grids drift against UTC across a DST change; candidates every quarter hour (every zone's
  // offset is a multiple of one) then each calendar's own grid keeps the starts local midnight aligns.
  const step = ruleSteps.length === 0 ? query.stepMinutes : ruleSteps.reduce(gcd, 15);
  const alignZone = calendars[0]!.zone;
  const starts = slotStarts(free, {
    durationMs: durationMinutes * MINUTE_MS,
    stepMs: step * MINUTE_MS,
    alignOffsetMs: (t) => offsetAt(t, alignZone),
  });
  return starts.filter(
    (start) =>
      pooled.every((hasSeat) => hasSeat(start)) &&
      calendars.every(
        (c, i) =>
          onStepGrid(c.rules, c.zone, start) &&
          countWindows(c.rules, c.zone, start).every(
            (w) => w.perCustomer || countIn(booked[i]!, w.from, w.to) < w.max,
          ),
      ),
  );
}

/**
 * The stretches of time when every calendar is open and free (with its buffers), whatever the
 * length asked for later: what a search without a duration answers. A calendar of several seats
 * counts as free while some seat is. Cut to what every calendar's notice and horizon allow at
 * `now` (a stretch may start there, and runs on to its free end).
 */
export function ruledFreeWindows(
  calendars: readonly RuledCalendar[],
  range: Interval,
  now: Instant,
): Interval[] {
  if (calendars.length === 0) return [];
  const free = commonFreeTime(
    calendars.map((c) => ({
      open: openIntervals(c.availability, c.zone, range),
      busy:
        c.rules.capacity === 1
          ? blockingBusy(c.rules, c.occupied)
          : blockingBusy(c.rules, allLanes(c.occupied, c.rules.capacity)),
    })),
    range,
  );
  const { earliest, latest } = startWindow(
    calendars.map((c) => c.rules),
    now,
  );
  return free
    .map((w) => ({ start: Math.max(w.start, earliest), end: w.end }))
    .filter((w) => w.end > w.start && w.start <= latest);
}

/** The starts that every calendar's minimum notice and maximum horizon allow at `now`. */
export function withinStartWindow(
  starts: readonly Instant[],
  rules: readonly BookingRules[],
  now: Instant,
): Instant[] {
  const { earliest, latest } = startWindow(rules, now);
  return starts.filter((s) => s >= earliest && s <= latest);
}

/** Taken time that takes every seat: external busy time, and lanes past a capacity lowered since. */
const allLanes = (occupied: readonly Occupied[], capacity: number) =>
  occupied.filter((o) => o.lane === null || o.lane >= capacity);

/**
 * Whether some lane of a calendar of several seats is free, with buffers, for a start's whole
 * duration. Each lane's free time gives the starts it can take; their union, merged once, is
 * then one binary search per start however many lanes there are.
 */
function seatFinder(
  calendar: RuledCalendar,
  range: Interval,
  durationMs: number,
): (start: Instant) => boolean {
  const takes: Interval[] = [];
  for (let lane = 0; lane < calendar.rules.capacity; lane++) {
    const busy = blockingBusy(
      calendar.rules,
      calendar.occupied.filter((o) => o.lane === lane),
    );
    for (const free of subtract([range], normalize(busy)))
      if (free.end - free.start >= durationMs)
        takes.push({ start: free.start, end: free.end - durationMs + 1 });
  }
  const starts = normalize(takes);
  const firsts = starts.map((t) => t.start);
  return (start) => {
    const at = firstAtOrAfter(firsts, start + 1) - 1;
    return at >= 0 && starts[at]!.end > start;
  };
}
