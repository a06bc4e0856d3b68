import { Temporal } from 'temporal-polyfill';
import { invalidArgument } from '../errors.js';
import type { Interval } from '../time/interval.js';
import { normalize, clip } from '../time/interval.js';
import { isoDateOfDay, localEpochDay, wallClockToInstant, weekdayIndex } from '../time/zone.js';

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

type MinuteWindows = readonly (readonly [number, number])[];

interface ParsedAvailability {
  /** Monday first; windows as minutes after local midnight. */
  readonly weekly: readonly MinuteWindows[];
  readonly overrides: ReadonlyMap<string, MinuteWindows>;
}

// Availabilities are immutable values that are read far more often than written: parse each once.
const parsed = new WeakMap<Availability, ParsedAvailability>();

function parse(availability: Availability): ParsedAvailability {
  let result = parsed.get(availability);
  if (!result) {
    const minutes = (windows: readonly TimeWindow[] = []): MinuteWindows =>
      windows.map((w) => [minutesOf(w.start), minutesOf(w.end)] as const);
    result = {
      weekly: weekdays.map((day) => minutes(availability.weekly[day])),
      overrides: new Map(availability.overrides.map((o) => [o.date, minutes(o.windows)])),
    };
    parsed.set(availability, result);
  }
  return result;
}

/** Open intervals (UTC instants) of a calendar within a range, honouring overrides and DST. */
export function openIntervals(availability: Availability, zone: string, range: Interval): Interval[] {
  if (range.end <= range.start) return [];
  const { weekly, overrides } = parse(availability);
  const out: Interval[] = [];
  const lastDay = localEpochDay(range.end, zone);
  for (let day = localEpochDay(range.start, zone) - 1; day <= lastDay; day++) {
    const windows =
      (overrides.size > 0 ? overrides.get(isoDateOfDay(day)) : undefined) ?? weekly[weekdayIndex(day)]!;
    for (const [from, to] of windows) {
      const start = wallClockToInstant(day, from, zone);
      const end = wallClockToInstant(day, to, zone);
      if (end > start && end > range.start && start < range.end) out.push({ start, end });
    }
  }
  return clip(normalize(out), range);
}
