import http from 'node:http';
import https from 'node:https';
import type { Socket } from 'node:net';
import {
  guardedLookup,
  isSpecialUseAddress,
  RefusedAddressError,
  refusedHost,
} from '../net/outbound-guard.js';

export { RefusedAddressError } from '../net/outbound-guard.js';

export interface GuardOptions {
  /** Private, loopback and other special-use receivers are allowed (tests, closed networks). */
  readonly allowPrivate: boolean;
  readonly timeoutMs: number;
  /** Past this many bytes the answer is cut off: only its status matters. */
  readonly maxResponseBytes: number;
}

export interface GuardedAnswer {
  readonly statusCode: number;
  /** The start of the answer's body, for the delivery log. */
  readonly excerpt: string;
}

/**
 * One POST without following redirects, bounded in time and in how much of the answer is read.
 * Unless private receivers are allowed, a special-use address is refused before connecting —
 * an IP literal as written, a name as resolved — and the connected peer is checked again.
 */
export function guardedPost(
  url: URL,
  headers: Record<string, string>,
  body: string,
  options: GuardOptions,
): Promise<GuardedAnswer> {
  const refused = options.allowPrivate ? null : refusedHost(url);
  if (refused) return Promise.reject(new RefusedAddressError(refused));
  return new Promise((resolve, reject) => {
    const client = url.protocol === 'https:' ? https : http;
    const request = client.request(url, {
      method: 'POST',
      headers: { ...headers, 'content-length': String(Buffer.byteLength(body)) },
      agent: false,
      ...(options.allowPrivate ? {} : { lookup: guardedLookup() }),
    });
    const timer = setTimeout(
      () => request.destroy(new Error(`no answer within ${options.timeoutMs / 1000} s`)),
      options.timeoutMs,
    );
    const fail = (error: Error) => {
      clearTimeout(timer);
      reject(error);
    };
    request.on('error', fail);
    request.on('socket', (socket: Socket) => {
      if (options.allowPrivate) return;
      socket.once('connect', () => {
        if (socket.remoteAddress === undefined || isSpecialUseAddress(socket.remoteAddress))
          request.destroy(new RefusedAddressError('connected to a private or special-use address'));
      });
    });
    request.on('response', (response) => {
      const chunks: Buffer[] = [];
      let size = 0;
      const finish = () => {
        clearTimeout(timer);
        resolve({
          statusCode: response.statusCode ?? 0,
          excerpt: Buffer.concat(chunks).toString('utf8').slice(0, 200),
        });
      };
      response.on('data', (chunk: Buffer) => {
        if (size >= options.maxResponseBytes) return;
        chunks.push(chunk.subarray(0, options.maxResponseBytes - size));
        size += chunk.length;
        if (size >= options.maxResponseBytes) {
          response.destroy();
          finish();
        }
      });
      response.on('end', finish);
      response.on('error', fail);
    });
    request.end(body);
  });
}
