import type { MiddlewareHandler } from 'hono';
import { readBody } from './bounded-body.js';

/** Exactly which Host values and Origins name this server. */
export interface ServerNames {
  readonly hosts: ReadonlySet<string>;
  readonly origins: ReadonlySet<string>;
}

/**
 * The names of a server bound to `port` on loopback, plus the public URL people reach it by
 * and any extra host the operator allowed. Ports are part of the name: another local web
 * server (http://localhost:8080) is another origin.
 */
export function serverNames(
  port: number,
  options: {
    publicUrl?: string | null;
    extraHosts?: readonly string[];
    /** Exact browser Origins allowed beside the server's own; the Host must still be one of its names. */
    extraOrigins?: readonly string[];
  } = {},
): ServerNames {
  const loopback = ['127.0.0.1', 'localhost', '[::1]'];
  const hosts = new Set(loopback.map((n) => `${n}:${port}`));
  if (port === 80) for (const n of loopback) hosts.add(n);
  const origins = new Set([...hosts].map((h) => `http://${h}`));
  if (options.publicUrl) {
    const url = new URL(options.publicUrl);
    hosts.add(url.host.toLowerCase());
    origins.add(url.origin.toLowerCase());
  }
  for (const extra of options.extraHosts ?? []) {
    const host = extra.toLowerCase();
    for (const name of [host, `${host}:${port}`]) {
      hosts.add(name);
      origins.add(`http://${name}`);
      origins.add(`https://${name}`);
    }
  }
  for (const origin of options.extraOrigins ?? []) origins.add(origin.toLowerCase());
  return { hosts, origins };
}

/**
 * OAuth endpoints an agent host's own web page may call (CORS is the authorization server's):
 * discovery, token, registration, revocation, keys. None of them reads a cookie.
 */
const CROSS_ORIGIN_PATHS = /^\/(\.well-known\/|oauth\/(token|register|revoke|jwks)(\/|$))/;

/**
 * DNS-rebinding and cross-site defence: a browser tricked into calling this server still
 * sends the attacker's Host or Origin, so both must name this server exactly.
 */
export function hostGuard(names: ServerNames): MiddlewareHandler {
  return async (c, next) => {
    const host = c.req.header('host')?.toLowerCase() ?? '';
    if (!names.hosts.has(host)) {
      return c.json({ error: 'forbidden', message: `Host "${host.slice(0, 100)}" is not allowed` }, 403);
    }
    const origin = c.req.header('origin');
    if (
      origin !== undefined &&
      !CROSS_ORIGIN_PATHS.test(c.req.path) &&
      !names.origins.has(origin.toLowerCase())
    ) {
      return c.json({ error: 'forbidden', message: `Origin "${origin.slice(0, 100)}" is not allowed` }, 403);
    }
    return next();
  };
}

/** Whether a POST to /mcp speaks JSON, the only thing spoken there. */
export const isJson = (request: Request) =>
  request.headers.get('content-type')?.split(';')[0]?.trim().toLowerCase() === 'application/json';

export const unsupportedMediaType = () =>
  Response.json(
    { error: 'unsupported_media_type', message: 'POST /mcp takes application/json' },
    { status: 415 },
  );

const FORM_MAX_BYTES = 16 * 1024;
/** The longest a form's body may take to arrive: a person's browser sends a few hundred bytes. */
export const FORM_DEADLINE_MS = 10_000;

/**
 * Every form a person posts (sign-in, setup, approval, payment) is a small urlencoded body:
 * anything else is refused before it is read, so no page parses a multipart upload or a huge body.
 * The body is read once, bounded in bytes and time, and the page reads that copy.
 */
export function formOnly(deadlineMs: number): MiddlewareHandler {
  return async (c, next) => {
    const type = c.req.header('content-type')?.split(';')[0]?.trim().toLowerCase();
    if (type !== 'application/x-www-form-urlencoded') {
      return c.json(
        { error: 'unsupported_media_type', message: 'Forms are application/x-www-form-urlencoded' },
        415,
      );
    }
    const read = await readBody(c.req.raw, { maxBytes: FORM_MAX_BYTES, deadlineMs });
    if (read.kind === 'too_large')
      return c.json(
        { error: 'payload_too_large', message: `Forms take at most ${FORM_MAX_BYTES} bytes` },
        413,
      );
    if (read.kind === 'too_slow')
      return c.json(
        { error: 'request_timeout', message: `A form must arrive within ${deadlineMs / 1000} s` },
        408,
      );
    if (read.kind === 'unreadable')
      return c.json({ error: 'bad_request', message: 'The form could not be read' }, 400);
    c.req.raw = new Request(c.req.raw, { body: read.bytes });
    return next();
  };
}

export function isLoopbackAddress(host: string): boolean {
  return (
    host === 'localhost' ||
    host === '::1' ||
    host === '[::1]' ||
    /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(host)
  );
}
