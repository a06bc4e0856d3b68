import { invalidArgument } from '../errors.js';
import type { Instant } from '../time/instant.js';
import type { Interval } from '../time/interval.js';
import { localEpochDay, offsetAt, wallClockToInstant, weekdayIndex } from '../time/zone.js';

const MINUTE_MS = 60_000;
const DAY_MS = 86_400_000;

/**
 * How a calendar may be booked, beyond its opening hours. Buffers are busy time around each
 * booking that blocks neighbours but is not the booking; limits count bookings by their start
 * in the calendar's local day (midnight to midnight) and week (Monday to Sunday).
 */
export interface BookingRules {
  readonly bufferBeforeMinutes: number;
  readonly bufferAfterMinutes: number;
  /** A booking must start at least this long after the moment it is made. */
  readonly minimumNoticeMinutes: number;
  /** The rolling window: a booking must start within this many days from now. */
  readonly maximumHorizonDays: number;
  /** Starts fall on this grid of the calendar's wall clock (from local midnight); null: any minute. */
  readonly slotStepMinutes: number | null;
  /** The only lengths a booking may have; null: any length. */
  readonly allowedDurationsMinutes: readonly number[] | null;
  readonly maxBookingsPerDay: number | null;
  readonly maxBookingsPerWeek: number | null;
  /** Counted per customer (by e-mail address, else phone number) on this calendar. */
  readonly maxBookingsPerCustomerPerDay: number | null;
  readonly maxBookingsPerCustomerPerWeek: number | null;
  /** How many bookings may overlap (seats of a class, rooms of a pool); each takes one seat lane. */
  readonly capacity: number;
  /** false: a refused time comes with no alternative times (the calendar makes no counter-offers). */
  readonly offerAlternatives: boolean;
}

export const DEFAULT_BOOKING_RULES: BookingRules = Object.freeze({
  bufferBeforeMinutes: 0,
  bufferAfterMinutes: 0,
  minimumNoticeMinutes: 0,
  maximumHorizonDays: 365,
  slotStepMinutes: null,
  allowedDurationsMinutes: null,
  maxBookingsPerDay: null,
  maxBookingsPerWeek: null,
  maxBookingsPerCustomerPerDay: null,
  maxBookingsPerCustomerPerWeek: null,
  capacity: 1,
  offerAlternatives: true,
});

/** The name a refusal gives in `details.rule`. */
export type BookingRuleName =
  | 'minimumNotice'
  | 'maximumHorizon'
  | 'slotStep'
  | 'allowedDurations'
  | 'maxBookingsPerDay'
  | 'maxBookingsPerWeek'
  | 'maxBookingsPerCustomerPerDay'
  | 'maxBookingsPerCustomerPerWeek';

const BOUNDS: Record<string, readonly [number, number]> = {
  bufferBeforeMinutes: [0, 720],
  bufferAfterMinutes: [0, 720],
  minimumNoticeMinutes: [0, 366 * 24 * 60],
  maximumHorizonDays: [1, 3650],
  slotStepMinutes: [1, 1440],
  maxBookingsPerDay: [1, 10_000],
  maxBookingsPerWeek: [1, 70_000],
  maxBookingsPerCustomerPerDay: [1, 10_000],
  maxBookingsPerCustomerPerWeek: [1, 70_000],
  capacity: [1, 1000],
};
const MAX_DURATION_MINUTES = 7 * 24 * 60;

function checkWhole(value: number, field: string, [min, max]: readonly [number, number]): void {
  if (!Number.isInteger(value) || value < min || value > max)
    throw invalidArgument(field, `must be a whole number from ${min} to ${max}`);
}

/** Business invariants of a set of rules; the shape is checked at the edge. */
export function validateBookingRules(rules: BookingRules, prefix = ''): void {
  const field = (name: string) => (prefix === '' ? name : `${prefix}.${name}`);
  for (const [name, bounds] of Object.entries(BOUNDS)) {
    const value = rules[name as keyof BookingRules];
    if (value !== null) checkWhole(value as number, field(name), bounds);
  }
  const durations = rules.allowedDurationsMinutes;
  if (durations !== null) {
    if (durations.length === 0 || durations.length > 24)
      throw invalidArgument(field('allowedDurationsMinutes'), 'must list 1 to 24 lengths, or be null');
    durations.forEach((d, i) =>
      checkWhole(d, field(`allowedDurationsMinutes[${i}]`), [1, MAX_DURATION_MINUTES]),
    );
    if (new Set(durations).size !== durations.length)
      throw invalidArgument(field('allowedDurationsMinutes'), 'must not repeat a length');
  }
  if (typeof rules.offerAlternatives !== 'boolean')
    throw invalidArgument(field('offerAlternatives'), 'must be true or false');
  if (rules.slotStepMinutes !== null && 1440 % rules.slotStepMinutes !== 0)
    throw invalidArgument(field('slotStepMinutes'), 'must divide a day evenly (5, 10, 15, 20, 30, 60, …)');
}

/** Rules as stored may predate a field: every missing one takes its default. */
export function completeRules(partial: Partial<BookingRules> | null | undefined): BookingRules {
  const given = Object.entries(partial ?? {}).filter(
    ([name, value]) => value !== undefined && Object.hasOwn(DEFAULT_BOOKING_RULES, name),
  );
  return { ...DEFAULT_BOOKING_RULES, ...Object.fromEntries(given) } as BookingRules;
}

/** The time a booking occupies on the calendar: itself and its buffers. */
export function paddedInterval(rules: BookingRules, booking: Interval): Interval {
  return {
    start: booking.start - rules.bufferBeforeMinutes * MINUTE_MS,
    end: booking.end + rules.bufferAfterMinutes * MINUTE_MS,
  };
}

/**
 * Occupied time widened so that a plain overlap test with a new booking's own interval equals
 * the test of both padded intervals: [s-before, e+after] meets [x, y] iff [s, e] meets
 * [x-after, y+before].
 */
export function blockingBusy(rules: BookingRules, occupied: readonly Interval[]): Interval[] {
  const before = rules.bufferBeforeMinutes * MINUTE_MS;
  const after = rules.bufferAfterMinutes * MINUTE_MS;
  if (before === 0 && after === 0) return [...occupied];
  return occupied.map((o) => ({ start: o.start - after, end: o.end + before }));
}

/** Whether `start` lies on the calendar's step grid, counted from local midnight. */
export function onStepGrid(rules: BookingRules, zone: string, start: Instant): boolean {
  if (rules.slotStepMinutes === null) return true;
  const wall = start + offsetAt(start, zone);
  const step = rules.slotStepMinutes * MINUTE_MS;
  return ((wall % step) + step) % step === 0;
}

/** Earliest and latest start every calendar's notice and horizon allow at `now`. */
export function startWindow(
  rules: readonly BookingRules[],
  now: Instant,
): { earliest: Instant; latest: Instant } {
  let earliest = now;
  let latest = Infinity;
  for (const r of rules) {
    earliest = Math.max(earliest, now + r.minimumNoticeMinutes * MINUTE_MS);
    latest = Math.min(latest, now + r.maximumHorizonDays * DAY_MS);
  }
  return { earliest, latest };
}

export interface CountWindow {
  readonly rule: BookingRuleName;
  readonly from: Instant;
  readonly to: Instant;
  readonly max: number;
  /** Set for a per-customer limit: only that customer's bookings count. */
  readonly perCustomer: boolean;
}

/** The local day and week around `start` (in `zone`) with the limits that count in each. */
export function countWindows(rules: BookingRules, zone: string, start: Instant): CountWindow[] {
  // Slot search asks for every start: a calendar without limits must cost nothing here.
  if (
    rules.maxBookingsPerDay === null &&
    rules.maxBookingsPerWeek === null &&
    rules.maxBookingsPerCustomerPerDay === null &&
    rules.maxBookingsPerCustomerPerWeek === null
  )
    return [];
  const day = localEpochDay(start, zone);
  const monday = day - weekdayIndex(day);
  const dayFrom = wallClockToInstant(day, 0, zone);
  const dayTo = wallClockToInstant(day + 1, 0, zone);
  const weekFrom = wallClockToInstant(monday, 0, zone);
  const weekTo = wallClockToInstant(monday + 7, 0, zone);
  const windows: CountWindow[] = [];
  const add = (
    rule: BookingRuleName,
    max: number | null,
    from: Instant,
    to: Instant,
    perCustomer: boolean,
  ) => {
    if (max !== null) windows.push({ rule, from, to, max, perCustomer });
  };
  add('maxBookingsPerDay', rules.maxBookingsPerDay, dayFrom, dayTo, false);
  add('maxBookingsPerWeek', rules.maxBookingsPerWeek, weekFrom, weekTo, false);
  add('maxBookingsPerCustomerPerDay', rules.maxBookingsPerCustomerPerDay, dayFrom, dayTo, true);
  add('maxBookingsPerCustomerPerWeek', rules.maxBookingsPerCustomerPerWeek, weekFrom, weekTo, true);
  return windows;
}

/** Bookings are counted per customer by a normalised e-mail address, else phone digits. */
export function customerKey(
  customer: { readonly email?: string; readonly phone?: string } | null,
): string | null {
  const email = customer?.email?.trim().toLowerCase();
  if (email) return `email:${email}`;
  const digits = customer?.phone?.replace(/\D/g, '');
  return digits ? `phone:${digits}` : null;
}

export interface RuleBreach {
  readonly rule: BookingRuleName;
  readonly detail: Readonly<Record<string, number | readonly number[] | null>>;
}

/**
 * The first rule of one calendar that a booking of `range` made at `now` breaks, apart from
 * buffers (the engine refuses those as taken time) and limits (counted where bookings are).
 */
export function timingBreach(
  rules: BookingRules,
  zone: string,
  range: Interval,
  now: Instant,
): RuleBreach | null {
  const { earliest, latest } = startWindow([rules], now);
  if (range.start < earliest)
    return {
      rule: 'minimumNotice',
      detail: { minimumNoticeMinutes: rules.minimumNoticeMinutes, earliestStart: earliest },
    };
  if (range.start > latest)
    return {
      rule: 'maximumHorizon',
      detail: { maximumHorizonDays: rules.maximumHorizonDays, latestStart: latest },
    };
  const minutes = (range.end - range.start) / MINUTE_MS;
  if (rules.allowedDurationsMinutes !== null && !rules.allowedDurationsMinutes.includes(minutes))
    return { rule: 'allowedDurations', detail: { allowedDurationsMinutes: rules.allowedDurationsMinutes } };
  if (!onStepGrid(rules, zone, range.start))
    return { rule: 'slotStep', detail: { slotStepMinutes: rules.slotStepMinutes } };
  return null;
}

/** How many of `sorted` (ascending) fall in [from, to), by binary search. */
export function countIn(sorted: readonly Instant[], from: Instant, to: Instant): number {
  return firstAtOrAfter(sorted, to) - firstAtOrAfter(sorted, from);
}

/** The index of the first value at or after `t` in an ascending list. */
export function firstAtOrAfter(sorted: readonly number[], t: number): number {
  let low = 0;
  let high = sorted.length;
  while (low < high) {
    const mid = (low + high) >>> 1;
    if (sorted[mid]! < t) low = mid + 1;
    else high = mid;
  }
  return low;
}
