import type {
  CaldavConnection,
  ExternalOverlap,
  PushedEvent,
  RemoteChanges,
  RemoteEvent,
} from '../../domain/calendar-sync/caldav.js';
import type { Instant } from '../../domain/time/instant.js';

/** A connection as its sync needs it: with the sealed password and the collection's last sync token. */
export interface LeasedConnection extends CaldavConnection {
  readonly sealedPassword: string;
  readonly syncToken: string | null;
}

/** Calendars connected to CalDAV collections: the events synced from them, the bookings written to them. */
export interface CaldavStore {
  /** Adds a connection, due at once, with its password as sealed. */
  insert(connection: CaldavConnection, sealedPassword: string): Promise<void>;
  /** The tenant's connections, oldest first, each with how many confirmed bookings its events overlap. */
  list(tenantId: string): Promise<(CaldavConnection & { readonly overlaps: number })[]>;
  /** Deletes a connection with its synced events, its record of written events and its overlaps; false when none. */
  delete(tenantId: string, id: string): Promise<boolean>;
  /** The earliest next run of any connection, or null when there is none (the scheduler's cheap check). */
  nextDue(): Promise<Instant | null>;
  /**
   * Leases up to `limit` connections due by `now` (or the one named by `only`, due or not) that
   * no other live lease holds, until `leaseUntil`: one instance syncs a collection at a time.
   */
  lease(
    owner: string,
    now: Instant,
    leaseUntil: Instant,
    limit: number,
    only?: { readonly tenantId: string; readonly id: string },
  ): Promise<LeasedConnection[]>;
  /** The remote events as last synced. */
  events(connectionId: string): Promise<RemoteEvent[]>;
  /** Events written for bookings that end after `since`. */
  pushed(connectionId: string, since: Instant): Promise<PushedEvent[]>;
  /** The addresses of every event written for this connection, ended bookings' too (never read back as busy time). */
  ownHrefs(connectionId: string): Promise<string[]>;
  /**
   * While `owner` holds the lease (extended to `leaseUntil`): records an event written or about
   * to be (replacing the record of the booking it moved, if any). False: the lease was lost.
   */
  recordPush(
    owner: string,
    leaseUntil: Instant,
    connectionId: string,
    event: PushedEvent,
    replaced: string | null,
  ): Promise<boolean>;
  /** While `owner` holds the lease: forgets a written event (removed here, or removed remotely: written again next time). */
  forgetPush(owner: string, leaseUntil: Instant, connectionId: string, bookingId: string): Promise<boolean>;
  /**
   * A good sync, while `owner` still holds the lease: applies `changes` to the stored events,
   * keeps the new token and counts, replaces the overlaps (unless null: kept as they are), schedules the next run and ends the
   * lease. False: the lease was lost (nothing written).
   */
  finish(
    owner: string,
    connection: LeasedConnection,
    changes: RemoteChanges,
    counts: { readonly events: number; readonly busy: number },
    overlaps: readonly ExternalOverlap[] | null,
    now: Instant,
  ): Promise<boolean>;
  /** A failed sync: keeps everything, records the error and when, schedules the next run, ends the lease. */
  recordFailure(owner: string, connection: CaldavConnection, error: string, now: Instant): Promise<void>;
  /** Remote events overlapping this booking, as the last sync found them. */
  overlapsOf(tenantId: string, bookingId: string): Promise<ExternalOverlap[]>;
}
