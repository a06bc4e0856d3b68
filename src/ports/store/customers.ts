import type { Booking } from '../../domain/booking/booking.js';
import type { Instant } from '../../domain/time/instant.js';

/**
 * Customers as the tenant's bookings name them (by e-mail address, else phone number). A customer's
 * key here is an opaque handle (customerPage, customerKeyOf give it); their details are stored sealed.
 */
export interface CustomerStore {
  /**
   * One page of the tenant's customers in key order after `afterKey`: each with the id of its
   * earliest booking (a stable handle that names no contact data).
   */
  customerPage(
    tenantId: string,
    afterKey: string | null,
    limit: number,
  ): Promise<{ key: string; firstBookingId: string }[]>;
  /** How many customers the tenant's bookings name. */
  customerCount(tenantId: string): Promise<number>;
  /** The id of the customer's earliest booking (by creation, then id); null when none. */
  firstBookingOf(tenantId: string, key: string): Promise<string | null>;
  /**
   * The number each of these customers has in the tenant (1, 2, 3 … in the order they first
   * booked; never given twice, not even after an erasure). A key without one is left out.
   */
  numbersOf(tenantId: string, keys: readonly string[]): Promise<Map<string, number>>;
  /** The key of the customer with this number; null when none has it (or they were erased). */
  keyOfNumber(tenantId: string, number: number): Promise<string | null>;
  /** The customer key of one of the tenant's bookings; null when none or it names no customer. */
  customerKeyOf(tenantId: string, bookingId: string): Promise<string | null>;
  /** The tenant's bookings of these customers with the key of each one's customer, newest start first (at most 200 per customer page). */
  bookingsOfCustomers(
    tenantId: string,
    keys: readonly string[],
  ): Promise<{ readonly key: string; readonly booking: Booking }[]>;
  /**
   * Erases the customer bookings count by this key (`email:…`, `phone:…`): their key is destroyed,
   * so their details are unreadable in every booking and copy. Returns how many bookings were theirs.
   */
  erase(tenantId: string, key: string): Promise<number>;
  /** Erases the customer of one booking (by their key when they have one, else that booking's alone). */
  eraseOfBooking(tenantId: string, bookingId: string): Promise<number>;
  /** Retention: erases up to `limit` customers none of whose bookings ends at or after `endedBefore`; how many. */
  eraseEndedBefore(tenantId: string, endedBefore: Instant, limit: number): Promise<number>;
  /**
   * Seals up to `limit` bookings whose details an older release stored unsealed (their outbox
   * snapshots too); returns how many. Once none is left it is recorded, and later calls cost one read.
   */
  sealLegacy(limit: number): Promise<number>;
  /** Whether every booking's details are sealed (recorded by sealLegacy once none was left). */
  legacySealed(): Promise<boolean>;
}
