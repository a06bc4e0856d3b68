import type { LookupAddress, LookupOptions } from 'node:dns';
import { lookup } from 'node:dns';
import http from 'node:http';
import https from 'node:https';
import { isIP } from 'node:net';
import type { Socket } from 'node:net';
import { isSpecialUseAddress } from './special-use-addresses.js';

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

/** The receiver resolved to (or is) an address it may not be reached at. */
export class RefusedAddressError extends Error {
  override readonly name = 'RefusedAddressError';
}

type LookupCallback = (
  error: NodeJS.ErrnoException | null,
  address: string | LookupAddress[],
  family?: number,
) => void;

/**
 * DNS resolution that answers only with addresses a webhook may reach: the connection goes to
 * the address checked here, so a name that resolves differently a second later (DNS
 * rebinding) changes nothing.
 */
function guardedLookup(hostname: string, options: LookupOptions, callback: LookupCallback): void {
  lookup(hostname, { ...options, all: true }, (error, addresses) => {
    if (error) return callback(error, []);
    const allowed = addresses.filter((a) => !isSpecialUseAddress(a.address));
    if (allowed.length === 0)
      return callback(
        new RefusedAddressError(`${hostname} resolves to a private or special-use address`),
        [],
      );
    if (options.all) return callback(null, allowed);
    callback(null, allowed[0]!.address, allowed[0]!.family);
  });
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
  const host = url.hostname.replace(/^\[|\]$/g, '');
  if (!options.allowPrivate && isIP(host) !== 0 && isSpecialUseAddress(host))
    return Promise.reject(new RefusedAddressError(`${host} is a private or special-use address`));
  return new Promise((resolve, reject) => {
    const client = url.protocol === 'https:' ? https : http;
    const request = client.request(url, {
      method: 'POST',
      headers: { ...headers, 'content-length': String(Buffer.byteLength(body)) },
      agent: false,
      ...(options.allowPrivate ? {} : { lookup: guardedLookup }),
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
