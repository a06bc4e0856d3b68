import { Temporal } from 'temporal-polyfill';
import { invalidArgument } from '../errors.js';

/** Milliseconds since the Unix epoch, UTC. The only instant type in the core. */
export type Instant = number;

export const MINUTE_MS = 60_000;

// RFC 3339 date-time: the offset is mandatory; a naive local time is an error, never localised.
const RFC3339 = /^\d{4}-\d{2}-\d{2}[Tt]\d{2}:\d{2}:\d{2}(\.\d{1,9})?([Zz]|[+-]\d{2}:\d{2})$/;

export function parseInstant(text: string, field: string): Instant {
  if (!RFC3339.test(text)) {
    throw invalidArgument(
      field,
      `"${text}" is not an RFC 3339 date-time with an offset (for example 2026-12-01T09:00:00Z or 2026-12-01T10:00:00+01:00)`,
    );
  }
  try {
    return Temporal.Instant.from(text.toUpperCase()).epochMilliseconds;
  } catch {
    throw invalidArgument(field, `"${text}" is not a valid date-time`);
  }
}

export function formatInstant(instant: Instant): string {
  return formatUtc(instant);
}

export function isValidTimeZone(zone: string): boolean {
  try {
    Temporal.Instant.fromEpochMilliseconds(0).toZonedDateTimeISO(zone);
    return zone.length > 0;
  } catch {
    return false;
  }
}

export { formatLocal, offsetAt as zoneOffsetMs } from './zone.js';
import { formatUtc } from './zone.js';
