import { z } from 'zod';
import type { CustomerSummary } from '../../../app/booking/customers.js';
import { getCustomer, listCustomers } from '../../../app/booking/customers.js';
import { effectiveStatus } from '../../../domain/booking/booking.js';
import { formatInstant } from '../../../domain/time/instant.js';
import { instantOut } from '../schemas.js';
import { defineTool } from '../tool-kit.js';

const READ = { readOnlyHint: true, idempotentHint: true } as const;

const contactOut = z.object({
  name: z.string().nullable(),
  email: z.string().nullable().describe('Masked (a***@example.com) without the sensitive scope.'),
  phone: z.string().nullable().describe('Masked (***56) without the sensitive scope.'),
});
const customerOut = z.object({
  id: z.string(),
  contact: contactOut,
  bookings: z.int(),
  upcoming: z.int().describe('Bookings still to come that hold their time (HELD or CONFIRMED).'),
  lastStart: instantOut,
});

const customerView = (c: CustomerSummary) => ({
  id: c.id,
  contact: {
    name: c.customer.name ?? null,
    email: c.customer.email ?? null,
    phone: c.customer.phone ?? null,
  },
  bookings: c.bookings,
  upcoming: c.upcoming,
  lastStart: formatInstant(c.lastStart),
});

export const listCustomersTool = defineTool({
  name: 'list_customers',
  scope: 'read',
  title: 'List customers',
  description:
    "The tenant's customers as its bookings name them (one per e-mail address, else phone number), with how many bookings each has and the latest start; contact details masked without the sensitive scope. Paged: limit (1-100) and nextCursor. get_customer reads one with its bookings.",
  input: z.strictObject({
    limit: z.int().min(1).max(100).describe('How many customers to return (1-100).'),
    cursor: z.string().max(200).optional(),
  }),
  data: z.object({ customers: z.array(customerOut), total: z.int(), nextCursor: z.string().nullable() }),
  kind: 'read',
  annotations: READ,
  async run({ deps, principal }, input) {
    const page = await listCustomers(deps, principal, input);
    return {
      data: { customers: page.customers.map(customerView), total: page.total, nextCursor: page.nextCursor },
    };
  },
});

export const getCustomerTool = defineTool({
  name: 'get_customer',
  scope: 'read',
  title: 'Get a customer',
  description:
    'One customer by the id list_customers gave (cus_…): contact details (masked without the sensitive scope) and their bookings, newest first (at most 200).',
  input: z.strictObject({ customerId: z.string().min(1).max(120) }),
  data: z.object({
    customer: customerOut,
    history: z.array(
      z.object({
        bookingId: z.string(),
        reference: z.string(),
        status: z.string(),
        start: instantOut,
        end: instantOut,
        calendarIds: z.array(z.string()),
      }),
    ),
  }),
  kind: 'read',
  annotations: READ,
  async run({ deps, principal }, input) {
    const found = await getCustomer(deps, principal, input.customerId);
    const now = deps.clock.now();
    return {
      data: {
        customer: customerView(found),
        history: found.history.map((b) => ({
          bookingId: b.id,
          reference: b.reference,
          status: effectiveStatus(b, now),
          start: formatInstant(b.start),
          end: formatInstant(b.end),
          calendarIds: [...b.calendarIds],
        })),
      },
    };
  },
});
