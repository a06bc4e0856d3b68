import type { ProfileSurface } from '../../profile-surface.js';
import { registerTool } from '../../tool-kit.js';
import { bookingsTools } from './tools.js';

const instructions = `Read freely; every write needs a person's approval of its exact arguments.
Reads: list_customers, get_customer, list_bookings, check_availability (30-minute slots on a date).
Writes: request_approval { tool, args } returns a one-time token bound to exactly those arguments (a person reviews
it at approveUrl and releases it); then create_booking or cancel_booking with the same args and approval: { token, approvedBy }.
A token is used once, even when the call fails; any change to the arguments invalidates it.`;

/** bookings-mcp's seven tools, as its README names and shapes them (seed 001). */
export const bookings: ProfileSurface = {
  instructions: () => instructions,
  register(server, ctx, identity) {
    for (const tool of bookingsTools)
      registerTool(server, ctx, tool as Parameters<typeof registerTool>[2], identity);
  },
};
