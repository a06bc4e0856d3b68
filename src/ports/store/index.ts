import type { ApprovalStore } from './approvals.js';
import type { StandingRuleStore } from './standing-rules.js';
import type { ChangeSetStore } from './change-sets.js';
import type { ReceiptStore } from './receipts.js';
import type { WaitlistStore } from './waitlist.js';
import type { CaldavStore } from './caldav.js';
import type { AuditStore } from './audit.js';
import type { BookingStore } from './bookings.js';
import type { CalendarStore } from './calendars.js';
import type { CustomerStore } from './customers.js';
import type { IdempotencyStore } from './idempotency.js';
import type { FeedStore } from './feeds.js';
import type { HostStore, PeopleStore, SessionStore, TenantStore, TokenStore } from './identity.js';
import type { InboxStore } from './inbox.js';
import type { OAuthStore } from './oauth.js';
import type { PasskeyStore } from './passkeys.js';
import type { SimulatedPaymentStore } from './simulated-payments.js';
import type { WebhookStore } from './webhooks.js';

export type { ApprovalStore } from './approvals.js';
export type { StandingRuleStore } from './standing-rules.js';
export type { ChangeSetStore } from './change-sets.js';
export type { ReceiptStore, StoredReceipt } from './receipts.js';
export type { WaitlistStore } from './waitlist.js';
export type { CaldavStore, LeasedConnection } from './caldav.js';
export type { AuditStore } from './audit.js';
export type {
  BookingQuery,
  BookingStore,
  CalendarSpan,
  HeldByPerson,
  HoldCap,
  HoldPlacement,
  HoldPlan,
  LimitCheck,
} from './bookings.js';
export { ReferenceTakenError } from './bookings.js';
export type { CalendarDetails, CalendarStore, Page } from './calendars.js';
export type { CustomerStore } from './customers.js';
export type { IdempotencyRecord, IdempotencyScope, IdempotencyStore } from './idempotency.js';
export type { SimulatedPaymentStore } from './simulated-payments.js';
export type {
  Credential,
  HostStore,
  PeopleStore,
  SessionStore,
  SetupLink,
  TenantStore,
  TokenStore,
} from './identity.js';
export type { OAuthRecord, OAuthStore, SealedSigningKey } from './oauth.js';
export type { PasskeyStore } from './passkeys.js';
export type { FeedStore, SubscriptionView } from './feeds.js';
export type { ConversationKey, InboxStore, TaskSubject } from './inbox.js';
export type {
  AttemptResult,
  AttemptView,
  DeliveryState,
  DeliveryView,
  DueDelivery,
  WebhookStore,
  WebhookSubscription,
} from './webhooks.js';

/**
 * Every aggregate of the store, declared here once: the SQL adapter's registry must name an
 * implementation for each (its type is derived from this interface), and the transaction, the
 * single-call view and the SQLite writer's protocol are all built from that registry.
 */
export interface Aggregates {
  readonly calendars: CalendarStore;
  readonly bookings: BookingStore;
  /** Customers as bookings name them. */
  readonly customers: CustomerStore;
  readonly idempotency: IdempotencyStore;
  readonly approvals: ApprovalStore;
  /** People's standing approvals. */
  readonly standingRules: StandingRuleStore;
  /** Holds, moves and cancellations proposed and committed as one. */
  readonly changeSets: ChangeSetStore;
  /** Confirmed bookings' signed receipts and their signing keys. */
  readonly receipts: ReceiptStore;
  /** Wanted windows waiting for freed time, and who offers it. */
  readonly waitlist: WaitlistStore;
  readonly simulatedPayments: SimulatedPaymentStore;
  readonly audit: AuditStore;
  readonly tenants: TenantStore;
  readonly people: PeopleStore;
  /** People's browser sessions. */
  readonly sessions: SessionStore;
  /** Agents' bearer tokens. */
  readonly tokens: TokenStore;
  /** Hosts that attest who is at the keyboard. */
  readonly hosts: HostStore;
  readonly passkeys: PasskeyStore;
  readonly oauth: OAuthStore;
  readonly inbox: InboxStore;
  /** Webhook subscriptions, the outbox of booking events and its deliveries. */
  readonly webhooks: WebhookStore;
  readonly feeds: FeedStore;
  /** Calendars connected to CalDAV collections, both ways. */
  readonly caldav: CaldavStore;
}

/** The name of one aggregate on a transaction (`tx.bookings`, `tx.identity`, ...). */
export type AggregateName = keyof Aggregates;

/** One transaction over every aggregate: what a use case reads and writes commits together. */
export interface StoreTx extends Aggregates {
  /** Runs `callback` once this transaction has committed; never if it rolls back. */
  afterCommit(callback: () => void): void;
  /**
   * Serialises this transaction with every other transaction that calls it with the same
   * key, until it ends (check-then-insert quotas, seeding, the audit chain across instances).
   */
  serialize(key: string): Promise<void>;
}

/** Unit of work: every use case runs inside read or write transactions, never across them. */
export interface Store {
  /** A consistent snapshot; never blocks writers. */
  read<T>(work: (tx: StoreTx) => Promise<T>): Promise<T>;
  /** One atomic, durable transaction: `work` resolves only after its commit is on disk. */
  write<T>(work: (tx: StoreTx) => Promise<T>): Promise<T>;
  /**
   * A write that makes exactly one store call, which the engine may run as a single
   * autocommitted statement (one round trip on PostgreSQL). Same guarantees as `write`, for
   * the calls every engine makes atomic on their own: bookings.placeHold, bookings.expireLapsed,
   * audit.appendAll (and any single-statement read or write).
   */
  writeOne<T>(work: (tx: StoreTx) => Promise<T>): Promise<T>;
  /** A read of exactly one store call: one statement without a transaction where that is cheaper. */
  readOne<T>(work: (tx: StoreTx) => Promise<T>): Promise<T>;
  /** Closes the database connections (on SQLite, after stopping the writer); no call may follow. */
  close(): Promise<void>;
}
