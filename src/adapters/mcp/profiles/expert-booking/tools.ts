import { z } from 'zod';
import { gatedBookingChange } from '../../../../app/booking/gated-booking.js';
import { holdSlot } from '../../../../app/booking/hold-slot.js';
import { offeredSlots } from '../../../../app/booking/offered-slots.js';
import { getBooking } from '../../../../app/booking/read-bookings.js';
import type { BookingSnapshot } from '../../../../app/booking/snapshot.js';
import type { ProofRequest } from '../../../../app/approvals/approval-proof.js';
import { effectiveStatus } from '../../../../domain/booking/booking.js';
import { invalidArgument } from '../../../../domain/errors.js';
import {
  bookingIdInput,
  customerInput,
  expectedVersion,
  idempotencyKey,
  instantInput,
} from '../../schemas.js';
import type { RunContext } from '../../tool-kit.js';
import { defineTool } from '../../tool-kit.js';
import { customerFor } from '../../views.js';
import type { HumanApproval } from './binding.js';
import {
  APPROVAL_SKEW_MS,
  APPROVAL_WINDOW_MS,
  checkBinding,
  intentHashOf,
  intentV1,
  isoMillis,
  slotIdOf,
  slotOfId,
} from './binding.js';
import { expertShape } from './shape.js';

const expertOut = z.object({ expertId: z.string(), name: z.string(), specialty: z.string().nullable() });

const intentOut = z.object({
  amount: z.string().nullable(),
  bookingId: z.string(),
  currency: z.string().nullable(),
  slotId: z.string(),
  startsAt: z.string(),
  version: z.int(),
});

const bookingSnapshot = z.object({
  bookingId: z.string(),
  slotId: z.string(),
  expert: z.object({ expertId: z.string(), name: z.string() }),
  startsAt: z.string(),
  endsAt: z.string(),
  status: z.string(),
  version: z.int(),
  customer: z.record(z.string(), z.unknown()).nullable(),
  amount: z.string().nullable(),
  currency: z.string().nullable(),
  payment: z.object({ status: z.string(), queryId: z.string(), paidAt: z.string().nullable() }).nullable(),
  paymentUrl: z.string().nullable(),
  heldAt: z.string(),
  expiresAt: z.string().nullable(),
  updatedAt: z.string(),
  confirmationIntent: z.object({ intent: intentOut, intentHash: z.string() }).nullable(),
});

/** A booking as expert-booking's snapshot shows one: the slot, the expert, money and the intent to approve. */
function snapshotView({ booking, calendars }: BookingSnapshot, ctx: RunContext) {
  const now = ctx.deps.clock.now();
  const status = effectiveStatus(booking, now);
  const expert = calendars[0];
  const intent = status === 'HELD' ? intentV1(booking) : null;
  return {
    bookingId: booking.id,
    slotId: slotIdOf({ calendarId: booking.calendarIds[0]!, start: booking.start, end: booking.end }),
    expert: { expertId: expert?.id ?? booking.calendarIds[0]!, name: expert?.name ?? '' },
    startsAt: isoMillis(booking.start),
    endsAt: isoMillis(booking.end),
    status,
    version: booking.version,
    // The connection that placed the booking gets back what it sent; anyone else as Holdfast shows it.
    customer: (booking.owner.connectionId === ctx.principal.connectionId
      ? booking.customer
      : customerFor(booking.customer, ctx.principal)) as Record<string, unknown> | null,
    amount: booking.price?.amount ?? null,
    currency: booking.price?.currency ?? null,
    // The booking id is the payment's query id, for good.
    payment: booking.payment && {
      status: booking.payment.status,
      queryId: booking.id,
      paidAt: booking.payment.paidAt === null ? null : isoMillis(booking.payment.paidAt),
    },
    paymentUrl: booking.price === null ? null : ctx.links.paymentUrl(booking.id),
    heldAt: isoMillis(booking.createdAt),
    expiresAt: booking.expiresAt === null ? null : isoMillis(booking.expiresAt),
    updatedAt: isoMillis(booking.updatedAt),
    confirmationIntent: intent && { intent, intentHash: intentHashOf(intent) },
  };
}

const bookingData = z.object({ booking: bookingSnapshot });

const searchTool = defineTool({
  name: 'booking.search_available_slots',
  scope: 'read',
  title: 'Search available expert slots',
  description:
    'Finds bookable expert slots: query words every expert must match in name, specialty or description ("" for all), limit at a time, optionally from/to (RFC 3339) and a specialty. Each candidate has an opaque slotId for booking.hold_slot. Answers total and nextCursor (pass it back with the same query for the next page). Results may be cached for 5 seconds; any booking change drops them.',
  input: z.strictObject({
    query: z.string().max(200).describe('Words every expert must match; "" for all.'),
    limit: z.int().min(1).max(50).describe('How many candidates to return (1-50).'),
    from: instantInput.optional().describe('Earliest start (RFC 3339); default now.'),
    to: instantInput.optional().describe('Latest end (RFC 3339); default as far ahead as the expert books.'),
    specialty: z.string().min(1).max(50).optional().describe('Only experts of this specialty.'),
    cursor: z.string().max(512).optional().describe('nextCursor of the same search.'),
  }),
  data: z.object({
    slots: z.array(
      z.object({
        slotId: z.string(),
        expert: expertOut,
        startsAt: z.string(),
        endsAt: z.string(),
        amount: z.string().nullable(),
        currency: z.string().nullable(),
      }),
    ),
    total: z.int(),
    nextCursor: z.string().nullable(),
  }),
  kind: 'read',
  annotations: { readOnlyHint: true, idempotentHint: true },
  shape: expertShape,
  async run(ctx, input) {
    const found = await offeredSlots(ctx.deps, ctx.principal, {
      query: input.query,
      limit: input.limit,
      ...(input.from !== undefined ? { from: input.from } : {}),
      ...(input.to !== undefined ? { to: input.to } : {}),
      ...(input.specialty !== undefined ? { tag: input.specialty } : {}),
      ...(input.cursor !== undefined ? { cursor: input.cursor } : {}),
    });
    return {
      data: {
        slots: found.slots.map(({ calendar, start, end }) => ({
          slotId: slotIdOf({ calendarId: calendar.id, start, end }),
          expert: { expertId: calendar.id, name: calendar.name, specialty: calendar.tags?.[0] ?? null },
          startsAt: isoMillis(start),
          endsAt: isoMillis(end),
          amount: calendar.price?.amount ?? null,
          currency: calendar.price?.currency ?? null,
        })),
        total: found.total,
        nextCursor: found.nextCursor,
      },
      meta: { cache: found.cache },
    };
  },
});

const holdTool = defineTool({
  name: 'booking.hold_slot',
  scope: 'draft',
  title: 'Hold an expert slot',
  description:
    'Holds one slot from booking.search_available_slots for this customer for five minutes (expiresAt); nobody else can take it meanwhile, and it is released by itself when it lapses. Answers the whole booking: payment PENDING with its paymentUrl (the customer pays outside the agent), and the confirmationIntent a person must approve. Send a UUID idempotencyKey; the same key with the same arguments answers the same booking, with other arguments IDEMPOTENCY_CONFLICT.',
  input: z.strictObject({
    slotId: z.string().min(6).max(300).describe('A slotId from booking.search_available_slots.'),
    customer: customerInput,
    idempotencyKey,
  }),
  data: bookingData,
  kind: 'write',
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true },
  shape: expertShape,
  async run(ctx, input, call) {
    const slot = slotOfId(input.slotId);
    const outcome = await holdSlot(
      ctx.deps,
      ctx.principal,
      {
        calendarIds: [slot.calendarId],
        start: new Date(slot.start).toISOString(),
        end: new Date(slot.end).toISOString(),
        customer: input.customer,
        idempotencyKey: input.idempotencyKey,
      },
      call,
    );
    return { data: { booking: snapshotView(outcome.value, ctx) }, replayed: outcome.replayed };
  },
});

const humanApproval = z
  .strictObject({
    approvalId: z.uuid(),
    decision: z.literal('APPROVE'),
    approvedAt: instantInput,
    intent: z.strictObject({
      amount: z.string().max(32).nullable(),
      bookingId: z.string().min(1).max(100),
      currency: z.string().max(3).nullable(),
      slotId: z.string().min(1).max(300),
      startsAt: z.string().max(40),
      version: z.int().min(1),
    }),
    intentHash: z.string().regex(/^sha256:[0-9a-f]{64}$/, 'must be sha256: and 64 lowercase hex digits'),
    hostId: z
      .string()
      .max(64)
      .regex(/^host_[A-Za-z0-9_-]+$/)
      .optional()
      .describe('Only a registered host application: its id (holdfast hosts add).'),
    signature: z
      .string()
      .max(200)
      .regex(/^[A-Za-z0-9_-]+$/)
      .optional()
      .describe('Only a registered host application: its Ed25519 signature over the intentHash.'),
  })
  .describe(
    'The person’s approval of this exact booking: intent and intentHash copied unchanged from confirmationIntent, approvedAt within the last 120 seconds. approvalId is the approval the person decided (APPROVAL_REQUIRED gives it, with the page where they decide), or, with hostId and signature, a registered host’s own.',
  );

const confirmTool = defineTool({
  name: 'booking.confirm_booking',
  scope: 'write',
  title: 'Confirm a held expert booking',
  description:
    'Confirms a HELD booking once a person approved exactly its confirmationIntent (within 120 seconds) and the payment cleared with the exact amount. Without a valid approval it fails and nothing is asked of the payment provider: APPROVAL_REQUIRED gives the page where the person approves and the approvalId to send. PAYMENT_PENDING keeps the hold until expiresAt. Pass expectedVersion and a UUID idempotencyKey.',
  input: z.strictObject({
    bookingId: bookingIdInput,
    expectedVersion,
    idempotencyKey,
    humanApproval,
  }),
  data: bookingData,
  kind: 'write',
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true },
  shape: expertShape,
  async run(ctx, input, call) {
    const approval = input.humanApproval as HumanApproval;
    const outcome = await gatedBookingChange(
      ctx.deps,
      ctx.principal,
      'confirm_booking',
      {
        bookingId: input.bookingId,
        expectedVersion: input.expectedVersion,
        idempotencyKey: input.idempotencyKey,
        ...proofOf(approval),
      },
      {
        traceId: call.traceId,
        audit: call.audit,
        argumentsDigest: call.argumentsDigest,
        contractCheck: (booking, now) => checkBinding(approval, booking, now),
      },
    );
    return { data: { booking: snapshotView(outcome.value, ctx) }, replayed: outcome.replayed };
  },
});

/**
 * What proves the person said yes. The seed's unsigned object proves nothing against an untrusted
 * agent (it says so itself): it must name an approval a person decided in Holdfast within the
 * window, or carry a registered host's signature over the same v1 intent hash.
 */
function proofOf(approval: HumanApproval): ProofRequest {
  const signed = approval.hostId !== undefined || approval.signature !== undefined;
  if (!signed)
    return {
      approval: { approvalId: approval.approvalId },
      personRequired: true,
      unknownApprovalAsks: true,
      decidedWithinMs: APPROVAL_WINDOW_MS + APPROVAL_SKEW_MS,
      terms: { holdFixed: true },
    };
  if (approval.hostId === undefined || approval.signature === undefined)
    throw invalidArgument(
      approval.hostId === undefined ? 'humanApproval.hostId' : 'humanApproval.signature',
      'a host’s approval carries both hostId and signature',
    );
  return {
    humanApproval: {
      hostId: approval.hostId,
      approvalId: approval.approvalId,
      approvedAt: approval.approvedAt,
      intentHash: approval.intentHash,
      signature: approval.signature,
    },
    // checkBinding has made sure it is the hash of this booking's v1 intent before this is read.
    contractIntentHash: approval.intentHash,
    decidedWithinMs: APPROVAL_WINDOW_MS + APPROVAL_SKEW_MS,
    personRequired: true,
    terms: { holdFixed: true },
  };
}

const getTool = defineTool({
  name: 'booking.get_booking',
  scope: 'read',
  title: 'Get an expert booking',
  description:
    'The current snapshot of one booking: status, version, payment, expiresAt, and while HELD the confirmationIntent a person must approve.',
  input: z.strictObject({ bookingId: bookingIdInput }),
  data: bookingData,
  kind: 'read',
  annotations: { readOnlyHint: true, idempotentHint: true },
  shape: expertShape,
  async run(ctx, input) {
    return {
      data: { booking: snapshotView(await getBooking(ctx.deps, ctx.principal, input.bookingId), ctx) },
    };
  },
});

/** The catalog's four fixed logical tools (seed 000). */
export const expertTools = [searchTool, holdTool, confirmTool, getTool];
