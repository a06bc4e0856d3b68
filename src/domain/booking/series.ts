import { invalidArgument } from '../errors.js';
import type { Instant } from '../time/instant.js';
import type { Interval } from '../time/interval.js';
import { DAY_MS, offsetAt, wallClockToInstant } from '../time/zone.js';
import type { Booking } from './booking.js';
import type { Money } from './money.js';
import { sumPrices } from './money.js';

/**
 * A recurring series: N occurrences held, approved and paid as one. Each occurrence is a booking
 * of its own (the engine enforces each one), tied by the series id; their times repeat on the
 * calendar's wall clock, so a 10:00 session stays at 10:00 across a DST change.
 */
export interface Repeat {
  /** `weekly`: every `interval` weeks; `daily`: every `interval` days. */
  readonly frequency: 'weekly' | 'daily';
  readonly interval: number;
  /** How many occurrences, the first included. */
  readonly count: number;
}

export const MAX_OCCURRENCES = 52;

export function validateRepeat(repeat: Repeat): void {
  if (repeat.frequency !== 'weekly' && repeat.frequency !== 'daily')
    throw invalidArgument('repeat.frequency', 'weekly or daily');
  const most = repeat.frequency === 'weekly' ? 8 : 56;
  if (!Number.isInteger(repeat.interval) || repeat.interval < 1 || repeat.interval > most)
    throw invalidArgument('repeat.interval', `a whole number from 1 to ${most}`);
  if (!Number.isInteger(repeat.count) || repeat.count < 2 || repeat.count > MAX_OCCURRENCES)
    throw invalidArgument('repeat.count', `a whole number from 2 to ${MAX_OCCURRENCES}`);
}

/** Milliseconds since local midnight on the zone's wall clock at an instant. */
function wallClock(instant: Instant, zone: string): { day: number; ms: number } {
  const local = instant + offsetAt(instant, zone);
  const day = Math.floor(local / DAY_MS);
  return { day, ms: local - day * DAY_MS };
}

/**
 * The occurrences' times: the first exactly as given, each next one `interval` days or weeks later
 * at the same local wall-clock start in `zone`, lasting as long as the first. A start a DST change
 * skips (02:30 on the night clocks go forward) is moved forward by the gap (03:30), so no
 * occurrence is shortened or lost; in the repeated hour of autumn the earlier one is taken.
 */
export function occurrenceTimes(first: Interval, repeat: Repeat, zone: string): Interval[] {
  const step = repeat.frequency === 'weekly' ? 7 * repeat.interval : repeat.interval;
  const start = wallClock(first.start, zone);
  const length = first.end - first.start;
  const times: Interval[] = [first];
  for (let i = 1; i < repeat.count; i += 1) {
    const at = wallTime(start.day + i * step, start.ms, zone);
    times.push({ start: at, end: at + length });
  }
  return times;
}

/** The instant the zone's wall clock reads `ms` past midnight of `day`; in a DST gap, read with the offset before it. */
function wallTime(day: number, ms: number, zone: string): Instant {
  const minute = Math.floor(ms / 60_000);
  const rest = ms - minute * 60_000;
  const candidate = wallClockToInstant(day, minute, zone) + rest;
  const local = day * DAY_MS + ms;
  if (candidate + offsetAt(candidate, zone) === local) return candidate;
  return local - offsetAt(candidate - 1, zone);
}

/** The series' one price: the sum of its occurrences' (null when none is priced). */
export function seriesPrice(occurrences: readonly Pick<Booking, 'price'>[]): Money | null {
  return sumPrices(occurrences.map((o) => o.price));
}

/**
 * The occurrences that stand for the series now: held or confirmed, in time order. A cancelled,
 * released or moved-away occurrence drops out; its replacement (which keeps the series id) is in.
 */
export function standingOccurrences(bookings: readonly Booking[]): Booking[] {
  return bookings
    .filter((b) => b.status === 'HELD' || b.status === 'CONFIRMED')
    .sort((a, b) => a.start - b.start || (a.id < b.id ? -1 : 1));
}
