import { Temporal } from 'temporal-polyfill';
import type { Instant } from './epoch.js';

/**
 * Fast, exact time-zone arithmetic on top of Temporal. Temporal answers every
 * question correctly but slowly; offsets only change at transitions, so each
 * zone keeps the offset segments it has seen, and wall-clock conversions are
 * memoised. Pure: the caches only remember answers to deterministic questions.
 */

export const DAY_MS = 86_400_000;

interface Segment {
  readonly start: number; // inclusive; -Infinity before the first known transition
  readonly end: number; // exclusive
  readonly offsetMs: number;
}

const segmentsByZone = new Map<string, Segment[]>();
const MAX_SEGMENTS_PER_ZONE = 4096;

function segmentAt(instant: Instant, zone: string): Segment {
  let segments = segmentsByZone.get(zone);
  if (!segments) segmentsByZone.set(zone, (segments = []));
  for (const s of segments) if (instant >= s.start && instant < s.end) return s;
  const zoned = Temporal.Instant.fromEpochMilliseconds(instant).toZonedDateTimeISO(zone);
  const previous = zoned.getTimeZoneTransition('previous');
  const next = zoned.getTimeZoneTransition('next');
  const segment: Segment = {
    start: previous ? previous.epochMilliseconds : -Infinity,
    end: next ? next.epochMilliseconds : Infinity,
    offsetMs: zoned.offsetNanoseconds / 1_000_000,
  };
  if (segments.length >= MAX_SEGMENTS_PER_ZONE) segments.length = 0;
  segments.push(segment);
  return segment;
}

/** Offset of the zone's wall clock from UTC at an instant, in milliseconds. */
export function offsetAt(instant: Instant, zone: string): number {
  return segmentAt(instant, zone).offsetMs;
}

/** Days since 1970-01-01 of the zone's local date at an instant. */
export function localEpochDay(instant: Instant, zone: string): number {
  return Math.floor((instant + offsetAt(instant, zone)) / DAY_MS);
}

/** Proleptic Gregorian date of an epoch day (Howard Hinnant's civil_from_days). */
export function civilFromDays(epochDay: number): { year: number; month: number; day: number } {
  const z = epochDay + 719468;
  const era = Math.floor(z / 146097);
  const doe = z - era * 146097;
  const yoe = Math.floor(
    (doe - Math.floor(doe / 1460) + Math.floor(doe / 36524) - Math.floor(doe / 146096)) / 365,
  );
  const doy = doe - (365 * yoe + Math.floor(yoe / 4) - Math.floor(yoe / 100));
  const mp = Math.floor((5 * doy + 2) / 153);
  const day = doy - Math.floor((153 * mp + 2) / 5) + 1;
  const month = mp < 10 ? mp + 3 : mp - 9;
  return { year: yoe + era * 400 + (month <= 2 ? 1 : 0), month, day };
}

/** Days since 1970-01-01 of a proleptic Gregorian date (the inverse of civilFromDays). */
export function daysFromCivil(year: number, month: number, day: number): number {
  const y = month <= 2 ? year - 1 : year;
  const era = Math.floor(y / 400);
  const yoe = y - era * 400;
  const doy = Math.floor((153 * (month + (month > 2 ? -3 : 9)) + 2) / 5) + day - 1;
  const doe = yoe * 365 + Math.floor(yoe / 4) - Math.floor(yoe / 100) + doy;
  return era * 146097 + doe - 719468;
}

export function daysInMonth(year: number, month: number): number {
  if (month === 2) return year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0) ? 29 : 28;
  return month === 4 || month === 6 || month === 9 || month === 11 ? 30 : 31;
}

const TWO_DIGITS = Array.from({ length: 100 }, (_, n) => String(n).padStart(2, '0'));
const pad = (n: number, width = 2) =>
  width === 2 && n < 100 ? TWO_DIGITS[n]! : String(n).padStart(width, '0');

// Answers format the same few dozen days over and over.
const isoDates = new Map<number, string>();

/** ISO date "YYYY-MM-DD" of an epoch day. */
export function isoDateOfDay(epochDay: number): string {
  let text = isoDates.get(epochDay);
  if (text === undefined) {
    const { year, month, day } = civilFromDays(epochDay);
    text = `${pad(year, 4)}-${pad(month)}-${pad(day)}`;
    if (isoDates.size >= 10_000) isoDates.clear();
    isoDates.set(epochDay, text);
  }
  return text;
}

/** 0 = Monday ... 6 = Sunday (1970-01-01 was a Thursday). */
export function weekdayIndex(epochDay: number): number {
  return (((epochDay + 3) % 7) + 7) % 7;
}

function formatOffset(offsetMs: number): string {
  const sign = offsetMs < 0 ? '-' : '+';
  const total = Math.abs(offsetMs) / 1000;
  const seconds = total % 60;
  const base = `${sign}${pad(Math.floor(total / 3600))}:${pad(Math.floor(total / 60) % 60)}`;
  return seconds === 0 ? base : `${base}:${pad(seconds)}`;
}

/** UTC RFC 3339 form: "2026-12-01T09:00:00Z", with milliseconds only when there are any. */
export function formatUtc(instant: Instant): string {
  const epochDay = Math.floor(instant / DAY_MS);
  const msOfDay = instant - epochDay * DAY_MS;
  const seconds = Math.floor(msOfDay / 1000);
  const ms = msOfDay % 1000;
  const time = `${pad(Math.floor(seconds / 3600))}:${pad(Math.floor(seconds / 60) % 60)}:${pad(seconds % 60)}`;
  return `${isoDateOfDay(epochDay)}T${time}${ms === 0 ? '' : `.${pad(ms, 3)}`}Z`;
}

/** The calendar-local wall-clock form of an instant with its offset, to the second. */
export function formatLocal(instant: Instant, zone: string): string {
  const offset = offsetAt(instant, zone);
  const wall = Math.floor((instant + offset) / 1000) * 1000;
  const epochDay = Math.floor(wall / DAY_MS);
  const secondOfDay = (wall - epochDay * DAY_MS) / 1000;
  const time = `${pad(Math.floor(secondOfDay / 3600))}:${pad(Math.floor(secondOfDay / 60) % 60)}:${pad(secondOfDay % 60)}`;
  return `${isoDateOfDay(epochDay)}T${time}${formatOffset(offset)}`;
}

// Per zone: (epoch day, minute of day) -> instant. Numeric keys: building string keys cost more than the lookup.
const wallCache = new Map<string, Map<number, number>>();
const MAX_WALL_ENTRIES_PER_ZONE = 100_000;

/**
 * The first instant at which the zone's wall clock reads at least `minutes`
 * past midnight of `epochDay` (1440 = the next midnight). A time skipped by a
 * DST gap maps to the moment the clock jumps (a window 02:30-05:00 opens at
 * 03:00 that day); a repeated time maps to its first occurrence.
 */
export function wallClockToInstant(epochDay: number, minutes: number, zone: string): number {
  let zoneCache = wallCache.get(zone);
  if (!zoneCache) wallCache.set(zone, (zoneCache = new Map()));
  const key = epochDay * 2048 + minutes;
  const cached = zoneCache.get(key);
  if (cached !== undefined) return cached;
  const { year, month, day } = civilFromDays(epochDay + Math.floor(minutes / 1440));
  const rest = minutes % 1440;
  const wall = new Temporal.PlainDateTime(year, month, day, Math.floor(rest / 60), rest % 60);
  const zoned = wall.toZonedDateTime(zone, { disambiguation: 'compatible' });
  const exact = Temporal.PlainDateTime.compare(zoned.toPlainDateTime(), wall) === 0;
  // In a gap, 'compatible' lands past the jump, at or after it: the jump is the latest transition
  // not after that instant. (Asked from the instant itself, 'previous' would skip a jump that
  // lands exactly there — a gap starting at the asked minute — and answer a year-old one.)
  const instant = exact
    ? zoned.epochMilliseconds
    : (zoned.add({ nanoseconds: 1 }).getTimeZoneTransition('previous') ?? zoned).epochMilliseconds;
  if (zoneCache.size >= MAX_WALL_ENTRIES_PER_ZONE) zoneCache.clear();
  zoneCache.set(key, instant);
  return instant;
}
