import type { Calendar } from '../../domain/calendar.js';
import { rulesOf } from '../../domain/calendar.js';
import { queryWords } from '../../domain/calendar-profile.js';
import { invalidArgument } from '../../domain/errors.js';
import type { Principal } from '../../domain/identity/principal.js';
import type { Instant } from '../../domain/time/instant.js';
import { MINUTE_MS, parseInstant } from '../../domain/time/instant.js';
import { requireScope } from '../authorize.js';
import { calendarsMatching } from '../calendars/calendars-by-need.js';
import type { AppDeps } from '../deps.js';
import { decodeCursor, encodeCursor } from '../page-cursor.js';
import { cachedSlotStarts } from './find-slots.js';
import { MAX_NEED_CALENDARS } from './find-slots-by-need.js';
import { servable } from './slot-search.js';

const DAY_MS = 86_400_000;

/**
 * A search of the slots calendars offer, each at its own length (its first allowed duration,
 * else an hour) on its own grid: the offerings of experts, rooms, consultations. Without `from`
 * and `to` it looks from today to as far ahead as any matched calendar takes bookings.
 */
export interface OfferedSlotsInput {
  /** Words every calendar must hold in its name, description or tags; "" for all. */
  readonly query: string;
  /** A tag the calendar must carry (any case): its specialty. */
  readonly tag?: string;
  readonly from?: string;
  readonly to?: string;
  readonly limit: number;
  readonly cursor?: string;
}

export interface OfferedSlot {
  readonly calendar: Calendar;
  readonly start: Instant;
  readonly end: Instant;
}

export interface OfferedSlotsResult {
  readonly slots: readonly OfferedSlot[];
  readonly total: number;
  readonly nextCursor: string | null;
  readonly cache: 'HIT' | 'MISS';
}

/** The length a calendar offers its slots in. */
export function offeredMinutes(calendar: Calendar): number {
  return rulesOf(calendar).allowedDurationsMinutes?.[0] ?? 60;
}

export async function offeredSlots(
  deps: AppDeps,
  principal: Principal,
  input: OfferedSlotsInput,
): Promise<OfferedSlotsResult> {
  requireScope(principal, 'read');
  const now = deps.clock.now();
  const words = input.query.trim() === '' ? [] : queryWords(input.query);
  const tag = input.tag?.trim().toLowerCase();
  const explicitFrom = input.from === undefined ? undefined : parseInstant(input.from, 'from');
  const explicitTo = input.to === undefined ? undefined : parseInstant(input.to, 'to');
  if (explicitFrom !== undefined && explicitTo !== undefined && explicitTo <= explicitFrom)
    throw invalidArgument('to', 'must be after from');
  // The cursor is bound to what was asked, so a page of another search is INVALID_CURSOR.
  const bound = { offered: words, tag: tag ?? null, from: input.from ?? null, to: input.to ?? null };
  const after = decodeCursor(deps.digest, bound, input.cursor);
  const tenantId = principal.tenantId;
  const generation = deps.slotCache.generation(tenantId);
  return deps.store.read(async (tx) => {
    // No words: every calendar matches.
    const matched = (await calendarsMatching(tx, tenantId, words)).filter(
      (c) => tag === undefined || (c.tags ?? []).some((t) => t.toLowerCase() === tag),
    );
    const calendars = matched.slice(0, MAX_NEED_CALENDARS);
    const found: { start: Instant; index: number }[] = [];
    let misses = 0;
    for (const [index, calendar] of calendars.entries()) {
      const range = rangeFor(calendar, now, explicitFrom, explicitTo);
      if (range === null) continue;
      const durationMinutes = offeredMinutes(calendar);
      const search = { calendars: [calendar], range, durationMinutes, stepMinutes: durationMinutes };
      const { starts, cache } = await cachedSlotStarts(deps, tx, tenantId, search, now, generation);
      if (cache === 'MISS') misses++;
      for (const start of servable(starts, [calendar], now)) found.push({ start, index });
    }
    // One order across calendars (time, then the calendar's place), kept in the cursor as one number.
    const position = (slot: { start: Instant; index: number }) => slot.start * 32 + slot.index;
    found.sort((a, b) => position(a) - position(b));
    const remaining = after === null ? found : found.filter((slot) => position(slot) > after);
    const page = remaining.slice(0, input.limit);
    const last = page[page.length - 1];
    return {
      slots: page.map(({ start, index }) => {
        const calendar = calendars[index]!;
        return { calendar, start, end: start + offeredMinutes(calendar) * MINUTE_MS };
      }),
      total: found.length,
      cache: misses === 0 ? 'HIT' : 'MISS',
      nextCursor:
        remaining.length > page.length && last !== undefined
          ? encodeCursor(deps.digest, bound, position(last))
          : null,
    };
  });
}

/**
 * Where one calendar is searched: what was asked, within the days it takes bookings. Unasked
 * ends fall on whole UTC days, so the same search keeps hitting the slot cache all day.
 */
function rangeFor(
  calendar: Calendar,
  now: Instant,
  from: Instant | undefined,
  to: Instant | undefined,
): { start: Instant; end: Instant } | null {
  const today = Math.floor(now / DAY_MS) * DAY_MS;
  const horizon = today + (rulesOf(calendar).maximumHorizonDays + 1) * DAY_MS;
  const start = Math.max(from ?? today, today);
  const end = Math.min(to ?? horizon, horizon);
  return end > start ? { start, end } : null;
}
