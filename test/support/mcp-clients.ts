import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { CLI, provisionOnce, tokensByUrl } from './spawn-server.js';

export type Era = 'modern' | 'legacy';

export interface Envelope<D = Record<string, unknown>> {
  ok: boolean;
  data?: D;
  error?: {
    code: string;
    message: string;
    retryable: boolean;
    details: Record<string, unknown>;
    recovery: { action: string };
  };
  meta: {
    traceId: string;
    operationId: string;
    serverTime: string;
    idempotentReplay?: boolean;
    cache?: 'HIT' | 'MISS' | 'BYPASS';
  };
}

function newClient(era: Era): Client {
  return new Client(
    { name: `holdfast-test-${era}`, version: '1.0.0' },
    era === 'modern' ? { versionNegotiation: { mode: { pin: '2026-07-28' } } } : {},
  );
}

/**
 * The official client over HTTP, with a bearer token: the one provisioned for the server at
 * `url` unless `token` says otherwise (null: none at all).
 */
export async function connectHttp(
  url: string,
  era: Era,
  options: { fetch?: typeof fetch; token?: string | null } = {},
): Promise<Client> {
  const client = newClient(era);
  const token = options.token === undefined ? tokensByUrl.get(url.replace(/\/+$/, '')) : options.token;
  await client.connect(
    new StreamableHTTPClientTransport(new URL(url), {
      fetch: options.fetch,
      requestInit: token ? { headers: { Authorization: `Bearer ${token}` } } : undefined,
    }),
  );
  return client;
}

/** The official client over stdio; the database gets its owner first (stdio acts for them). */
export async function connectStdio(
  dbPath: string,
  era: Era,
  extraArgs: string[] = [],
  /** Variables beside this process's own (a profile's: DELTAT_PASSWORD). */
  env: Record<string, string> = {},
): Promise<Client> {
  await provisionOnce(dbPath);
  const client = newClient(era);
  await client.connect(
    new StdioClientTransport({
      command: process.execPath,
      args: [CLI, 'stdio', '--db', dbPath, ...extraArgs],
      stderr: 'pipe',
      ...(Object.keys(env).length > 0 ? { env: { ...(process.env as Record<string, string>), ...env } } : {}),
    }),
  );
  return client;
}

/** Calls a tool and returns Holdfast's envelope, checking it agrees with isError. */
export async function call<D = Record<string, any>>(
  client: Client,
  name: string,
  args: Record<string, unknown>,
  options: { timeout?: number } = {},
): Promise<Envelope<D>> {
  const result = await client.callTool({ name, arguments: args }, options);
  const envelope = result.structuredContent as unknown as Envelope<D>;
  if (!envelope || typeof envelope.ok !== 'boolean')
    throw new Error(`no envelope from ${name}: ${JSON.stringify(result)}`);
  if (Boolean(result.isError) === envelope.ok) throw new Error(`isError disagrees with ok for ${name}`);
  return envelope;
}

export async function ok<D = Record<string, any>>(
  client: Client,
  name: string,
  args: Record<string, unknown>,
): Promise<D> {
  const envelope = await call<D>(client, name, args);
  if (!envelope.ok) throw new Error(`${name} failed: ${JSON.stringify(envelope.error)}`);
  return envelope.data!;
}

/** What a 2026-07-28 client puts in every request's `params._meta`. */
export const MODERN_META = {
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientInfo': { name: 'raw-http', version: '1' },
  'io.modelcontextprotocol/clientCapabilities': {},
};

/** One JSON-RPC request over plain HTTP as a 2026-07-28 client sends it (`_meta` is the caller's). */
export async function postJsonRpc(
  url: string,
  token: string,
  message: { id?: unknown; method: string; params?: Record<string, unknown> },
  headers: Record<string, string> = {},
) {
  const response = await fetch(url, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${token}`,
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': '2026-07-28',
      'mcp-method': message.method,
      ...headers,
    },
    body: JSON.stringify({ jsonrpc: '2.0', ...message }),
  });
  return {
    status: response.status,
    headers: response.headers,
    body: (await response.json()) as Record<string, any>,
  };
}
