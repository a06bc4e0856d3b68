import type { Availability } from '../../domain/availability/availability.js';
import type { Calendar } from '../../domain/calendar.js';

export interface Page {
  readonly offset: number;
  readonly limit: number;
}

/** Bookable calendars of a tenant. */
export interface CalendarStore {
  /** A page of the tenant's calendars, oldest first, and how many there are. */
  list(tenantId: string, page: Page): Promise<{ items: Calendar[]; total: number }>;
  /** How many calendars the tenant has (the calendar quota). */
  count(tenantId: string): Promise<number>;
  /** The calendars that exist among `ids`, in the order asked. */
  get(tenantId: string, ids: readonly string[]): Promise<Calendar[]>;
  /** Adds a calendar; its id is new. */
  insert(calendar: Calendar): Promise<void>;
  /** Replaces the calendar's whole week and every date override. */
  replaceAvailability(tenantId: string, calendarId: string, availability: Availability): Promise<void>;
}
