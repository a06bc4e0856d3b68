import type { Availability } from './availability/availability.js';
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
}

/** Who is calling; every read and write is scoped by it. */
export interface Principal {
  readonly tenantId: string;
  readonly subject: string;
  readonly clientId: string;
  readonly scopes: readonly Scope[];
  readonly writePolicy: WritePolicy;
}

export type Scope = 'bookings:read' | 'bookings:write' | 'calendars:admin';
export type WritePolicy = 'readonly' | 'draft' | 'attested' | 'direct';
