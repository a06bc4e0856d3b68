import type { Calendar } from '../../domain/calendar.js';

/**
 * Calendars recently read, so a hold can be planned without reading them again. Never trusted
 * blindly: the store refuses a plan made on a calendar whose version has moved on (another
 * instance changed it), and the hold then reads it afresh.
 */
export class CalendarCache {
  private readonly entries = new Map<string, Calendar>();

  constructor(private readonly capacity = 5_000) {}

  /** Every calendar asked for, in order, or null when any is missing from the cache. */
  get(tenantId: string, ids: readonly string[]): Calendar[] | null {
    const found: Calendar[] = [];
    for (const id of ids) {
      const calendar = this.entries.get(keyOf(tenantId, id));
      if (!calendar) return null;
      found.push(calendar);
    }
    return found;
  }

  remember(calendars: readonly Calendar[]): void {
    for (const calendar of calendars) {
      const key = keyOf(calendar.tenantId, calendar.id);
      const known = this.entries.get(key);
      if (known && known.version > calendar.version) continue;
      if (!known && this.entries.size >= this.capacity) {
        // Oldest first: a Map iterates in insertion order.
        this.entries.delete(this.entries.keys().next().value as string);
      }
      this.entries.set(key, calendar);
    }
  }

  forget(tenantId: string, ids: readonly string[]): void {
    for (const id of ids) this.entries.delete(keyOf(tenantId, id));
  }
}

const keyOf = (tenantId: string, id: string) => `${tenantId}\u0000${id}`;
