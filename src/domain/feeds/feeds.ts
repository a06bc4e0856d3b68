import type { Instant } from '../time/instant.js';
import { DomainError } from '../errors.js';

/** A private, revocable address of a calendar's bookings as iCalendar; only the hash of its secret is kept. */
export interface FeedLink {
  readonly id: string;
  readonly tenantId: string;
  readonly calendarId: string;
  readonly createdAt: Instant;
  readonly revokedAt: Instant | null;
}

/** A calendar's subscription to an external calendar's busy time (an https URL or a file). */
export interface FeedSubscription {
  readonly id: string;
  readonly tenantId: string;
  readonly calendarId: string;
  readonly source: string;
  readonly everyMs: number;
  readonly createdAt: Instant;
  readonly nextRunAt: Instant;
  readonly lastOkAt: Instant | null;
  /** The last failure, kept until a refresh succeeds; the busy time of the last good one stays. */
  readonly lastError: string | null;
  readonly lastErrorAt: Instant | null;
  /** Stored busy pieces from the last good refresh. */
  readonly busyCount: number;
}

export const MIN_EVERY_MS = 5 * 60_000;
export const MAX_EVERY_MS = 7 * 24 * 60 * 60_000;
export const DEFAULT_EVERY_MS = 15 * 60_000;

const UNITS: Record<string, number> = { m: 60_000, h: 3_600_000, d: 86_400_000 };

/** `15m`, `2h`, `1d` -> milliseconds, between five minutes and a week. */
export function parseEvery(text: string): number {
  const match = /^(\d{1,4})([mhd])$/.exec(text);
  const ms = match ? Number(match[1]) * UNITS[match[2]!]! : NaN;
  if (!(ms >= MIN_EVERY_MS && ms <= MAX_EVERY_MS))
    throw new DomainError('INVALID_ARGUMENTS', 'every: a duration like 15m, 2h or 1d, from 5m to 7d', {
      field: 'every',
    });
  return ms;
}
