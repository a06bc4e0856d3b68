import type { Availability } from './availability/availability.js';
import type { BookingRules } from './availability/booking-rules.js';
import { DEFAULT_BOOKING_RULES } from './availability/booking-rules.js';
import type { Money } from './booking/money.js';

/** Anything bookable: a person, a room, a camera body. */
export interface Calendar {
  readonly id: string;
  readonly tenantId: string;
  readonly name: string;
  readonly timeZone: string;
  readonly price: Money | null;
  readonly availability: Availability;
  readonly createdAt: number;
  /** Grows with every change of availability: what a cached copy is checked against. */
  readonly version: number;
  /** Absent: every rule at its default (`rulesOf`). */
  readonly rules?: BookingRules;
  /** What it is, in words an agent looking by need can match (`query` on find_slots, list_calendars). */
  readonly description?: string;
  /** Tags and specialties ("dermatology", "projector"); matched like the description. */
  readonly tags?: readonly string[];
}

/** The calendar's booking rules, defaults filled in. */
export function rulesOf(calendar: Calendar): BookingRules {
  return calendar.rules ?? DEFAULT_BOOKING_RULES;
}

export type { Scope, WritePolicy } from './identity/identity.js';
