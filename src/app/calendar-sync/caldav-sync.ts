import type { Booking } from '../../domain/booking/booking.js';
import type { PushedEvent, RemoteChanges, RemoteEvent } from '../../domain/calendar-sync/caldav.js';
import {
  bookingIdOfHref,
  decodedPath,
  eventName,
  overlapsOf,
  planPushes,
  sameEtag,
} from '../../domain/calendar-sync/caldav.js';
import { rulesOf } from '../../domain/calendar.js';
import type { Calendar } from '../../domain/calendar.js';
import { DomainError } from '../../domain/errors.js';
import { busyPieces, importWindow } from '../../domain/feeds/external-busy.js';
import { DAY_MS } from '../../domain/time/zone.js';
import { FeedReadError } from '../../ports/busy-feed.js';
import type { CaldavAccount, CaldavKit } from '../../ports/caldav.js';
import { CaldavError } from '../../ports/caldav.js';
import type { LeasedConnection, StoreTx } from '../../ports/store/index.js';
import type { AppDeps } from '../deps.js';
import { calendarOf } from '../feeds/feed-links.js';
import { accountOf } from './caldav-connections.js';

/** A lease outlives the slowest sync (a few requests, each bounded by the client's timeout) with room to spare. */
export const CALDAV_LEASE_MS = 3 * 60_000;
/** Connections synced per pass of the scheduler. */
const PER_PASS = 5;
/** Confirmed bookings read per page, and at most this many ahead (the rest as time moves on). */
const PAGE = 200;
const MAX_AHEAD = 5_000;
/** Events written or removed per sync; the rest follow in the next ones. */
const MAX_WRITES = 100;
/** Busy time is read again from the stored events at least this often (the window moves with the clock). */
const RECOMPUTE_MS = 60 * 60_000;

export type SyncOutcome =
  | {
      readonly id: string;
      readonly ok: true;
      readonly pulled: number;
      readonly removed: number;
      readonly written: number;
      readonly deleted: number;
      readonly busy: number;
      readonly overlaps: number;
      readonly unreadable: number;
    }
  | { readonly id: string; readonly ok: false; readonly error: string };

/** Messages the client did not word (a bug, a driver) are not shown: they may carry anything. */
const shown = (error: unknown) =>
  error instanceof CaldavError || error instanceof FeedReadError
    ? error.message.slice(0, 300)
    : 'internal error while syncing';

class LeaseLost extends CaldavError {}

interface Local {
  readonly calendar: Calendar;
  /** Confirmed bookings not yet ended (a day's grace), the ones written to the collection. */
  readonly confirmed: readonly Booking[];
  readonly pushed: readonly PushedEvent[];
  readonly current: ReadonlyMap<string, Booking | null>;
  readonly stored: readonly RemoteEvent[];
  /** Addresses of every event written for this connection. */
  readonly ownHrefs: ReadonlySet<string>;
}

async function readLocal(deps: AppDeps, c: LeasedConnection): Promise<Local> {
  const calendar = await calendarOf(deps, c.tenantId, c.calendarId);
  const now = deps.clock.now();
  return deps.store.read(async (tx) => {
    const since = now - DAY_MS;
    const confirmed: Booking[] = [];
    for (let offset = 0; offset < MAX_AHEAD; offset += PAGE) {
      const { items } = await tx.bookings.list(c.tenantId, {
        calendarId: c.calendarId,
        status: 'CONFIRMED',
        from: since,
        now,
        offset,
        limit: PAGE,
      });
      confirmed.push(...items);
      if (items.length < PAGE) break;
    }
    const pushed = await tx.caldav.pushed(c.id, since);
    const current = new Map<string, Booking | null>();
    for (const p of pushed) current.set(p.bookingId, await tx.bookings.get(c.tenantId, p.bookingId));
    return {
      calendar,
      confirmed,
      pushed,
      current,
      stored: await tx.caldav.events(c.id),
      ownHrefs: new Set(await tx.caldav.ownHrefs(c.id)),
    };
  });
}

/**
 * Holdfast's own events are never busy time: those it recorded writing, and those named after a
 * confirmed booking of this calendar (written just before a crash kept the record).
 */
function ownEvent(local: Local): (href: string) => boolean {
  const confirmedIds = new Set(local.confirmed.map((b) => b.id));
  return (href) => local.ownHrefs.has(href) || confirmedIds.has(bookingIdOfHref(href) ?? '');
}

/**
 * Events Holdfast wrote that the collection no longer has (removed, or not listed by a full
 * listing) are forgotten so they are written again; those edited there are written over.
 */
function ownRemoteState(
  changes: RemoteChanges & { readonly skipped: readonly { href: string; etag: string | null }[] },
  pushed: readonly PushedEvent[],
) {
  const listed = new Map(changes.skipped.map((s) => [s.href, s.etag]));
  const removed = new Set(changes.removed);
  const gone = pushed.filter((p) => removed.has(p.href) || (changes.full && !listed.has(p.href)));
  const edited = new Set(
    pushed
      .filter((p) => {
        const etag = listed.get(p.href);
        return etag !== undefined && etag !== null && p.etag !== null && !sameEtag(etag, p.etag);
      })
      .map((p) => p.bookingId),
  );
  return { gone, edited };
}

/**
 * Writes what the plan says (at most MAX_WRITES), each under the lease (extended as it goes).
 * The intent is recorded before each write and the result after it: a crash in between leaves a
 * record the next sync completes (or removes, if the booking was cancelled meanwhile).
 */
async function push(
  deps: AppDeps,
  kit: CaldavKit,
  owner: string,
  c: LeasedConnection,
  account: CaldavAccount,
  local: Local,
  ownState: ReturnType<typeof ownRemoteState>,
) {
  const until = () => deps.clock.now() + CALDAV_LEASE_MS;
  const underLease = async (write: (tx: StoreTx) => Promise<boolean>) => {
    if (!(await deps.store.write(write))) throw new LeaseLost('lease lost to another instance');
  };
  const goneIds = new Set(ownState.gone.map((g) => g.bookingId));
  for (const g of ownState.gone)
    await underLease((tx) => tx.caldav.forgetPush(owner, until(), c.id, g.bookingId));
  const pushed = local.pushed
    .filter((p) => !goneIds.has(p.bookingId))
    .map((p) => (ownState.edited.has(p.bookingId) ? { ...p, version: -1 } : p));
  const plan = planPushes(local.confirmed, pushed, local.current);
  const base = decodedPath(new URL(c.collectionUrl).pathname);
  let budget = MAX_WRITES;
  let written = 0;
  let deleted = 0;
  const write = async (
    booking: Booking,
    href: string,
    etag: string | 'new' | null,
    replaced: string | null,
  ) => {
    const record = (version: number, newEtag: string | null) =>
      underLease((tx) =>
        tx.caldav.recordPush(
          owner,
          until(),
          c.id,
          { bookingId: booking.id, href, version, etag: newEtag, end: booking.end },
          replaced,
        ),
      );
    await record(-1, null);
    const ics = kit.events.bookingEventIcs({
      booking,
      calendarName: local.calendar.name,
      eventOf: bookingIdOfHref(href) ?? booking.id,
      shareContact: c.shareContact,
      now: deps.clock.now(),
    });
    await record(booking.version, await kit.client.put(account, href, ics, etag));
    written += 1;
  };
  for (const booking of plan.create)
    if (budget-- > 0) await write(booking, `${base}${eventName(booking.id)}`, 'new', null);
  for (const { booking, at } of plan.update)
    if (budget-- > 0)
      await write(booking, at.href, at.etag, at.bookingId === booking.id ? null : at.bookingId);
  for (const gone of plan.remove) {
    if (budget-- <= 0) break;
    await kit.client.remove(account, gone.href);
    await underLease((tx) => tx.caldav.forgetPush(owner, until(), c.id, gone.bookingId));
    deleted += 1;
  }
  return { written, deleted };
}

/** The stored events with this sync's changes applied. */
function applied(stored: readonly RemoteEvent[], changes: RemoteChanges): RemoteEvent[] {
  if (changes.full) return [...changes.changed];
  const dropped = new Set([...changes.removed, ...changes.changed.map((e) => e.href)]);
  return [...stored.filter((e) => !dropped.has(e.href)), ...changes.changed];
}

/**
 * One leased connection: list what changed in the collection since the last token (outside any
 * transaction), write the bookings that changed, then in one transaction store the events, the
 * token, the calendar's busy time from them and the overlaps. A failure keeps the last good state.
 */
async function syncLeased(
  deps: AppDeps,
  kit: CaldavKit,
  owner: string,
  c: LeasedConnection,
): Promise<SyncOutcome> {
  try {
    const account = accountOf(kit, c, c.sealedPassword);
    const local = await readLocal(deps, c);
    const changes = await kit.client.changes(account, c.syncToken, ownEvent(local));
    const { written, deleted } = await push(
      deps,
      kit,
      owner,
      c,
      account,
      local,
      ownRemoteState(changes, local.pushed),
    );
    const events = applied(local.stored, changes);
    const now = deps.clock.now();
    const unchanged = !changes.full && changes.changed.length === 0 && changes.removed.length === 0;
    const fresh = c.lastOkAt !== null && now - c.lastOkAt < RECOMPUTE_MS;
    let busyCount = c.busyCount;
    let overlapCount = 0;
    let unreadable = 0;
    const kept = await (async () => {
      if (unchanged && fresh)
        return deps.store.write((tx) =>
          tx.caldav.finish(owner, c, changes, { events: events.length, busy: busyCount }, null, now),
        );
      const window = importWindow(now, rulesOf(local.calendar).maximumHorizonDays);
      const read = kit.events.remoteBusyOf(events, window);
      unreadable = read.unreadable;
      const zone = local.calendar.timeZone;
      const busy = busyPieces(
        read.busy.flatMap((e) => e.items),
        zone,
        window,
      );
      const byHref = new Map(events.map((e) => [e.href, e]));
      const overlaps = overlapsOf(
        local.confirmed,
        read.busy.map((e) => ({
          href: e.href,
          summary: () => kit.events.eventSummary(byHref.get(e.href)!),
          pieces: busyPieces(e.items, zone, window),
        })),
        c.id,
      );
      busyCount = busy.length;
      overlapCount = overlaps.length;
      return deps.store.write(async (tx) => {
        const ok = await tx.caldav.finish(
          owner,
          c,
          changes,
          { events: events.length, busy: busy.length },
          overlaps,
          now,
        );
        if (!ok) return false;
        await tx.feeds.replaceSourceBusy(c.tenantId, c.calendarId, c.id, busy);
        tx.afterCommit(() => deps.slotCache.invalidate(c.tenantId, [c.calendarId]));
        return true;
      });
    })();
    if (!kept) throw new LeaseLost('lease lost to another instance');
    return {
      id: c.id,
      ok: true,
      pulled: changes.changed.length,
      removed: changes.removed.length,
      written,
      deleted,
      busy: busyCount,
      overlaps: overlapCount,
      unreadable,
    };
  } catch (error) {
    const message = shown(error);
    if (!(error instanceof LeaseLost))
      await deps.store
        .write((tx) => tx.caldav.recordFailure(owner, c, message, deps.clock.now()))
        .catch(() => undefined);
    return { id: c.id, ok: false, error: message };
  }
}

/** `caldav sync ID`: now, due or not, unless another process holds its lease. */
export async function syncCaldavNow(
  deps: AppDeps,
  kit: CaldavKit,
  owner: string,
  tenantId: string,
  id: string,
): Promise<SyncOutcome> {
  const now = deps.clock.now();
  const [leased] = await deps.store.write((tx) =>
    tx.caldav.lease(owner, now, now + CALDAV_LEASE_MS, 1, { tenantId, id }),
  );
  if (!leased) {
    const exists = (await deps.store.read((tx) => tx.caldav.list(tenantId))).some((c) => c.id === id);
    if (!exists) throw new DomainError('NOT_FOUND', `No CalDAV connection ${id} in ${tenantId}.`, {});
    throw new DomainError(
      'INVALID_STATE',
      `CalDAV connection ${id} is being synced elsewhere right now (another instance or command).`,
      {},
    );
  }
  return syncLeased(deps, kit, owner, leased);
}

/** The scheduler's pass: nothing when no connection is due; else leases what is due (across tenants and instances) and syncs it. */
export async function syncCaldavDue(
  deps: AppDeps,
  kit: () => Promise<CaldavKit>,
  owner: string,
): Promise<SyncOutcome[]> {
  const now = deps.clock.now();
  const due = await deps.store.read((tx) => tx.caldav.nextDue());
  if (due === null || due > now) return [];
  const leased = await deps.store.write((tx) => tx.caldav.lease(owner, now, now + CALDAV_LEASE_MS, PER_PASS));
  if (leased.length === 0) return [];
  const loaded = await kit();
  const outcomes: SyncOutcome[] = [];
  for (const connection of leased) outcomes.push(await syncLeased(deps, loaded, owner, connection));
  return outcomes;
}
