import type {
  ApprovalStore,
  AuditStore,
  BookingStore,
  CalendarStore,
  FeedStore,
  IdempotencyStore,
  IdentityStore,
  InboxStore,
  OAuthStore,
  PasskeyStore,
  SimulatedPaymentStore,
  StoreTx,
  WebhookStore,
} from '../../../ports/store/index.js';
import { ApprovalsSql } from './approvals-sql.js';
import { AuditSql } from './audit-sql.js';
import { BookingsSql } from './bookings-sql.js';
import { CalendarsSql } from './calendars-sql.js';
import { FeedsSql } from './feeds-sql.js';
import { IdempotencySql } from './idempotency-sql.js';
import { IdentitySql } from './identity-sql.js';
import { InboxSql } from './inbox-sql.js';
import { OAuthSql } from './oauth-sql.js';
import { PasskeysSql } from './passkeys-sql.js';
import { SimulatedPaymentsSql } from './simulated-payments-sql.js';
import type { SqlDialect, SqlRunner } from './sql-runner.js';
import { WebhooksSql } from './webhooks-sql.js';

/** Where an engine replaces the shared SQL of an aggregate with its own (PostgreSQL's one-statement hold, its busy-time lock). */
export interface AggregateOverrides {
  readonly bookings?: (db: SqlRunner, dialect: SqlDialect) => BookingStore;
  readonly feeds?: (db: SqlRunner, dialect: SqlDialect) => FeedStore;
}

/** Every aggregate over one connection inside one transaction; the store owns BEGIN and COMMIT. */
export class SqlStoreTx implements StoreTx {
  readonly calendars: CalendarStore;
  readonly bookings: BookingStore;
  readonly idempotency: IdempotencyStore;
  readonly approvals: ApprovalStore;
  readonly simulatedPayments: SimulatedPaymentStore;
  readonly audit: AuditStore;
  readonly identity: IdentityStore;
  readonly passkeys: PasskeyStore;
  readonly oauth: OAuthStore;
  readonly inbox: InboxStore;
  readonly webhooks: WebhookStore;
  readonly feeds: FeedStore;
  /** Run by the store once the transaction committed. */
  readonly committed: (() => void)[] = [];

  constructor(
    private readonly db: SqlRunner,
    private readonly dialect: SqlDialect,
    overrides: AggregateOverrides = {},
  ) {
    this.calendars = new CalendarsSql(db);
    this.bookings = overrides.bookings?.(db, dialect) ?? new BookingsSql(db, dialect);
    this.idempotency = new IdempotencySql(db);
    this.approvals = new ApprovalsSql(db);
    this.simulatedPayments = new SimulatedPaymentsSql(db);
    this.audit = new AuditSql(db);
    this.identity = new IdentitySql(db);
    this.passkeys = new PasskeysSql(db);
    this.oauth = new OAuthSql(db);
    this.inbox = new InboxSql(db);
    this.webhooks = new WebhooksSql(db, dialect);
    this.feeds = overrides.feeds?.(db, dialect) ?? new FeedsSql(db, dialect);
  }

  afterCommit(callback: () => void): void {
    this.committed.push(callback);
  }

  serialize(key: string): Promise<void> {
    return this.dialect.serialize(this.db, key);
  }
}
