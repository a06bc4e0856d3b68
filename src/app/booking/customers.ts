import type { Booking, Customer } from '../../domain/booking/booking.js';
import { effectiveStatus } from '../../domain/booking/booking.js';
import { maskContact } from '../../domain/booking/contact-mask.js';
import { DomainError, invalidArgument } from '../../domain/errors.js';
import type { Principal } from '../../domain/identity/principal.js';
import type { Instant } from '../../domain/time/instant.js';
import { requireScope } from '../authorize.js';
import type { AppDeps } from '../deps.js';

/**
 * Customers as the tenant's bookings name them: one per e-mail address (else phone number),
 * with the name and contact details of their latest booking and what they booked. Contact
 * details are masked unless the connection has `sensitive`. A customer's id is `cus_` and the
 * id of their first booking: stable, and it names no contact data (nor does the cursor).
 */
export interface CustomerSummary {
  readonly id: string;
  readonly customer: Customer;
  readonly bookings: number;
  /** Bookings still to come that hold their time (HELD or CONFIRMED). */
  readonly upcoming: number;
  readonly lastStart: Instant;
}

export interface CustomerDetail extends CustomerSummary {
  /** Newest start first, at most 200. */
  readonly history: readonly Booking[];
}

const CUSTOMER_PREFIX = 'cus_';

export async function listCustomers(
  deps: AppDeps,
  principal: Principal,
  input: { readonly limit: number; readonly cursor?: string },
): Promise<{ customers: CustomerSummary[]; total: number; nextCursor: string | null }> {
  requireScope(principal, 'read');
  return deps.store.read(async (tx) => {
    const afterKey =
      input.cursor === undefined
        ? null
        : await tx.customers.customerKeyOf(principal.tenantId, bookingIdOf(input.cursor, 'cursor'));
    if (input.cursor !== undefined && afterKey === null)
      throw new DomainError(
        'INVALID_CURSOR',
        'The cursor is not one this list gave; start again without it.',
        { field: 'cursor' },
      );
    const page = await tx.customers.customerPage(principal.tenantId, afterKey, input.limit + 1);
    const shown = page.slice(0, input.limit);
    const bookings = await tx.customers.bookingsOfCustomers(
      principal.tenantId,
      shown.map((c) => c.key),
    );
    const now = deps.clock.now();
    const customers = shown.map((c) =>
      summaryOf(
        principal,
        c.firstBookingId,
        bookings.filter((b) => b.key === c.key).map((b) => b.booking),
        now,
      ),
    );
    return {
      customers,
      total: await tx.customers.customerCount(principal.tenantId),
      nextCursor: page.length > input.limit ? customerId(shown.at(-1)!.firstBookingId) : null,
    };
  });
}

export async function getCustomer(deps: AppDeps, principal: Principal, id: string): Promise<CustomerDetail> {
  requireScope(principal, 'read');
  const bookingId = bookingIdOf(id, 'customerId');
  return deps.store.read(async (tx) => {
    const key = await tx.customers.customerKeyOf(principal.tenantId, bookingId);
    if (key === null) throw new DomainError('NOT_FOUND', `No customer ${id}.`, {});
    // Only the id list_customers gives (the customer's first booking) names the customer.
    if ((await tx.customers.firstBookingOf(principal.tenantId, key)) !== bookingId)
      throw new DomainError('NOT_FOUND', `No customer ${id}.`, {});
    const history = (await tx.customers.bookingsOfCustomers(principal.tenantId, [key])).map((b) => b.booking);
    const now = deps.clock.now();
    return {
      ...summaryOf(principal, bookingId, history, now),
      history: history.map((b) => shown(principal, b)),
    };
  });
}

function summaryOf(principal: Principal, firstBookingId: string, bookings: readonly Booking[], now: Instant) {
  const latest = [...bookings].sort((a, b) => b.updatedAt - a.updatedAt)[0]!;
  return {
    id: customerId(firstBookingId),
    customer: contactFor(principal, latest.customer ?? {}),
    bookings: bookings.length,
    upcoming: bookings.filter((b) => b.start > now && ['HELD', 'CONFIRMED'].includes(effectiveStatus(b, now)))
      .length,
    lastStart: Math.max(...bookings.map((b) => b.start)),
  };
}

const contactFor = (principal: Principal, customer: Customer): Customer =>
  principal.scopes.includes('sensitive') ? customer : maskContact(customer);

const shown = (principal: Principal, b: Booking): Booking =>
  b.customer === null ? b : { ...b, customer: contactFor(principal, b.customer) };

const customerId = (firstBookingId: string) => `${CUSTOMER_PREFIX}${firstBookingId}`;

function bookingIdOf(id: string, field: string): string {
  if (!id.startsWith(CUSTOMER_PREFIX) || id.length > 120)
    throw invalidArgument(field, `must be a customer id (${CUSTOMER_PREFIX}…)`);
  return id.slice(CUSTOMER_PREFIX.length);
}

/** A customer with the number the tenant gave them (bookings-mcp names customers 1, 2, 3 …). */
export interface NumberedCustomer extends CustomerSummary {
  readonly number: number;
}

/** The tenant's customers in the order of their numbers (at most `limit`); contact masked without `sensitive`. */
export async function numberedCustomers(
  deps: AppDeps,
  principal: Principal,
  limit: number,
): Promise<NumberedCustomer[]> {
  requireScope(principal, 'read');
  return deps.store.read(async (tx) => {
    const all: { key: string; firstBookingId: string }[] = [];
    for (let after: string | null = null; ;) {
      const page = await tx.customers.customerPage(principal.tenantId, after, 200);
      all.push(...page);
      if (page.length < 200 || all.length >= 5_000) break;
      after = page.at(-1)!.key;
    }
    const numbers = await tx.customers.numbersOf(
      principal.tenantId,
      all.map((c) => c.key),
    );
    const shown = all
      .filter((c) => numbers.has(c.key))
      .sort((a, b) => numbers.get(a.key)! - numbers.get(b.key)!)
      .slice(0, limit);
    const bookings = await tx.customers.bookingsOfCustomers(
      principal.tenantId,
      shown.map((c) => c.key),
    );
    const now = deps.clock.now();
    return shown.map((c) => ({
      ...summaryOf(
        principal,
        c.firstBookingId,
        bookings.filter((b) => b.key === c.key).map((b) => b.booking),
        now,
      ),
      number: numbers.get(c.key)!,
    }));
  });
}

/**
 * One customer by number, with their bookings (contact masked without `sensitive`), and their
 * details as their latest booking gave them — unmasked, for a booking made for them, never shown.
 */
export async function customerByNumber(
  deps: AppDeps,
  principal: Principal,
  number: number,
): Promise<CustomerDetail & { number: number; details: Customer }> {
  requireScope(principal, 'read');
  return deps.store.read(async (tx) => {
    const key = await tx.customers.keyOfNumber(principal.tenantId, number);
    const first = key === null ? null : await tx.customers.firstBookingOf(principal.tenantId, key);
    if (key === null || first === null)
      throw new DomainError('NOT_FOUND', `No customer ${number}.`, { field: 'customerId' });
    const history = (await tx.customers.bookingsOfCustomers(principal.tenantId, [key])).map((b) => b.booking);
    const latest = [...history].sort((a, b) => b.updatedAt - a.updatedAt)[0]!;
    return {
      ...summaryOf(principal, first, history, deps.clock.now()),
      history: history.map((b) => shown(principal, b)),
      number,
      details: latest.customer ?? {},
    };
  });
}

/** The number of the customer each of these bookings names (a booking naming nobody is left out). */
export async function customerNumbersOf(
  deps: AppDeps,
  principal: Principal,
  bookingIds: readonly string[],
): Promise<Map<string, number>> {
  requireScope(principal, 'read');
  return deps.store.read(async (tx) => {
    const keys = new Map<string, string>();
    for (const id of bookingIds) {
      const key = await tx.customers.customerKeyOf(principal.tenantId, id);
      if (key !== null) keys.set(id, key);
    }
    const numbers = await tx.customers.numbersOf(principal.tenantId, [...new Set(keys.values())]);
    const byBooking = new Map<string, number>();
    for (const [id, key] of keys) {
      const number = numbers.get(key);
      if (number !== undefined) byBooking.set(id, number);
    }
    return byBooking;
  });
}
