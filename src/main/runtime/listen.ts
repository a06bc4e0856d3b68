import type { HttpBindings } from '@hono/node-server';
import { serve as serveNode } from '@hono/node-server';
import type { Server as HttpServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { lingerBeforeClosing } from './lingering-close.js';

/**
 * Idle keep-alive connections stay open this long (announced as `Keep-Alive: timeout=65`). Node's
 * default of 5 s is shorter than the pause of an agent host between model turns or of a client
 * whose event loop was busy, which then reuses a pooled socket the server has just closed and
 * fails with "other side closed". 65 s outlasts the usual proxy and load-balancer idle timeouts
 * (60 s), so the proxy, not Holdfast, closes first.
 */
export const KEEP_ALIVE_TIMEOUT_MS = 65_000;

/** How long a client may take to send a request: its headers, then its body. */
export interface RequestTimeouts {
  readonly headersTimeoutMs: number;
  /** The routes' own body deadline (they answer 408); the server's backstop lies beyond it. */
  readonly bodyTimeoutMs: number;
}

const DEFAULT_TIMEOUTS: RequestTimeouts = { headersTimeoutMs: 10_000, bodyTimeoutMs: 30_000 };

type FetchHandler = (request: Request, env: HttpBindings) => Response | Promise<Response>;

export interface Listening {
  /** http://127.0.0.1:4110 or http://[::1]:4110: how this process is reached, as bound. */
  readonly origin: string;
  readonly port: number;
  /** Starts answering with `handler` (until then: 503), so the port is known before the app is built. */
  serve(handler: FetchHandler): void;
  close(): Promise<void>;
}

/**
 * Binds first, so that `--port 0` knows its port (and links their origin) before anything is served.
 * Slow clients are bounded by Node itself: headers that do not arrive within `headersTimeoutMs`
 * and a request not whole within the body deadline plus that (a route that reads its body
 * itself, like the OAuth server's) close the connection, checked every second; no worker is held
 * meanwhile. An idle keep-alive connection is not a request: it stays open for 65 s.
 */
export async function listen(
  host: string,
  port: number,
  timeouts: RequestTimeouts = DEFAULT_TIMEOUTS,
): Promise<Listening> {
  let handle: FetchHandler = () => new Response('starting', { status: 503 });
  const server = await new Promise<ReturnType<typeof serveNode>>((resolve, reject) => {
    const s = serveNode(
      {
        fetch: (request, env) => handle(request, env as HttpBindings),
        port,
        hostname: host,
        serverOptions: {
          keepAliveTimeout: KEEP_ALIVE_TIMEOUT_MS,
          headersTimeout: timeouts.headersTimeoutMs,
          requestTimeout: timeouts.headersTimeoutMs + timeouts.bodyTimeoutMs + 5_000,
          // Node checks the two timeouts this often (its default, 30 s, would let them run late).
          connectionsCheckingInterval: 1_000,
        },
      },
      () => resolve(s),
    );
    s.once('error', reject);
  });
  // serveNode makes a plain node:http server (no createServer option is passed).
  const http = server as HttpServer;
  http.keepAliveTimeout = KEEP_ALIVE_TIMEOUT_MS;
  lingerBeforeClosing(http);
  const address = server.address() as AddressInfo;
  const name = address.address.includes(':') ? `[${address.address}]` : address.address;
  return {
    origin: `http://${name}:${address.port}`,
    port: address.port,
    serve: (handler) => void (handle = handler),
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        // Idle keep-alive connections would hold the process open after its stdio client left.
        if ('closeAllConnections' in server) server.closeAllConnections();
      }),
  };
}
