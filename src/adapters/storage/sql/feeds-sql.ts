import type { FeedLink, FeedSubscription } from '../../../domain/feeds/feeds.js';
import type { Instant } from '../../../domain/time/instant.js';
import type { Interval } from '../../../domain/time/interval.js';
import type { FeedStore, SubscriptionView } from '../../../ports/store/index.js';
import { leaseDue } from './lease-due.js';
import type { SqlDialect, SqlRunner } from './sql-runner.js';
import { placeholders } from './sql-runner.js';
import { numOrNull } from '../rows.js';

interface LinkRow {
  id: string;
  tenant_id: string;
  calendar_id: string;
  created_at: number | string;
  revoked_at: number | string | null;
}

interface SubscriptionRow {
  id: string;
  tenant_id: string;
  calendar_id: string;
  source: string;
  every_ms: number | string;
  created_at: number | string;
  next_run_at: number | string;
  last_ok_at: number | string | null;
  last_error: string | null;
  last_error_at: number | string | null;
  busy_count: number | string;
}

const linkOf = (r: LinkRow): FeedLink => ({
  id: r.id,
  tenantId: r.tenant_id,
  calendarId: r.calendar_id,
  createdAt: Number(r.created_at),
  revokedAt: numOrNull(r.revoked_at),
});

const subscriptionOf = (r: SubscriptionRow): FeedSubscription => ({
  id: r.id,
  tenantId: r.tenant_id,
  calendarId: r.calendar_id,
  source: r.source,
  everyMs: Number(r.every_ms),
  createdAt: Number(r.created_at),
  nextRunAt: Number(r.next_run_at),
  lastOkAt: numOrNull(r.last_ok_at),
  lastError: r.last_error,
  lastErrorAt: numOrNull(r.last_error_at),
  busyCount: Number(r.busy_count),
});

/** Rows per INSERT: well under both engines' parameter limits. */
const BATCH = 500;
/** Overlapping bookings named per subscription; the rest are counted in the caller's words. */
const MAX_OVERLAPS_SHOWN = 20;
const WEEK_MS = 7 * 24 * 60 * 60 * 1000;

export class FeedsSql implements FeedStore {
  constructor(
    protected readonly db: SqlRunner,
    protected readonly dialect: SqlDialect,
  ) {}

  async insertLink(link: FeedLink, secretHash: string): Promise<void> {
    await this.db.run(
      `INSERT INTO feed_links (id, tenant_id, calendar_id, secret_hash, created_at, revoked_at) VALUES (${placeholders(6)})`,
      [link.id, link.tenantId, link.calendarId, secretHash, link.createdAt, link.revokedAt],
    );
  }

  async links(tenantId: string): Promise<FeedLink[]> {
    const rows = await this.db.all<LinkRow>(
      'SELECT * FROM feed_links WHERE tenant_id = ? ORDER BY created_at, id',
      [tenantId],
    );
    return rows.map(linkOf);
  }

  async linkByHash(secretHash: string): Promise<FeedLink | null> {
    const [row] = await this.db.all<LinkRow>(
      'SELECT * FROM feed_links WHERE secret_hash = ? AND revoked_at IS NULL',
      [secretHash],
    );
    return row ? linkOf(row) : null;
  }

  async revokeLink(tenantId: string, id: string, now: Instant): Promise<boolean> {
    return (
      (await this.db.run(
        'UPDATE feed_links SET revoked_at = ? WHERE tenant_id = ? AND id = ? AND revoked_at IS NULL',
        [now, tenantId, id],
      )) === 1
    );
  }

  async insertSubscription(s: FeedSubscription): Promise<void> {
    await this.db.run(
      `INSERT INTO feed_subscriptions (id, tenant_id, calendar_id, source, every_ms, created_at, next_run_at,
         last_ok_at, last_error, last_error_at, busy_count) VALUES (${placeholders(11)})`,
      [
        s.id,
        s.tenantId,
        s.calendarId,
        s.source,
        s.everyMs,
        s.createdAt,
        s.nextRunAt,
        s.lastOkAt,
        s.lastError,
        s.lastErrorAt,
        s.busyCount,
      ],
    );
  }

  async subscriptions(tenantId: string, now: Instant): Promise<SubscriptionView[]> {
    const rows = await this.db.all<SubscriptionRow>(
      'SELECT * FROM feed_subscriptions WHERE tenant_id = ? ORDER BY created_at, id',
      [tenantId],
    );
    const views: SubscriptionView[] = [];
    for (const row of rows) views.push({ ...subscriptionOf(row), overlaps: await this.overlaps(row, now) });
    return views;
  }

  /** References of live bookings on the calendar that this subscription's busy time overlaps. */
  private async overlaps(row: SubscriptionRow, now: Instant): Promise<string[]> {
    const found = await this.db.all<{ reference: string }>(
      `SELECT DISTINCT b.reference, b.start_at FROM external_busy e
       JOIN allocations a ON a.tenant_id = e.tenant_id AND a.calendar_id = e.calendar_id
         AND a.active = ${this.dialect.TRUE} AND a.start_at < e.end_at AND a.end_at > e.start_at
         AND a.start_at > e.start_at - ${WEEK_MS}
       JOIN bookings b ON b.tenant_id = a.tenant_id AND b.id = a.booking_id
       WHERE e.subscription_id = ? AND e.end_at > ? AND NOT (b.status = 'HELD' AND b.expires_at <= ?)
       ORDER BY b.start_at LIMIT ${MAX_OVERLAPS_SHOWN}`,
      [row.id, now, now],
    );
    return found.map((f) => f.reference);
  }

  async deleteSubscription(tenantId: string, id: string): Promise<boolean> {
    // Taking busy time away cannot hide an overlap: no lock needed.
    await this.db.run('DELETE FROM external_busy WHERE tenant_id = ? AND subscription_id = ?', [
      tenantId,
      id,
    ]);
    return (
      (await this.db.run('DELETE FROM feed_subscriptions WHERE tenant_id = ? AND id = ?', [tenantId, id])) ===
      1
    );
  }

  async lease(
    owner: string,
    now: Instant,
    leaseUntil: Instant,
    limit: number,
    only?: { readonly tenantId: string; readonly id: string },
  ): Promise<FeedSubscription[]> {
    const rows = await leaseDue<SubscriptionRow>(this.db, this.dialect, 'feed_subscriptions', {
      owner,
      now,
      leaseUntil,
      limit,
      only,
    });
    return rows.map(subscriptionOf);
  }

  /**
   * Where engines run writers side by side (PostgreSQL), a refresh must exclude the holds of
   * its calendar while it replaces busy time; one writer at a time (SQLite) needs nothing.
   */
  protected async lockCalendarBusy(_tenantId: string, _calendarId: string): Promise<void> {}

  async replaceBusy(
    owner: string,
    s: FeedSubscription,
    busy: readonly Interval[],
    now: Instant,
  ): Promise<boolean> {
    // First, so the row stays locked to this transaction: a lease lost meanwhile writes nothing.
    const kept = await this.db.run(
      `UPDATE feed_subscriptions SET last_ok_at = ?, last_error = NULL, last_error_at = NULL, busy_count = ?,
         next_run_at = ?, lease_owner = NULL, lease_until = NULL WHERE id = ? AND lease_owner = ?`,
      [now, busy.length, now + s.everyMs, s.id, owner],
    );
    if (kept !== 1) return false;
    await this.replaceSourceBusy(s.tenantId, s.calendarId, s.id, busy);
    return true;
  }

  async replaceSourceBusy(
    tenantId: string,
    calendarId: string,
    sourceId: string,
    busy: readonly Interval[],
  ): Promise<void> {
    await this.lockCalendarBusy(tenantId, calendarId);
    await this.db.run('DELETE FROM external_busy WHERE tenant_id = ? AND subscription_id = ?', [
      tenantId,
      sourceId,
    ]);
    for (let i = 0; i < busy.length; i += BATCH) {
      const batch = busy.slice(i, i + BATCH);
      await this.db.run(
        `INSERT INTO external_busy (tenant_id, calendar_id, subscription_id, start_at, end_at)
         VALUES ${batch.map(() => '(?, ?, ?, ?, ?)').join(', ')}`,
        batch.flatMap((b) => [tenantId, calendarId, sourceId, b.start, b.end]),
      );
    }
  }

  async recordFailure(owner: string, s: FeedSubscription, error: string, now: Instant): Promise<void> {
    await this.db.run(
      `UPDATE feed_subscriptions SET last_error = ?, last_error_at = ?, next_run_at = ?,
         lease_owner = NULL, lease_until = NULL WHERE id = ? AND lease_owner = ?`,
      [error, now, now + s.everyMs, s.id, owner],
    );
  }
}
