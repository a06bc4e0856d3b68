import type { Booking } from '../../domain/booking/booking.js';

/** Customers as the tenant's bookings name them (by e-mail address, else phone number). */
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
  /** The customer key of one of the tenant's bookings; null when none or it names no customer. */
  customerKeyOf(tenantId: string, bookingId: string): Promise<string | null>;
  /** The tenant's bookings of these customers, newest start first (at most 200 per customer page). */
  bookingsOfCustomers(tenantId: string, keys: readonly string[]): Promise<Booking[]>;
}
