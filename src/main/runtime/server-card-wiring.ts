import { serverCard } from '../../adapters/http/index.js';
import type { ToolContext } from '../../adapters/mcp/index.js';
import {
  loadMcpServer,
  loadSurfaceListing,
  REGISTRY_NAME,
  SERVER_VERSION,
} from '../../adapters/mcp/index.js';
import { SCOPES } from '../../domain/identity/identity.js';
import type { ServerConfig } from '../config/config.js';

/** 2026-07-28 over stateless HTTP, and the 2025-era versions unless `--legacy reject`. */
const MODERN = '2026-07-28';

/** Builds this server's card from what its MCP server lists on its default surface. */
export function serverCardLoader(ctx: ToolContext, config: ServerConfig, mcpUrl: string) {
  return async () => {
    // Loaded with the card's first request: a server nobody asks for a card pays nothing.
    const [{ createHoldfastServer }, { listSurface }, { SUPPORTED_PROTOCOL_VERSIONS }] = await Promise.all([
      loadMcpServer(),
      loadSurfaceListing(),
      import('@modelcontextprotocol/server'),
    ]);
    const surface = await listSurface(createHoldfastServer(ctx, 'connection', ctx.profile.toolMode));
    return serverCard({
      name: REGISTRY_NAME,
      version: SERVER_VERSION,
      mcpUrl,
      protocolVersions: config.legacy === 'reject' ? [MODERN] : [MODERN, ...SUPPORTED_PROTOCOL_VERSIONS],
      profile: config.profile,
      toolMode: ctx.profile.toolMode,
      scopes: SCOPES,
      surface,
    });
  };
}
