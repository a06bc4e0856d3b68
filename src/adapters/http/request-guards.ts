import type { MiddlewareHandler } from 'hono';

/**
 * DNS-rebinding defence: a browser tricked into calling 127.0.0.1 still sends
 * the attacker's Host and Origin, so both must name this server.
 */
export function hostGuard(allowedHosts: ReadonlySet<string>): MiddlewareHandler {
  return async (c, next) => {
    const host = c.req.header('host')?.toLowerCase() ?? '';
    if (!allowedHosts.has(host) && !allowedHosts.has(stripPort(host))) {
      return c.json({ error: 'forbidden', message: `Host "${host}" is not allowed` }, 403);
    }
    const origin = c.req.header('origin');
    if (origin !== undefined && !originAllowed(origin, allowedHosts)) {
      return c.json({ error: 'forbidden', message: `Origin "${origin}" is not allowed` }, 403);
    }
    return next();
  };
}

function stripPort(host: string): string {
  if (host.startsWith('[')) return host.slice(0, host.indexOf(']') + 1);
  const colon = host.lastIndexOf(':');
  return colon === -1 ? host : host.slice(0, colon);
}

function originAllowed(origin: string, allowedHosts: ReadonlySet<string>): boolean {
  try {
    const url = new URL(origin);
    return (
      (url.protocol === 'http:' || url.protocol === 'https:') &&
      (allowedHosts.has(url.host) || allowedHosts.has(url.hostname))
    );
  } catch {
    return false;
  }
}

/** Only JSON is spoken on POST; anything else is 415 before it reaches the protocol layer. */
export const jsonOnly: MiddlewareHandler = async (c, next) => {
  const type = c.req.header('content-type')?.split(';')[0]?.trim().toLowerCase();
  if (type !== 'application/json') {
    return c.json({ error: 'unsupported_media_type', message: 'POST /mcp takes application/json' }, 415);
  }
  return next();
};

/** Host names that mean this machine; the server accepts them with or without its port. */
export function loopbackHosts(port: number, extra: readonly string[] = []): Set<string> {
  const names = ['127.0.0.1', 'localhost', '[::1]'];
  return new Set([...names, ...names.map((n) => `${n}:${port}`), ...extra.map((h) => h.toLowerCase())]);
}

export function isLoopbackAddress(host: string): boolean {
  return (
    host === 'localhost' ||
    host === '::1' ||
    host === '[::1]' ||
    /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(host)
  );
}
