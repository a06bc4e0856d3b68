import type { IncomingMessage, Server as HttpServer } from 'node:http';
import type { Socket } from 'node:net';

/** How long, and how much, of an abandoned body is read and dropped before the connection closes. */
const DISCARD_MS = 500;
const DISCARD_BYTES = 64 * 1024 * 1024;

/**
 * A lingering close (RFC 9112 §9.6). When a route answers before its body is in (413, 401, a
 * refusal from the authorization server) on a connection that closes after the answer — the
 * client asked for `Connection: close` — Node would end the socket at once: the rest of the body
 * then meets a closed socket, the kernel resets the connection, and a client still sending sees
 * EPIPE instead of the answer. Here the answer goes out with a FIN, and what still comes is read
 * and dropped for at most half a second or 64 MB before the connection is closed.
 */
export function lingerBeforeClosing(server: HttpServer): void {
  const current = new WeakMap<Socket, IncomingMessage>();
  server.on('request', (request: IncomingMessage) => current.set(request.socket, request));
  server.on('connection', (socket: Socket) => {
    const closeNow = socket.destroySoon.bind(socket);
    // Node's server calls destroySoon once the last answer on a connection is written.
    socket.destroySoon = () => {
      const request = current.get(socket);
      if (!request || request.complete || request.destroyed) return closeNow();
      linger(request, closeNow);
    };
  });
}

function linger(request: IncomingMessage, closeNow: () => void) {
  request.socket.end();
  let discarded = 0;
  const stop = () => {
    clearTimeout(timer);
    request.off('data', drop);
    closeNow();
  };
  const drop = (chunk: Buffer) => {
    discarded += chunk.length;
    if (discarded > DISCARD_BYTES) stop();
  };
  const timer = setTimeout(stop, DISCARD_MS);
  timer.unref();
  request.on('data', drop);
  request.once('end', stop);
  request.once('error', stop);
  request.resume();
}
