import { FeedsSql } from '../sql/feeds-sql.js';

/**
 * PostgreSQL's feeds: a refresh takes its calendar's busy-time lock exclusively; every
 * allocation check (holdfast_external_busy_check, migration 15) takes it shared. Cell locks
 * (pg-bookings.ts cellLocks) would not do here: a year of imported busy time is thousands of
 * hour cells, past the lock table's default size, and the one-key-per-calendar fallback for
 * long ranges is a key no hold takes.
 */
export class PgFeeds extends FeedsSql {
  protected override async lockCalendarBusy(tenantId: string, calendarId: string): Promise<void> {
    await this.db.all(
      "SELECT pg_advisory_xact_lock(hashtextextended(current_schema() || ':holdfast-busy:' || ?::text || ':' || ?::text, 0))",
      [tenantId, calendarId],
    );
  }
}
