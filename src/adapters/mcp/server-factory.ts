import { readFileSync } from 'node:fs';
import type { McpServerFactory } from '@modelcontextprotocol/server';
import { McpServer } from '@modelcontextprotocol/server';
import type { ClientIdentity, ToolContext } from './tool-kit.js';
import { registerTool } from './tool-kit.js';
import { createCalendarTool, setAvailabilityTool } from './tools/admin-calendars.js';
import { bookSlotTool } from './tools/book-slot.js';
import { getApprovalTool, requestApprovalTool } from './tools/approvals.js';
import { releaseHoldTool } from './tools/release-hold.js';
import { cancelBookingTool, confirmBookingTool } from './tools/gated-booking.js';
import { findSlotsTool } from './tools/find-slots.js';
import { holdSlotTool } from './tools/hold-slot.js';
import { getBookingTool, listBookingsTool } from './tools/read-bookings.js';
import { listCalendarsTool } from './tools/list-calendars.js';
import { registerContractTool } from './hotel-ops/contract-kit.js';
import {
  listConversationMessagesTool,
  listConversationTasksTool,
  queryCaseContextTool,
  queryObjectDetailTool,
} from './hotel-ops/query-tools.js';
import { submitTaskResultsTool } from './hotel-ops/submit-tool.js';

export const SERVER_NAME = 'holdfast';
/** The version in package.json (dist/adapters/mcp/ and src/adapters/mcp/ are three levels down). */
export const SERVER_VERSION: string = (
  JSON.parse(readFileSync(new URL('../../../package.json', import.meta.url), 'utf8')) as { version: string }
).version;

const instructions = `Holdfast books time on calendars in two steps and never double-books.
1. list_calendars, then find_slots (all listed calendars free at once).
2. hold_slot reserves the time for a few minutes (status HELD, see expiresAt).
3. Show the held booking to the user; only after they approve, confirm_booking with its version.
   A person must approve confirm/cancel: on APPROVAL_REQUIRED show details.summary and details.approveUrl,
   then retry with approval: { approvalId }. Priced bookings also need payment (see paymentUrl).
Every write takes a fresh UUID idempotencyKey: retry with the same key after a timeout, never a new one.
Times are RFC 3339 with an offset. Errors carry code, retryable and recovery.action: follow it.`;

const tools = [
  listCalendarsTool,
  findSlotsTool,
  holdSlotTool,
  releaseHoldTool,
  confirmBookingTool,
  cancelBookingTool,
  getBookingTool,
  listBookingsTool,
  requestApprovalTool,
  getApprovalTool,
  createCalendarTool,
  setAvailabilityTool,
  bookSlotTool,
];

export const toolNames = tools.map((t) => t.name);

/** The TH Hotel reservation-operations contract (`--profile hotel-ops`), in its own envelope. */
const hotelOpsTools = [
  queryCaseContextTool,
  queryObjectDetailTool,
  listConversationTasksTool,
  listConversationMessagesTool,
  submitTaskResultsTool,
];
export const hotelOpsToolNames = hotelOpsTools.map((t) => t.name);

/** One factory for every transport: stdio builds one per connection, HTTP one per request. */
export function createHoldfastServer(ctx: ToolContext, identity: ClientIdentity = 'connection'): McpServer {
  const server = new McpServer(
    { name: SERVER_NAME, version: SERVER_VERSION },
    {
      // The tool list never changes while a server runs: say so.
      capabilities: { tools: { listChanged: false } },
      // MRTR approval rounds come back through the client: only sealed, principal-bound state is trusted.
      requestState: { verify: (state, request) => ctx.stateCodec.verify(state, request) },
      instructions,
      // The tool list only changes on upgrade: let clients and shared caches keep it for a minute.
      cacheHints: {
        'tools/list': { ttlMs: 60_000, cacheScope: 'public' },
        'server/discover': { ttlMs: 60_000, cacheScope: 'public' },
      },
    },
  );
  for (const tool of tools) registerTool(server, ctx, tool as Parameters<typeof registerTool>[2], identity);
  if (ctx.profile.profile === 'hotel-ops')
    for (const tool of hotelOpsTools)
      registerContractTool(server, ctx, tool as Parameters<typeof registerContractTool>[2], identity);
  return server;
}

const MAX_IDLE = 64;

/**
 * The HTTP factory. A 2026-07-28 request is served by an idle instance when there is one: the
 * SDK forbids only an instance still serving another exchange, and building one (13 tools with
 * their schemas) costs more than the call. The SDK closes the instance when the exchange ends;
 * that hands it back. Such instances take the caller's identity from each request alone.
 * 2025-era requests get a fresh instance, whose identity comes from its initialize.
 */
export function pooledServerFactory(ctx: ToolContext): McpServerFactory {
  const idle: McpServer[] = [];
  const fresh = (): McpServer => {
    const server = createHoldfastServer(ctx, 'request');
    server.server.onclose = () => {
      if (idle.length < MAX_IDLE && !idle.includes(server)) idle.push(server);
    };
    return server;
  };
  return ({ era }) => (era === 'modern' ? (idle.pop() ?? fresh()) : createHoldfastServer(ctx, 'connection'));
}
