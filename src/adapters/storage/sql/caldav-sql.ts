import type {
  CaldavConnection,
  ExternalOverlap,
  PushedEvent,
  RemoteChanges,
  RemoteEvent,
} from '../../../domain/calendar-sync/caldav.js';
import type { Instant } from '../../../domain/time/instant.js';
import type { CaldavStore, LeasedConnection } from '../../../ports/store/caldav.js';
import { num, numOrNull } from '../rows.js';
import { leaseDue } from './lease-due.js';
import type { SqlDialect, SqlRunner } from './sql-runner.js';
import { placeholders } from './sql-runner.js';

interface ConnectionRow {
  id: string;
  tenant_id: string;
  calendar_id: string;
  collection_url: string;
  username: string;
  sealed_password: string;
  oauth_token_url: string | null;
  oauth_client_id: string | null;
  share_contact: number | string | boolean;
  every_ms: number | string;
  created_at: number | string;
  next_run_at: number | string;
  last_ok_at: number | string | null;
  last_error: string | null;
  last_error_at: number | string | null;
  event_count: number | string;
  busy_count: number | string;
  sync_token: string | null;
}

interface OverlapRow {
  tenant_id: string;
  booking_id: string;
  connection_id: string;
  href: string;
  summary: string | null;
  start_at: number | string;
  end_at: number | string;
}

const leasedOf = (r: ConnectionRow): LeasedConnection => ({
  id: r.id,
  tenantId: r.tenant_id,
  calendarId: r.calendar_id,
  collectionUrl: r.collection_url,
  username: r.username,
  oauth:
    r.oauth_token_url !== null && r.oauth_client_id !== null
      ? { tokenUrl: r.oauth_token_url, clientId: r.oauth_client_id }
      : null,
  shareContact: r.share_contact === true || Number(r.share_contact) === 1,
  everyMs: num(r.every_ms),
  createdAt: num(r.created_at),
  nextRunAt: num(r.next_run_at),
  lastOkAt: numOrNull(r.last_ok_at),
  lastError: r.last_error,
  lastErrorAt: numOrNull(r.last_error_at),
  eventCount: num(r.event_count),
  busyCount: num(r.busy_count),
  sealedPassword: r.sealed_password,
  syncToken: r.sync_token,
});

/** Without the secret and the token: what the operator is shown. */
function connectionOf(r: ConnectionRow): CaldavConnection {
  const { sealedPassword: _sealed, syncToken: _token, ...shown } = leasedOf(r);
  return shown;
}

const overlapOf = (r: OverlapRow): ExternalOverlap => ({
  bookingId: r.booking_id,
  connectionId: r.connection_id,
  href: r.href,
  summary: r.summary,
  start: num(r.start_at),
  end: num(r.end_at),
});

/** Rows per INSERT: well under both engines' parameter limits. */
const BATCH = 200;

export class CaldavSql implements CaldavStore {
  constructor(
    private readonly db: SqlRunner,
    private readonly dialect: SqlDialect,
  ) {}

  async insert(c: CaldavConnection, sealedPassword: string): Promise<void> {
    await this.db.run(
      `INSERT INTO caldav_connections (id, tenant_id, calendar_id, collection_url, username, sealed_password,
         oauth_token_url, oauth_client_id, share_contact, every_ms, created_at, next_run_at, event_count, busy_count)
       VALUES (${placeholders(14)})`,
      [
        c.id,
        c.tenantId,
        c.calendarId,
        c.collectionUrl,
        c.username,
        sealedPassword,
        c.oauth?.tokenUrl ?? null,
        c.oauth?.clientId ?? null,
        c.shareContact ? 1 : 0,
        c.everyMs,
        c.createdAt,
        c.nextRunAt,
        0,
        0,
      ],
    );
  }

  async list(tenantId: string): Promise<(CaldavConnection & { overlaps: number })[]> {
    const rows = await this.db.all<ConnectionRow & { overlaps: number | string }>(
      `SELECT c.*, (SELECT count(DISTINCT o.booking_id) FROM caldav_overlaps o WHERE o.connection_id = c.id) AS overlaps
       FROM caldav_connections c WHERE c.tenant_id = ? ORDER BY c.created_at, c.id`,
      [tenantId],
    );
    return rows.map((r) => ({ ...connectionOf(r), overlaps: num(r.overlaps) }));
  }

  async delete(tenantId: string, id: string): Promise<boolean> {
    const deleted = await this.db.run('DELETE FROM caldav_connections WHERE tenant_id = ? AND id = ?', [
      tenantId,
      id,
    ]);
    if (deleted !== 1) return false;
    for (const table of ['caldav_events', 'caldav_pushed', 'caldav_overlaps'])
      await this.db.run(`DELETE FROM ${table} WHERE connection_id = ?`, [id]);
    return true;
  }

  async nextDue(): Promise<Instant | null> {
    const [row] = await this.db.all<{ due: number | string | null }>(
      'SELECT min(next_run_at) AS due FROM caldav_connections',
      [],
    );
    return row && row.due !== null ? num(row.due) : null;
  }

  async lease(
    owner: string,
    now: Instant,
    leaseUntil: Instant,
    limit: number,
    only?: { readonly tenantId: string; readonly id: string },
  ): Promise<LeasedConnection[]> {
    const rows = await leaseDue<ConnectionRow>(this.db, this.dialect, 'caldav_connections', {
      owner,
      now,
      leaseUntil,
      limit,
      only,
    });
    return rows.map(leasedOf);
  }

  async events(connectionId: string): Promise<RemoteEvent[]> {
    return this.db.all<RemoteEvent>(
      'SELECT href, etag, ics FROM caldav_events WHERE connection_id = ? ORDER BY href',
      [connectionId],
    );
  }

  async pushed(connectionId: string, since: Instant): Promise<PushedEvent[]> {
    const rows = await this.db.all<{
      booking_id: string;
      href: string;
      version: number | string;
      etag: string | null;
      end_at: number | string;
    }>('SELECT * FROM caldav_pushed WHERE connection_id = ? AND end_at > ? ORDER BY end_at', [
      connectionId,
      since,
    ]);
    return rows.map((r) => ({
      bookingId: r.booking_id,
      href: r.href,
      version: num(r.version),
      etag: r.etag,
      end: num(r.end_at),
    }));
  }

  async ownHrefs(connectionId: string): Promise<string[]> {
    const rows = await this.db.all<{ href: string }>(
      'SELECT href FROM caldav_pushed WHERE connection_id = ?',
      [connectionId],
    );
    return rows.map((r) => r.href);
  }

  /**
   * True while `owner` holds the connection's lease, which it extends to `until`: a long sync
   * keeps it; one that lost it writes nothing. The row stays locked to this transaction where
   * the engine locks rows.
   */
  private async holds(owner: string, until: Instant, connectionId: string): Promise<boolean> {
    return (
      (await this.db.run('UPDATE caldav_connections SET lease_until = ? WHERE id = ? AND lease_owner = ?', [
        until,
        connectionId,
        owner,
      ])) === 1
    );
  }

  private async forget(connectionId: string, bookingId: string): Promise<void> {
    await this.db.run('DELETE FROM caldav_pushed WHERE connection_id = ? AND booking_id = ?', [
      connectionId,
      bookingId,
    ]);
  }

  async recordPush(
    owner: string,
    leaseUntil: Instant,
    connectionId: string,
    e: PushedEvent,
    replaced: string | null,
  ): Promise<boolean> {
    if (!(await this.holds(owner, leaseUntil, connectionId))) return false;
    if (replaced !== null) await this.forget(connectionId, replaced);
    await this.forget(connectionId, e.bookingId);
    await this.db.run(
      `INSERT INTO caldav_pushed (connection_id, booking_id, href, version, etag, end_at) VALUES (${placeholders(6)})`,
      [connectionId, e.bookingId, e.href, e.version, e.etag, e.end],
    );
    return true;
  }

  async forgetPush(
    owner: string,
    leaseUntil: Instant,
    connectionId: string,
    bookingId: string,
  ): Promise<boolean> {
    if (!(await this.holds(owner, leaseUntil, connectionId))) return false;
    await this.forget(connectionId, bookingId);
    return true;
  }

  async finish(
    owner: string,
    c: LeasedConnection,
    changes: RemoteChanges,
    counts: { readonly events: number; readonly busy: number },
    overlaps: readonly ExternalOverlap[] | null,
    now: Instant,
  ): Promise<boolean> {
    // First, so the row stays locked to this transaction: a lease lost meanwhile writes nothing.
    const kept = await this.db.run(
      `UPDATE caldav_connections SET sync_token = ?, last_ok_at = ?, last_error = NULL, last_error_at = NULL,
         event_count = ?, busy_count = ?, next_run_at = ?, lease_owner = NULL, lease_until = NULL
       WHERE id = ? AND lease_owner = ?`,
      [changes.token, now, counts.events, counts.busy, now + c.everyMs, c.id, owner],
    );
    if (kept !== 1) return false;
    if (changes.full) await this.db.run('DELETE FROM caldav_events WHERE connection_id = ?', [c.id]);
    else
      for (const href of [...changes.removed, ...changes.changed.map((e) => e.href)])
        await this.db.run('DELETE FROM caldav_events WHERE connection_id = ? AND href = ?', [c.id, href]);
    for (let i = 0; i < changes.changed.length; i += BATCH) {
      const batch = changes.changed.slice(i, i + BATCH);
      await this.db.run(
        `INSERT INTO caldav_events (connection_id, href, etag, ics) VALUES ${batch.map(() => '(?, ?, ?, ?)').join(', ')}`,
        batch.flatMap((e) => [c.id, e.href, e.etag, e.ics]),
      );
    }
    if (overlaps === null) return true;
    await this.db.run('DELETE FROM caldav_overlaps WHERE connection_id = ?', [c.id]);
    for (let i = 0; i < overlaps.length; i += BATCH) {
      const batch = overlaps.slice(i, i + BATCH);
      await this.db.run(
        `INSERT INTO caldav_overlaps (tenant_id, booking_id, connection_id, href, summary, start_at, end_at)
         VALUES ${batch.map(() => '(?, ?, ?, ?, ?, ?, ?)').join(', ')}`,
        batch.flatMap((o) => [c.tenantId, o.bookingId, c.id, o.href, o.summary, o.start, o.end]),
      );
    }
    return true;
  }

  async recordFailure(owner: string, c: CaldavConnection, error: string, now: Instant): Promise<void> {
    await this.db.run(
      `UPDATE caldav_connections SET last_error = ?, last_error_at = ?, next_run_at = ?,
         lease_owner = NULL, lease_until = NULL WHERE id = ? AND lease_owner = ?`,
      [error, now, now + c.everyMs, c.id, owner],
    );
  }

  async overlapsOf(tenantId: string, bookingId: string): Promise<ExternalOverlap[]> {
    const rows = await this.db.all<OverlapRow>(
      'SELECT * FROM caldav_overlaps WHERE tenant_id = ? AND booking_id = ? ORDER BY start_at',
      [tenantId, bookingId],
    );
    return rows.map(overlapOf);
  }
}
