import { z } from 'zod';
import { holdSlot } from '../../../app/booking/hold-slot.js';
import { bookingOut, calendarIdsInput, customerInput, idempotencyKey, instantInput } from '../schemas.js';
import { defineTool } from '../tool-kit.js';
import { bookingView } from '../views.js';

export const holdSlotTool = defineTool({
  name: 'hold_slot',
  scope: 'draft',
  title: 'Hold a slot',
  description:
    'Reserves [start, end) on every listed calendar at once, or on none, for a few minutes (see expiresAt) while you confirm with the user. Not a booking yet: call confirm_booking with the returned version. If the time is taken you get SLOT_UNAVAILABLE with up to 3 alternatives (not reserved). Send a fresh UUID idempotencyKey; retry with the same key to be safe.',
  input: z.strictObject({
    calendarIds: calendarIdsInput,
    start: instantInput,
    end: instantInput,
    customer: customerInput.optional(),
    label: z.string().max(200).optional().describe('Short title for the booking.'),
    idempotencyKey,
  }),
  data: z.object({ booking: bookingOut }),
  kind: 'write',
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true },
  async run(ctx, input, call) {
    const { deps, principal } = ctx;
    const outcome = await holdSlot(deps, principal, input, call);
    return { data: { booking: bookingView(outcome.value, ctx) }, replayed: outcome.replayed };
  },
});
