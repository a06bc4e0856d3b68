import { createHmac, timingSafeEqual } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import { createServer } from 'node:http';

/** One request as the receiver saw it, with its own verdict on the signature. */
export interface Received {
  readonly id: string;
  readonly timestamp: number;
  readonly type: string;
  readonly body: Record<string, unknown>;
  readonly signatureValid: boolean;
  readonly traceparent: string | undefined;
}

/**
 * Standard Webhooks verification written from the spec, not with the server's signer: the key
 * is the base64 after `whsec_`; the header holds space-separated `v1,<base64 HMAC-SHA256 of
 * "id.timestamp.body">` signatures, any of which may match.
 */
export function verifySignature(secret: string, headers: IncomingHttpHeaders, body: string): boolean {
  const id = headers['webhook-id'];
  const timestamp = headers['webhook-timestamp'];
  const signatures = headers['webhook-signature'];
  if (typeof id !== 'string' || typeof timestamp !== 'string' || typeof signatures !== 'string') return false;
  if (!secret.startsWith('whsec_') || !/^\d+$/.test(timestamp)) return false;
  const expected = createHmac('sha256', Buffer.from(secret.slice('whsec_'.length), 'base64'))
    .update(`${id}.${timestamp}.${body}`)
    .digest();
  return signatures.split(' ').some((candidate) => {
    const [version, value] = candidate.split(',');
    if (version !== 'v1' || !value) return false;
    const given = Buffer.from(value, 'base64');
    return given.length === expected.length && timingSafeEqual(given, expected);
  });
}

/** `status` to answer with, or `hang` to keep the request open (the test decides what happens then). */
export type Reply = number | 'hang';

/** A webhook receiver on 127.0.0.1 that checks every signature with `secret()`. */
export async function startReceiver(secret: () => string, reply: (r: Received) => Reply = () => 200) {
  const received: Received[] = [];
  const waiters: (() => void)[] = [];
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (c: Buffer) => chunks.push(c));
    request.on('end', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      const body = JSON.parse(text) as Record<string, unknown>;
      const entry: Received = {
        id: String(request.headers['webhook-id']),
        timestamp: Number(request.headers['webhook-timestamp']),
        type: String(body.type),
        body,
        signatureValid: verifySignature(secret(), request.headers, text),
        traceparent: request.headers.traceparent as string | undefined,
      };
      received.push(entry);
      for (const wake of waiters.splice(0)) wake();
      const answer = reply(entry);
      if (answer === 'hang') return;
      response.writeHead(answer, { 'content-type': 'text/plain' }).end(answer < 300 ? 'ok' : 'nope');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${port}/hooks`,
    port,
    received,
    /** Resolves once `done(received)` holds, re-checked on every request; rejects after `ms`. */
    until(done: (all: Received[]) => boolean, ms = 20_000): Promise<void> {
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`receiver got ${received.length} requests`)), ms);
        const check = () => {
          if (done(received)) {
            clearTimeout(timer);
            resolve();
          } else waiters.push(check);
        };
        check();
      });
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
