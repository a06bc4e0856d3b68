import { openIntervals } from '../../domain/availability/availability.js';
import type { Booking, Customer } from '../../domain/booking/booking.js';
import { sumPrices } from '../../domain/booking/money.js';
import type { Calendar } from '../../domain/calendar.js';
import type { Principal } from '../../domain/identity/principal.js';
import { rulesOf } from '../../domain/calendar.js';
import { DomainError, invalidArgument, isDomainError } from '../../domain/errors.js';
import { MINUTE_MS, parseInstant } from '../../domain/time/instant.js';
import type { Instant } from '../../domain/time/instant.js';
import { overlaps } from '../../domain/time/interval.js';
import type { Interval } from '../../domain/time/interval.js';
import type { CalendarSpan, HoldPlacement, HoldPlan, LimitCheck } from '../../ports/store/index.js';
import { ReferenceTakenError } from '../../ports/store/index.js';
import { isLimited } from '../../domain/identity/identity.js';
import { requireWriter } from '../authorize.js';
import type { AppDeps } from '../deps.js';
import type { IdempotentCall, Outcome, WriteCall } from '../idempotent.js';
import { findReplay, idempotencyRecord, replayOfRecord } from '../idempotent.js';
import type { BookingSnapshot } from './snapshot.js';
import { calendarRef, loadCalendars, snapshotStorage } from './snapshot.js';
import { searchSlotStarts, servable } from './slot-search.js';
import type { BookingRuleName } from '../../domain/availability/booking-rules.js';
import {
  countWindows,
  customerKey,
  paddedInterval,
  timingBreach,
} from '../../domain/availability/booking-rules.js';

export interface HoldSlotInput {
  readonly calendarIds: readonly string[];
  readonly start: string;
  readonly end: string;
  readonly customer?: Customer;
  readonly label?: string;
  readonly idempotencyKey: string;
}

export const MAX_BOOKING_MINUTES = 7 * 24 * 60;

/** A move (reschedule_booking): the confirmed booking, and the time its allocations occupy now. */
export interface Move {
  readonly booking: Booking;
  readonly held: readonly Omit<CalendarSpan, 'capacity'>[];
}
const ALTERNATIVES = 3;
const ALTERNATIVE_HORIZON_MS = 14 * 24 * 60 * MINUTE_MS;

export interface Alternative {
  readonly start: Instant;
  readonly end: Instant;
  readonly reserved: false;
}

function parseRange(input: HoldSlotInput, now: Instant): Interval {
  const start = parseInstant(input.start, 'start');
  const end = parseInstant(input.end, 'end');
  if (end <= start) throw invalidArgument('end', 'must be after start');
  if (end - start > MAX_BOOKING_MINUTES * MINUTE_MS)
    throw invalidArgument('end', 'a booking may last at most 7 days');
  if (start < now) throw invalidArgument('start', 'must not be in the past');
  if (new Set(input.calendarIds).size !== input.calendarIds.length) {
    throw invalidArgument('calendarIds', 'must not repeat a calendar');
  }
  return { start, end };
}

/** Holds one time range on every listed calendar, or on none. */
export async function holdSlot(
  deps: AppDeps,
  principal: Principal,
  input: HoldSlotInput,
  call: WriteCall = {},
  move?: Move,
): Promise<Outcome<BookingSnapshot>> {
  requireWriter(principal, 'draft');
  const now = deps.clock.now();
  const range = parseRange(input, now);
  const idempotent: IdempotentCall<BookingSnapshot> = {
    principal,
    tool: move ? 'reschedule_booking' : 'hold_slot',
    key: input.idempotencyKey,
    args: input,
    argumentsDigest: call.argumentsDigest,
    audit: call.audit,
    storage: snapshotStorage,
  };
  try {
    const outcome = await placeHold(deps, principal, input, range, idempotent, move).catch(
      async (error: unknown) => {
        // The engine still counts holds that lapsed but were not swept yet. Give their time back in a short
        // transaction of its own (inside the hold it could lock against a racing hold and deadlock on
        // PostgreSQL), then try once more.
        if (!(error instanceof DomainError && error.code === 'SLOT_UNAVAILABLE')) throw error;
        if ((await deps.store.writeOne((tx) => tx.bookings.expireLapsed(now, principal.tenantId))) === 0)
          throw error;
        return placeHold(deps, principal, input, range, idempotent, move);
      },
    );
    deps.slotCache.invalidate(principal.tenantId, input.calendarIds);
    return outcome;
  } catch (error) {
    if (error instanceof DomainError && error.code === 'SLOT_UNAVAILABLE') {
      throw await withAlternatives(deps, principal, input, range, now);
    }
    if (isDomainError(error, 'OUTSIDE_BOOKING_RULES')) {
      const { alternatives } = await nearestFree(deps, principal, input, range, now);
      throw new DomainError('OUTSIDE_BOOKING_RULES', error.message, { ...error.details, alternatives });
    }
    throw error;
  }
}

const STALE_ATTEMPTS = 5;

/**
 * Plans the hold from the calendars (cached when possible) and hands the whole plan to the store
 * in one step: key, booking, allocations, answer and audit record commit together or not at all.
 * A calendar changed since it was cached makes the store refuse the plan; it is made again.
 */
async function placeHold(
  deps: AppDeps,
  principal: Principal,
  input: HoldSlotInput,
  range: Interval,
  call: IdempotentCall<BookingSnapshot>,
  move?: Move,
): Promise<Outcome<BookingSnapshot>> {
  for (let attempt = 1; attempt <= STALE_ATTEMPTS; attempt++) {
    let calendars: Calendar[];
    try {
      calendars = await calendarsToPlanWith(deps, principal.tenantId, input.calendarIds, attempt > 1);
      requireOpen(calendars, range);
      requireRules(calendars, range, deps.clock.now());
    } catch (error) {
      // A retry of a hold that was placed replays it, even if the calendar has changed since.
      const replay = await deps.store.read((tx) => findReplay(deps, tx, call));
      if (replay) return replay;
      throw error;
    }
    const { placement, snapshot } = await placeWithFreshReference(
      deps,
      principal,
      input,
      range,
      calendars,
      call,
      move,
    );
    if (placement.outcome === 'placed') {
      call.audit?.committed();
      return { value: snapshot, replayed: false };
    }
    if (placement.outcome === 'full') throw await holdCapReached(deps, principal, input, calendars.length);
    if (placement.outcome === 'limited') throw limitReached(calendars, placement.check);
    if (placement.outcome === 'replay') {
      const { existing } = placement;
      return deps.store.read((tx) => replayOfRecord(deps, tx, call, existing));
    }
    deps.calendarCache.forget(principal.tenantId, input.calendarIds);
  }
  throw new DomainError('INTERNAL', 'The calendars kept changing while the hold was placed; retry.', {
    retryAfterMs: 100,
  });
}

const HOUR_MS = 3_600_000;
const hoursOf = (ms: number) => Math.round((ms / HOUR_MS) * 100) / 100;

/** A refused hold in words: which cap was reached, what is held, and when the first hold frees. */
async function holdCapReached(
  deps: AppDeps,
  principal: Principal,
  input: { readonly start: string; readonly end: string },
  calendarCount: number,
): Promise<DomainError<'RATE_LIMITED'>> {
  const { activeHoldsPerPerson, activeHoldsPerConnection, heldCalendarHoursPerPerson } = principal.limits;
  const now = deps.clock.now();
  const held = await deps.store.read((tx) => tx.bookings.heldBy(principal.tenantId, principal.subject, now));
  const asked = (Date.parse(input.end) - Date.parse(input.start)) * calendarCount;
  if (
    isLimited(heldCalendarHoursPerPerson) &&
    held.holds < activeHoldsPerPerson &&
    held.calendarMs + asked > heldCalendarHoursPerPerson * HOUR_MS
  ) {
    const retryAfterMs = Math.max(1_000, (held.firstExpiry ?? now + deps.config.holdTtlMs) - now);
    return new DomainError(
      'RATE_LIMITED',
      `At most ${heldCalendarHoursPerPerson} calendar-hours held at once per person (a hold counts its hours × its calendars): you hold ${hoursOf(held.calendarMs)} in ${held.holds} hold(s) and this one adds ${hoursOf(asked)}. Release a hold you no longer need, or wait: the first of yours lapses in ${Math.ceil(retryAfterMs / 60_000)} min.`,
      {
        limit: 'held_calendar_hours',
        max: heldCalendarHoursPerPerson,
        heldCalendarHours: hoursOf(held.calendarMs),
        askedCalendarHours: hoursOf(asked),
        retryAfterMs,
      },
    );
  }
  return new DomainError(
    'RATE_LIMITED',
    `At most ${activeHoldsPerPerson} active holds per person and ${activeHoldsPerConnection} per connection; release one or let one lapse.`,
    {
      limit: 'active_holds',
      max: Math.min(activeHoldsPerPerson, activeHoldsPerConnection),
      // The oldest hold lapses within one hold lifetime at the latest.
      retryAfterMs: deps.config.holdTtlMs,
    },
  );
}

async function calendarsToPlanWith(
  deps: AppDeps,
  tenantId: string,
  ids: readonly string[],
  fresh: boolean,
): Promise<Calendar[]> {
  const cached = fresh ? null : deps.calendarCache.get(tenantId, ids);
  if (cached) return cached;
  const calendars = await deps.store.read((tx) => loadCalendars(tx, tenantId, ids));
  deps.calendarCache.remember(calendars);
  return calendars;
}

function requireOpen(calendars: readonly Calendar[], range: Interval): void {
  for (const calendar of calendars) {
    const open = openIntervals(calendar.availability, calendar.timeZone, range);
    if (!open.some((o) => o.start <= range.start && o.end >= range.end)) {
      throw new DomainError(
        'OUTSIDE_AVAILABILITY',
        `${calendar.name} is not open for the whole requested time.`,
        {
          calendarId: calendar.id,
        },
      );
    }
  }
}

/** Notice, horizon, allowed lengths and step grids: the rules a hold breaks on its own. */
function requireRules(calendars: readonly Calendar[], range: Interval, now: Instant): void {
  for (const calendar of calendars) {
    const rules = rulesOf(calendar);
    const breach = timingBreach(rules, calendar.timeZone, range, now);
    if (breach)
      throw new DomainError('OUTSIDE_BOOKING_RULES', `${calendar.name}: ${RULE_WORDS[breach.rule]}`, {
        calendarId: calendar.id,
        rule: breach.rule,
        ...breach.detail,
      });
    const padded = paddedInterval(rules, range);
    if (padded.end - padded.start > MAX_BOOKING_MINUTES * MINUTE_MS)
      throw invalidArgument('end', `with ${calendar.name}'s buffers a booking may last at most 7 days`);
  }
}

const RULE_WORDS: Record<BookingRuleName, string> = {
  minimumNotice: 'bookings need more notice than that.',
  maximumHorizon: 'that is further ahead than bookings may be made.',
  slotStep: 'bookings start on its step grid only.',
  allowedDurations: 'bookings of that length are not offered.',
  maxBookingsPerDay: 'that day is fully booked.',
  maxBookingsPerWeek: 'that week is fully booked.',
  maxBookingsPerCustomerPerDay: 'this customer has as many bookings that day as allowed.',
  maxBookingsPerCustomerPerWeek: 'this customer has as many bookings that week as allowed.',
};

export function limitReached(
  calendars: readonly Calendar[],
  check: LimitCheck,
): DomainError<'OUTSIDE_BOOKING_RULES'> {
  const calendar = calendars.find((c) => c.id === check.calendarId)!;
  return new DomainError('OUTSIDE_BOOKING_RULES', `${calendar.name}: ${RULE_WORDS[check.rule]}`, {
    calendarId: calendar.id,
    rule: check.rule,
    [check.rule]: check.max,
    countedFrom: check.from,
    countedTo: check.to,
  });
}

/**
 * What each calendar's allocation occupies, and the limits to count before it is written. A move
 * holds only the part of its new time the booking it moves does not already occupy (that part is
 * handed over when the move is confirmed), and its limits do not count the booking it moves.
 */
export function occupancy(
  calendars: readonly Calendar[],
  range: Interval,
  customer: Customer | null,
  move?: Move,
): Pick<HoldPlan, 'occupies' | 'limits'> {
  const key = customerKey(customer);
  const sorted = [...calendars].sort((a, b) => (a.id < b.id ? -1 : 1));
  return {
    occupies: sorted.flatMap((c) => {
      const rules = rulesOf(c);
      const span = paddedInterval(rules, range);
      // What the booking being moved really occupies (made under the buffers of its day).
      const held = move?.held.find((h) => h.calendarId === c.id) ?? null;
      const part = held ? uncovered(span, held, c) : span;
      return part ? [{ calendarId: c.id, ...part, capacity: rules.capacity }] : [];
    }),
    limits: sorted.flatMap((c) =>
      countWindows(rulesOf(c), c.timeZone, range.start)
        .filter((w) => !w.perCustomer || key !== null)
        .map((w) => ({
          rule: w.rule,
          calendarId: c.id,
          from: w.from,
          to: w.to,
          max: w.max,
          customerKey: w.perCustomer ? key : null,
          excludeBookingId: move?.booking.id ?? null,
        })),
    ),
  };
}

/** The part of `span` outside `held`: all of it, one piece, or none; two pieces cannot be held as one. */
function uncovered(span: Interval, held: Interval, calendar: Calendar): Interval | null {
  if (held.end <= span.start || held.start >= span.end) return span;
  const before = held.start > span.start;
  const after = held.end < span.end;
  if (before && after)
    throw invalidArgument(
      'end',
      `on ${calendar.name} a move may not start earlier and end later than the booking at once; move it in two steps`,
    );
  if (before) return { start: span.start, end: held.start };
  if (after) return { start: held.end, end: span.end };
  return null;
}

/** Short references are random; on the rare clash inside a tenant, draw again. */
async function placeWithFreshReference(
  deps: AppDeps,
  principal: Principal,
  input: HoldSlotInput,
  range: Interval,
  calendars: readonly Calendar[],
  call: IdempotentCall<BookingSnapshot>,
  move?: Move,
): Promise<{ placement: HoldPlacement; snapshot: BookingSnapshot }> {
  const now = deps.clock.now();
  const base: Booking = {
    id: deps.ids.newId('bk'),
    tenantId: principal.tenantId,
    reference: '',
    calendarIds: [...input.calendarIds],
    start: range.start,
    end: range.end,
    status: 'HELD',
    version: 1,
    createdAt: now,
    updatedAt: now,
    expiresAt: now + deps.config.holdTtlMs,
    customer: input.customer ?? null,
    label: input.label ?? null,
    price: sumPrices(calendars.map((c) => c.price)),
    payment: null,
    owner: { subject: principal.subject, clientId: principal.clientId, connectionId: principal.connectionId },
    externalKeys: {},
    paymentFollowUp: false,
    ...(move ? { replaces: move.booking.id } : {}),
  };
  for (let attempt = 1; ; attempt++) {
    const booking = { ...base, reference: deps.ids.newReference() };
    const snapshot: BookingSnapshot = {
      booking,
      calendars: calendars.map(calendarRef),
      ...(move ? { replaced: move.booking } : {}),
    };
    // The record committed with the hold names it; any other outcome made nothing.
    call.audit?.made({ bookingId: booking.id });
    const plan: HoldPlan = {
      booking,
      calendarVersions: calendars.map((c) => ({ id: c.id, version: c.version })),
      idempotency: idempotencyRecord(deps, call, snapshotStorage.persist(snapshot)),
      audit: call.audit?.signed(),
      ...occupancy(calendars, range, base.customer, move),
      cap:
        isLimited(principal.limits.activeHoldsPerPerson) ||
        isLimited(principal.limits.activeHoldsPerConnection) ||
        isLimited(principal.limits.heldCalendarHoursPerPerson)
          ? {
              perPerson: principal.limits.activeHoldsPerPerson,
              perConnection: principal.limits.activeHoldsPerConnection,
              heldMsPerPerson: isLimited(principal.limits.heldCalendarHoursPerPerson)
                ? principal.limits.heldCalendarHoursPerPerson * 3_600_000
                : null,
              thisHoldMs: (range.end - range.start) * calendars.length,
            }
          : null,
    };
    try {
      const placement = await deps.store.writeOne((tx) => tx.bookings.placeHold(plan));
      if (placement.outcome !== 'placed') call.audit?.made(null);
      return { placement, snapshot };
    } catch (error) {
      call.audit?.made(null);
      if (!(error instanceof ReferenceTakenError) || attempt >= 5) throw error;
    }
  }
}

/** Up to three free ranges of the same length nearest the one asked for; nothing is reserved. */
async function withAlternatives(
  deps: AppDeps,
  principal: Principal,
  input: HoldSlotInput,
  range: Interval,
  now: Instant,
): Promise<DomainError> {
  const { alternatives, busyCalendarIds } = await nearestFree(deps, principal, input, range, now);
  return new DomainError(
    'SLOT_UNAVAILABLE',
    'The requested time is already taken on at least one calendar.',
    { calendarIds: busyCalendarIds, alternatives },
  );
}

async function nearestFree(
  deps: AppDeps,
  principal: Principal,
  input: HoldSlotInput,
  range: Interval,
  now: Instant,
): Promise<{ alternatives: Alternative[]; busyCalendarIds: string[] }> {
  const durationMs = range.end - range.start;
  const { starts, busyCalendarIds } = await deps.store.read(async (tx) => {
    const calendars = await loadCalendars(tx, principal.tenantId, input.calendarIds);
    const busy = await tx.bookings.busyIntervals(principal.tenantId, input.calendarIds, range, now);
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
      // Only the calendars that are actually taken then, so the agent can offer to drop one.
      busyCalendarIds: input.calendarIds.filter((id) => (busy.get(id) ?? []).some((b) => overlaps(b, range))),
      starts: servable(found, calendars, now)
        .sort((a, b) => Math.abs(a - range.start) - Math.abs(b - range.start) || a - b)
        .slice(0, ALTERNATIVES)
        .sort((a, b) => a - b),
    };
  });
  return {
    busyCalendarIds,
    alternatives: starts.map((start) => ({ start, end: start + durationMs, reserved: false as const })),
  };
}
