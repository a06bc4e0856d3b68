import type { McpServerFactory } from '@modelcontextprotocol/server';
import { McpServer } from '@modelcontextprotocol/server';
import { SERVER_NAME, SERVER_VERSION } from './server-version.js';
import { registerCatalog } from './catalog/catalog-tools.js';
import { registerPrompts } from './resources/prompts.js';
import { registerResources } from './resources/resources.js';
import type { ClientIdentity, ToolContext, ToolDefinition, ToolSurface } from './tool-kit.js';
import { registerTool } from './tool-kit.js';
import { createCalendarTool, setAvailabilityTool, setBookingRulesTool } from './tools/admin-calendars.js';
import { rescheduleBookingTool } from './tools/reschedule-booking.js';
import { bookSlotTool } from './tools/book-slot.js';
import { getApprovalTool, requestApprovalTool } from './tools/approvals.js';
import { releaseHoldTool } from './tools/release-hold.js';
import { joinWaitlistTool, leaveWaitlistTool } from './tools/waitlist.js';
import { cancelBookingTool, confirmBookingTool } from './tools/gated-booking.js';
import { checkAvailabilityTool } from './tools/check-availability.js';
import { getCustomerTool, listCustomersTool } from './tools/customers.js';
import { findSlotsTool } from './tools/find-slots.js';
import { holdSlotTool } from './tools/hold-slot.js';
import { holdSeriesTool } from './tools/hold-series.js';
import { abandonChangesTool, confirmChangesTool, proposeChangesTool } from './tools/change-sets.js';
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
import type { ContractProfile } from '../../domain/identity/identity.js';
import type { Principal } from '../../domain/identity/principal.js';
import { agentAccess, bookings, deltat, expertBooking } from './profiles/index.js';
import type { ProfileSurface } from './profile-surface.js';

const instructions = `Holdfast books time on calendars in two steps and never double-books.
1. list_calendars, then find_slots (all listed calendars free at once).
2. hold_slot reserves the time for a few minutes (status HELD, see expiresAt).
3. Show the held booking to the user; only after they approve, confirm_booking with its version.
   A person must approve confirm/cancel: on APPROVAL_REQUIRED show details.summary and details.approveUrl,
   then retry with approval: { approvalId }. Priced bookings also need payment (see paymentUrl).
Every write takes a fresh UUID idempotencyKey: retry with the same key after a timeout, never a new one.
Times are RFC 3339 with an offset. Errors carry code, retryable and recovery.action: follow it.`;

export const holdfastTools = [
  listCalendarsTool,
  findSlotsTool,
  checkAvailabilityTool,
  holdSlotTool,
  releaseHoldTool,
  confirmBookingTool,
  cancelBookingTool,
  getBookingTool,
  listBookingsTool,
  listCustomersTool,
  getCustomerTool,
  requestApprovalTool,
  getApprovalTool,
  createCalendarTool,
  setAvailabilityTool,
  setBookingRulesTool,
  rescheduleBookingTool,
  bookSlotTool,
  holdSeriesTool,
  proposeChangesTool,
  confirmChangesTool,
  abandonChangesTool,
  joinWaitlistTool,
  leaveWaitlistTool,
];

export const toolNames = holdfastTools.map((t) => t.name);

/** The TH Hotel reservation-operations contract (`--profile hotel-ops`), in its own envelope. */
const hotelOpsTools = [
  queryCaseContextTool,
  queryObjectDetailTool,
  listConversationTasksTool,
  listConversationMessagesTool,
  submitTaskResultsTool,
];
export const hotelOpsToolNames = hotelOpsTools.map((t) => t.name);

const catalogInstructions = `Holdfast books time on calendars and never double-books. Its tools are in a catalog:
tool_catalog.search finds them, tool_catalog.read shows one's schema, tool_catalog.call runs one.
Start with tool_catalog.search { query: "", limit: 20 }. The flow: find_slots, hold_slot, show the hold
to the user, confirm_booking after a person approved (APPROVAL_REQUIRED tells you how).
Every write takes a fresh UUID idempotencyKey. Errors carry code, retryable and recovery.action: follow it.`;

export { SERVER_NAME, SERVER_VERSION };

/** Holdfast's own tools (flat or through the catalog), with the resources and prompts. */
const standard: ProfileSurface = {
  instructions: (surface) => (surface === 'catalog' ? catalogInstructions : instructions),
  register(server, ctx, identity, surface) {
    if (surface === 'catalog')
      registerCatalog(server, ctx, holdfastTools as readonly ToolDefinition<unknown, unknown>[], identity);
    else
      for (const tool of holdfastTools)
        registerTool(server, ctx, tool as Parameters<typeof registerTool>[2], identity);
    registerResources(server, ctx);
    registerPrompts(server, ctx);
  },
};

/** The reservation-operations contract's five tools beside Holdfast's own. */
const hotelOps: ProfileSurface = {
  instructions: standard.instructions,
  register(server, ctx, identity, surface) {
    standard.register(server, ctx, identity, surface);
    for (const tool of hotelOpsTools)
      registerContractTool(server, ctx, tool as Parameters<typeof registerContractTool>[2], identity);
  },
};

/** Each profile's surface (the contracts' own live under profiles/, one folder each). */
export const PROFILES: Record<ContractProfile, ProfileSurface> = {
  standard,
  'hotel-ops': hotelOps,
  'expert-booking': expertBooking,
  bookings,
  deltat,
  'agent-access': agentAccess,
};

/** One factory for every transport: stdio builds one per connection, HTTP one per request. */
export function createHoldfastServer(
  ctx: ToolContext,
  identity: ClientIdentity = 'connection',
  surface: ToolSurface = ctx.profile.toolMode,
  profile: ContractProfile = ctx.profile.profile,
): McpServer {
  const served = PROFILES[profile];
  const server = new McpServer(
    {
      name: served.serverInfo?.name ?? SERVER_NAME,
      version: SERVER_VERSION,
      ...(served.serverInfo ? { title: served.serverInfo.title } : {}),
    },
    {
      // The tool list never changes while a server runs: say so.
      // Resources can be listened to (subscriptions/listen): a waitlist entry is updated when it is offered.
      capabilities: { tools: { listChanged: false }, resources: { subscribe: true } },
      // MRTR approval rounds come back through the client: only sealed, principal-bound state is trusted.
      requestState: { verify: (state, request) => ctx.stateCodec.verify(state, request) },
      instructions: served.instructions(surface),
      // The tool list changes on upgrade, and per tenant (flat or catalog): a minute, this caller's.
      // Prompts and templates are the same for everyone.
      cacheHints: {
        'tools/list': { ttlMs: 60_000, cacheScope: 'private' },
        'prompts/list': { ttlMs: 60_000, cacheScope: 'public' },
        'resources/templates/list': { ttlMs: 60_000, cacheScope: 'public' },
        'server/discover': { ttlMs: 60_000, cacheScope: 'private' },
      },
    },
  );
  served.register(server, ctx, identity, surface);
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
  const idle = new Map<string, McpServer[]>();
  const fresh = (surface: ToolSurface, profile: ContractProfile, key: string): McpServer => {
    const server = createHoldfastServer(ctx, 'request', surface, profile);
    server.server.onclose = () => {
      const pool = idle.get(key) ?? [];
      idle.set(key, pool);
      if (pool.length < MAX_IDLE && !pool.includes(server)) pool.push(server);
    };
    return server;
  };
  return ({ era, authInfo }) => {
    // The tenant's choices came with the credential (no read per request); else the server's.
    const chosen = authInfo?.extra?.toolMode as ToolSurface | undefined;
    const surface = chosen ?? ctx.profile.toolMode;
    const principal = authInfo?.extra?.principal as Principal | undefined;
    const profile = principal?.profile ?? ctx.profile.profile;
    const key = `${profile}:${surface}`;
    return era === 'modern'
      ? (idle.get(key)?.pop() ?? fresh(surface, profile, key))
      : createHoldfastServer(ctx, 'connection', surface, profile);
  };
}
