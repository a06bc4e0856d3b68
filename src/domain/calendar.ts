import type { Availability } from './availability/availability.js';
import type { BookingRules } from './availability/booking-rules.js';
import { DEFAULT_BOOKING_RULES } from './availability/booking-rules.js';
import type { Money } from './booking/money.js';
import type { Scope, TenantLimits, WritePolicy } from './identity/identity.js';

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
}

/** The calendar's booking rules, defaults filled in. */
export function rulesOf(calendar: Calendar): BookingRules {
  return calendar.rules ?? DEFAULT_BOOKING_RULES;
}

/** Who is calling; every read and write is scoped by it. */
export interface Principal {
  readonly tenantId: string;
  /** The person the call acts for (their id): bookings and approvals belong to them. */
  readonly subject: string;
  /** The connection as the audit names it: credential, its name, the client it declared. */
  readonly clientId: string;
  /** The credential the call came with (a token id, or `stdio`): quotas count per connection. */
  readonly connectionId: string;
  readonly scopes: readonly Scope[];
  readonly writePolicy: WritePolicy;
  readonly limits: TenantLimits;
  /** The tenant's choice of tool surface, when it made one (else the server's --tools). */
  readonly toolMode?: 'flat' | 'catalog';
}

export type { Scope, WritePolicy } from './identity/identity.js';
