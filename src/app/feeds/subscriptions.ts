import { rulesOf } from '../../domain/calendar.js';
import { DomainError } from '../../domain/errors.js';
import { busyPieces, importWindow } from '../../domain/feeds/external-busy.js';
import type { FeedSubscription } from '../../domain/feeds/feeds.js';
import { DEFAULT_EVERY_MS } from '../../domain/feeds/feeds.js';
import type { BusyFeedReader } from '../../ports/busy-feed.js';
import { FeedReadError } from '../../ports/busy-feed.js';
import type { AppDeps } from '../deps.js';
import { ensureTenant } from '../identity/people.js';
import { calendarOf } from './feed-links.js';

/** A lease outlives the slowest fetch (the reader's timeout) with room to spare. */
export const LEASE_MS = 2 * 60_000;
/** Subscriptions refreshed per pass of the scheduler. */
const PER_PASS = 10;

export async function subscribe(
  deps: AppDeps,
  reader: BusyFeedReader,
  tenantId: string,
  calendarId: string,
  source: string,
  everyMs: number = DEFAULT_EVERY_MS,
): Promise<FeedSubscription> {
  const refused = reader.check(source);
  if (refused) throw new DomainError('INVALID_ARGUMENTS', `source: ${refused}`, { field: 'source' });
  await calendarOf(deps, tenantId, calendarId);
  const now = deps.clock.now();
  const subscription: FeedSubscription = {
    id: deps.ids.newId('sub'),
    tenantId,
    calendarId,
    source,
    everyMs,
    createdAt: now,
    nextRunAt: now,
    lastOkAt: null,
    lastError: null,
    lastErrorAt: null,
    busyCount: 0,
  };
  await deps.store.write(async (tx) => {
    await ensureTenant(deps, tx, tenantId);
    await tx.feeds.insertSubscription(subscription);
  });
  return subscription;
}

export const listSubscriptions = (deps: AppDeps, tenantId: string) =>
  deps.store.read((tx) => tx.feeds.subscriptions(tenantId, deps.clock.now()));

export async function unsubscribe(deps: AppDeps, tenantId: string, id: string): Promise<void> {
  const calendarId = (await listSubscriptions(deps, tenantId)).find((s) => s.id === id)?.calendarId;
  const deleted = await deps.store.write((tx) => tx.feeds.deleteSubscription(tenantId, id));
  if (!deleted) throw new DomainError('NOT_FOUND', `No feed subscription ${id} in ${tenantId}.`, {});
  if (calendarId) deps.slotCache.invalidate(tenantId, [calendarId]);
}

export type RefreshOutcome =
  | { readonly id: string; readonly ok: true; readonly busy: number }
  | { readonly id: string; readonly ok: false; readonly error: string };

/** Messages a reader did not word (a bug, a driver) are not shown: they may carry anything. */
const shown = (error: unknown) =>
  error instanceof FeedReadError ? error.message.slice(0, 300) : 'internal error while reading the feed';

/**
 * One leased subscription: read outside any transaction, then in one transaction replace its
 * busy time (a good read) or record the failure and keep the last good busy time (a bad one).
 */
async function refreshLeased(
  deps: AppDeps,
  reader: BusyFeedReader,
  owner: string,
  subscription: FeedSubscription,
): Promise<RefreshOutcome> {
  const { id } = subscription;
  try {
    const calendar = await calendarOf(deps, subscription.tenantId, subscription.calendarId);
    const window = importWindow(deps.clock.now(), rulesOf(calendar).maximumHorizonDays);
    const items = await reader.read(subscription.source, window);
    const busy = busyPieces(items, calendar.timeZone, window);
    const now = deps.clock.now();
    const kept = await deps.store.write((tx) => {
      tx.afterCommit(() => deps.slotCache.invalidate(subscription.tenantId, [subscription.calendarId]));
      return tx.feeds.replaceBusy(owner, subscription, busy, now);
    });
    return kept
      ? { id, ok: true, busy: busy.length }
      : { id, ok: false, error: 'lease lost to another instance' };
  } catch (error) {
    const message = shown(error);
    await deps.store
      .write((tx) => tx.feeds.recordFailure(owner, subscription, message, deps.clock.now()))
      .catch(() => undefined);
    return { id, ok: false, error: message };
  }
}

/** `feeds refresh ID`: now, due or not, unless another process holds its lease. */
export async function refreshSubscription(
  deps: AppDeps,
  reader: BusyFeedReader,
  owner: string,
  tenantId: string,
  id: string,
): Promise<RefreshOutcome> {
  const now = deps.clock.now();
  const [leased] = await deps.store.write((tx) =>
    tx.feeds.lease(owner, now, now + LEASE_MS, 1, { tenantId, id }),
  );
  if (!leased) {
    const exists = (await listSubscriptions(deps, tenantId)).some((s) => s.id === id);
    if (!exists) throw new DomainError('NOT_FOUND', `No feed subscription ${id} in ${tenantId}.`, {});
    throw new DomainError(
      'INVALID_STATE',
      `Feed subscription ${id} is being refreshed elsewhere right now (another instance or command).`,
      {},
    );
  }
  return refreshLeased(deps, reader, owner, leased);
}

/** The scheduler's pass: leases what is due (across tenants and instances) and refreshes it. */
export async function refreshDue(
  deps: AppDeps,
  reader: BusyFeedReader,
  owner: string,
): Promise<RefreshOutcome[]> {
  const now = deps.clock.now();
  const leased = await deps.store.write((tx) => tx.feeds.lease(owner, now, now + LEASE_MS, PER_PASS));
  const outcomes: RefreshOutcome[] = [];
  for (const subscription of leased) outcomes.push(await refreshLeased(deps, reader, owner, subscription));
  return outcomes;
}
