import type { FeedLink, FeedSubscription } from '../../domain/feeds/feeds.js';
import type { Instant } from '../../domain/time/instant.js';
import type { Interval } from '../../domain/time/interval.js';

/** A subscription as `feeds subscriptions` shows it: bookings its busy time overlaps, by reference. */
export interface SubscriptionView extends FeedSubscription {
  readonly overlaps: readonly string[];
}

/** Published feed links, subscriptions to external calendars, and the busy time they bring. */
export interface FeedStore {
  /** Adds a feed link, keyed by the hash of its secret. */
  insertLink(link: FeedLink, secretHash: string): Promise<void>;
  /** The tenant's feed links, oldest first, revoked ones included. */
  links(tenantId: string): Promise<FeedLink[]>;
  /** The live link a secret's hash names, or null (unknown and revoked alike). */
  linkByHash(secretHash: string): Promise<FeedLink | null>;
  /** Marks a live link revoked; false when there is no live link of that id in the tenant. */
  revokeLink(tenantId: string, id: string, now: Instant): Promise<boolean>;

  /** Adds a subscription to an external calendar, with the schedule and state it is given; its id is new. */
  insertSubscription(subscription: FeedSubscription): Promise<void>;
  /** The tenant's subscriptions, oldest first, each with the references of the live bookings it overlaps. */
  subscriptions(tenantId: string, now: Instant): Promise<SubscriptionView[]>;
  /** Deletes a subscription and its busy time; false when there is none of that id in the tenant. */
  deleteSubscription(tenantId: string, id: string): Promise<boolean>;
  /**
   * Leases up to `limit` subscriptions due by `now` (or the one named by `only`, due or not)
   * that no other live lease holds, until `leaseUntil`: several instances never refresh one
   * subscription at once. Returns what it leased.
   */
  lease(
    owner: string,
    now: Instant,
    leaseUntil: Instant,
    limit: number,
    only?: { readonly tenantId: string; readonly id: string },
  ): Promise<FeedSubscription[]>;
  /**
   * A good refresh, while `owner` still holds the lease: replaces the subscription's busy time
   * with `busy` in this transaction (taking the calendar's busy-time lock where the engine
   * needs one), clears the error, schedules the next run and ends the lease. False: the lease
   * was lost (nothing written).
   */
  replaceBusy(
    owner: string,
    subscription: FeedSubscription,
    busy: readonly Interval[],
    now: Instant,
  ): Promise<boolean>;
  /**
   * Replaces the busy time another source (a CalDAV connection, by its id) brings to a calendar,
   * taking the calendar's busy-time lock where the engine needs one.
   */
  replaceSourceBusy(
    tenantId: string,
    calendarId: string,
    sourceId: string,
    busy: readonly Interval[],
  ): Promise<void>;
  /** A failed refresh: keeps the busy time, records the error and when, schedules the next run, ends the lease. */
  recordFailure(owner: string, subscription: FeedSubscription, error: string, now: Instant): Promise<void>;
}
