import type { Availability } from '../../../domain/availability/availability.js';
import type { Calendar } from '../../../domain/calendar.js';
import type { BookingRules } from '../../../domain/availability/booking-rules.js';
import type { CalendarDetails, CalendarStore, Page } from '../../../ports/store/index.js';
import type { CalendarRow } from '../rows.js';
import { calendarFromRow, calendarToRow } from '../rows.js';
import type { SqlRunner } from './sql-runner.js';
import { placeholders } from './sql-runner.js';

export class CalendarsSql implements CalendarStore {
  constructor(private readonly db: SqlRunner) {}

  async list(tenantId: string, page: Page): Promise<{ items: Calendar[]; total: number }> {
    const rows = await this.db.all<CalendarRow>(
      'SELECT * FROM calendars WHERE tenant_id = ? ORDER BY created_at, id LIMIT ? OFFSET ?',
      [tenantId, page.limit, page.offset],
    );
    return { items: rows.map(calendarFromRow), total: await this.count(tenantId) };
  }

  async count(tenantId: string): Promise<number> {
    const [row] = await this.db.all<{ n: number | string }>(
      'SELECT count(*) AS n FROM calendars WHERE tenant_id = ?',
      [tenantId],
    );
    return Number(row?.n ?? 0);
  }

  async get(tenantId: string, ids: readonly string[]): Promise<Calendar[]> {
    if (ids.length === 0) return [];
    const rows = await this.db.all<CalendarRow>(
      `SELECT * FROM calendars WHERE tenant_id = ? AND id IN (${placeholders(ids.length)})`,
      [tenantId, ...ids],
    );
    const byId = new Map(rows.map((r) => [r.id, calendarFromRow(r)]));
    return ids.flatMap((id) => byId.get(id) ?? []);
  }

  async insert(calendar: Calendar): Promise<void> {
    const r = calendarToRow(calendar);
    await this.db.run(
      `INSERT INTO calendars (tenant_id, id, name, time_zone, price_amount, price_currency, availability, created_at, version, booking_rules, description, tags)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      [
        r.tenant_id,
        r.id,
        r.name,
        r.time_zone,
        r.price_amount,
        r.price_currency,
        r.availability,
        r.created_at,
        r.version,
        r.booking_rules,
        r.description,
        r.tags,
      ],
    );
  }

  async replaceRules(tenantId: string, calendarId: string, rules: BookingRules): Promise<boolean> {
    const changed = await this.db.run(
      'UPDATE calendars SET booking_rules = ?, version = version + 1 WHERE tenant_id = ? AND id = ?',
      [JSON.stringify(rules), tenantId, calendarId],
    );
    return changed > 0;
  }

  async replaceAvailability(
    tenantId: string,
    calendarId: string,
    availability: Availability,
    expectedVersion?: number,
  ): Promise<boolean> {
    const json = JSON.stringify(availability);
    const changed =
      expectedVersion === undefined
        ? await this.db.run(
            'UPDATE calendars SET availability = ?, version = version + 1 WHERE tenant_id = ? AND id = ?',
            [json, tenantId, calendarId],
          )
        : await this.db.run(
            'UPDATE calendars SET availability = ?, version = version + 1 WHERE tenant_id = ? AND id = ? AND version = ?',
            [json, tenantId, calendarId, expectedVersion],
          );
    return changed > 0;
  }

  async updateDetails(
    tenantId: string,
    calendarId: string,
    details: CalendarDetails,
    expectedVersion: number,
  ): Promise<boolean> {
    const changed = await this.db.run(
      `UPDATE calendars SET name = ?, time_zone = ?, price_amount = ?, price_currency = ?, description = ?, tags = ?,
         version = version + 1
       WHERE tenant_id = ? AND id = ? AND version = ?`,
      [
        details.name,
        details.timeZone,
        details.price?.amount ?? null,
        details.price?.currency ?? null,
        details.description ?? null,
        details.tags.length > 0 ? JSON.stringify(details.tags) : null,
        tenantId,
        calendarId,
        expectedVersion,
      ],
    );
    return changed > 0;
  }
}
