import { z } from 'zod';
import { cancelBooking, confirmBooking, releaseHold } from '../../../app/change-booking.js';
import { bookingIdInput, bookingOut, expectedVersion, idempotencyKey } from '../schemas.js';
import { defineTool } from '../tool-kit.js';
import { bookingView } from '../views.js';

const changeInput = z.strictObject({ bookingId: bookingIdInput, expectedVersion, idempotencyKey });
const changeData = z.object({ booking: bookingOut });

export const releaseHoldTool = defineTool({
  name: 'release_hold',
  title: 'Release a hold',
  description:
    'Gives back the time of a HELD booking you no longer want (status becomes RELEASED). Pass the version you last read.',
  input: changeInput,
  data: changeData,
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true },
  async run({ deps, principal }, input) {
    const outcome = await releaseHold(deps, principal, input);
    return { data: { booking: bookingView(outcome.value, deps.clock.now()) }, replayed: outcome.replayed };
  },
});

export const confirmBookingTool = defineTool({
  name: 'confirm_booking',
  title: 'Confirm a held booking',
  description:
    'Turns a HELD booking into CONFIRMED before its hold expires. Only call after the user approved this exact booking. Pass the version you last read and a fresh UUID idempotencyKey.',
  input: changeInput,
  data: changeData,
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true },
  async run({ deps, principal }, input) {
    const outcome = await confirmBooking(deps, principal, input);
    return { data: { booking: bookingView(outcome.value, deps.clock.now()) }, replayed: outcome.replayed };
  },
});

export const cancelBookingTool = defineTool({
  name: 'cancel_booking',
  title: 'Cancel a confirmed booking',
  description:
    'Cancels a CONFIRMED booking and frees its time. Only call after the user asked for it. Pass the version you last read and a fresh UUID idempotencyKey. (For a HELD booking use release_hold.)',
  input: changeInput,
  data: changeData,
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true },
  async run({ deps, principal }, input) {
    const outcome = await cancelBooking(deps, principal, input);
    return { data: { booking: bookingView(outcome.value, deps.clock.now()) }, replayed: outcome.replayed };
  },
});
