import type { MiddlewareHandler } from 'hono';
import { SpanStatusCode } from '@opentelemetry/api';
import { contextFromHeaders, inSpan, SpanKind } from '../telemetry/tracing.js';

/** The first path segments Holdfast serves; anything else is named `/*`. */
const ROUTES = new Set([
  '',
  'mcp',
  'console',
  'oauth',
  '.well-known',
  'api',
  'account',
  'approvals',
  'assets',
  'login',
  'logout',
  'setup',
  'pay',
  'healthz',
  'readyz',
  'metrics',
]);

/** `/console/bookings/bk_1` → `/console`, a made-up path → `/*`: span names stay few whatever a caller sends. */
const routeOf = (path: string) => {
  const first = path.split('/')[1] ?? '';
  return ROUTES.has(first) ? `/${first}` : '/*';
};

/** A server span per HTTP request, continuing the caller's W3C `traceparent` when it sent one. */
export const requestSpan: MiddlewareHandler = (c, next) =>
  inSpan(
    `${c.req.method} ${routeOf(c.req.path)}`,
    {
      kind: SpanKind.SERVER,
      parent: contextFromHeaders(c.req.raw.headers),
      attributes: { 'http.request.method': c.req.method, 'url.path': routeOf(c.req.path) },
    },
    async (span) => {
      await next();
      span.setAttribute('http.response.status_code', c.res.status);
      if (c.res.status >= 500) span.setStatus({ code: SpanStatusCode.ERROR });
    },
  );
