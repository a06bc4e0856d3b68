import { z } from 'zod';
import { gatedBookingChange } from '../../../../app/booking/gated-booking.js';
import { findSlots } from '../../../../app/booking/find-slots.js';
import { freeWindows } from '../../../../app/booking/free-windows.js';
import { holdSlot } from '../../../../app/booking/hold-slot.js';
import { getBooking, listBookings } from '../../../../app/booking/read-bookings.js';
import { releaseHold } from '../../../../app/booking/release-hold.js';
import type { BookingSnapshot } from '../../../../app/booking/snapshot.js';
import { createCalendar, setAvailability } from '../../../../app/calendars/calendars.js';
import { DomainError, invalidArgument } from '../../../../domain/errors.js';
import { effectiveStatus } from '../../../../domain/booking/booking.js';
import { instantInput, weeklyHours } from '../../schemas.js';
import type { RunContext, ToolCall, ToolDefinition } from '../../tool-kit.js';
import { defineTool } from '../../tool-kit.js';
import { deltatInstant, deltatLocal, deltatShape } from './shape.js';

/** deltat's arguments are snake_case; ids as Holdfast hands them out. */
const calendarIds = z
  .array(z.string().min(1).max(100))
  .min(1)
  .max(10)
  .describe('Every calendar that must be free at once (one element for one calendar).');
const holdIds = z
  .array(z.string().min(1).max(220))
  .min(1)
  .max(10)
  .describe('The hold_ids hold_slot returned.');
/** deltat has no keys of its own; a caller that sends one gets Holdfast's replay of a retry. */
const idempotencyKey = z
  .uuid()
  .optional()
  .describe('Optional UUID: a retry with the same key answers the first outcome instead of acting twice.');
const approvalId = z
  .uuid()
  .optional()
  .describe('Where a person must approve first (APPROVAL_REQUIRED): the approval they decided.');

const keyOf = (ctx: RunContext, key: string | undefined) => key ?? ctx.deps.ids.newUuid();

/** One hold of one calendar: the booking that holds every calendar of a hold_slot, and that calendar. */
export const holdIdOf = (bookingId: string, calendarId: string) => `${bookingId}:${calendarId}`;

/**
 * The one hold_slot the hold_ids come from, and whether they name all of its calendars. A hold in
 * Holdfast is one record for every calendar: committing or releasing part of it is refused.
 */
async function holdOf(ctx: RunContext, ids: readonly string[], field: string): Promise<BookingSnapshot> {
  const parts = ids.map((id) => {
    const at = id.lastIndexOf(':');
    if (at <= 0) throw invalidArgument(field, `"${id.slice(0, 60)}" is not a hold id from hold_slot`);
    return { bookingId: id.slice(0, at), calendarId: id.slice(at + 1) };
  });
  const bookings = new Set(parts.map((p) => p.bookingId));
  if (bookings.size > 1)
    throw invalidArgument(
      field,
      'the hold_ids come from several hold_slot calls: commit or release one at a time',
    );
  const snapshot = await getBooking(ctx.deps, ctx.principal, parts[0]!.bookingId);
  const held = new Set(snapshot.booking.calendarIds);
  const named = new Set(parts.map((p) => p.calendarId));
  if (named.size !== held.size || [...named].some((c) => !held.has(c)))
    throw invalidArgument(
      field,
      `name every hold of it (${snapshot.booking.calendarIds.map((c) => holdIdOf(snapshot.booking.id, c)).join(', ')}): its calendars are held, committed and released together`,
    );
  return snapshot;
}

/** A booking as deltat's answers show one. */
function bookingOf(ctx: RunContext, { booking, calendars }: BookingSnapshot) {
  const zone = calendars[0]?.timeZone ?? 'UTC';
  return {
    booking_id: booking.id,
    calendar_ids: [...booking.calendarIds],
    start: deltatInstant(booking.start),
    end: deltatInstant(booking.end),
    start_local: deltatLocal(booking.start, zone),
    label: booking.label,
    status: effectiveStatus(booking, ctx.deps.clock.now()).toLowerCase(),
  };
}

const slotOut = z.object({ start: z.string(), end: z.string(), start_local: z.string() });
const bookingOut = z.object({
  booking_id: z.string(),
  calendar_ids: z.array(z.string()),
  start: z.string(),
  end: z.string(),
  start_local: z.string(),
  label: z.string().nullable(),
  status: z.string(),
});

function deltatTools(offerAlternatives: boolean) {
  const shape = deltatShape(offerAlternatives);
  const write = { readOnlyHint: false, destructiveHint: false, idempotentHint: false } as const;

  const findSlotsTool = defineTool({
    name: 'find_slots',
    scope: 'read',
    title: 'Find free slots',
    description:
      'Use before offering anyone a time. Lists the times when ALL the calendars you name are truly free: without duration_minutes, every free stretch; with it, slots of that length. Times are RFC 3339 with an offset.',
    input: z.strictObject({
      calendar_ids: calendarIds,
      from: instantInput,
      to: instantInput,
      duration_minutes: z.int().min(5).max(1440).optional(),
      limit: z.int().min(1).max(100).optional().describe('At most this many (default 20).'),
    }),
    data: z.object({ calendar_ids: z.array(z.string()), slots: z.array(slotOut), total: z.int() }),
    kind: 'read',
    annotations: { readOnlyHint: true, idempotentHint: true },
    shape,
    async run(ctx, input) {
      const limit = input.limit ?? 20;
      const common = { calendarIds: input.calendar_ids, from: input.from, to: input.to, limit };
      const found =
        input.duration_minutes === undefined
          ? await freeWindows(ctx.deps, ctx.principal, common).then((f) => ({
              calendars: f.calendars,
              slots: f.windows,
              total: f.total,
            }))
          : await findSlots(ctx.deps, ctx.principal, { ...common, durationMinutes: input.duration_minutes });
      const zone = found.calendars[0]?.timeZone ?? 'UTC';
      return {
        data: {
          calendar_ids: [...input.calendar_ids],
          slots: found.slots.map((s) => ({
            start: deltatInstant(s.start),
            end: deltatInstant(s.end),
            start_local: deltatLocal(s.start, zone),
          })),
          total: found.total,
        },
      };
    },
  });

  const holdSlotTool = defineTool({
    name: 'hold_slot',
    scope: 'draft',
    title: 'Hold a slot',
    description:
      'Use when you are about to offer a person one exact time. Holds [start, end) on every calendar you name, or on none, for a few minutes (expires_at), so nobody else can take it while they decide; returns hold_ids. Not a booking: commit_hold books it. A taken time is refused with the times that were free instead (not reserved).',
    input: z.strictObject({
      calendar_ids: calendarIds,
      start: instantInput,
      end: instantInput,
      label: z.string().max(200).optional(),
      idempotency_key: idempotencyKey,
    }),
    data: z.object({
      hold_ids: z.array(z.string()),
      calendar_ids: z.array(z.string()),
      start: z.string(),
      end: z.string(),
      start_local: z.string(),
      expires_at: z.string().nullable(),
      held: z.boolean(),
      booked: z.boolean(),
    }),
    kind: 'write',
    annotations: write,
    shape,
    async run(ctx, input, call) {
      const outcome = await holdSlot(
        ctx.deps,
        ctx.principal,
        {
          calendarIds: input.calendar_ids,
          start: input.start,
          end: input.end,
          ...(input.label !== undefined ? { label: input.label } : {}),
          idempotencyKey: keyOf(ctx, input.idempotency_key),
        },
        call,
      );
      const { booking } = outcome.value;
      const shown = bookingOf(ctx, outcome.value);
      return {
        data: {
          hold_ids: booking.calendarIds.map((c) => holdIdOf(booking.id, c)),
          calendar_ids: shown.calendar_ids,
          start: shown.start,
          end: shown.end,
          start_local: shown.start_local,
          expires_at: booking.expiresAt === null ? null : deltatInstant(booking.expiresAt),
          held: true,
          booked: false,
        },
        replayed: outcome.replayed,
      };
    },
  });

  /** commit_hold and cancel_booking: the same gate as Holdfast's confirm and cancel. */
  const gated = async (
    ctx: RunContext,
    call: ToolCall,
    action: 'confirm_booking' | 'cancel_booking',
    snapshot: BookingSnapshot,
    extra: { label?: string; approvalId?: string; idempotencyKey?: string },
  ) =>
    gatedBookingChange(
      ctx.deps,
      ctx.principal,
      action,
      {
        bookingId: snapshot.booking.id,
        expectedVersion: snapshot.booking.version,
        idempotencyKey: keyOf(ctx, extra.idempotencyKey),
        ...(extra.label !== undefined ? { label: extra.label } : {}),
        ...(extra.approvalId ? { approval: { approvalId: extra.approvalId } } : {}),
      },
      { traceId: call.traceId, audit: call.audit },
    );

  const commitHoldTool = defineTool({
    name: 'commit_hold',
    scope: 'write',
    title: 'Commit a hold',
    description:
      'Use when the booking is agreed. Turns every hold of a hold_slot into one booking, atomically: all its calendars are booked, or none. Whether a person must approve first follows the tenant write policy (single-operator stdio: direct); if so you get APPROVAL_REQUIRED with the page to show, then call again with approval_id.',
    input: z.strictObject({
      hold_ids: holdIds,
      label: z.string().max(200).optional(),
      approval_id: approvalId,
      idempotency_key: idempotencyKey,
    }),
    data: bookingOut.extend({ booked: z.boolean() }),
    kind: 'write',
    annotations: write,
    shape,
    async run(ctx, input, call) {
      const hold = await holdOf(ctx, input.hold_ids, 'hold_ids');
      const outcome = await gated(ctx, call, 'confirm_booking', hold, {
        ...(input.label !== undefined ? { label: input.label } : {}),
        ...(input.approval_id ? { approvalId: input.approval_id } : {}),
        ...(input.idempotency_key ? { idempotencyKey: input.idempotency_key } : {}),
      });
      return { data: { ...bookingOf(ctx, outcome.value), booked: true }, replayed: outcome.replayed };
    },
  });

  const releaseHoldTool = defineTool({
    name: 'release_hold',
    scope: 'draft',
    title: 'Release a hold',
    description:
      'Use as soon as you know a held time is not needed. Gives back every hold of a hold_slot at once.',
    input: z.strictObject({ hold_ids: holdIds, idempotency_key: idempotencyKey }),
    data: z.object({ hold_ids: z.array(z.string()), released: z.boolean() }),
    kind: 'write',
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true },
    shape,
    async run(ctx, input, call) {
      const hold = await holdOf(ctx, input.hold_ids, 'hold_ids');
      const outcome = await releaseHold(
        ctx.deps,
        ctx.principal,
        {
          bookingId: hold.booking.id,
          expectedVersion: hold.booking.version,
          idempotencyKey: keyOf(ctx, input.idempotency_key),
        },
        call,
      );
      return { data: { hold_ids: [...input.hold_ids], released: true }, replayed: outcome.replayed };
    },
  });

  const createCalendarTool = defineTool({
    name: 'create_calendar',
    scope: 'sensitive',
    title: 'Create a calendar',
    description:
      'Use when you need a new bookable calendar. Returns calendar_id. Set its opening hours with set_availability.',
    input: z.strictObject({
      name: z.string().min(1).max(200),
      time_zone: z.string().min(1).max(64).optional().describe('IANA zone of its hours (default UTC).'),
      idempotency_key: idempotencyKey,
    }),
    data: z.object({ calendar_id: z.string(), name: z.string(), time_zone: z.string() }),
    kind: 'admin',
    annotations: write,
    shape,
    async run(ctx, input, call) {
      const outcome = await createCalendar(
        ctx.deps,
        ctx.principal,
        {
          name: input.name,
          timeZone: input.time_zone ?? 'UTC',
          idempotencyKey: keyOf(ctx, input.idempotency_key),
        },
        call,
      );
      const calendar = outcome.value;
      return {
        data: { calendar_id: calendar.id, name: calendar.name, time_zone: calendar.timeZone },
        replayed: outcome.replayed,
      };
    },
  });

  const setAvailabilityTool = defineTool({
    name: 'set_availability',
    scope: 'sensitive',
    title: 'Set availability',
    description:
      'Use when the opening hours change, or when find_slots returns nothing. Replaces the whole week: wall-clock windows per weekday in the calendar zone; a missing day is closed.',
    input: z.strictObject({
      calendar_id: z.string().min(1).max(100),
      weekly: weeklyHours,
      idempotency_key: idempotencyKey,
    }),
    data: z.object({ calendar_id: z.string(), weekly: z.record(z.string(), z.unknown()) }),
    kind: 'admin',
    annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true },
    shape,
    async run(ctx, input, call) {
      const outcome = await setAvailability(
        ctx.deps,
        ctx.principal,
        {
          calendarId: input.calendar_id,
          availability: { weekly: input.weekly, overrides: [] },
          idempotencyKey: keyOf(ctx, input.idempotency_key),
        },
        call,
      );
      return {
        data: { calendar_id: outcome.value.id, weekly: { ...outcome.value.availability.weekly } },
        replayed: outcome.replayed,
      };
    },
  });

  const listBookingsTool = defineTool({
    name: 'list_bookings',
    scope: 'read',
    title: 'List bookings',
    description:
      'Use when someone asks what is scheduled, or you need a booking_id to cancel. Lists the confirmed bookings, soonest first.',
    input: z.strictObject({
      calendar_ids: calendarIds.optional(),
      from: instantInput.optional(),
      to: instantInput.optional(),
      limit: z.int().min(1).max(100).optional().describe('At most this many (default 50).'),
    }),
    data: z.object({ bookings: z.array(bookingOut), total: z.int() }),
    kind: 'read',
    annotations: { readOnlyHint: true, idempotentHint: true },
    shape,
    async run(ctx, input) {
      const wanted = input.calendar_ids && new Set(input.calendar_ids);
      const page = await listBookings(ctx.deps, ctx.principal, {
        status: 'CONFIRMED',
        ...(input.calendar_ids?.length === 1 ? { calendarId: input.calendar_ids[0]! } : {}),
        ...(input.from !== undefined ? { from: input.from } : {}),
        ...(input.to !== undefined ? { to: input.to } : {}),
        limit: 100,
      });
      const bookings = page.bookings
        .filter((s) => !wanted || s.booking.calendarIds.some((c) => wanted.has(c)))
        .map((s) => bookingOf(ctx, s));
      return { data: { bookings: bookings.slice(0, input.limit ?? 50), total: bookings.length } };
    },
  });

  const cancelBookingTool = defineTool({
    name: 'cancel_booking',
    scope: 'write',
    title: 'Cancel a booking',
    description:
      'Use when a person asks to cancel a confirmed booking (booking_id from list_bookings). As with commit_hold, the tenant write policy says whether a person approves first.',
    input: z.strictObject({
      booking_id: z.string().min(1).max(100),
      approval_id: approvalId,
      idempotency_key: idempotencyKey,
    }),
    data: bookingOut.extend({ cancelled: z.boolean() }),
    kind: 'write',
    annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true },
    shape,
    async run(ctx, input, call) {
      const snapshot = await getBooking(ctx.deps, ctx.principal, input.booking_id);
      const outcome = await gated(ctx, call, 'cancel_booking', snapshot, {
        ...(input.approval_id ? { approvalId: input.approval_id } : {}),
        ...(input.idempotency_key ? { idempotencyKey: input.idempotency_key } : {}),
      });
      return { data: { ...bookingOf(ctx, outcome.value), cancelled: true }, replayed: outcome.replayed };
    },
  });

  const bookSlotTool = defineTool({
    name: 'book_slot',
    scope: 'read',
    title: 'Book a slot (never books)',
    description:
      'Never use this. It only refuses and explains: book with hold_slot, then commit_hold once the person agrees.',
    input: z.looseObject({ what: z.string().max(500).optional() }),
    data: z.object({}),
    kind: 'read',
    annotations: { readOnlyHint: true, idempotentHint: true },
    shape,
    async run() {
      throw new DomainError(
        'INVALID_ARGUMENTS',
        'book_slot never books, and nothing was reserved. Call hold_slot for the time (it returns hold_ids), tell the person, then commit_hold with those hold_ids once they agree.',
        { field: '(tool)' },
      );
    },
  });

  return [
    findSlotsTool,
    holdSlotTool,
    commitHoldTool,
    releaseHoldTool,
    createCalendarTool,
    setAvailabilityTool,
    listBookingsTool,
    cancelBookingTool,
    bookSlotTool,
  ] as ToolDefinition<unknown, unknown>[];
}

/** Built once per setting: HTTP compiles each tool's schemas once per process (tool-kit.ts). */
const built = new Map<boolean, ToolDefinition<unknown, unknown>[]>();

export function deltatToolset(offerAlternatives: boolean): ToolDefinition<unknown, unknown>[] {
  let tools = built.get(offerAlternatives);
  if (!tools) built.set(offerAlternatives, (tools = deltatTools(offerAlternatives)));
  return tools;
}
