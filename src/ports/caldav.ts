import type { Booking } from '../domain/booking/booking.js';
import type { RemoteChanges, RemoteEvent } from '../domain/calendar-sync/caldav.js';
import type { ExternalBusyItem } from '../domain/feeds/external-busy.js';
import type { Interval } from '../domain/time/interval.js';

/** Thrown by a CalDAV client when the server cannot be used; its message is shown to the operator as is. */
export class CaldavError extends Error {
  override readonly name = 'CaldavError';
}

/** OAuth 2.0 sign-in (Google): the token endpoint, the client, and the refresh token the person granted. */
export interface CaldavOAuth {
  readonly tokenUrl: string;
  readonly clientId: string;
  readonly clientSecret: string;
  readonly refreshToken: string;
}

/** Where a collection is and how to sign in to it: a user name and (app) password, or OAuth 2.0. */
export interface CaldavAccount {
  readonly collectionUrl: string;
  readonly username: string;
  /** Basic sign-in; unused with `oauth`. */
  readonly password: string;
  readonly oauth?: CaldavOAuth;
}

/**
 * A CalDAV collection, within the client's limits (time, size, addresses). Every method throws
 * CaldavError, worded for the operator; none of them throws anything else.
 */
export interface CaldavClient {
  /** Why this URL cannot be used, or null. */
  check(collectionUrl: string): string | null;
  /** Signs in and reads the collection's name: proof the account and URL work. */
  probe(account: CaldavAccount): Promise<{ readonly displayName: string | null }>;
  /**
   * What changed since `token` (sync-collection, RFC 6578), with the events' texts; every event
   * when `token` is null or the server no longer knows it. `skip` names events not to download.
   */
  changes(
    account: CaldavAccount,
    token: string | null,
    skip: (href: string) => boolean,
  ): Promise<RemoteChanges & { readonly skipped: readonly { href: string; etag: string | null }[] }>;
  /**
   * Writes an event at `href`: created when `etag` is 'new' (refused when one exists: then
   * written over, it is Holdfast's own name), replaced otherwise. Returns the new etag if told.
   */
  put(account: CaldavAccount, href: string, ics: string, etag: string | 'new' | null): Promise<string | null>;
  /** Removes an event; gone already counts as removed. */
  remove(account: CaldavAccount, href: string): Promise<void>;
}

/** The event-level work of a sync, kept out of the application: rendering a booking, reading remote events. */
export interface CaldavEvents {
  /** A confirmed booking as an iCalendar event; `eventOf` is the booking whose UID the event keeps (a move keeps it). */
  bookingEventIcs(input: {
    readonly booking: Booking;
    readonly calendarName: string;
    readonly eventOf: string;
    readonly shareContact: boolean;
    readonly now: number;
  }): string;
  /** Each remote event's busy instances in `window`; unreadable events are counted and left out. */
  remoteBusyOf(
    events: readonly RemoteEvent[],
    window: Interval,
  ): {
    readonly busy: readonly {
      readonly href: string;
      readonly items: readonly ExternalBusyItem[];
    }[];
    readonly unreadable: number;
  };
  /** The event's title (for the people shown an overlap), or null. */
  eventSummary(event: RemoteEvent): string | null;
}

/** What a sync is given: the client, the event helpers, and the box the passwords are sealed in. */
export interface CaldavKit {
  readonly client: CaldavClient;
  readonly events: CaldavEvents;
  readonly secrets: { seal(secret: string): string; open(sealed: string): string };
}
