import type { Instant } from '../../../domain/time/instant.js';
import type { FailureRecord } from '../../../domain/webhooks/failure-policy.js';
import type { WebhookEvent, WebhookEventType } from '../../../domain/webhooks/webhook-events.js';
import type {
  AttemptResult,
  AttemptView,
  DeliveryState,
  DeliveryView,
  DueDelivery,
  WebhookStore,
  WebhookSubscription,
} from '../../../ports/store/index.js';
import type { BookingRow } from '../rows.js';
import { openedBookings, storedRow } from './customer-keys-sql.js';
import type { SqlDialect, SqlRunner } from './sql-runner.js';
import { placeholders } from './sql-runner.js';

type Num = number | string;

interface SubscriptionRow {
  tenant_id: string;
  id: string;
  url: string;
  events: string;
  include_contact: number | boolean;
  created_at: Num;
  created_by: string;
  disabled_at: Num | null;
  disabled_reason: string | null;
  failing_since: Num | null;
  failed_events: Num;
}

interface ClaimedRow {
  tenant_id: string;
  event_id: string;
  subscription_id: string;
  attempts: Num;
  total_attempts: Num;
  type: string;
  created_at: Num;
  booking: string;
  url: string;
  include_contact: number | boolean;
  secret_sealed: string;
}

const nullableNumber = (v: Num | null): number | null => (v === null ? null : Number(v));

/** ',a,b,': a type matches with instr()/strpos() of ',type,' in the triggers. */
const eventList = (types: readonly string[]) => `,${types.join(',')},`;

function subscriptionFromRow(row: SubscriptionRow): WebhookSubscription {
  return {
    id: row.id,
    tenantId: row.tenant_id,
    url: row.url,
    events: row.events.split(',').filter((t) => t !== '') as WebhookEventType[],
    includeContact: Boolean(row.include_contact),
    createdAt: Number(row.created_at),
    createdBy: row.created_by,
    disabledAt: nullableNumber(row.disabled_at),
    disabledReason: row.disabled_reason,
    failure: { failingSince: nullableNumber(row.failing_since), failedEvents: Number(row.failed_events) },
  };
}

/** Deliveries of one subscription claimed per round: a slow receiver sends about that many per lease anyway. */
const PER_SUBSCRIPTION = 5;

/** Subscriptions, outbox and deliveries, in the SQL both engines share. */
export class WebhooksSql implements WebhookStore {
  constructor(
    private readonly db: SqlRunner,
    private readonly dialect: SqlDialect,
  ) {}

  async record(event: WebhookEvent): Promise<boolean> {
    const snapshot = JSON.stringify(await storedRow(this.db, event.booking));
    const args = [event.tenantId, event.id, event.type, event.booking.id, event.createdAt, snapshot];
    if (this.dialect.recordWebhookEvent) {
      const [row] = await this.db.all<{ written: boolean }>(this.dialect.recordWebhookEvent, args);
      return row?.written === true;
    }
    const inserted = await this.db.run(
      `INSERT INTO webhook_events (tenant_id, id, type, booking_id, created_at, booking)
       SELECT ${placeholders(6)} WHERE EXISTS (SELECT 1 FROM webhook_subscriptions WHERE tenant_id = ?
         AND disabled_at IS NULL AND instr(events, ?) > 0)`,
      [...args, event.tenantId, `,${event.type},`],
    );
    if (inserted === 0) return false;
    await this.db.run(
      `INSERT INTO webhook_deliveries (tenant_id, event_id, subscription_id, event_seq, state, next_attempt_at)
       SELECT e.tenant_id, e.id, s.id, e.seq, 'pending', e.created_at
       FROM webhook_events e JOIN webhook_subscriptions s ON s.tenant_id = e.tenant_id
       WHERE e.id = ? AND s.disabled_at IS NULL AND instr(s.events, ',' || e.type || ',') > 0`,
      [event.id],
    );
    return true;
  }

  async add(s: WebhookSubscription, sealedSecret: string): Promise<void> {
    await this.db.run(
      `INSERT INTO webhook_subscriptions (tenant_id, id, url, events, include_contact, secret_sealed, created_at,
         created_by, disabled_at, disabled_reason, failing_since, failed_events)
       VALUES (${placeholders(12)})`,
      [
        s.tenantId,
        s.id,
        s.url,
        eventList(s.events),
        s.includeContact ? 1 : 0,
        sealedSecret,
        s.createdAt,
        s.createdBy,
        s.disabledAt,
        s.disabledReason,
        s.failure.failingSince,
        s.failure.failedEvents,
      ],
    );
  }

  async list(tenantId: string): Promise<WebhookSubscription[]> {
    const rows = await this.db.all<SubscriptionRow>(
      'SELECT * FROM webhook_subscriptions WHERE tenant_id = ? ORDER BY created_at, id',
      [tenantId],
    );
    return rows.map(subscriptionFromRow);
  }

  async remove(tenantId: string, id: string): Promise<boolean> {
    for (const table of ['webhook_attempts', 'webhook_deliveries'])
      await this.db.run(`DELETE FROM ${table} WHERE tenant_id = ? AND subscription_id = ?`, [tenantId, id]);
    return (
      (await this.db.run('DELETE FROM webhook_subscriptions WHERE tenant_id = ? AND id = ?', [
        tenantId,
        id,
      ])) === 1
    );
  }

  async disable(tenantId: string, id: string, now: Instant, reason: string): Promise<boolean> {
    const changed = await this.db.run(
      `UPDATE webhook_subscriptions SET disabled_at = ?, disabled_reason = ?
       WHERE tenant_id = ? AND id = ? AND disabled_at IS NULL`,
      [now, reason, tenantId, id],
    );
    return changed === 1;
  }

  async enable(tenantId: string, id: string): Promise<boolean> {
    const changed = await this.db.run(
      `UPDATE webhook_subscriptions SET disabled_at = NULL, disabled_reason = NULL, failing_since = NULL,
         failed_events = 0 WHERE tenant_id = ? AND id = ?`,
      [tenantId, id],
    );
    return changed === 1;
  }

  async claimDue(now: Instant, owner: string, leaseUntil: Instant, limit: number): Promise<DueDelivery[]> {
    // Fair across receivers: the subscriptions with something due, longest waiting first, and at
    // most a few deliveries of each, so one receiver's backlog cannot fill every round.
    const due = `d.state = 'pending' AND d.next_attempt_at <= ? AND (d.lease_until IS NULL OR d.lease_until <= ?)`;
    const waiting = await this.db.all<{ tenant_id: string; subscription_id: string }>(
      `SELECT d.tenant_id, d.subscription_id FROM webhook_deliveries d
       WHERE ${due} AND EXISTS (SELECT 1 FROM webhook_subscriptions s
                                WHERE s.tenant_id = d.tenant_id AND s.id = d.subscription_id AND s.disabled_at IS NULL)
       GROUP BY d.tenant_id, d.subscription_id ORDER BY min(d.event_seq) LIMIT ?`,
      [now, now, limit],
    );
    const claimed: { tenant_id: string; event_id: string; subscription_id: string }[] = [];
    for (const subscription of waiting) {
      if (claimed.length >= limit) break;
      claimed.push(
        ...(await this.db.all<{ tenant_id: string; event_id: string; subscription_id: string }>(
          `UPDATE webhook_deliveries SET lease_owner = ?, lease_until = ?
           WHERE (tenant_id, event_id, subscription_id) IN (
             SELECT d.tenant_id, d.event_id, d.subscription_id FROM webhook_deliveries d
             WHERE d.tenant_id = ? AND d.subscription_id = ? AND ${due}
             ORDER BY d.event_seq LIMIT ?${this.dialect.skipLocked})
           RETURNING tenant_id, event_id, subscription_id`,
          [
            owner,
            leaseUntil,
            subscription.tenant_id,
            subscription.subscription_id,
            now,
            now,
            Math.min(PER_SUBSCRIPTION, limit - claimed.length),
          ],
        )),
      );
    }
    if (claimed.length === 0) return [];
    const rows = await this.db.all<ClaimedRow>(
      `SELECT d.tenant_id, d.event_id, d.subscription_id, d.attempts, d.total_attempts, e.type, e.created_at,
         e.booking, s.url, s.include_contact, s.secret_sealed
       FROM webhook_deliveries d
       JOIN webhook_events e ON e.id = d.event_id
       JOIN webhook_subscriptions s ON s.tenant_id = d.tenant_id AND s.id = d.subscription_id
       WHERE d.lease_owner = ? AND (d.tenant_id, d.event_id, d.subscription_id) IN (VALUES ${claimed
         .map(() => '(?, ?, ?)')
         .join(', ')})
       ORDER BY d.event_seq`,
      [owner, ...claimed.flatMap((c) => [c.tenant_id, c.event_id, c.subscription_id])],
    );
    // The snapshots' customers open with the keys that still exist: an erased customer stays erased.
    const bookings = await openedBookings(
      this.db,
      rows.map((row) => JSON.parse(row.booking) as BookingRow),
    );
    return rows.map((row, i) => ({
      event: {
        id: row.event_id,
        tenantId: row.tenant_id,
        type: row.type as WebhookEventType,
        createdAt: Number(row.created_at),
        booking: bookings[i]!,
      },
      subscriptionId: row.subscription_id,
      url: row.url,
      includeContact: Boolean(row.include_contact),
      sealedSecret: row.secret_sealed,
      attempts: Number(row.attempts),
      totalAttempts: Number(row.total_attempts),
    }));
  }

  async finishAttempt(r: AttemptResult): Promise<FailureRecord | null> {
    const state: DeliveryState = r.delivered ? 'delivered' : r.nextAttemptAt === null ? 'failed' : 'pending';
    const [moved] = await this.db.all<{ total_attempts: Num }>(
      `UPDATE webhook_deliveries SET attempts = attempts + 1, total_attempts = total_attempts + 1, state = ?,
         next_attempt_at = ?, lease_owner = NULL, lease_until = NULL, last_status = ?, last_error = ?
       WHERE tenant_id = ? AND event_id = ? AND subscription_id = ? AND lease_owner = ? AND state = 'pending'
       RETURNING total_attempts`,
      [state, r.nextAttemptAt, r.statusCode, r.error, r.tenantId, r.eventId, r.subscriptionId, r.leaseOwner],
    );
    if (!moved) return null;
    await this.db.run(
      `INSERT INTO webhook_attempts (tenant_id, event_id, subscription_id, attempt, at, status_code, duration_ms,
         error, next_attempt_at) VALUES (${placeholders(9)})`,
      [
        r.tenantId,
        r.eventId,
        r.subscriptionId,
        Number(moved.total_attempts),
        r.at,
        r.statusCode,
        Math.round(r.durationMs),
        r.error,
        r.nextAttemptAt,
      ],
    );
    const [record] = await this.db.all<{ failing_since: Num | null; failed_events: Num }>(
      `UPDATE webhook_subscriptions SET
         failing_since = CASE WHEN ? = 1 THEN NULL ELSE coalesce(failing_since, ?) END,
         failed_events = CASE WHEN ? = 1 THEN 0 WHEN ? = 'failed' THEN failed_events + 1 ELSE failed_events END
       WHERE tenant_id = ? AND id = ?
       RETURNING failing_since, failed_events`,
      [r.delivered ? 1 : 0, r.at, r.delivered ? 1 : 0, state, r.tenantId, r.subscriptionId],
    );
    return record
      ? { failingSince: nullableNumber(record.failing_since), failedEvents: Number(record.failed_events) }
      : { failingSince: null, failedEvents: 0 };
  }

  async release(tenantId: string, eventId: string, subscriptionId: string, owner: string): Promise<boolean> {
    const changed = await this.db.run(
      `UPDATE webhook_deliveries SET lease_owner = NULL, lease_until = NULL
       WHERE tenant_id = ? AND event_id = ? AND subscription_id = ? AND lease_owner = ?`,
      [tenantId, eventId, subscriptionId, owner],
    );
    return changed === 1;
  }

  async deliveries(tenantId: string, subscriptionId: string | null, limit: number): Promise<DeliveryView[]> {
    const rows = await this.db.all<{
      event_id: string;
      subscription_id: string;
      type: string;
      booking_id: string;
      created_at: Num;
      state: string;
      attempts: Num;
      next_attempt_at: Num | null;
      last_status: Num | null;
      last_error: string | null;
    }>(
      `SELECT d.event_id, d.subscription_id, e.type, e.booking_id, e.created_at, d.state, d.total_attempts AS attempts,
         d.next_attempt_at, d.last_status, d.last_error
       FROM webhook_deliveries d JOIN webhook_events e ON e.id = d.event_id
       WHERE d.tenant_id = ?${subscriptionId === null ? '' : ' AND d.subscription_id = ?'}
       ORDER BY d.event_seq DESC, d.subscription_id LIMIT ?`,
      subscriptionId === null ? [tenantId, limit] : [tenantId, subscriptionId, limit],
    );
    return rows.map((row) => ({
      eventId: row.event_id,
      subscriptionId: row.subscription_id,
      type: row.type as WebhookEventType,
      bookingId: row.booking_id,
      eventCreatedAt: Number(row.created_at),
      state: row.state as DeliveryState,
      attempts: Number(row.attempts),
      nextAttemptAt: row.state === 'pending' ? nullableNumber(row.next_attempt_at) : null,
      lastStatus: nullableNumber(row.last_status),
      lastError: row.last_error,
    }));
  }

  async attempts(tenantId: string, eventId: string): Promise<AttemptView[]> {
    const rows = await this.db.all<{
      event_id: string;
      subscription_id: string;
      attempt: Num;
      at: Num;
      status_code: Num | null;
      duration_ms: Num;
      error: string | null;
      next_attempt_at: Num | null;
    }>(
      'SELECT * FROM webhook_attempts WHERE tenant_id = ? AND event_id = ? ORDER BY subscription_id, attempt',
      [tenantId, eventId],
    );
    return rows.map((row) => ({
      eventId: row.event_id,
      subscriptionId: row.subscription_id,
      attempt: Number(row.attempt),
      at: Number(row.at),
      statusCode: nullableNumber(row.status_code),
      durationMs: Number(row.duration_ms),
      error: row.error,
      nextAttemptAt: nullableNumber(row.next_attempt_at),
    }));
  }

  /** A delivery in flight (leased) is left alone: its attempt is still being made. */
  async redeliver(tenantId: string, eventId: string, now: Instant): Promise<number> {
    return this.db.run(
      `UPDATE webhook_deliveries SET state = 'pending', attempts = 0, next_attempt_at = ?, lease_owner = NULL,
         lease_until = NULL
       WHERE tenant_id = ? AND event_id = ? AND (lease_until IS NULL OR lease_until <= ?)`,
      [now, tenantId, eventId, now],
    );
  }
}
