import { Temporal } from 'temporal-polyfill';
import { invalidArgument } from '../errors.js';
import type { Interval } from '../time/interval.js';
import { normalize, clip } from '../time/interval.js';

export const weekdays = ['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'] as const;
export type Weekday = (typeof weekdays)[number];

/** Wall-clock hours in the calendar's zone: "HH:MM", end may be "24:00". */
export interface TimeWindow {
  readonly start: string;
  readonly end: string;
}

/** A whole week of opening hours; a missing day is closed. */
export type WeeklyHours = Partial<Record<Weekday, readonly TimeWindow[]>>;

/** Hours for one local date that replace the weekly rule; empty windows = closed all day. */
export interface DateOverride {
  readonly date: string;
  readonly windows: readonly TimeWindow[];
}

export interface Availability {
  readonly weekly: WeeklyHours;
  readonly overrides: readonly DateOverride[];
}

const HHMM = /^([01]\d|2[0-3]):[0-5]\d$|^24:00$/;
const ISO_DATE = /^\d{4}-\d{2}-\d{2}$/;

function minutesOf(hhmm: string): number {
  const [h, m] = hhmm.split(':').map(Number);
  return h! * 60 + m!;
}

function validateWindows(windows: readonly TimeWindow[], field: string): void {
  const sorted = windows
    .map((w, i) => {
      if (!HHMM.test(w.start)) throw invalidArgument(`${field}[${i}].start`, 'must be HH:MM (00:00-23:59)');
      if (!HHMM.test(w.end)) throw invalidArgument(`${field}[${i}].end`, 'must be HH:MM (00:01-24:00)');
      const start = minutesOf(w.start);
      const end = minutesOf(w.end);
      if (end <= start) throw invalidArgument(`${field}[${i}]`, 'end must be after start on the same day');
      return { start, end, i };
    })
    .sort((a, b) => a.start - b.start);
  for (let k = 1; k < sorted.length; k++) {
    if (sorted[k]!.start < sorted[k - 1]!.end) {
      throw invalidArgument(`${field}[${sorted[k]!.i}]`, 'windows of one day must not overlap');
    }
  }
}

/** Business invariants of an availability; shape is checked at the edge. */
export function validateAvailability(availability: Availability): void {
  for (const day of weekdays) {
    const windows = availability.weekly[day];
    if (windows) validateWindows(windows, `weekly.${day}`);
  }
  const seen = new Set<string>();
  availability.overrides.forEach((override, i) => {
    const field = `overrides[${i}]`;
    if (!ISO_DATE.test(override.date)) throw invalidArgument(`${field}.date`, 'must be YYYY-MM-DD');
    try {
      Temporal.PlainDate.from(override.date, { overflow: 'reject' });
    } catch {
      throw invalidArgument(`${field}.date`, `"${override.date}" is not a calendar date`);
    }
    if (seen.has(override.date)) throw invalidArgument(`${field}.date`, 'each date may be overridden once');
    seen.add(override.date);
    validateWindows(override.windows, `${field}.windows`);
  });
}

/**
 * The first instant at which the zone's wall clock reads at least the given time.
 * "24:00" is the next day's midnight. A time skipped by a DST gap maps to the
 * moment the clock jumps (a window 02:30-05:00 opens at 03:00 on that day);
 * a repeated time maps to its first occurrence.
 */
function wallClockToInstant(date: Temporal.PlainDate, minutes: number, zone: string): number {
  const day = minutes === 1440 ? date.add({ days: 1 }) : date;
  const wall = day.toPlainDateTime(new Temporal.PlainTime(Math.floor((minutes % 1440) / 60), minutes % 60));
  const zoned = wall.toZonedDateTime(zone, { disambiguation: 'compatible' });
  if (Temporal.PlainDateTime.compare(zoned.toPlainDateTime(), wall) === 0) return zoned.epochMilliseconds;
  const jump = zoned.getTimeZoneTransition('previous');
  return (jump ?? zoned).epochMilliseconds;
}

/** Open intervals (UTC instants) of a calendar within a range, honouring overrides and DST. */
export function openIntervals(availability: Availability, zone: string, range: Interval): Interval[] {
  if (range.end <= range.start) return [];
  const overrides = new Map(availability.overrides.map((o) => [o.date, o.windows]));
  const toDate = (ms: number) =>
    Temporal.Instant.fromEpochMilliseconds(ms).toZonedDateTimeISO(zone).toPlainDate();
  const last = toDate(range.end);
  const out: Interval[] = [];
  for (
    let date = toDate(range.start).subtract({ days: 1 });
    Temporal.PlainDate.compare(date, last) <= 0;
    date = date.add({ days: 1 })
  ) {
    const windows =
      overrides.get(date.toString()) ?? availability.weekly[weekdays[date.dayOfWeek - 1]!] ?? [];
    for (const w of windows) {
      const start = wallClockToInstant(date, minutesOf(w.start), zone);
      const end = wallClockToInstant(date, minutesOf(w.end), zone);
      if (end > start) out.push({ start, end });
    }
  }
  return clip(normalize(out), range);
}
