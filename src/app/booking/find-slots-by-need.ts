import { queryWords } from '../../domain/calendar-profile.js';
import type { Principal } from '../../domain/identity/principal.js';
import type { Instant } from '../../domain/time/instant.js';
import { MINUTE_MS } from '../../domain/time/instant.js';
import { requireScope } from '../authorize.js';
import { calendarsMatching } from '../calendars/calendars-by-need.js';
import type { AppDeps } from '../deps.js';
import { decodeCursor, encodeCursor } from '../page-cursor.js';
import type { FindSlotsInput, FindSlotsResult } from './find-slots.js';
import { cachedSlotStarts, searchRange, takesDuration } from './find-slots.js';
import { calendarRef } from './snapshot.js';
import { servable } from './slot-search.js';

/** The most calendars one search by need looks through; more matches ask for narrower words. */
export const MAX_NEED_CALENDARS = 20;

/** find_slots' search with words in place of calendar ids. */
export interface FindSlotsByNeedInput extends Omit<FindSlotsInput, 'calendarIds'> {
  /** Words every calendar searched must hold in its name, description or tags. */
  readonly query: string;
}

export interface FindSlotsByNeedResult extends FindSlotsResult {
  /** How many calendars matched the words; the first MAX_NEED_CALENDARS that take this length are searched. */
  readonly calendarsMatched: number;
}

/**
 * Free times on any one calendar that matches the words (a dermatologist, a room with a
 * projector), each slot naming its calendar, earliest first across them all. Each calendar is
 * searched as find_slots would search it alone, and shares that search's cache.
 */
export async function findSlotsByNeed(
  deps: AppDeps,
  principal: Principal,
  input: FindSlotsByNeedInput,
): Promise<FindSlotsByNeedResult> {
  requireScope(principal, 'read');
  const { from, to } = searchRange(input);
  const words = queryWords(input.query);
  const stepMinutes = input.stepMinutes ?? 15;
  const { cursor, limit, query: _words, ...range } = input;
  const bound = { ...range, stepMinutes, words };
  const after = decodeCursor(deps.digest, bound, cursor);
  const now = deps.clock.now();
  const tenantId = principal.tenantId;
  const generation = deps.slotCache.generation(tenantId);
  return deps.store.read(async (tx) => {
    const matched = await calendarsMatching(tx, tenantId, words);
    const calendars = matched
      .filter((calendar) => takesDuration(calendar, input.durationMinutes))
      .slice(0, MAX_NEED_CALENDARS);
    const found: { start: Instant; index: number }[] = [];
    let misses = 0;
    for (const [index, calendar] of calendars.entries()) {
      const search = {
        calendars: [calendar],
        range: { start: from, end: to },
        durationMinutes: input.durationMinutes,
        stepMinutes,
      };
      const { starts, cache } = await cachedSlotStarts(deps, tx, tenantId, search, now, generation);
      if (cache === 'MISS') misses++;
      for (const start of servable(starts, [calendar], now)) found.push({ start, index });
    }
    // One order across calendars (time, then the calendar's place), kept in the cursor as one number.
    const position = (slot: { start: Instant; index: number }) => slot.start * 32 + slot.index;
    found.sort((a, b) => position(a) - position(b));
    const remaining = after === null ? found : found.filter((slot) => position(slot) > after);
    const page = remaining.slice(0, limit);
    const last = page[page.length - 1];
    const durationMs = input.durationMinutes * MINUTE_MS;
    return {
      calendars: calendars.map(calendarRef),
      calendarsMatched: matched.length,
      slots: page.map((slot) => ({
        start: slot.start,
        end: slot.start + durationMs,
        calendarId: calendars[slot.index]!.id,
      })),
      total: found.length,
      cache: misses === 0 ? 'HIT' : 'MISS',
      nextCursor:
        remaining.length > page.length && last !== undefined
          ? encodeCursor(deps.digest, bound, position(last))
          : null,
    };
  });
}
