import type { LookupAddress, LookupOptions } from 'node:dns';
import { lookup } from 'node:dns';
import { isIP } from 'node:net';
import { isSpecialUseAddress, isSpecialUseName } from './special-use.js';

export { isSpecialUseAddress, isSpecialUseName } from './special-use.js';

/**
 * The one guard of every request Holdfast makes on someone's behalf (calendar feeds, webhooks,
 * Client ID Metadata Documents): a destination is refused by how it is written before anything
 * is looked up, and by every address its name resolves to before anything connects; the
 * connection then goes to an address that was checked (the lookup answers only those), so a
 * name that resolves elsewhere a moment later (DNS rebinding) changes nothing.
 */
export class RefusedAddressError extends Error {
  override readonly name = 'RefusedAddressError';
}

/** Why a URL's host may not be reached, read from how it is written (no lookup); null when it may be tried. */
export function refusedHost(url: URL): string | null {
  const host = url.hostname.replace(/^\[|\]$/g, '');
  if (isIP(host.replace(/%.*$/, '')) !== 0)
    return isSpecialUseAddress(host)
      ? `${host} is a private, loopback, link-local or special-use address`
      : null;
  return isSpecialUseName(host) ? `${host} names this host or a local network` : null;
}

/** Name resolution: the system's, or a test's. */
export type Resolve = (
  hostname: string,
  callback: (error: NodeJS.ErrnoException | null, addresses: LookupAddress[]) => void,
) => void;

const systemResolve: Resolve = (hostname, callback) => lookup(hostname, { all: true }, callback);

type LookupCallback = (
  error: NodeJS.ErrnoException | null,
  address: string | LookupAddress[],
  family?: number,
) => void;

/**
 * A `lookup` for Node's connections (net, tls, http, https, fetch) that answers only with
 * addresses that are not special-use, and fails with RefusedAddressError when none is left.
 */
export function guardedLookup(resolve: Resolve = systemResolve) {
  return (hostname: string, options: LookupOptions, callback: LookupCallback): void => {
    if (isSpecialUseName(hostname))
      return callback(new RefusedAddressError(`${hostname} names this host or a local network`), []);
    resolve(hostname, (error, addresses) => {
      if (error) return callback(error, []);
      const family = options.family === 4 || options.family === 6 ? options.family : undefined;
      const allowed = addresses.filter(
        (a) => !isSpecialUseAddress(a.address) && (family === undefined || a.family === family),
      );
      if (allowed.length === 0)
        return callback(
          new RefusedAddressError(`${hostname} resolves to a private, loopback or special-use address`),
          [],
        );
      if (options.all) return callback(null, allowed);
      callback(null, allowed[0]!.address, allowed[0]!.family);
    });
  };
}

type Dispatcher = object;

/**
 * A dispatcher for Node's fetch whose connections resolve names through guardedLookup. Node
 * bundles undici without exporting it: its Agent is the global dispatcher's class.
 */
export function guardedDispatcher(resolve?: Resolve): Dispatcher {
  // Node's fetch is lazily loaded; touching Response makes it register its global dispatcher.
  void Response;
  const global = globalThis as unknown as Record<
    symbol,
    { constructor: new (options: object) => Dispatcher } | undefined
  >;
  const Agent = (
    global[Symbol.for('undici.globalDispatcher.2')] ?? global[Symbol.for('undici.globalDispatcher.1')]
  )?.constructor;
  if (!Agent) throw new Error('no undici dispatcher to guard: refusing to fetch unguarded');
  return new Agent({ connect: { lookup: guardedLookup(resolve) } });
}

let shared: Dispatcher | undefined;
/** The process's guarded dispatcher, made once. */
export const sharedGuardedDispatcher = (): Dispatcher => (shared ??= guardedDispatcher());

/** The fetch every outbound request of Holdfast's adapters goes through. */
export type OutboundFetch = (url: string | URL, init?: RequestInit) => Promise<Response>;

/**
 * fetch behind the guard: a special-use host is refused as written, a name by what it resolves
 * to, both before anything connects. Redirects are not followed (each caller reads a 3xx as a
 * failure or follows it through this fetch again): a redirect to an address literal would skip
 * the lookup. `allowPrivate` is the operator's explicit choice for their own upstreams.
 */
export function outboundFetch(options: {
  readonly allowPrivate: boolean;
  readonly resolve?: Resolve;
}): OutboundFetch {
  if (options.allowPrivate) return (url, init) => fetch(url, init);
  const dispatcher = options.resolve ? guardedDispatcher(options.resolve) : undefined;
  return async (url, init) => {
    const refused = refusedHost(new URL(url));
    if (refused) throw new RefusedAddressError(refused);
    const guarded = { ...init, redirect: 'manual', dispatcher: dispatcher ?? sharedGuardedDispatcher() };
    return fetch(url, guarded as RequestInit);
  };
}
