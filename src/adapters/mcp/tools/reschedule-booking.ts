import { z } from 'zod';
import { rescheduleBooking } from '../../../app/booking/reschedule.js';
import { bookingIdInput, bookingOut, calendarIdsInput, idempotencyKey, instantInput } from '../schemas.js';
import { defineTool } from '../tool-kit.js';
import { bookingView } from '../views.js';

export const rescheduleBookingTool = defineTool({
  name: 'reschedule_booking',
  scope: 'draft',
  title: 'Move a confirmed booking',
  description:
    'Holds a new time [start, end) for a CONFIRMED booking (optionally on other calendars of the same price) while the booking keeps its old time. The answer is a replacement hold whose confirmationIntent shows old → new: show it to the user, then confirm_booking it (a person approves the move; nothing new is charged). That cancels the old booking and confirms the new one in one step. release_hold abandons the move. Same rules and alternatives as hold_slot. Send a fresh UUID idempotencyKey.',
  input: z.strictObject({
    bookingId: bookingIdInput,
    start: instantInput,
    end: instantInput,
    calendarIds: calendarIdsInput.optional(),
    idempotencyKey,
  }),
  data: z.object({ booking: bookingOut }),
  kind: 'write',
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true },
  async run(ctx, input, call) {
    const outcome = await rescheduleBooking(ctx.deps, ctx.principal, input, call);
    return { data: { booking: bookingView(outcome.value, ctx) }, replayed: outcome.replayed };
  },
});
