import type { Booking } from '../booking/booking.js';
import type { Instant } from '../time/instant.js';

/**
 * A Holdfast calendar connected to a CalDAV collection: the collection's events are the
 * calendar's external busy time, and its confirmed bookings are written there as events.
 */
export interface CaldavConnection {
  readonly id: string;
  readonly tenantId: string;
  readonly calendarId: string;
  /** The collection's URL (no user name or password in it). */
  readonly collectionUrl: string;
  readonly username: string;
  /** OAuth 2.0 sign-in (Google): the token endpoint and client; null: a user name and password. */
  readonly oauth: { readonly tokenUrl: string; readonly clientId: string } | null;
  /** Whether the events written carry the customer's name, e-mail and phone (the owner's choice). */
  readonly shareContact: boolean;
  readonly everyMs: number;
  readonly createdAt: Instant;
  readonly nextRunAt: Instant;
  readonly lastOkAt: Instant | null;
  /** The last failure, kept until a sync succeeds; the busy time of the last good one stays. */
  readonly lastError: string | null;
  readonly lastErrorAt: Instant | null;
  /** Remote events known (Holdfast's own left out). */
  readonly eventCount: number;
  readonly busyCount: number;
}

/** A remote event as last synced: its address, version and text. */
export interface RemoteEvent {
  readonly href: string;
  readonly etag: string | null;
  readonly ics: string;
}

/** A confirmed booking written to the collection: where, at which of its versions, and the server's etag. */
export interface PushedEvent {
  readonly bookingId: string;
  readonly href: string;
  readonly version: number;
  readonly etag: string | null;
  readonly end: Instant;
}

/** A remote event that overlaps a confirmed booking, for the people who run the calendar. */
export interface ExternalOverlap {
  readonly bookingId: string;
  readonly connectionId: string;
  readonly href: string;
  readonly summary: string | null;
  readonly start: Instant;
  readonly end: Instant;
}

/** What one sync writes to the collection. */
export interface PushPlan {
  /** New events: the booking was confirmed (or its event was removed remotely). */
  readonly create: readonly Booking[];
  /** Events rewritten in place: the booking changed, was moved (`from` is the booking it replaced), or its event was edited remotely. */
  readonly update: readonly { readonly booking: Booking; readonly at: PushedEvent }[];
  /** Events removed: the booking is no longer confirmed and nothing replaced it. */
  readonly remove: readonly PushedEvent[];
}

/** A URL path as the same event's name everywhere: decoded, or as given when it cannot be. */
export function decodedPath(path: string): string {
  try {
    return decodeURIComponent(path);
  } catch {
    return path;
  }
}

/** Holdfast names the events it writes after the booking, so a write repeated after a crash lands on the same event. */
export const eventName = (bookingId: string) => `holdfast-${bookingId}.ics`;

/** The booking id an event's (decoded) address names, if it is named as Holdfast names its events; null otherwise. */
export function bookingIdOfHref(href: string): string | null {
  const match = /(?:^|\/)holdfast-([A-Za-z0-9_-]{1,80})\.ics$/.exec(href);
  return match ? match[1]! : null;
}

/**
 * What to write: `confirmed` are the calendar's confirmed bookings that have not ended,
 * `pushed` the events written before (`current`: each pushed booking as it is now, null when
 * gone). A booking that replaced a pushed one (a move) takes over its event.
 */
export function planPushes(
  confirmed: readonly Booking[],
  pushed: readonly PushedEvent[],
  current: ReadonlyMap<string, Booking | null>,
): PushPlan {
  const pushedBy = new Map(pushed.map((p) => [p.bookingId, p]));
  const movedFrom = new Map<string, PushedEvent>();
  const create: Booking[] = [];
  const update: { booking: Booking; at: PushedEvent }[] = [];
  for (const booking of confirmed) {
    const at = pushedBy.get(booking.id);
    if (at) {
      if (at.version !== booking.version) update.push({ booking, at });
      continue;
    }
    const replaced = booking.replaces ? pushedBy.get(booking.replaces) : undefined;
    if (replaced && current.get(replaced.bookingId)?.status !== 'CONFIRMED') {
      movedFrom.set(replaced.bookingId, replaced);
      update.push({ booking, at: replaced });
    } else create.push(booking);
  }
  const confirmedIds = new Set(confirmed.map((b) => b.id));
  const remove = pushed.filter((p) => {
    if (confirmedIds.has(p.bookingId) || movedFrom.has(p.bookingId)) return false;
    const now = current.get(p.bookingId);
    return now === undefined ? false : now === null || now.status !== 'CONFIRMED';
  });
  return { create, update, remove };
}

/** Servers differ in how they quote an etag (and may mark it weak) between a PUT and a listing. */
export const sameEtag = (a: string, b: string) =>
  a.replace(/^W\//, '').replace(/"/g, '') === b.replace(/^W\//, '').replace(/"/g, '');

/** Changes one sync brought from the collection. */
export interface RemoteChanges {
  /** The collection's new sync token. */
  readonly token: string;
  /** Every event was listed (first sync, or the old token was refused): those not listed are gone. */
  readonly full: boolean;
  readonly changed: readonly RemoteEvent[];
  readonly removed: readonly string[];
}

/** Overlaps shown per connection; more are summed up by the count of bookings. */
export const MAX_OVERLAPS = 500;

/**
 * Which remote events overlap which confirmed bookings: `events` are each event's busy pieces
 * (exact instants). Holdfast refuses holds over busy time, so an overlap means the event came
 * (or moved) there after the booking.
 */
export function overlapsOf(
  bookings: readonly Pick<Booking, 'id' | 'start' | 'end' | 'status'>[],
  events: readonly {
    readonly href: string;
    readonly summary: () => string | null;
    readonly pieces: readonly { start: Instant; end: Instant }[];
  }[],
  connectionId: string,
): ExternalOverlap[] {
  const found: ExternalOverlap[] = [];
  for (const event of events)
    for (const piece of event.pieces)
      for (const booking of bookings) {
        if (booking.status !== 'CONFIRMED' || piece.start >= booking.end || piece.end <= booking.start)
          continue;
        if (found.length >= MAX_OVERLAPS) return found;
        found.push({
          bookingId: booking.id,
          connectionId,
          href: event.href,
          summary: event.summary(),
          start: piece.start,
          end: piece.end,
        });
      }
  return found;
}
