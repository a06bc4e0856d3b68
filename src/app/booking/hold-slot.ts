import type { Booking, Customer } from '../../domain/booking/booking.js';
import { sumPrices } from '../../domain/booking/money.js';
import type { Calendar } from '../../domain/calendar.js';
import type { Principal } from '../../domain/identity/principal.js';
import { DomainError, invalidArgument, isDomainError } from '../../domain/errors.js';
import { MINUTE_MS, parseInstant } from '../../domain/time/instant.js';
import type { Instant } from '../../domain/time/instant.js';
import type { Interval } from '../../domain/time/interval.js';
import type { HoldPlacement, HoldPlan } from '../../ports/store/index.js';
import { ReferenceTakenError } from '../../ports/store/index.js';
import { isLimited } from '../../domain/identity/identity.js';
import { requireWriter } from '../authorize.js';
import type { AppDeps } from '../deps.js';
import type { IdempotentCall, Outcome, WriteCall } from '../idempotent.js';
import { findReplay, idempotencyRecord, replayOfRecord } from '../idempotent.js';
import { nearestFree, slotTakenWithAlternatives } from './alternatives.js';
import type { Move } from './occupancy.js';
import { MAX_BOOKING_MINUTES, occupancy } from './occupancy.js';
import { holdCapReached, limitReached, requireOpen, requireRules } from './refusals.js';
import type { BookingSnapshot } from './snapshot.js';
import { calendarRef, loadCalendars, snapshotStorage } from './snapshot.js';

export interface HoldSlotInput {
  readonly calendarIds: readonly string[];
  readonly start: string;
  readonly end: string;
  readonly customer?: Customer;
  readonly label?: string;
  readonly idempotencyKey: string;
}

/** The asked range, checked: the error names the field (`prefix` for a series' replacement times). */
export function parseRange(
  input: Pick<HoldSlotInput, 'calendarIds' | 'start' | 'end'>,
  now: Instant,
  prefix = '',
): Interval {
  const start = parseInstant(input.start, `${prefix}start`);
  const end = parseInstant(input.end, `${prefix}end`);
  if (end <= start) throw invalidArgument(`${prefix}end`, 'must be after start');
  if (end - start > MAX_BOOKING_MINUTES * MINUTE_MS)
    throw invalidArgument(`${prefix}end`, 'a booking may last at most 7 days');
  if (start < now) throw invalidArgument(`${prefix}start`, 'must not be in the past');
  if (new Set(input.calendarIds).size !== input.calendarIds.length) {
    throw invalidArgument(`${prefix}calendarIds`, 'must not repeat a calendar');
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
      throw await slotTakenWithAlternatives(deps, principal, input.calendarIds, range, now);
    }
    if (isDomainError(error, 'OUTSIDE_BOOKING_RULES')) {
      const { alternatives } = await nearestFree(deps, principal, input.calendarIds, range, now);
      throw new DomainError('OUTSIDE_BOOKING_RULES', error.message, { ...error.details, alternatives });
    }
    // Closed hours too: the nearest open times of the same length, as for a taken slot.
    if (isDomainError(error, 'OUTSIDE_AVAILABILITY')) {
      const { alternatives } = await nearestFree(deps, principal, input.calendarIds, range, now);
      throw new DomainError('OUTSIDE_AVAILABILITY', error.message, { ...error.details, alternatives });
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
  const base: Booking = {
    ...newHold(deps, principal, input, range, calendars),
    // A moved occurrence stays in its series.
    ...(move ? { replaces: move.booking.id, seriesId: move.booking.seriesId ?? null } : {}),
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
      cap: holdCapOf(principal, range, calendars.length),
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

/** A new hold of `range` on `calendars` for the principal's person (its reference still to draw). */
export function newHold(
  deps: AppDeps,
  principal: Principal,
  input: Pick<HoldSlotInput, 'calendarIds' | 'customer' | 'label'>,
  range: Interval,
  calendars: readonly Calendar[],
): Booking {
  const now = deps.clock.now();
  const price = sumPrices(calendars.map((c) => c.price));
  return {
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
    price,
    // A priced hold waits for its money from the start; an unpriced one has no payment at all.
    payment: price === null ? null : { status: 'PENDING', paidAt: null },
    owner: { subject: principal.subject, clientId: principal.clientId, connectionId: principal.connectionId },
    externalKeys: {},
    paymentFollowUp: false,
  };
}

/** The person's and connection's hold caps for one more hold, or null when none is limited. */
export function holdCapOf(principal: Principal, range: Interval, calendarCount: number): HoldPlan['cap'] {
  const limits = principal.limits;
  if (
    !isLimited(limits.activeHoldsPerPerson) &&
    !isLimited(limits.activeHoldsPerConnection) &&
    !isLimited(limits.heldCalendarHoursPerPerson)
  )
    return null;
  return {
    perPerson: limits.activeHoldsPerPerson,
    perConnection: limits.activeHoldsPerConnection,
    heldMsPerPerson: isLimited(limits.heldCalendarHoursPerPerson)
      ? limits.heldCalendarHoursPerPerson * 3_600_000
      : null,
    thisHoldMs: (range.end - range.start) * calendarCount,
  };
}
