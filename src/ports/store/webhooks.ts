import type { Instant } from '../../domain/time/instant.js';
import type { FailureRecord } from '../../domain/webhooks/failure-policy.js';
import type { WebhookEvent, WebhookEventType } from '../../domain/webhooks/webhook-events.js';

/** A tenant's receiver of booking events. Its secret is stored sealed and never read back here. */
export interface WebhookSubscription {
  readonly id: string;
  readonly tenantId: string;
  readonly url: string;
  readonly events: readonly WebhookEventType[];
  /** Customer email and phone unmasked in payloads (opted in when created). */
  readonly includeContact: boolean;
  readonly createdAt: Instant;
  /** The person (or `operator-cli`) who added it. */
  readonly createdBy: string;
  readonly disabledAt: Instant | null;
  readonly disabledReason: string | null;
  readonly failure: FailureRecord;
}

/** A delivery claimed for one attempt, with what sending it needs. */
export interface DueDelivery {
  readonly event: WebhookEvent;
  readonly subscriptionId: string;
  readonly url: string;
  readonly includeContact: boolean;
  readonly sealedSecret: string;
  /** Attempts already made in this round (a redelivery starts a new round). */
  readonly attempts: number;
  /** Attempts ever made, for the attempt log's numbering. */
  readonly totalAttempts: number;
}

/** The result of one attempt, and what happens next. */
export interface AttemptResult {
  readonly tenantId: string;
  readonly eventId: string;
  readonly subscriptionId: string;
  /** Only the lease holder may record: a lease that lapsed meanwhile belongs to someone else. */
  readonly leaseOwner: string;
  readonly at: Instant;
  readonly statusCode: number | null;
  readonly durationMs: number;
  readonly error: string | null;
  readonly delivered: boolean;
  /** When to try again; null with `delivered` false: the round is spent and the delivery failed. */
  readonly nextAttemptAt: Instant | null;
}

export type DeliveryState = 'pending' | 'delivered' | 'failed';

export interface DeliveryView {
  readonly eventId: string;
  readonly subscriptionId: string;
  readonly type: WebhookEventType;
  readonly bookingId: string;
  readonly eventCreatedAt: Instant;
  readonly state: DeliveryState;
  readonly attempts: number;
  readonly nextAttemptAt: Instant | null;
  readonly lastStatus: number | null;
  readonly lastError: string | null;
}

export interface AttemptView {
  readonly eventId: string;
  readonly subscriptionId: string;
  readonly attempt: number;
  readonly at: Instant;
  readonly statusCode: number | null;
  readonly durationMs: number;
  readonly error: string | null;
  readonly nextAttemptAt: Instant | null;
}

/**
 * Subscriptions, the outbox of booking events and their deliveries. The engines record the
 * events of booking changes themselves, in the statement that makes the change (migration 16);
 * `record` is for changes no status column shows (a reschedule).
 */
export interface WebhookStore {
  /**
   * Writes `event` to the outbox with one delivery per active subscription of its tenant that
   * wants its type, in the caller's transaction. Nothing when none does; returns whether written.
   */
  record(event: WebhookEvent): Promise<boolean>;
  /** Stores a new subscription with its sealed secret. */
  add(subscription: WebhookSubscription, sealedSecret: string): Promise<void>;
  /** The tenant's subscriptions, oldest first. */
  list(tenantId: string): Promise<WebhookSubscription[]>;
  /** Removes a subscription with its deliveries and attempt log; false when there is none. */
  remove(tenantId: string, id: string): Promise<boolean>;
  /** Switches a subscription off with the reason a person will read; false when already off or gone. */
  disable(tenantId: string, id: string, now: Instant, reason: string): Promise<boolean>;
  /** Switches it on again with a clean failure record; false when there is none. */
  enable(tenantId: string, id: string): Promise<boolean>;
  /**
   * Leases up to `limit` pending deliveries due at `now` of active subscriptions, oldest event
   * first, to `owner` until `leaseUntil`; deliveries leased to anyone else until later are skipped
   * (and on PostgreSQL rows another claimer holds), so each attempt is made by one instance.
   */
  claimDue(now: Instant, owner: string, leaseUntil: Instant, limit: number): Promise<DueDelivery[]>;
  /**
   * Logs the attempt, moves the delivery on and updates its subscription's failure record, if
   * `result.leaseOwner` still holds the lease. Returns the subscription's record; null when the
   * lease was lost (nothing written).
   */
  finishAttempt(result: AttemptResult): Promise<FailureRecord | null>;
  /** Gives a claimed delivery back unsent (no time left on its lease to send it); false when not ours. */
  release(tenantId: string, eventId: string, subscriptionId: string, owner: string): Promise<boolean>;
  /** The tenant's deliveries, newest event first (one subscription's when given). */
  deliveries(tenantId: string, subscriptionId: string | null, limit: number): Promise<DeliveryView[]>;
  /** One event's attempts, in order. */
  attempts(tenantId: string, eventId: string): Promise<AttemptView[]>;
  /** Starts a new round for each delivery of the event (due at `now`); returns how many. */
  redeliver(tenantId: string, eventId: string, now: Instant): Promise<number>;
}
