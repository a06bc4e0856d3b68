import type { HttpBindings } from '@hono/node-server';
import { serve as serveNode } from '@hono/node-server';
import type { Server as HttpServer } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * Idle keep-alive connections stay open this long (announced as `Keep-Alive: timeout=65`). Node's
 * default of 5 s is shorter than the pause of an agent host between model turns or of a client
 * whose event loop was busy, which then reuses a pooled socket the server has just closed and
 * fails with "other side closed". 65 s outlasts the usual proxy and load-balancer idle timeouts
 * (60 s), so the proxy, not Holdfast, closes first.
 */
export const KEEP_ALIVE_TIMEOUT_MS = 65_000;

type FetchHandler = (request: Request, env: HttpBindings) => Response | Promise<Response>;

export interface Listening {
  /** http://127.0.0.1:4110 or http://[::1]:4110: how this process is reached, as bound. */
  readonly origin: string;
  readonly port: number;
  /** Starts answering with `handler` (until then: 503), so the port is known before the app is built. */
  serve(handler: FetchHandler): void;
  close(): Promise<void>;
}

/** Binds first, so that `--port 0` knows its port (and links their origin) before anything is served. */
export async function listen(host: string, port: number): Promise<Listening> {
  let handle: FetchHandler = () => new Response('starting', { status: 503 });
  const server = await new Promise<ReturnType<typeof serveNode>>((resolve, reject) => {
    const s = serveNode(
      { fetch: (request, env) => handle(request, env as HttpBindings), port, hostname: host },
      () => resolve(s),
    );
    s.once('error', reject);
  });
  // serveNode makes a plain node:http server (no createServer option is passed).
  const http = server as HttpServer;
  http.keepAliveTimeout = KEEP_ALIVE_TIMEOUT_MS;
  // Headers must be allowed to arrive for longer than a connection may idle (Node's own rule).
  http.headersTimeout = KEEP_ALIVE_TIMEOUT_MS + 1_000;
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
