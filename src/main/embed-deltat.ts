/**
 * `import { createDeltatMcpServer } from 'holdfast/deltat'`: deltat's nine tools (seed 003) as an
 * MCP server to connect to a transport of your own, on an embedded Holdfast — as
 * `createDeltatMcpServer(new DeltaT(...))` from @open-deltat/mcp is on a deltat client.
 */
import type { McpServer } from '@modelcontextprotocol/server';
import { silentLogger } from '../adapters/log/index.js';
import { embeddedServer } from '../adapters/mcp/embedded.js';
import type { Holdfast } from './embed-api.js';
import { embeddedHandle } from './embed-handles.js';
import { toolContext } from './runtime/tool-context.js';

export function createDeltatMcpServer(holdfast: Holdfast): McpServer {
  const { runtime, principal } = embeddedHandle(holdfast);
  return embeddedServer(toolContext(runtime, silentLogger, 'stdio', principal), 'deltat');
}
