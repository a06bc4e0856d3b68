import type { Calendar } from '../../domain/calendar.js';
import { calendarMatches } from '../../domain/calendar-profile.js';
import type { StoreTx } from '../../ports/store/index.js';

const PAGE = 500;

/**
 * Every calendar of the tenant whose name, description or tags hold every word, oldest first.
 * A tenant has at most a few thousand calendars (the calendar quota), so they are read in pages
 * and matched here, where case and accents fold the same way on SQLite and PostgreSQL.
 */
export async function calendarsMatching(
  tx: StoreTx,
  tenantId: string,
  words: readonly string[],
): Promise<Calendar[]> {
  const found: Calendar[] = [];
  for (let offset = 0; ; offset += PAGE) {
    const page = await tx.calendars.list(tenantId, { offset, limit: PAGE });
    found.push(...page.items.filter((calendar) => calendarMatches(calendar, words)));
    if (page.items.length === 0 || offset + page.items.length >= page.total) return found;
  }
}
