import type { WaitlistEntry, WaitlistStatus } from '../../../domain/booking/waitlist.js';
import type { Instant } from '../../../domain/time/instant.js';
import type { WaitlistStore } from '../../../ports/store/index.js';
import { num } from '../rows.js';
import type { SqlRunner } from './sql-runner.js';

interface EntryRow {
  tenant_id: string;
  id: string;
  subject: string;
  client_id: string;
  connection_id: string;
  calendar_ids: string;
  duration_minutes: number | string;
  earliest: number | string;
  latest: number | string;
  label: string | null;
  status: string;
  offer_booking_id: string | null;
  offer_expires_at: number | string | null;
  seq: number | string;
  version: number | string;
  created_at: number | string;
  updated_at: number | string;
}

const entryOf = (r: EntryRow): WaitlistEntry => ({
  id: r.id,
  tenantId: r.tenant_id,
  owner: { subject: r.subject, clientId: r.client_id, connectionId: r.connection_id },
  calendarIds: JSON.parse(r.calendar_ids) as string[],
  durationMinutes: num(r.duration_minutes),
  earliest: num(r.earliest),
  latest: num(r.latest),
  label: r.label,
  status: r.status as WaitlistStatus,
  offerBookingId: r.offer_booking_id,
  offerExpiresAt: r.offer_expires_at === null ? null : num(r.offer_expires_at),
  seq: num(r.seq),
  version: num(r.version),
  createdAt: num(r.created_at),
  updatedAt: num(r.updated_at),
});

const OPEN = "status IN ('WAITING', 'OFFERED')";

export class WaitlistSql implements WaitlistStore {
  constructor(private readonly db: SqlRunner) {}

  async insert(e: WaitlistEntry): Promise<void> {
    await this.db.run(
      `INSERT INTO waitlist_entries (tenant_id, id, subject, client_id, connection_id, calendar_ids, duration_minutes,
         earliest, latest, label, status, offer_booking_id, offer_expires_at, version, created_at, updated_at, seq)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?,
         (SELECT coalesce(max(seq), 0) + 1 FROM waitlist_entries))`,
      [
        e.tenantId,
        e.id,
        e.owner.subject,
        e.owner.clientId,
        e.owner.connectionId,
        JSON.stringify(e.calendarIds),
        e.durationMinutes,
        e.earliest,
        e.latest,
        e.label,
        e.status,
        e.offerBookingId,
        e.offerExpiresAt,
        e.version,
        e.createdAt,
        e.updatedAt,
      ],
    );
  }

  async get(tenantId: string, id: string): Promise<WaitlistEntry | null> {
    const [row] = await this.db.all<EntryRow>(
      'SELECT * FROM waitlist_entries WHERE tenant_id = ? AND id = ?',
      [tenantId, id],
    );
    return row ? entryOf(row) : null;
  }

  async update(next: WaitlistEntry): Promise<boolean> {
    const changed = await this.db.run(
      `UPDATE waitlist_entries SET status = ?, offer_booking_id = ?, offer_expires_at = ?, version = ?, updated_at = ?
       WHERE tenant_id = ? AND id = ? AND version = ?`,
      [
        next.status,
        next.offerBookingId,
        next.offerExpiresAt,
        next.version,
        next.updatedAt,
        next.tenantId,
        next.id,
        next.version - 1,
      ],
    );
    return changed === 1;
  }

  async queue(tenantId: string, limit: number): Promise<WaitlistEntry[]> {
    const rows = await this.db.all<EntryRow>(
      `SELECT * FROM waitlist_entries WHERE tenant_id = ? AND ${OPEN} ORDER BY seq, id LIMIT ?`,
      [tenantId, limit],
    );
    return rows.map(entryOf);
  }

  async countOpen(tenantId: string, subject: string): Promise<number> {
    const [row] = await this.db.all<{ n: number | string }>(
      `SELECT count(*) AS n FROM waitlist_entries WHERE tenant_id = ? AND subject = ? AND ${OPEN}`,
      [tenantId, subject],
    );
    return Number(row?.n ?? 0);
  }

  async tenantsWaiting(): Promise<string[]> {
    const rows = await this.db.all<{ tenant_id: string }>(
      `SELECT DISTINCT tenant_id FROM waitlist_entries WHERE ${OPEN}`,
    );
    return rows.map((r) => r.tenant_id);
  }

  async lease(tenantId: string, owner: string, now: Instant, until: Instant): Promise<boolean> {
    await this.db.run(
      `INSERT INTO waitlist_leases (tenant_id, owner, lease_until) VALUES (?, '', 0) ON CONFLICT (tenant_id) DO NOTHING`,
      [tenantId],
    );
    const taken = await this.db.run(
      `UPDATE waitlist_leases SET owner = ?, lease_until = ?
       WHERE tenant_id = ? AND (owner = ? OR lease_until <= ?)`,
      [owner, until, tenantId, owner, now],
    );
    return taken === 1;
  }
}
