import type { ProfileSurface } from '../../profile-surface.js';
import { defineTool, registerTool } from '../../tool-kit.js';
import { createCalendarTool, setAvailabilityTool, setBookingRulesTool } from '../../tools/admin-calendars.js';
import { checkAvailabilityTool } from '../../tools/check-availability.js';
import { getCustomerTool, listCustomersTool } from '../../tools/customers.js';
import { findSlotsTool } from '../../tools/find-slots.js';
import { holdSlotTool } from '../../tools/hold-slot.js';
import { listCalendarsTool } from '../../tools/list-calendars.js';
import { getBookingTool, listBookingsTool } from '../../tools/read-bookings.js';
import { releaseHoldTool } from '../../tools/release-hold.js';
import { refuseKeyUsedElsewhere } from '../../../../app/approvals/person-keys.js';
import { cancelOperationTool, confirmOperationTool, operationGetTool, stateGetTool } from './tools.js';

const instructions = `Book time on calendars; a person confirms every booking and cancellation.
Read: list_calendars, find_slots, check_availability, get_booking, list_bookings, list_customers, get_customer.
Hold the time the person wants with hold_slot (it lapses by itself; release_hold gives it back).
To confirm or cancel: state_get { bookingId } -> confirm_booking or cancel_booking { bookingId, expectedState, idempotencyKey }.
The answer is status "pending" with a confirmationUrl: give it to the person; their confirmation there does it
(under the direct write policy with the write scope it is done at once: status "completed").
Then operation_get { operationId } until completed, cancelled or expired. After any change, read the state again and use a new key;
a network retry keeps the same key, arguments and expectedState; a key is yours across these writes: never reuse one for another request.`;

/** A hold or release whose key the person used for another of the profile's writes is refused. */
const personKeyedHold = defineTool({
  ...holdSlotTool,
  async run(ctx, input, call) {
    await refuseKeyUsedElsewhere(ctx.deps, ctx.principal, input.idempotencyKey, 'hold_slot');
    return holdSlotTool.run(ctx, input, call);
  },
});
const personKeyedRelease = defineTool({
  ...releaseHoldTool,
  async run(ctx, input, call) {
    await refuseKeyUsedElsewhere(ctx.deps, ctx.principal, input.idempotencyKey, 'release_hold');
    return releaseHoldTool.run(ctx, input, call);
  },
});

/** The tools an agent-access connection is served (seed 004's flow over Holdfast's use cases). */
export const agentAccessTools = [
  listCalendarsTool,
  findSlotsTool,
  checkAvailabilityTool,
  personKeyedHold,
  personKeyedRelease,
  getBookingTool,
  listBookingsTool,
  listCustomersTool,
  getCustomerTool,
  stateGetTool,
  confirmOperationTool,
  cancelOperationTool,
  operationGetTool,
  createCalendarTool,
  setAvailabilityTool,
  setBookingRulesTool,
];

/** agent-access (seed 004): reads, holds, and writes a person confirms where they are. */
export const agentAccess: ProfileSurface = {
  instructions: () => instructions,
  register(server, ctx, identity) {
    for (const tool of agentAccessTools)
      registerTool(server, ctx, tool as Parameters<typeof registerTool>[2], identity);
  },
};
