import type { Booking } from '../../domain/booking/booking.js';
import { effectiveStatus, releaseHold } from '../../domain/booking/booking.js';
import type { WaitlistEntry } from '../../domain/booking/waitlist.js';
import {
  checkWindow,
  MAX_WAITING_PER_PERSON,
  moveTo,
  OFFER_TTL_MS,
  stillWaiting,
} from '../../domain/booking/waitlist.js';
import { DomainError, invalidArgument, isDomainError } from '../../domain/errors.js';
import { defaultTenantLimits } from '../../domain/identity/identity.js';
import type { Principal } from '../../domain/identity/principal.js';
import { formatInstant, MINUTE_MS, parseInstant } from '../../domain/time/instant.js';
import { requireWriter } from '../authorize.js';
import type { AppDeps } from '../deps.js';
import type { Outcome, WriteCall } from '../idempotent.js';
import { findReplay, idempotent } from '../idempotent.js';
import { recordBookingEvent } from '../webhooks/record-booking-event.js';
import { findSlots, MAX_SEARCH_DAYS } from './find-slots.js';
import { holdSlot } from './hold-slot.js';
import { loadCalendars } from './snapshot.js';

export interface JoinWaitlistInput {
  readonly calendarIds: readonly string[];
  readonly durationMinutes: number;
  readonly earliest: string;
  readonly latest: string;
  readonly label?: string;
  readonly idempotencyKey: string;
}

/** An entry with its place: how many open entries of the tenant, for any of its calendars, come first. */
export interface WaitlistView {
  readonly entry: WaitlistEntry;
  readonly position: number | null;
}

/** join_waitlist: the agent's person waits for a window; the first time that frees and fits is offered as a hold. */
export async function joinWaitlist(
  deps: AppDeps,
  principal: Principal,
  input: JoinWaitlistInput,
  call: WriteCall = {},
): Promise<Outcome<WaitlistView>> {
  requireWriter(principal, 'draft');
  const now = deps.clock.now();
  const earliest = Math.max(parseInstant(input.earliest, 'earliest'), now);
  const latest = parseInstant(input.latest, 'latest');
  checkWindow({ earliest, latest, durationMinutes: input.durationMinutes }, now);
  if (latest - earliest > MAX_SEARCH_DAYS * 24 * 60 * MINUTE_MS)
    throw invalidArgument('latest', `a window may span at most ${MAX_SEARCH_DAYS} days`);
  if (new Set(input.calendarIds).size !== input.calendarIds.length)
    throw invalidArgument('calendarIds', 'must not repeat a calendar');
  const record = {
    principal,
    tool: 'join_waitlist',
    key: input.idempotencyKey,
    args: input,
    audit: call.audit,
    storage: {
      persist: (view: WaitlistView) => ({ id: view.entry.id }),
      revive: async (stored: unknown, tx: Parameters<typeof findReplay>[1]) =>
        viewOf(tx, (await tx.waitlist.get(principal.tenantId, (stored as { id: string }).id))!),
    },
  };
  const replay = await deps.store.read((tx) => findReplay(deps, tx, record));
  if (replay) return replay;
  return deps.store.write((tx) =>
    idempotent(deps, tx, record, async () => {
      await loadCalendars(tx, principal.tenantId, input.calendarIds);
      await tx.serialize(`waitlist-person:${principal.tenantId}:${principal.subject}`);
      if ((await tx.waitlist.countOpen(principal.tenantId, principal.subject)) >= MAX_WAITING_PER_PERSON)
        throw new DomainError(
          'QUOTA_EXCEEDED',
          `At most ${MAX_WAITING_PER_PERSON} waitlist entries may wait at once.`,
          {
            quota: 'waitlist entries per person',
            limit: MAX_WAITING_PER_PERSON,
          },
        );
      const entry: WaitlistEntry = {
        id: deps.ids.newId('wl'),
        tenantId: principal.tenantId,
        owner: {
          subject: principal.subject,
          clientId: principal.clientId,
          connectionId: principal.connectionId,
        },
        calendarIds: [...input.calendarIds],
        durationMinutes: input.durationMinutes,
        earliest,
        latest,
        label: input.label ?? null,
        status: 'WAITING',
        offerBookingId: null,
        offerExpiresAt: null,
        version: 1,
        seq: 0,
        createdAt: now,
        updatedAt: now,
      };
      await tx.waitlist.insert(entry);
      return viewOf(tx, (await tx.waitlist.get(entry.tenantId, entry.id))!);
    }),
  );
}

async function viewOf(tx: Parameters<typeof findReplay>[1], entry: WaitlistEntry): Promise<WaitlistView> {
  if (entry.status !== 'WAITING') return { entry, position: null };
  const queue = await tx.waitlist.queue(entry.tenantId, 1000);
  const ahead = queue.filter(
    (e) =>
      e.status === 'WAITING' &&
      (e.seq < entry.seq || (e.seq === entry.seq && e.id < entry.id)) &&
      e.calendarIds.some((id) => entry.calendarIds.includes(id)),
  );
  return { entry, position: ahead.length + 1 };
}

/** One of the caller's own entries (anyone else's does not exist for them). */
async function ownEntry(deps: AppDeps, principal: Principal, id: string): Promise<WaitlistEntry> {
  const entry = await deps.store.read((tx) => tx.waitlist.get(principal.tenantId, id));
  if (!entry || entry.owner.subject !== principal.subject)
    throw new DomainError('NOT_FOUND', `No waitlist entry ${id}.`, {});
  return entry;
}

export async function getWaitlistEntry(
  deps: AppDeps,
  principal: Principal,
  id: string,
): Promise<WaitlistView> {
  const entry = await ownEntry(deps, principal, id);
  return deps.store.read((tx) => viewOf(tx, entry));
}

/** leave_waitlist: off the queue; an offer not yet confirmed is given back (its time passes on). */
export async function leaveWaitlist(deps: AppDeps, principal: Principal, id: string): Promise<WaitlistView> {
  requireWriter(principal, 'draft');
  const entry = await ownEntry(deps, principal, id);
  if (entry.status !== 'WAITING' && entry.status !== 'OFFERED')
    throw new DomainError(
      'INVALID_STATE',
      `Waitlist entry ${id} is ${entry.status}; only an open one can be left.`,
      {},
    );
  const now = deps.clock.now();
  const left = moveTo(entry, 'LEFT', now);
  await deps.store.write(async (tx) => {
    if (!(await tx.waitlist.update(left)))
      throw new DomainError('VERSION_CONFLICT', `Waitlist entry ${id} changed meanwhile; read it again.`, {
        bookingId: entry.offerBookingId ?? id,
        currentVersion: null,
      });
    const offer = entry.offerBookingId ? await tx.bookings.get(entry.tenantId, entry.offerBookingId) : null;
    if (offer && effectiveStatus(offer, now) === 'HELD')
      await tx.bookings.update(releaseHold(offer, offer.version, now));
  });
  if (entry.offerBookingId) deps.slotCache.invalidate(entry.tenantId, entry.calendarIds);
  return { entry: left, position: null };
}

/** What the matcher reports for each entry it moved: the waiting agent is told (listen, webhook). */
export type WaitlistNotice = (entry: WaitlistEntry) => void;

/** The waiting person as the offer's hold is made for them: draft (holds only), their tenant's limits. */
async function principalOf(deps: AppDeps, entry: WaitlistEntry): Promise<Principal> {
  // A tenant never configured has the default limits, as its tokens do.
  const tenant = await deps.store.read((tx) => tx.tenants.getTenant(entry.tenantId));
  return {
    tenantId: entry.tenantId,
    subject: entry.owner.subject,
    clientId: entry.owner.clientId,
    connectionId: entry.owner.connectionId,
    scopes: ['read', 'draft'],
    writePolicy: 'draft',
    limits: tenant?.limits ?? defaultTenantLimits,
  };
}

/** How long an instance keeps the right to match a tenant's queue per pass. */
const LEASE_MS = 30_000;
const QUEUE_BATCH = 200;

/**
 * One pass over a tenant's queue, oldest first, by one instance at a time (a lease): an offer
 * confirmed is ACCEPTED, one whose hold ended is LAPSED (its time passes on in this same pass),
 * a window passed is EXPIRED, and each waiting entry that fits free time gets it held for its
 * person (the engine places the hold, so no time is ever offered twice). Returns the entries moved.
 */
export async function matchWaitlist(
  deps: AppDeps,
  tenantId: string,
  matcher: string,
  notice: WaitlistNotice = () => undefined,
): Promise<number> {
  const now = deps.clock.now();
  if (!(await deps.store.write((tx) => tx.waitlist.lease(tenantId, matcher, now, now + LEASE_MS)))) return 0;
  const queue = await deps.store.read((tx) => tx.waitlist.queue(tenantId, QUEUE_BATCH));
  let moved = 0;
  const save = async (next: WaitlistEntry, offer?: Booking) => {
    const saved = await deps.store.write(async (tx) => {
      if (!(await tx.waitlist.update(next))) return false;
      if (offer) await recordBookingEvent(tx, deps.ids, 'waitlist.offered', offer, now);
      return true;
    });
    if (saved) {
      moved++;
      notice(next);
    }
  };
  for (const entry of queue) {
    if (entry.status === 'OFFERED') {
      const offer = await deps.store.read((tx) => tx.bookings.get(tenantId, entry.offerBookingId!));
      const status = offer ? effectiveStatus(offer, now) : 'RELEASED';
      if (status === 'CONFIRMED') await save(moveTo(entry, 'ACCEPTED', now));
      else if (status !== 'HELD') await save(moveTo(entry, 'LAPSED', now));
      continue;
    }
    if (!stillWaiting(entry, now)) {
      await save(moveTo(entry, 'EXPIRED', now));
      continue;
    }
    const offered = await offerTo(deps, entry, now);
    if (offered)
      await save(
        moveTo(entry, 'OFFERED', now, { bookingId: offered.id, expiresAt: offered.expiresAt! }),
        offered,
      );
  }
  return moved;
}

/** The first free time that fits the entry, held for its person for the offer's time; null when none fits now. */
async function offerTo(deps: AppDeps, entry: WaitlistEntry, now: number): Promise<Booking | null> {
  const principal = await principalOf(deps, entry);
  const from = Math.max(entry.earliest, now + MINUTE_MS);
  const found = await findSlots(deps, principal, {
    calendarIds: entry.calendarIds,
    from: formatInstant(from),
    to: formatInstant(entry.latest),
    durationMinutes: entry.durationMinutes,
    limit: 1,
  }).catch((error: unknown) => {
    // A calendar deleted or closed since: the entry waits on (it expires with its window).
    if (isDomainError(error)) return null;
    throw error;
  });
  const slot = found?.slots[0];
  if (!slot) return null;
  try {
    const { value } = await holdSlot(deps, principal, {
      calendarIds: entry.calendarIds,
      start: formatInstant(slot.start),
      end: formatInstant(slot.end),
      ...(entry.label ? { label: entry.label } : {}),
      // The same key for the same entry at the same version: a pass that crashed after placing the
      // hold finds it again (replayed) instead of holding a second time.
      idempotencyKey: `${entry.id}:${entry.version}`,
    });
    const until = now + Math.max(OFFER_TTL_MS, deps.config.holdTtlMs);
    const booking = value.booking;
    const kept = await deps.store.write((tx) =>
      tx.bookings.keepHold(tenantId(entry), booking.id, booking.version, until, now),
    );
    return { ...booking, expiresAt: kept ? until : booking.expiresAt };
  } catch (error) {
    // Taken by a racing agent between the search and the hold: the next pass tries again.
    if (isDomainError(error)) return null;
    throw error;
  }
}

const tenantId = (entry: WaitlistEntry) => entry.tenantId;
