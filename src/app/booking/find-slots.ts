import { invalidArgument } from '../../domain/errors.js';
import type { Principal } from '../../domain/identity/principal.js';
import type { Instant } from '../../domain/time/instant.js';
import { MINUTE_MS, parseInstant } from '../../domain/time/instant.js';
import { requireScope } from '../authorize.js';
import type { AppDeps } from '../deps.js';
import { decodeCursor, encodeCursor } from '../page-cursor.js';
import type { CalendarRef } from './snapshot.js';
import { calendarRef, loadCalendars } from './snapshot.js';
import type { SlotQuery } from './slot-search.js';
import { searchSlotStartsUntil, servable } from './slot-search.js';
import type { StoreTx } from '../../ports/store/index.js';
import type { Calendar } from '../../domain/calendar.js';
import { rulesOf } from '../../domain/calendar.js';
import { DomainError } from '../../domain/errors.js';

export interface FindSlotsInput {
  readonly calendarIds: readonly string[];
  readonly from: string;
  readonly to: string;
  readonly durationMinutes: number;
  readonly stepMinutes?: number;
  readonly limit: number;
  readonly cursor?: string;
}

export interface FindSlotsResult {
  readonly calendars: readonly CalendarRef[];
  /** A search by need names each slot's calendar; a search by ids means all of them together. */
  readonly slots: readonly { start: Instant; end: Instant; calendarId?: string }[];
  readonly total: number;
  readonly nextCursor: string | null;
  /** HIT: the free times came from the slot cache; MISS: searched for this call. */
  readonly cache: 'HIT' | 'MISS';
}

export const MAX_SEARCH_DAYS = 62;

export async function findSlots(
  deps: AppDeps,
  principal: Principal,
  input: FindSlotsInput,
): Promise<FindSlotsResult> {
  requireScope(principal, 'read');
  const { from, to } = searchRange(input);
  const stepMinutes = input.stepMinutes ?? 15;
  const { cursor, limit, ...query } = input;
  // The cursor keeps the last start shown, so pages stay correct while time passes and bookings change.
  const after = decodeCursor(deps.digest, { ...query, stepMinutes }, cursor);
  const now = deps.clock.now();
  const tenantId = principal.tenantId;
  const generation = deps.slotCache.generation(tenantId);
  return deps.store.read(async (tx) => {
    const calendars = await loadCalendars(tx, tenantId, input.calendarIds);
    requireAllowedDuration(calendars, input.durationMinutes);
    const search = {
      calendars,
      range: { start: from, end: to },
      durationMinutes: input.durationMinutes,
      stepMinutes,
    };
    const { starts, cache } = await cachedSlotStarts(deps, tx, tenantId, search, now, generation);
    // Only starts bookable now are offered; the cursor resumes after the last start shown.
    const bookable = servable(starts, calendars, now);
    const remaining = after === null ? bookable : bookable.filter((start) => start > after);
    const total = bookable.length;
    const page = remaining.slice(0, limit);
    const durationMs = input.durationMinutes * MINUTE_MS;
    const last = page[page.length - 1];
    return {
      calendars: calendars.map(calendarRef),
      slots: page.map((start) => ({ start, end: start + durationMs })),
      total,
      cache,
      nextCursor:
        remaining.length > page.length && last !== undefined
          ? encodeCursor(deps.digest, { ...query, stepMinutes }, last)
          : null,
    };
  });
}

/** The search range, checked: after `from`, and at most MAX_SEARCH_DAYS long. */
export function searchRange(input: { readonly from: string; readonly to: string }): {
  from: Instant;
  to: Instant;
} {
  const from = parseInstant(input.from, 'from');
  const to = parseInstant(input.to, 'to');
  if (to <= from) throw invalidArgument('to', 'must be after from');
  if (to - from > MAX_SEARCH_DAYS * 24 * 60 * MINUTE_MS) {
    throw invalidArgument('to', `the search range may span at most ${MAX_SEARCH_DAYS} days`);
  }
  return { from, to };
}

/** The slot starts of a search, from the slot cache when it has them (HIT), else searched and kept (MISS). */
export async function cachedSlotStarts(
  deps: AppDeps,
  tx: StoreTx,
  tenantId: string,
  search: SlotQuery,
  now: Instant,
  generation: number,
): Promise<{ starts: readonly Instant[]; cache: 'HIT' | 'MISS' }> {
  const calendarIds = search.calendars.map((c) => c.id);
  const key = JSON.stringify([
    calendarIds,
    search.range.start,
    search.range.end,
    search.durationMinutes,
    search.stepMinutes,
  ]);
  const cached = deps.slotCache.get(tenantId, key, now);
  if (cached) return { starts: cached, cache: 'HIT' };
  const { starts, until } = await searchSlotStartsUntil(tx, tenantId, search, now);
  deps.slotCache.set({ tenantId, key, calendarIds, starts, now, generation, until });
  return { starts, cache: 'MISS' };
}

/** Whether a calendar takes bookings of this length at all. */
export function takesDuration(calendar: Calendar, durationMinutes: number): boolean {
  const allowed = rulesOf(calendar).allowedDurationsMinutes;
  return allowed === null || allowed.includes(durationMinutes);
}

/** A length no calendar allows finds nothing; say which rule rather than answer an empty page. */
function requireAllowedDuration(calendars: readonly Calendar[], durationMinutes: number): void {
  for (const calendar of calendars) {
    const allowed = rulesOf(calendar).allowedDurationsMinutes;
    if (allowed !== null && !allowed.includes(durationMinutes))
      throw new DomainError(
        'OUTSIDE_BOOKING_RULES',
        `${calendar.name} takes bookings of ${allowed.join(', ')} minutes only.`,
        {
          calendarId: calendar.id,
          rule: 'allowedDurations',
          allowedDurationsMinutes: allowed,
        },
      );
  }
}
