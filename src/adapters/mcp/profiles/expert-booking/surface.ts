import type { ToolDefinition } from '../../tool-kit.js';
import type { ProfileSurface } from '../../profile-surface.js';
import { registerCatalog } from '../../catalog/catalog-tools.js';
import { expertTools } from './tools.js';

const instructions = `Expert booking: tools/list holds three catalog tools; the booking tools are found and run through them.
tool_catalog.search { query: "booking", limit: 10 } lists them, tool_catalog.read shows a schema, tool_catalog.call runs one
with its arguments untouched. The flow: booking.search_available_slots -> booking.hold_slot (five minutes, payment PENDING,
confirmationIntent) -> show the booking, expert, time, amount, currency and version to the person -> booking.confirm_booking
with humanApproval (intent and intentHash copied unchanged, approvedAt within 120 s) once the person approved and paid.
APPROVAL_REQUIRED gives the page where the person approves and the approvalId to send. Payment is done by the person, never by you.
Every write takes a UUID idempotencyKey: retry with the same key, never a new one. Errors carry code, retryable and recovery.action.`;

/** expert-booking-mcp as itself (seed 000): the catalog of its four logical booking tools. */
export const expertBooking: ProfileSurface = {
  serverInfo: { name: 'expert-booking-mcp', title: 'Expert Booking MCP Server' },
  instructions: () => instructions,
  register(server, ctx, identity) {
    registerCatalog(server, ctx, expertTools as readonly ToolDefinition<unknown, unknown>[], identity);
  },
};
