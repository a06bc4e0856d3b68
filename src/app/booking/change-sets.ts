import type { Booking, Customer } from '../../domain/booking/booking.js';
import type { ChangeSet, PlannedChange } from '../../domain/booking/change-set.js';
import { landsOnReleased, MAX_CHANGES } from '../../domain/booking/change-set.js';
import { samePrice, sumPrices } from '../../domain/booking/money.js';
import type { Calendar } from '../../domain/calendar.js';
import { DomainError, invalidArgument, isDomainError } from '../../domain/errors.js';
import type { Principal } from '../../domain/identity/principal.js';
import type { Instant } from '../../domain/time/instant.js';
import { formatInstant } from '../../domain/time/instant.js';
import type { Interval } from '../../domain/time/interval.js';
import { overlaps } from '../../domain/time/interval.js';
import type { HoldPlan, StoreTx } from '../../ports/store/index.js';
import { ReferenceTakenError } from '../../ports/store/index.js';
import { requireWriter } from '../authorize.js';
import type { AppDeps } from '../deps.js';
import type { IdempotentCall, Outcome, WriteCall } from '../idempotent.js';
import { findReplay, idempotencyRecord, idempotent } from '../idempotent.js';
import { bookingsOfSet } from './change-set-intent.js';
import { holdCapOf, newHold, parseRange } from './hold-slot.js';
import type { Move } from './occupancy.js';
import { occupancy } from './occupancy.js';
import { holdCapReached, limitReached, requireOpen, requireRules } from './refusals.js';
import { requireMovable } from './reschedule.js';
import { loadCalendars, loadOwnBooking } from './snapshot.js';

/** One change as an agent sends it: which fields it needs depends on its kind. */
export interface ChangeRequest {
  readonly kind: 'hold' | 'move' | 'cancel';
  readonly bookingId?: string;
  readonly expectedVersion?: number;
  readonly calendarIds?: readonly string[];
  readonly start?: string;
  readonly end?: string;
  readonly customer?: Customer;
  readonly label?: string;
}

/** The fields a change's kind needs, present, and none it cannot use; the error names the field. */
function requireFields(request: ChangeRequest, field: string): void {
  const needs: Record<ChangeRequest['kind'], readonly (keyof ChangeRequest)[]> = {
    hold: ['calendarIds', 'start', 'end'],
    move: ['bookingId', 'expectedVersion', 'start', 'end'],
    cancel: ['bookingId', 'expectedVersion'],
  };
  const refuses: Record<ChangeRequest['kind'], readonly (keyof ChangeRequest)[]> = {
    hold: ['bookingId', 'expectedVersion'],
    move: ['customer', 'label'],
    cancel: ['calendarIds', 'start', 'end', 'customer', 'label'],
  };
  for (const key of needs[request.kind])
    if (request[key] === undefined)
      throw invalidArgument(`${field}.${key}`, `required for a ${request.kind}`);
  for (const key of refuses[request.kind])
    if (request[key] !== undefined)
      throw invalidArgument(`${field}.${key}`, `not taken by a ${request.kind}`);
}

export interface ProposeChangesInput {
  readonly changes: readonly ChangeRequest[];
  readonly idempotencyKey: string;
}

/** A change set with every booking it names as they are now. */
export interface ChangeSetView {
  readonly set: ChangeSet;
  readonly bookings: readonly Booking[];
}

/** A change as planned before anything is written: what it ends, where its new time lies. */
interface Draft {
  readonly index: number;
  readonly request: ChangeRequest;
  readonly target: Booking | null;
  readonly calendars: readonly Calendar[];
  readonly range: Interval;
}

/** Reads and checks every change: the bookings are the person's, each named once, each new time valid. */
async function draftsOf(deps: AppDeps, principal: Principal, input: ProposeChangesInput, now: Instant) {
  if (input.changes.length < 1 || input.changes.length > MAX_CHANGES)
    throw invalidArgument('changes', `from 1 to ${MAX_CHANGES} changes`);
  return deps.store.read(async (tx) => {
    const named = new Set<string>();
    const drafts: Draft[] = [];
    for (const [index, request] of input.changes.entries()) {
      const field = `changes[${index}]`;
      requireFields(request, field);
      if (request.kind === 'hold') {
        const calendarIds = request.calendarIds!;
        const range = parseRange({ calendarIds, start: request.start!, end: request.end! }, now, `${field}.`);
        const calendars = await loadCalendars(tx, principal.tenantId, calendarIds);
        drafts.push({ index, request, target: null, calendars, range });
        continue;
      }
      const bookingId = request.bookingId!;
      if (named.has(bookingId))
        throw invalidArgument(`${field}.bookingId`, 'each booking may appear in one change only');
      named.add(bookingId);
      const target = await loadOwnBooking(tx, principal, bookingId);
      if (target.version !== request.expectedVersion)
        throw new DomainError(
          'VERSION_CONFLICT',
          `Booking ${target.id} is at version ${target.version}, not ${request.expectedVersion}.`,
          {
            bookingId: target.id,
            currentVersion: target.version,
            expectedVersion: request.expectedVersion,
          },
        );
      requireMovable(target, now);
      if (request.kind === 'cancel') {
        drafts.push({
          index,
          request,
          target,
          calendars: [],
          range: { start: target.start, end: target.end },
        });
        continue;
      }
      const calendarIds = request.calendarIds ?? target.calendarIds;
      const range = parseRange({ calendarIds, start: request.start!, end: request.end! }, now, `${field}.`);
      const calendars = await loadCalendars(tx, principal.tenantId, calendarIds);
      if (!samePrice(sumPrices(calendars.map((c) => c.price)), target.price))
        throw invalidArgument(
          `${field}.calendarIds`,
          'a move keeps the price; to change it, cancel and hold anew',
        );
      drafts.push({ index, request, target, calendars, range });
    }
    return drafts;
  });
}

/**
 * propose_changes: every hold and move holds its new time now — or, on a time another change of
 * the set gives up (a swap), is held by that booking until the commit hands it over — and the
 * set is recorded as one intent. Nothing of it happens until confirm_changes; abandon_changes
 * gives the held times back.
 */
export async function proposeChanges(
  deps: AppDeps,
  principal: Principal,
  input: ProposeChangesInput,
  call: WriteCall = {},
): Promise<Outcome<ChangeSetView>> {
  requireWriter(principal, 'draft');
  const now = deps.clock.now();
  const record: IdempotentCall<ChangeSetView> = {
    principal,
    tool: 'propose_changes',
    key: input.idempotencyKey,
    args: input,
    argumentsDigest: call.argumentsDigest,
    audit: call.audit,
    storage: {
      persist: (value) => ({ setId: value.set.id }),
      revive: async (stored, tx) => viewOf(tx, principal.tenantId, (stored as { setId: string }).setId),
    },
  };
  const replay = await deps.store.read((tx) => findReplay(deps, tx, record));
  if (replay) return replay;
  const drafts = await draftsOf(deps, principal, input, now);
  // The set's new holds are paid once: they must share a currency (checked before anything is held).
  try {
    sumPrices(
      drafts.filter((d) => d.request.kind === 'hold').map((d) => sumPrices(d.calendars.map((c) => c.price))),
    );
  } catch {
    throw invalidArgument('changes', 'the new holds of one change set must be priced in one currency');
  }
  const released = drafts
    .filter((d) => d.target !== null)
    .map((d) => ({
      id: d.target!.id,
      calendarIds: d.target!.calendarIds,
      start: d.target!.start,
      end: d.target!.end,
    }));
  const planned = drafts.map((d) => ({
    ...d,
    deferred:
      d.request.kind !== 'cancel' &&
      landsOnReleased(
        { calendarIds: d.calendars.map((c) => c.id), ...d.range },
        released,
        d.target?.id ?? null,
      ),
  }));
  for (const p of planned) {
    if (p.request.kind === 'cancel') continue;
    try {
      requireOpen(p.calendars, p.range);
      requireRules(p.calendars, p.range, now);
    } catch (error) {
      if (!isDomainError(error)) throw error;
      // The refusal as it is, naming the change it is about.
      error.message = `changes[${p.index}]: ${error.message}`;
      throw error;
    }
  }
  const taken = await takenChanges(deps, principal, planned, released, now);
  if (taken.length > 0) throw refusedAsTaken(taken);
  try {
    const outcome = await placeSet(deps, principal, planned, record);
    deps.slotCache.invalidate(principal.tenantId, [
      ...new Set(planned.flatMap((p) => p.calendars.map((c) => c.id))),
    ]);
    return outcome;
  } catch (error) {
    if (!isDomainError(error, 'SLOT_UNAVAILABLE')) throw error;
    const raced = await takenChanges(deps, principal, planned, released, deps.clock.now());
    throw raced.length > 0 ? refusedAsTaken(raced) : error;
  }
}

/** The changes whose new time something outside the set occupies now. */
async function takenChanges(
  deps: AppDeps,
  principal: Principal,
  planned: readonly (Draft & { deferred: boolean })[],
  released: readonly { id: string; calendarIds: readonly string[]; start: Instant; end: Instant }[],
  now: Instant,
): Promise<number[]> {
  const taken: number[] = [];
  for (const p of planned) {
    if (p.request.kind === 'cancel') continue;
    const ids = p.calendars.map((c) => c.id);
    const busy = await deps.store.read((tx) =>
      tx.bookings.busyIntervals(principal.tenantId, ids, p.range, now),
    );
    // Time a booking of the set gives up does not count: the commit hands it over.
    const blocking = ids.some((id) =>
      (busy.get(id) ?? []).some(
        (b) => overlaps(b, p.range) && !released.some((r) => r.calendarIds.includes(id) && overlaps(b, r)),
      ),
    );
    if (blocking) taken.push(p.index);
  }
  return taken;
}

function refusedAsTaken(indexes: readonly number[]): DomainError {
  return new DomainError(
    'SLOT_UNAVAILABLE',
    `The new time of changes[${indexes.join('], changes[')}] is taken; nothing was held. Choose other times (find_slots) and propose again.`,
    { retryCanSucceed: false, changes: [...indexes] },
    'Choose other free times for the changes in details.changes (find_slots), then call propose_changes again with a new idempotencyKey.',
  );
}

const ATTEMPTS = 5;

/** Every new time held (or left to its released booking) and the set recorded, in one write. */
async function placeSet(
  deps: AppDeps,
  principal: Principal,
  planned: readonly (Draft & { deferred: boolean })[],
  record: IdempotentCall<ChangeSetView>,
): Promise<Outcome<ChangeSetView>> {
  for (let attempt = 1; attempt <= ATTEMPTS; attempt++) {
    try {
      return await deps.store.write((tx) =>
        idempotent(deps, tx, record, async () => {
          const now = deps.clock.now();
          const setId = deps.ids.newId('chg');
          const changes: PlannedChange[] = [];
          const bookings: Booking[] = [];
          for (const p of planned) {
            const target = p.target;
            if (p.request.kind === 'cancel') {
              changes.push({
                kind: 'cancel',
                targetId: target!.id,
                holdId: null,
                calendarIds: target!.calendarIds,
                start: target!.start,
                end: target!.end,
                from: null,
                deferred: false,
              });
              bookings.push(target!);
              continue;
            }
            const calendarIds = p.calendars.map((c) => c.id);
            const details =
              p.request.kind === 'hold'
                ? { calendarIds, customer: p.request.customer, label: p.request.label }
                : {
                    calendarIds,
                    customer: (target!.customer ?? undefined) as Customer | undefined,
                    label: target!.label ?? undefined,
                  };
            const booking: Booking = {
              ...newHold(deps, principal, details, p.range, p.calendars),
              reference: deps.ids.newReference(),
              changeSetId: setId,
              ...(target ? { replaces: target.id, seriesId: target.seriesId ?? null } : {}),
            };
            const move: Move | undefined = target
              ? { booking: target, held: await tx.bookings.allocationsOf(principal.tenantId, target.id) }
              : undefined;
            const placement = await tx.bookings.placeHold({
              booking,
              calendarVersions: p.calendars.map((c) => ({ id: c.id, version: c.version })),
              idempotency: idempotencyRecord(
                deps,
                { ...record, tool: 'propose_changes#hold', key: `${record.key}#${p.index}` },
                null,
              ),
              // On a time the set gives up: nothing yet; the commit places it once that booking is gone.
              ...(p.deferred
                ? { occupies: [], limits: [] }
                : occupancy(p.calendars, p.range, booking.customer, move)),
              cap: holdCapOf(principal, p.range, p.calendars.length),
            } satisfies HoldPlan);
            if (placement.outcome === 'stale') throw new StaleSet();
            if (placement.outcome === 'full')
              throw await holdCapReached(
                deps,
                principal,
                { start: formatInstant(p.range.start), end: formatInstant(p.range.end) },
                p.calendars.length,
              );
            if (placement.outcome === 'limited') throw limitReached(p.calendars, placement.check);
            if (placement.outcome === 'replay')
              throw new DomainError('INTERNAL', 'A change was already held under this key; retry.', {});
            changes.push({
              kind: p.request.kind,
              targetId: target?.id ?? null,
              holdId: booking.id,
              calendarIds,
              start: p.range.start,
              end: p.range.end,
              from: target ? { calendarIds: target.calendarIds, start: target.start, end: target.end } : null,
              deferred: p.deferred,
            });
            bookings.push(booking);
            if (target) bookings.push(target);
          }
          const set: ChangeSet = {
            id: setId,
            tenantId: principal.tenantId,
            subject: principal.subject,
            status: 'PROPOSED',
            changes,
            version: 1,
            createdAt: now,
            updatedAt: now,
          };
          await tx.changeSets.insert(set);
          record.audit?.made({ changeSetId: set.id });
          return { set, bookings };
        }),
      );
    } catch (error) {
      if (!(error instanceof StaleSet) && !(error instanceof ReferenceTakenError)) throw error;
      deps.calendarCache.forget(principal.tenantId, [
        ...new Set(planned.flatMap((p) => p.calendars.map((c) => c.id))),
      ]);
    }
  }
  throw new DomainError('INTERNAL', 'The calendars kept changing while the changes were held; retry.', {
    retryAfterMs: 100,
  });
}

class StaleSet extends Error {}

/** The person's change set with its bookings; NOT_FOUND for anyone else's. */
export async function viewOf(
  tx: StoreTx,
  tenantId: string,
  setId: string,
  subject?: string,
): Promise<ChangeSetView> {
  const set = await tx.changeSets.get(tenantId, setId);
  if (!set || (subject !== undefined && set.subject !== subject))
    throw new DomainError('NOT_FOUND', `No change set ${setId}.`, {});
  return { set, bookings: [...(await bookingsOfSet(tx, set)).values()] };
}
