import type { Booking, Customer } from '../../domain/booking/booking.js';
import type { Repeat } from '../../domain/booking/series.js';
import { occurrenceTimes, validateRepeat } from '../../domain/booking/series.js';
import type { Calendar } from '../../domain/calendar.js';
import { sumPrices } from '../../domain/booking/money.js';
import { DomainError, invalidArgument, isDomainError } from '../../domain/errors.js';
import type { Principal } from '../../domain/identity/principal.js';
import type { Instant } from '../../domain/time/instant.js';
import type { Interval } from '../../domain/time/interval.js';
import { overlaps } from '../../domain/time/interval.js';
import { ReferenceTakenError } from '../../ports/store/index.js';
import { requireWriter } from '../authorize.js';
import type { AppDeps } from '../deps.js';
import type { IdempotentCall, Outcome, ResultStorage, WriteCall } from '../idempotent.js';
import { findReplay, idempotencyRecord, idempotent } from '../idempotent.js';
import type { Alternative } from './alternatives.js';
import { nearestFree } from './alternatives.js';
import { holdCapOf, newHold, parseRange } from './hold-slot.js';
import { occupancy } from './occupancy.js';
import { holdCapReached, limitReached, requireOpen, requireRules } from './refusals.js';
import type { BookingSnapshot } from './snapshot.js';
import { calendarRef, loadCalendars, snapshotStorage } from './snapshot.js';

/** One occurrence the agent puts in place of the repeated time (an alternative it was offered). */
export interface OccurrenceChoice {
  /** 1-based: the first occurrence is 1. */
  readonly occurrence: number;
  readonly start: string;
  readonly end: string;
  /** Other calendars for this occurrence only; default the series'. */
  readonly calendarIds?: readonly string[];
}

export interface HoldSeriesInput {
  readonly calendarIds: readonly string[];
  /** The first occurrence. */
  readonly start: string;
  readonly end: string;
  readonly repeat: Repeat;
  readonly instead?: readonly OccurrenceChoice[];
  readonly customer?: Customer;
  readonly label?: string;
  readonly idempotencyKey: string;
}

export interface SeriesSnapshot {
  readonly seriesId: string;
  readonly occurrences: readonly BookingSnapshot[];
}

interface Planned extends Interval {
  readonly occurrence: number;
  readonly calendarIds: readonly string[];
}

/** Why one occurrence cannot be held, and the free times nearest it (nothing reserved). */
export interface OccurrenceRefusal {
  readonly occurrence: number;
  readonly start: Instant;
  readonly end: Instant;
  readonly calendarIds: readonly string[];
  readonly code: 'SLOT_UNAVAILABLE' | 'OUTSIDE_AVAILABILITY' | 'OUTSIDE_BOOKING_RULES';
  readonly reason: string;
  readonly alternatives: readonly Alternative[];
}

const seriesStorage: ResultStorage<SeriesSnapshot> = {
  persist: (value) => ({ ...value, occurrences: value.occurrences.map((o) => snapshotStorage.persist(o)) }),
  revive: async (stored, tx) => {
    const value = stored as SeriesSnapshot;
    const occurrences = [];
    for (const o of value.occurrences) occurrences.push(await snapshotStorage.revive(o, tx));
    return { ...value, occurrences };
  },
};

/** The occurrences' times and calendars: repeated on the first calendar's wall clock, with the agent's choices in place. */
function plan(input: HoldSeriesInput, zone: string, now: Instant): Planned[] {
  const first = parseRange(input, now);
  const planned: Planned[] = occurrenceTimes(first, input.repeat, zone).map((t, i) => ({
    ...t,
    occurrence: i + 1,
    calendarIds: input.calendarIds,
  }));
  const seen = new Set<number>();
  (input.instead ?? []).forEach((choice, k) => {
    const field = `instead[${k}]`;
    if (!Number.isInteger(choice.occurrence) || choice.occurrence < 1 || choice.occurrence > planned.length)
      throw invalidArgument(`${field}.occurrence`, `a whole number from 1 to ${planned.length}`);
    if (seen.has(choice.occurrence))
      throw invalidArgument(`${field}.occurrence`, `occurrence ${choice.occurrence} is chosen twice`);
    seen.add(choice.occurrence);
    const calendarIds = choice.calendarIds ?? input.calendarIds;
    const range = parseRange({ calendarIds, start: choice.start, end: choice.end }, now, `${field}.`);
    planned[choice.occurrence - 1] = { ...range, occurrence: choice.occurrence, calendarIds };
  });
  for (const p of planned)
    if (p.start < now) throw invalidArgument('start', 'no occurrence may be in the past');
  const sorted = [...planned].sort((x, y) => x.start - y.start);
  if (sorted.some((p, i) => i > 0 && p.start < sorted[i - 1]!.end))
    throw invalidArgument('repeat.interval', 'occurrences must not overlap one another');
  return planned;
}

/**
 * hold_series: every occurrence held, all or none, in one transaction — each one an ordinary
 * hold the engine enforces (seats, buffers, limits), tied by a series id. When some cannot be
 * held, nothing is, and the refusal lists each such occurrence with the free times nearest it;
 * the agent repeats the call with `instead` naming the ones the person chose.
 */
export async function holdSeries(
  deps: AppDeps,
  principal: Principal,
  input: HoldSeriesInput,
  call: WriteCall = {},
): Promise<Outcome<SeriesSnapshot>> {
  requireWriter(principal, 'draft');
  validateRepeat(input.repeat);
  const now = deps.clock.now();
  const record: IdempotentCall<SeriesSnapshot> = {
    principal,
    tool: 'hold_series',
    key: input.idempotencyKey,
    args: input,
    argumentsDigest: call.argumentsDigest,
    audit: call.audit,
    storage: seriesStorage,
  };
  const replay = await deps.store.read((tx) => findReplay(deps, tx, record));
  if (replay) return replay;
  const allIds = [
    ...new Set([...input.calendarIds, ...(input.instead ?? []).flatMap((c) => c.calendarIds ?? [])]),
  ];
  const calendars = await deps.store.read((tx) => loadCalendars(tx, principal.tenantId, allIds));
  const zone = calendars.find((c) => c.id === input.calendarIds[0])?.timeZone ?? 'UTC';
  const planned = plan(input, zone, now);
  // One price for the series: its calendars must share a currency (checked before anything is held).
  const priceOf = (p: Planned) =>
    sumPrices(p.calendarIds.map((id) => calendars.find((c) => c.id === id)!.price));
  try {
    sumPrices(planned.map(priceOf));
  } catch {
    throw invalidArgument('instead', 'every occurrence of a series must be priced in one currency');
  }
  const refusals = await refusalsOf(deps, principal, planned, calendars, now);
  if (refusals.length > 0) throw seriesRefused(refusals, planned.length);
  try {
    const outcome = await placeAll(deps, principal, input, planned, record).catch(async (error: unknown) => {
      // Lapsed holds not yet swept still count in the engine: give their time back, then once more.
      if (!isDomainError(error, 'SLOT_UNAVAILABLE')) throw error;
      if ((await deps.store.writeOne((tx) => tx.bookings.expireLapsed(now, principal.tenantId))) === 0)
        throw error;
      return placeAll(deps, principal, input, planned, record);
    });
    deps.slotCache.invalidate(principal.tenantId, allIds);
    return outcome;
  } catch (error) {
    // Lost a race to another hold: say which occurrences, as before placing.
    if (!isDomainError(error, 'SLOT_UNAVAILABLE')) throw error;
    const raced = await refusalsOf(deps, principal, planned, calendars, deps.clock.now());
    throw raced.length > 0 ? seriesRefused(raced, planned.length) : error;
  }
}

const ATTEMPTS = 5;

/** Every occurrence placed in one write with the series' answer under its key, or none. */
async function placeAll(
  deps: AppDeps,
  principal: Principal,
  input: HoldSeriesInput,
  planned: readonly Planned[],
  record: IdempotentCall<SeriesSnapshot>,
): Promise<Outcome<SeriesSnapshot>> {
  for (let attempt = 1; attempt <= ATTEMPTS; attempt++) {
    const ids = [...new Set(planned.flatMap((p) => p.calendarIds))];
    const calendars = await deps.store.read((tx) => loadCalendars(tx, principal.tenantId, ids));
    try {
      return await deps.store.write((tx) =>
        idempotent(deps, tx, record, async () => {
          const seriesId = deps.ids.newId('ser');
          const occurrences: BookingSnapshot[] = [];
          for (const p of planned) {
            const own = p.calendarIds.map((id) => calendars.find((c) => c.id === id)!);
            const booking: Booking = {
              ...newHold(deps, principal, { ...input, calendarIds: p.calendarIds }, p, own),
              reference: deps.ids.newReference(),
              seriesId,
            };
            const snapshot: BookingSnapshot = { booking, calendars: own.map(calendarRef) };
            const placement = await tx.bookings.placeHold({
              booking,
              calendarVersions: own.map((c) => ({ id: c.id, version: c.version })),
              // Each occurrence's own key, under the series' (the series' answer is kept under its key).
              idempotency: idempotencyRecord(
                deps,
                { ...record, tool: 'hold_series#occurrence', key: `${record.key}#${p.occurrence}` },
                snapshotStorage.persist(snapshot),
              ),
              ...occupancy(own, p, booking.customer),
              cap: holdCapOf(principal, p, own.length),
            });
            if (placement.outcome === 'stale') throw new StaleCalendars();
            if (placement.outcome === 'full') throw await holdCapReached(deps, principal, input, own.length);
            if (placement.outcome === 'limited')
              throw occurrenceLimited(p, limitReached(own, placement.check));
            if (placement.outcome === 'replay')
              throw new DomainError('INTERNAL', 'An occurrence was already held under this key; retry.', {});
            occurrences.push(snapshot);
          }
          record.audit?.made({ seriesId, bookingId: occurrences[0]!.booking.id });
          return { seriesId, occurrences };
        }),
      );
    } catch (error) {
      if (!(error instanceof StaleCalendars) && !(error instanceof ReferenceTakenError)) throw error;
      deps.calendarCache.forget(principal.tenantId, ids);
    }
  }
  throw new DomainError('INTERNAL', 'The calendars kept changing while the series was held; retry.', {
    retryAfterMs: 100,
  });
}

class StaleCalendars extends Error {}

function occurrenceLimited(p: Planned, error: DomainError<'OUTSIDE_BOOKING_RULES'>): DomainError {
  return new DomainError('OUTSIDE_BOOKING_RULES', `Occurrence ${p.occurrence}: ${error.message}`, {
    ...error.details,
    occurrence: p.occurrence,
  });
}

/** Each occurrence that cannot be held as planned (closed, outside the rules, taken), read now. */
async function refusalsOf(
  deps: AppDeps,
  principal: Principal,
  planned: readonly Planned[],
  calendars: readonly Calendar[],
  now: Instant,
): Promise<OccurrenceRefusal[]> {
  const refusals: OccurrenceRefusal[] = [];
  for (const p of planned) {
    const own = p.calendarIds.map((id) => calendars.find((c) => c.id === id)!);
    let refusal: Pick<OccurrenceRefusal, 'code' | 'reason'> | null = null;
    try {
      requireOpen(own, p);
      requireRules(own, p, now);
    } catch (error) {
      if (!isDomainError(error)) throw error;
      refusal = { code: error.code as OccurrenceRefusal['code'], reason: error.message };
    }
    if (!refusal) {
      const busy = await deps.store.read((tx) =>
        tx.bookings.busyIntervals(principal.tenantId, p.calendarIds, p, now),
      );
      const taken = p.calendarIds.filter((id) => (busy.get(id) ?? []).some((b) => overlaps(b, p)));
      if (taken.length > 0)
        refusal = {
          code: 'SLOT_UNAVAILABLE',
          reason: `taken on ${taken.map((id) => own.find((c) => c.id === id)!.name).join(', ')}`,
        };
    }
    if (refusal) {
      const { alternatives } = await nearestFree(deps, principal, p.calendarIds, p, now);
      // Only alternatives that keep clear of the series' other occurrences.
      const clear = alternatives.filter((a) => !planned.some((o) => o !== p && overlaps(o, a)));
      refusals.push({
        occurrence: p.occurrence,
        start: p.start,
        end: p.end,
        calendarIds: p.calendarIds,
        ...refusal,
        alternatives: clear,
      });
    }
  }
  return refusals;
}

function seriesRefused(refusals: readonly OccurrenceRefusal[], count: number): DomainError {
  const which = refusals.map((r) => r.occurrence).join(', ');
  return new DomainError(
    'SLOT_UNAVAILABLE',
    `${refusals.length} of the ${count} occurrences cannot be held (occurrence ${which}); nothing was held. Offer the person details.occurrences[].alternatives, then call hold_series again with instead: [{ occurrence, start, end }] for each.`,
    { occurrences: refusals, retryCanSucceed: true },
  );
}
