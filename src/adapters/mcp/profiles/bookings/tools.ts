import type { CallToolResult } from '@modelcontextprotocol/server';
import { z } from 'zod';
import type { ApprovalTerms } from '../../../../app/approvals/approvals.js';
import { requestApproval } from '../../../../app/approvals/approvals.js';
import { burnApproval, mintBoundToken, spendBoundToken } from '../../../../app/approvals/bound-tokens.js';
import { checkAvailability } from '../../../../app/booking/check-availability.js';
import { customerByNumber, customerNumbersOf, numberedCustomers } from '../../../../app/booking/customers.js';
import { gatedBookingChange } from '../../../../app/booking/gated-booking.js';
import { holdSlot } from '../../../../app/booking/hold-slot.js';
import { listBookings } from '../../../../app/booking/read-bookings.js';
import { releaseHold } from '../../../../app/booking/release-hold.js';
import type { BookingSnapshot } from '../../../../app/booking/snapshot.js';
import { listCalendars } from '../../../../app/calendars/calendars.js';
import type { Approval } from '../../../../domain/approval/approval.js';
import { BOUND_TOKEN_TTL_MS } from '../../../../domain/approval/bound-token.js';
import { effectiveStatus } from '../../../../domain/booking/booking.js';
import { DomainError, invalidArgument } from '../../../../domain/errors.js';
import { formatInstant, formatLocal } from '../../../../domain/time/instant.js';
import type { AnswerShape, RunContext, ToolCall, ToolDefinition } from '../../tool-kit.js';
import { defineTool } from '../../tool-kit.js';

/**
 * bookings-mcp (seed 001) as itself: read tools that read freely, and writes that each carry a
 * one-time token bound to the exact arguments a person approved — in its own names and shapes.
 */

/** Every answer's payload is the JSON in the text content block, as the seed's examples show it. */
const bookingsShape: AnswerShape = {
  output: (data) => data,
  ok: ({ data }): CallToolResult => ({
    content: [{ type: 'text', text: JSON.stringify(data) }],
    structuredContent: data as Record<string, unknown>,
  }),
  // A refusal by the gate reads as the seed's; any other names its code and what to do.
  error: ({ error }): CallToolResult => ({
    isError: true,
    content: [
      {
        type: 'text',
        text: error.code.startsWith('APPROVAL_')
          ? `BLOCKED BY APPROVAL GATE: ${error.message}`
          : `${error.code}: ${error.message}`,
      },
    ],
  }),
};

const date = z.string().max(10).describe('The date, YYYY-MM-DD (in the calendar’s time zone).');
const time = z.string().max(5).describe('A 30-minute slot’s start, HH:MM (:00 or :30).');
const customerId = z.int().min(1).describe('A customer’s id, from list_customers.');
const createArgs = z.strictObject({
  customerId,
  date,
  time,
  service: z.string().min(1).max(200).describe('What the booking is for, e.g. "consultation".'),
});
const cancelArgs = z.strictObject({ bookingId: z.string().min(1).max(100) });
const approvalInput = z
  .strictObject({
    token: z.string().min(1).max(200),
    approvedBy: z.string().min(1).max(200).describe('Who approved it, as the person released the token.'),
  })
  .describe(
    'The one-time token request_approval returned, released by a person; any change to the arguments invalidates it.',
  );

const READ = { readOnlyHint: true, idempotentHint: true } as const;
const WRITE = { readOnlyHint: false, destructiveHint: true, idempotentHint: false } as const;
/** How long a slot lasts: the seed's store books 30-minute slots. */
const SLOT_MINUTES = 30;

/** The store's calendar: the tenant's first (oldest), which the seed's single store stands for. */
async function storeCalendar(ctx: RunContext) {
  const { calendars } = await listCalendars(ctx.deps, ctx.principal, { limit: 1 });
  const calendar = calendars[0];
  if (!calendar) throw new DomainError('NOT_FOUND', 'There is no calendar to book yet.', {});
  return calendar;
}

/** The seed's booking: who, when (the date and time on the calendar's wall clock), what, and its status. */
function bookingOf(ctx: RunContext, { booking, calendars }: BookingSnapshot, number: number | null) {
  const zone = calendars[0]?.timeZone ?? 'UTC';
  const local = formatLocal(booking.start, zone); // 2026-11-02T11:00:00+01:00
  return {
    id: booking.id,
    customerId: number,
    date: local.slice(0, 10),
    time: local.slice(11, 16),
    service: booking.label,
    status: effectiveStatus(booking, ctx.deps.clock.now()).toLowerCase(),
    reference: booking.reference,
    start: formatInstant(booking.start),
    end: formatInstant(booking.end),
  };
}

const bookingOut = z.object({
  id: z.string(),
  customerId: z.int().nullable(),
  date: z.string(),
  time: z.string(),
  service: z.string().nullable(),
  status: z.string(),
  reference: z.string(),
  start: z.string(),
  end: z.string(),
});
const customerOut = z.object({
  id: z.int(),
  name: z.string().nullable(),
  email: z.string().nullable(),
  phone: z.string().nullable(),
});

const listCustomersTool = defineTool({
  name: 'list_customers',
  scope: 'read',
  title: 'List customers',
  description: 'List all customers (contact details masked without the sensitive scope).',
  input: z.strictObject({}),
  data: z.object({ customers: z.array(customerOut) }),
  kind: 'read',
  annotations: READ,
  shape: bookingsShape,
  async run(ctx) {
    const customers = await numberedCustomers(ctx.deps, ctx.principal, 500);
    return {
      data: {
        customers: customers.map((c) => ({
          id: c.number,
          name: c.customer.name ?? null,
          email: c.customer.email ?? null,
          phone: c.customer.phone ?? null,
        })),
      },
    };
  },
});

const getCustomerTool = defineTool({
  name: 'get_customer',
  scope: 'read',
  title: 'Get a customer',
  description: 'Fetch a single customer by id, with their bookings.',
  input: z.strictObject({ id: customerId }),
  data: customerOut.extend({
    bookings: z.array(z.object({ id: z.string(), status: z.string(), start: z.string() })),
  }),
  kind: 'read',
  annotations: READ,
  shape: bookingsShape,
  async run(ctx, input) {
    const found = await customerByNumber(ctx.deps, ctx.principal, input.id);
    const now = ctx.deps.clock.now();
    return {
      data: {
        id: found.number,
        name: found.customer.name ?? null,
        email: found.customer.email ?? null,
        phone: found.customer.phone ?? null,
        bookings: found.history.map((b) => ({
          id: b.id,
          status: effectiveStatus(b, now).toLowerCase(),
          start: formatInstant(b.start),
        })),
      },
    };
  },
});

const listBookingsTool = defineTool({
  name: 'list_bookings',
  scope: 'read',
  title: 'List bookings',
  description: 'List all bookings (of the person this connection acts for) with their status.',
  input: z.strictObject({}),
  data: z.object({ bookings: z.array(bookingOut) }),
  kind: 'read',
  annotations: READ,
  shape: bookingsShape,
  async run(ctx) {
    const page = await listBookings(ctx.deps, ctx.principal, { limit: 100 });
    const numbers = await customerNumbersOf(
      ctx.deps,
      ctx.principal,
      page.bookings.map((s) => s.booking.id),
    );
    const bookings = page.bookings.map((s) => bookingOf(ctx, s, numbers.get(s.booking.id) ?? null));
    return { data: { bookings } };
  },
});

const checkAvailabilityTool = defineTool({
  name: 'check_availability',
  scope: 'read',
  title: 'Check availability',
  description:
    'Check which of the given 30-minute slots are free on a date (YYYY-MM-DD, 1–16 times per call, HH:MM).',
  input: z.strictObject({ date, times: z.array(time).min(1).max(16) }),
  data: z.object({
    date: z.string(),
    slots: z.array(z.object({ time: z.string(), available: z.boolean(), reason: z.string().nullable() })),
  }),
  kind: 'read',
  annotations: READ,
  shape: bookingsShape,
  async run(ctx, input) {
    const calendar = await storeCalendar(ctx);
    const found = await checkAvailability(ctx.deps, ctx.principal, {
      calendarIds: [calendar.id],
      date: input.date,
      times: input.times,
      durationMinutes: SLOT_MINUTES,
    });
    return {
      data: {
        date: found.date,
        slots: found.times.map((t) => ({ time: t.time, available: t.free, reason: t.reason })),
      },
    };
  },
});

const requestApprovalTool = defineTool({
  name: 'request_approval',
  scope: 'draft',
  title: 'Request approval',
  description:
    'Queue a write action for approval; returns a one-time token bound to the exact tool + args. Never executes anything: a person reviews the exact action (approveUrl) and releases the token; then call the write tool with unchanged args and approval: { token, approvedBy }. The time of a create_booking is held for them meanwhile.',
  input: z.strictObject({
    tool: z.enum(['create_booking', 'cancel_booking']),
    args: z.record(z.string(), z.unknown()).describe('The write tool’s exact arguments (without approval).'),
    requester_note: z.string().max(500).optional().describe('Why, for the person deciding.'),
  }),
  data: z.object({
    message: z.string(),
    approvalId: z.string(),
    token: z.string(),
    boundTo: z.object({ tool: z.string(), args: z.record(z.string(), z.unknown()) }),
    expiresAt: z.string(),
    note: z.string(),
    approveUrl: z.string(),
  }),
  kind: 'approval',
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false },
  shape: bookingsShape,
  async run(ctx, input, call) {
    const args = (input.tool === 'create_booking' ? createArgs : cancelArgs).safeParse(input.args);
    if (!args.success) {
      const issue = args.error.issues[0]!;
      throw invalidArgument(['args', ...issue.path.map(String)].join('.'), issue.message);
    }
    // The person deciding reads the agent's note beside the exact action.
    const terms = { ...TERMS, ...(input.requester_note ? { note: input.requester_note } : {}) };
    const approval =
      input.tool === 'create_booking'
        ? await askToCreate(ctx, call, args.data as z.infer<typeof createArgs>, terms)
        : await askToCancel(ctx, call, args.data as z.infer<typeof cancelArgs>, terms);
    const minted = await mintBoundToken(ctx.deps, ctx.principal, {
      approvalId: approval.approvalId,
      tool: input.tool,
      args: args.data,
    });
    return {
      data: {
        message: 'Approval requested. A human must review and release this token.',
        approvalId: approval.approvalId,
        token: minted.token,
        boundTo: { tool: input.tool, args: args.data as Record<string, unknown> },
        expiresAt: formatInstant(minted.expiresAt),
        note: 'Pass { token, approvedBy } in the write tool. Any change to the arguments invalidates the token.',
        approveUrl: ctx.links.approveUrl(approval.approvalId),
      },
    };
  },
});

/** The seed's 10-minute approval: a person who looks at it has that long (not the tenant's window). */
const TERMS: ApprovalTerms = { windowMs: BOUND_TOKEN_TTL_MS };

/** A create_booking to approve: its time held for the customer meanwhile, and a person asked to confirm it. */
async function askToCreate(
  ctx: RunContext,
  call: ToolCall,
  args: z.infer<typeof createArgs>,
  terms: ApprovalTerms,
) {
  const customer = await customerByNumber(ctx.deps, ctx.principal, args.customerId);
  const calendar = await storeCalendar(ctx);
  const [slot] = (
    await checkAvailability(ctx.deps, ctx.principal, {
      calendarIds: [calendar.id],
      date: args.date,
      times: [args.time],
      durationMinutes: SLOT_MINUTES,
    })
  ).times;
  const held = await holdSlot(
    ctx.deps,
    ctx.principal,
    {
      calendarIds: [calendar.id],
      start: formatInstant(slot!.start),
      end: formatInstant(slot!.end),
      customer: customer.details,
      label: args.service,
      idempotencyKey: ctx.deps.ids.newUuid(),
    },
    call,
  );
  const booking = held.value.booking;
  try {
    return (
      await requestApproval(
        ctx.deps,
        ctx.principal,
        { bookingId: booking.id, action: 'confirm_booking', idempotencyKey: ctx.deps.ids.newUuid() },
        {},
        terms,
      )
    ).value;
  } catch (error) {
    await releaseHold(ctx.deps, ctx.principal, {
      bookingId: booking.id,
      expectedVersion: booking.version,
      idempotencyKey: ctx.deps.ids.newUuid(),
    }).catch(() => undefined);
    throw error;
  }
}

async function askToCancel(
  ctx: RunContext,
  _call: ToolCall,
  args: z.infer<typeof cancelArgs>,
  terms: ApprovalTerms,
) {
  const { value } = await requestApproval(
    ctx.deps,
    ctx.principal,
    { bookingId: args.bookingId, action: 'cancel_booking', idempotencyKey: ctx.deps.ids.newUuid() },
    {},
    terms,
  );
  return value;
}

/**
 * A write with its token: the token is spent first (a refused use cannot be retried), then the
 * approved change runs through the same gate as Holdfast's own — a person's decision whatever
 * the write policy — and an approval whose use failed is spent with it.
 */
async function approvedChange(
  ctx: RunContext,
  call: ToolCall,
  tool: 'create_booking' | 'cancel_booking',
  args: Record<string, unknown>,
  approval: { token: string; approvedBy: string },
): Promise<BookingSnapshot> {
  const approved: Approval = await spendBoundToken(ctx.deps, ctx.principal, {
    token: approval.token,
    tool,
    args,
    by: approval.approvedBy,
  });
  try {
    const outcome = await gatedBookingChange(
      ctx.deps,
      ctx.principal,
      tool === 'create_booking' ? 'confirm_booking' : 'cancel_booking',
      {
        bookingId: approved.bookingId,
        expectedVersion: approved.intent.version,
        idempotencyKey: ctx.deps.ids.newUuid(),
        approval: { approvalId: approved.id },
        personRequired: true,
      },
      { traceId: call.traceId, audit: call.audit },
    );
    return outcome.value;
  } catch (error) {
    await burnApproval(
      ctx.deps,
      ctx.principal,
      approved,
      error instanceof Error ? error.message : String(error),
    );
    throw error;
  }
}

const createBookingTool = defineTool({
  name: 'create_booking',
  scope: 'write',
  title: 'Create a booking',
  description:
    'Create a booking for an existing customer in a free slot. Requires approval: { token, approvedBy } from request_approval for exactly these arguments, released by a person; the token is used once, even when the call fails.',
  input: createArgs.extend({ approval: approvalInput }),
  data: bookingOut,
  kind: 'write',
  annotations: WRITE,
  shape: bookingsShape,
  async run(ctx, input, call) {
    const { approval, ...args } = input;
    const snapshot = await approvedChange(ctx, call, 'create_booking', args, approval);
    return { data: bookingOf(ctx, snapshot, args.customerId) };
  },
});

const cancelBookingTool = defineTool({
  name: 'cancel_booking',
  scope: 'write',
  title: 'Cancel a booking',
  description:
    'Cancel an existing booking by bookingId. Requires approval: { token, approvedBy } from request_approval for exactly this bookingId, released by a person.',
  input: cancelArgs.extend({ approval: approvalInput }),
  data: bookingOut,
  kind: 'write',
  annotations: WRITE,
  shape: bookingsShape,
  async run(ctx, input, call) {
    const { approval, ...args } = input;
    const snapshot = await approvedChange(ctx, call, 'cancel_booking', args, approval);
    const numbers = await customerNumbersOf(ctx.deps, ctx.principal, [snapshot.booking.id]);
    return { data: bookingOf(ctx, snapshot, numbers.get(snapshot.booking.id) ?? null) };
  },
});

export const bookingsTools = [
  listCustomersTool,
  getCustomerTool,
  listBookingsTool,
  checkAvailabilityTool,
  requestApprovalTool,
  createBookingTool,
  cancelBookingTool,
] as ToolDefinition<unknown, unknown>[];
