import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';

/** A loopback port free right now (for a server a test starts next). */
export async function freePort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as AddressInfo;
  await new Promise((resolve) => probe.close(resolve));
  return port;
}

/** A bare JSON-RPC request to an MCP endpoint with this bearer token, no client in between (status and challenge matter). */
function bearerRequest(
  mcpUrl: string | URL,
  token: string,
  method: string,
  params: object,
  headers: Record<string, string>,
) {
  return fetch(mcpUrl, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      authorization: `Bearer ${token}`,
      'mcp-protocol-version': '2025-06-18',
      ...headers,
    },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
  });
}

export function bearerToolsList(mcpUrl: string | URL, token: string, headers: Record<string, string> = {}) {
  return bearerRequest(mcpUrl, token, 'tools/list', {}, headers);
}

export function bearerToolCall(mcpUrl: string | URL, token: string, name: string, args: object) {
  return bearerRequest(mcpUrl, token, 'tools/call', { name, arguments: args }, {});
}

export { onPath } from '../../scripts/chromium.mjs';
