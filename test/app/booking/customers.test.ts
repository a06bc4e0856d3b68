import { randomUUID } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { getCustomer, listCustomers } from '../../../src/app/booking/customers.js';
import { holdSlot } from '../../../src/app/booking/hold-slot.js';
import type { Principal } from '../../../src/domain/identity/principal.js';
import type { appHarness } from '../../support/app-harness.js';
import { appHarnessOn, operator } from '../../support/app-harness.js';
import { refusal } from '../../support/refusal.js';

// Customers as bookings name them: one per e-mail (any case), else phone digits; masked
// without `sensitive`; paged with a cursor that names no contact data; one tenant only.
const T0 = Date.UTC(2030, 0, 7, 8);
const open = {
  weekly: Object.fromEntries(
    ['mon', 'tue', 'wed', 'thu', 'fri'].map((d) => [d, [{ start: '00:00', end: '24:00' }]]),
  ),
  overrides: [],
};
const reader: Principal = { ...operator, scopes: ['read'] };
const stranger: Principal = { ...operator, tenantId: 't2' };

let h: Awaited<ReturnType<typeof appHarness>>;
let room: string;
let hour = 9;
// Each hold a second after the previous: a customer's first booking is their earliest made.
const hold = async (customer: Record<string, string> | undefined) => {
  h.clock.advance(1000);
  return (
    await holdSlot(h.deps, operator, {
      calendarIds: [room],
      start: `2030-01-08T${String(hour).padStart(2, '0')}:00:00Z`,
      end: `2030-01-08T${String(hour++).padStart(2, '0')}:30:00Z`,
      idempotencyKey: randomUUID(),
      ...(customer ? { customer } : {}),
    })
  ).value.booking;
};

describe.each(['sqlite', 'postgres'] as const)('list_customers and get_customer on %s', (engine) => {
  beforeEach(async () => {
    h = await appHarnessOn(engine, T0);
    room = await h.calendar('Room', 'UTC', open);
    hour = 9;
  });
  afterEach(() => h.close());

  it('one customer per address or number, newest details, paged, masked without sensitive', async () => {
    const first = await hold({ name: 'Ana', email: 'ana@example.com' });
    await hold({ name: 'Ana Lima', email: 'ANA@example.com' });
    await hold({ name: 'Bo', phone: '+49 30 123456' });
    await hold({ name: 'Cy', email: 'cy@example.com' });
    await hold(undefined);

    const page1 = await listCustomers(h.deps, operator, { limit: 2 });
    expect(page1.total).toBe(3);
    expect(page1.customers).toHaveLength(2);
    expect(page1.nextCursor).toMatch(/^cus_bk_/);
    const page2 = await listCustomers(h.deps, operator, { limit: 2, cursor: page1.nextCursor! });
    expect(page2.nextCursor).toBeNull();
    const all = [...page1.customers, ...page2.customers];
    expect(all).toHaveLength(3);
    const ana = all.find((c) => c.id === `cus_${first.id}`)!;
    expect(ana).toMatchObject({ bookings: 2, upcoming: 2, customer: { name: 'Ana Lima' } });
    // Neither an id nor a cursor carries contact data.
    expect(JSON.stringify([page1.nextCursor, ...all.map((c) => c.id)])).not.toMatch(/example|123456/);

    const masked = await listCustomers(h.deps, reader, { limit: 10 });
    expect(JSON.stringify(masked.customers)).not.toMatch(/ana@example|cy@example|123456/);
    expect(masked.customers.find((c) => c.id === ana.id)!.customer.email).toMatch(/^A\*\*\*@example\.com/);
  });

  it('reads one customer with their bookings; refuses ids it did not give and other tenants', async () => {
    const first = await hold({ name: 'Ana', email: 'ana@example.com' });
    const second = await hold({ name: 'Ana', email: 'ana@example.com' });
    const ana = await getCustomer(h.deps, operator, `cus_${first.id}`);
    expect(ana.history.map((b) => b.id)).toEqual([second.id, first.id]);
    expect(ana.customer.email).toBe('ana@example.com');
    expect((await getCustomer(h.deps, reader, `cus_${first.id}`)).history[0]!.customer!.email).not.toBe(
      'ana@example.com',
    );
    // Another booking of the same customer is not their id; another tenant sees nothing.
    expect((await refusal(getCustomer(h.deps, operator, `cus_${second.id}`))).code).toBe('NOT_FOUND');
    expect((await refusal(getCustomer(h.deps, stranger, `cus_${first.id}`))).code).toBe('NOT_FOUND');
    expect((await refusal(getCustomer(h.deps, operator, first.id))).details).toMatchObject({
      field: 'customerId',
    });
    expect((await refusal(listCustomers(h.deps, operator, { limit: 5, cursor: 'cus_bk_nope' }))).code).toBe(
      'INVALID_CURSOR',
    );
    expect((await listCustomers(h.deps, stranger, { limit: 5 })).total).toBe(0);
  });
});
