import type { Instant } from '../time/instant.js';
import type { Interval } from '../time/interval.js';
import { clip } from '../time/interval.js';
import { DAY_MS, wallClockToInstant } from '../time/zone.js';

/** Busy time is stored in pieces of at most a week, so the engine's overlap checks scan a bounded range. */
export const MAX_BUSY_PIECE_MS = 7 * DAY_MS;
/** Imported busy time reaches at most this far ahead, whatever the calendar's horizon. */
export const MAX_IMPORT_DAYS = 400;
/** More expanded instances than this and a feed is refused (a runaway RRULE, or not a person's calendar). */
export const MAX_IMPORT_INSTANCES = 20_000;

/** A wall-clock moment with no zone of its own: an epoch day and the minute of that day. */
export interface WallClock {
  readonly epochDay: number;
  readonly minute: number;
}

/**
 * One busy instance of an external calendar, after its recurrence was expanded: an exact range,
 * or wall-clock times read in the calendar's zone (all-day events: local midnight to midnight;
 * "floating" times that name no zone).
 */
export type ExternalBusyItem =
  | { readonly kind: 'exact'; readonly start: Instant; readonly end: Instant }
  | { readonly kind: 'wall'; readonly start: WallClock; readonly end: WallClock };

/** From now to the calendar's horizon, capped: the range a refresh expands recurring events over. */
export function importWindow(now: Instant, horizonDays: number): Interval {
  return { start: now, end: now + Math.min(horizonDays, MAX_IMPORT_DAYS) * DAY_MS };
}

const exactOf = (item: ExternalBusyItem, zone: string): Interval =>
  item.kind === 'exact'
    ? { start: item.start, end: item.end }
    : {
        start: wallClockToInstant(item.start.epochDay, item.start.minute, zone),
        end: wallClockToInstant(item.end.epochDay, item.end.minute, zone),
      };

/**
 * What the calendar stores: the items as instants (wall-clock ones in `zone`), merged, clipped
 * to `window`, and cut into pieces of at most a week.
 */
export function busyPieces(items: readonly ExternalBusyItem[], zone: string, window: Interval): Interval[] {
  const pieces: Interval[] = [];
  for (const range of clip(
    items.map((item) => exactOf(item, zone)),
    window,
  )) {
    for (let start = range.start; start < range.end; start += MAX_BUSY_PIECE_MS)
      pieces.push({ start, end: Math.min(range.end, start + MAX_BUSY_PIECE_MS) });
  }
  return pieces;
}
