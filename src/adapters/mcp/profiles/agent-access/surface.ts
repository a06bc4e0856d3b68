import type { ProfileSurface } from '../../profile-surface.js';
import { registerTool } from '../../tool-kit.js';
import { createCalendarTool, setAvailabilityTool, setBookingRulesTool } from '../../tools/admin-calendars.js';
import { checkAvailabilityTool } from '../../tools/check-availability.js';
import { getCustomerTool, listCustomersTool } from '../../tools/customers.js';
import { findSlotsTool } from '../../tools/find-slots.js';
import { holdSlotTool } from '../../tools/hold-slot.js';
import { listCalendarsTool } from '../../tools/list-calendars.js';
import { getBookingTool, listBookingsTool } from '../../tools/read-bookings.js';
import { releaseHoldTool } from '../../tools/release-hold.js';
import { cancelOperationTool, confirmOperationTool, operationGetTool, stateGetTool } from './tools.js';

const instructions = `Book time on calendars; a person confirms every booking and cancellation.
Read: list_calendars, find_slots, check_availability, get_booking, list_bookings, list_customers, get_customer.
Hold the time the person wants with hold_slot (it lapses by itself; release_hold gives it back).
To confirm or cancel: state_get { bookingId } -> confirm_booking or cancel_booking { bookingId, expectedState, idempotencyKey }.
The answer is status "pending" with a confirmationUrl: give it to the person; their confirmation there does it.
Then operation_get { operationId } until completed, cancelled or expired. After any change, read the state again and use a new key;
a network retry keeps the same key, arguments and expectedState.`;

/** The tools an agent-access connection is served (seed 004's flow over Holdfast's use cases). */
export const agentAccessTools = [
  listCalendarsTool,
  findSlotsTool,
  checkAvailabilityTool,
  holdSlotTool,
  releaseHoldTool,
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
