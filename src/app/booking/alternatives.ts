import { effectiveStatus } from '../../domain/booking/booking.js';
import { DomainError } from '../../domain/errors.js';
import type { Principal } from '../../domain/identity/principal.js';
import { MINUTE_MS } from '../../domain/time/instant.js';
import type { Instant } from '../../domain/time/instant.js';
import { overlaps } from '../../domain/time/interval.js';
import type { Interval } from '../../domain/time/interval.js';
import type { AppDeps } from '../deps.js';
import { rulesOf } from '../../domain/calendar.js';
import { loadCalendars } from './snapshot.js';
import { searchSlotStarts, servable } from './slot-search.js';

const ALTERNATIVES = 3;
const ALTERNATIVE_HORIZON_MS = 14 * 24 * 60 * MINUTE_MS;

export interface Alternative {
  readonly start: Instant;
  readonly end: Instant;
  readonly reserved: false;
  /** The first calendar's zone: alternatives are offered in its local time too. */
  readonly timeZone: string;
}

/** Up to three free ranges of the same length nearest the one asked for; nothing is reserved. */
export async function slotTakenWithAlternatives(
  deps: AppDeps,
  principal: Principal,
  calendarIds: readonly string[],
  range: Interval,
  now: Instant,
): Promise<DomainError> {
  const { alternatives, busyCalendarIds } = await nearestFree(deps, principal, calendarIds, range, now);
  const taken = await whatTakes(deps, principal, busyCalendarIds, range, now);
  const words =
    taken.takenBy === 'hold'
      ? 'The requested time is held by another booking that has not been confirmed; it frees if that hold lapses.'
      : taken.takenBy === 'booking'
        ? 'The requested time is already booked on at least one calendar.'
        : 'The requested time is not free on at least one calendar (buffers, busy time elsewhere or full seats).';
  return new DomainError('SLOT_UNAVAILABLE', words, {
    calendarIds: busyCalendarIds,
    alternatives,
    ...taken,
    retryCanSucceed: taken.takenBy === 'hold',
    nextFree: alternatives.find((a) => a.start >= range.start) ?? null,
  });
}

/** A confirmed booking, live holds (and when the last lapses), or something else. */
async function whatTakes(
  deps: AppDeps,
  principal: Principal,
  calendarIds: readonly string[],
  range: Interval,
  now: Instant,
): Promise<{ takenBy: 'booking' | 'hold' | 'other'; holdLapsesAt?: Instant }> {
  const found = await deps.store.read(async (tx) => {
    const lists = await Promise.all(
      calendarIds.map((calendarId) =>
        tx.bookings.list(principal.tenantId, {
          calendarId,
          from: range.start,
          to: range.end,
          now,
          offset: 0,
          limit: 50,
        }),
      ),
    );
    return lists.flatMap((l) => l.items);
  });
  const statuses = found.map((b) => ({ b, status: effectiveStatus(b, now) }));
  if (statuses.some((s) => s.status === 'CONFIRMED')) return { takenBy: 'booking' };
  const holds = statuses.filter((s) => s.status === 'HELD' && s.b.expiresAt !== null);
  if (holds.length > 0)
    return { takenBy: 'hold', holdLapsesAt: Math.max(...holds.map((s) => s.b.expiresAt!)) };
  return { takenBy: 'other' };
}

export async function nearestFree(
  deps: AppDeps,
  principal: Principal,
  calendarIds: readonly string[],
  range: Interval,
  now: Instant,
): Promise<{ alternatives: Alternative[]; busyCalendarIds: string[] }> {
  const durationMs = range.end - range.start;
  const { starts, busyCalendarIds, timeZone } = await deps.store.read(async (tx) => {
    const calendars = await loadCalendars(tx, principal.tenantId, calendarIds);
    const busy = await tx.bookings.busyIntervals(principal.tenantId, calendarIds, range, now);
    const taken = calendarIds.filter((id) => (busy.get(id) ?? []).some((b) => overlaps(b, range)));
    // A calendar or a tenant that makes no counter-offers (offerAlternatives: false): none are searched.
    if (
      calendars.some((c) => !rulesOf(c).offerAlternatives) ||
      (await tx.tenants.getTenant(principal.tenantId))?.offerAlternatives === false
    )
      return { timeZone: calendars[0]?.timeZone ?? 'UTC', busyCalendarIds: taken, starts: [] };
    const found = await searchSlotStarts(
      tx,
      principal.tenantId,
      {
        calendars,
        range: {
          start: Math.max(now, range.start - ALTERNATIVE_HORIZON_MS / 2),
          end: range.end + ALTERNATIVE_HORIZON_MS,
        },
        durationMinutes: durationMs / MINUTE_MS,
        stepMinutes: 15,
      },
      now,
    );
    return {
      timeZone: calendars[0]?.timeZone ?? 'UTC',
      // Only the calendars that are actually taken then, so the agent can offer to drop one.
      busyCalendarIds: taken,
      starts: servable(found, calendars, now)
        .sort((a, b) => Math.abs(a - range.start) - Math.abs(b - range.start) || a - b)
        .slice(0, ALTERNATIVES)
        .sort((a, b) => a - b),
    };
  });
  return {
    busyCalendarIds,
    alternatives: starts.map((start) => ({
      start,
      end: start + durationMs,
      reserved: false as const,
      timeZone,
    })),
  };
}
