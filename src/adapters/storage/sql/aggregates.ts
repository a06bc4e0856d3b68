import type { AggregateName, Aggregates } from '../../../ports/store/index.js';
import { ApprovalsSql } from './approvals-sql.js';
import { AuditSql } from './audit-sql.js';
import { BookingsSql } from './bookings-sql.js';
import { CaldavSql } from './caldav-sql.js';
import { CalendarsSql } from './calendars-sql.js';
import { CustomersSql } from './customers-sql.js';
import { FeedsSql } from './feeds-sql.js';
import { IdempotencySql } from './idempotency-sql.js';
import { HostsSql } from './hosts-sql.js';
import { PeopleSql } from './people-sql.js';
import { SessionsSql } from './sessions-sql.js';
import { TenantsSql } from './tenants-sql.js';
import { TokensSql } from './tokens-sql.js';
import { InboxSql } from './inbox-sql.js';
import { OAuthSql } from './oauth-sql.js';
import { PasskeysSql } from './passkeys-sql.js';
import { SimulatedPaymentsSql } from './simulated-payments-sql.js';
import { StandingRulesSql } from './standing-rules-sql.js';
import { ChangeSetsSql } from './change-sets-sql.js';
import { ReceiptsSql } from './receipts-sql.js';
import { WaitlistSql } from './waitlist-sql.js';
import type { SqlDialect, SqlRunner } from './sql-runner.js';
import { WebhooksSql } from './webhooks-sql.js';

/** The class that implements aggregate `K` over one connection in shared SQL. */
export type AggregateClass<K extends AggregateName> = new (
  db: SqlRunner,
  dialect: SqlDialect,
) => Aggregates[K];

/** Where an engine replaces the shared SQL of an aggregate with its own (PostgreSQL's one-statement hold, its busy-time lock). */
export type AggregateOverrides = { readonly [K in AggregateName]?: AggregateClass<K> };

/**
 * The one registry of aggregates: the port's `Aggregates` interface names them, this maps each
 * to its shared-SQL class (the compiler refuses a missing one). The transaction, the single-call
 * view, the SQLite writer's protocol and its method lists are all derived from it.
 */
export const SQL_AGGREGATES: { readonly [K in AggregateName]: AggregateClass<K> } = {
  calendars: CalendarsSql,
  bookings: BookingsSql,
  customers: CustomersSql,
  idempotency: IdempotencySql,
  approvals: ApprovalsSql,
  standingRules: StandingRulesSql,
  changeSets: ChangeSetsSql,
  receipts: ReceiptsSql,
  waitlist: WaitlistSql,
  simulatedPayments: SimulatedPaymentsSql,
  audit: AuditSql,
  tenants: TenantsSql,
  people: PeopleSql,
  sessions: SessionsSql,
  tokens: TokensSql,
  hosts: HostsSql,
  passkeys: PasskeysSql,
  oauth: OAuthSql,
  inbox: InboxSql,
  webhooks: WebhooksSql,
  feeds: FeedsSql,
  caldav: CaldavSql,
};

export const AGGREGATE_NAMES = Object.keys(SQL_AGGREGATES) as readonly AggregateName[];

/** Builds one object per aggregate: `make(name)` for each name of the registry. */
export function eachAggregate(make: <K extends AggregateName>(name: K) => Aggregates[K]): Aggregates {
  return Object.fromEntries(AGGREGATE_NAMES.map((name) => [name, make(name)])) as unknown as Aggregates;
}

/** The methods a caller may invoke on an aggregate (its class's own, the shared-SQL surface). */
export function methodsOf(name: AggregateName): readonly string[] {
  return METHODS.get(name) ?? [];
}

const METHODS = new Map(
  AGGREGATE_NAMES.map((name) => [
    name,
    Object.getOwnPropertyNames(SQL_AGGREGATES[name].prototype).filter((m) => m !== 'constructor'),
  ]),
);
