import type { McpServerFactory } from '@modelcontextprotocol/server';
import { createMcpHandler } from '@modelcontextprotocol/server';
import { Hono } from 'hono';
import { secureHeaders } from 'hono/secure-headers';
import type { Logger } from '../log/json-logger.js';
import type { ServerNames } from './request-guards.js';
import { hostGuard, jsonOnly } from './request-guards.js';

export interface HttpAppOptions {
  readonly factory: McpServerFactory;
  readonly names: ServerNames;
  readonly legacy: 'stateless' | 'reject';
  readonly maxBodyBytes: number;
  readonly logger: Logger;
  readonly health: () => Promise<boolean>;
  readonly version: string;
  /** Human-facing pages (approval page, development payment form). */
  readonly mountPages?: (app: Hono) => void;
}

export interface HttpApp {
  readonly fetch: (request: Request) => Response | Promise<Response>;
  close(): Promise<void>;
}

/** The HTTP surface: POST /mcp (both protocol eras), health, and nothing else. */
export function createHttpApp(options: HttpAppOptions): HttpApp {
  const mcp = createMcpHandler(options.factory, {
    legacy: options.legacy,
    maxRequestBodySize: options.maxBodyBytes,
    onerror: (error) => options.logger.warn('mcp transport error', { error: error.message }),
  });
  const app = new Hono();
  app.use('*', secureHeaders({ xFrameOptions: 'DENY', referrerPolicy: 'same-origin' }));
  app.use('*', hostGuard(options.names));

  app.get('/healthz', (c) => c.json({ status: 'ok', version: options.version }));
  app.get('/readyz', async (c) =>
    (await options.health()) ? c.json({ status: 'ready' }) : c.json({ status: 'unavailable' }, 503),
  );

  // The SDK handler enforces maxBodyBytes itself (413 before parsing), without re-streaming the body.
  app.post('/mcp', jsonOnly, (c) => mcp.fetch(c.req.raw));
  // Stateless server: no SSE stream to resume and no session to delete.
  app.on(['GET', 'DELETE', 'PUT', 'PATCH'], '/mcp', (c) =>
    c.json({ error: 'method_not_allowed', message: 'Use POST /mcp' }, 405, { Allow: 'POST' }),
  );
  options.mountPages?.(app);
  app.notFound((c) => c.json({ error: 'not_found' }, 404));
  app.onError((error, c) => {
    options.logger.error('http error', { error: error.stack ?? String(error) });
    return c.json({ error: 'internal' }, 500);
  });
  return { fetch: app.fetch, close: () => mcp.close() };
}
