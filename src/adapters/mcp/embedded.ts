// The MCP server for an application that embeds Holdfast (holdfast/deltat): a second door, loaded
// only by the entry that needs it, so the first door (index.ts) stays light for the command line.
import type { McpServer } from '@modelcontextprotocol/server';
import type { ContractProfile } from '../../domain/identity/identity.js';
import { createHoldfastServer } from './server-factory.js';
import type { ToolContext } from './tool-kit.js';

/** A profile's MCP server for one connection the application brings (its own transport). */
export function embeddedServer(ctx: ToolContext, profile: ContractProfile): McpServer {
  return createHoldfastServer(ctx, 'connection', 'flat', profile);
}
