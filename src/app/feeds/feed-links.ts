import type { FeedEvent } from '../../domain/feeds/calendar-feed.js';
import { feedEventsOf, feedWindow, MAX_FEED_EVENTS } from '../../domain/feeds/calendar-feed.js';
import type { FeedLink } from '../../domain/feeds/feeds.js';
import type { Calendar } from '../../domain/calendar.js';
import { DomainError } from '../../domain/errors.js';
import type { AppDeps } from '../deps.js';
import { ensureTenant } from '../identity/people.js';

/** Feed secrets: 32 random bytes after a recognisable prefix (256 bits; the address is the only key). */
export const FEED_PREFIX = 'hf_feed_';
const SECRET = /^hf_feed_[A-Za-z0-9_-]{43}$/;

export async function calendarOf(deps: AppDeps, tenantId: string, calendarId: string): Promise<Calendar> {
  const [calendar] = await deps.store.read((tx) => tx.calendars.get(tenantId, [calendarId]));
  if (!calendar)
    throw new DomainError('NOT_FOUND', `No calendar ${calendarId} in ${tenantId}.`, {
      calendarIds: [calendarId],
    });
  return calendar;
}

/** A new feed link of a calendar, and its secret: shown once, stored only as a hash. */
export async function createFeedLink(
  deps: AppDeps,
  tenantId: string,
  calendarId: string,
): Promise<{ link: FeedLink; secret: string }> {
  await calendarOf(deps, tenantId, calendarId);
  const secret = deps.credentials.newSecret(FEED_PREFIX);
  const link: FeedLink = {
    id: deps.ids.newId('feed'),
    tenantId,
    calendarId,
    createdAt: deps.clock.now(),
    revokedAt: null,
  };
  await deps.store.write(async (tx) => {
    await ensureTenant(deps, tx, tenantId);
    await tx.feeds.insertLink(link, deps.credentials.hashSecret(secret));
  });
  return { link, secret };
}

export const listFeedLinks = (deps: AppDeps, tenantId: string) =>
  deps.store.read((tx) => tx.feeds.links(tenantId));

export async function revokeFeedLink(deps: AppDeps, tenantId: string, id: string): Promise<void> {
  const revoked = await deps.store.write((tx) => tx.feeds.revokeLink(tenantId, id, deps.clock.now()));
  if (!revoked) throw new DomainError('NOT_FOUND', `No live feed link ${id} in ${tenantId}.`, {});
}

export interface CalendarFeed {
  readonly calendar: Calendar;
  readonly events: FeedEvent[];
}

/**
 * What a feed secret shows, or null when it names no live link (unknown, malformed and revoked
 * look the same). Looked up by the secret's hash, so the lookup reveals nothing about secrets.
 */
export async function calendarFeed(deps: AppDeps, secret: string): Promise<CalendarFeed | null> {
  if (!SECRET.test(secret)) return null;
  const now = deps.clock.now();
  const window = feedWindow(now);
  return deps.store.read(async (tx) => {
    const link = await tx.feeds.linkByHash(deps.credentials.hashSecret(secret));
    if (!link) return null;
    const [calendar] = await tx.calendars.get(link.tenantId, [link.calendarId]);
    if (!calendar) return null;
    const page = {
      now,
      offset: 0,
      limit: MAX_FEED_EVENTS,
      calendarId: calendar.id,
      from: window.start,
      to: window.end,
    };
    const confirmed = await tx.bookings.list(link.tenantId, { ...page, status: 'CONFIRMED' });
    const held = await tx.bookings.list(link.tenantId, { ...page, status: 'HELD' });
    return { calendar, events: feedEventsOf([...confirmed.items, ...held.items], now) };
  });
}
