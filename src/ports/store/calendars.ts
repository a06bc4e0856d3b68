import type { BookingRules } from '../../domain/availability/booking-rules.js';
import type { Availability } from '../../domain/availability/availability.js';
import type { Money } from '../../domain/booking/money.js';
import type { Calendar } from '../../domain/calendar.js';

/** What a calendar is besides its hours: what people and agents call it, its zone, its price. */
export interface CalendarDetails {
  readonly name: string;
  readonly timeZone: string;
  readonly price: Money | null;
  readonly description?: string | undefined;
  readonly tags: readonly string[];
}

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
  /** Replaces the booking rules and moves the calendar to its next version; false if there is no such calendar. */
  replaceRules(tenantId: string, calendarId: string, rules: BookingRules): Promise<boolean>;
  /**
   * Replaces the calendar's whole week and every date override and moves it to its next version.
   * With `expectedVersion`, only while the calendar is still at that version (a read-modify-write
   * then loses no concurrent change). False when nothing was changed.
   */
  replaceAvailability(
    tenantId: string,
    calendarId: string,
    availability: Availability,
    expectedVersion?: number,
  ): Promise<boolean>;
  /**
   * Sets name, time zone, price, description and tags and moves the calendar to its next version (cached copies
   * and hold plans are checked against it), only while it is still at `expectedVersion`.
   * False when nothing was changed: no such calendar, or it moved on.
   */
  updateDetails(
    tenantId: string,
    calendarId: string,
    details: CalendarDetails,
    expectedVersion: number,
  ): Promise<boolean>;
}
