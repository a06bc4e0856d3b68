import type { MiddlewareHandler } from 'hono';
import { SpanStatusCode } from '@opentelemetry/api';
import { contextFromHeaders, inSpan, SpanKind } from '../telemetry/tracing.js';

/** `/console/bookings/bk_1` → `/console`: span names stay few whatever the ids. */
const routeOf = (path: string) => `/${path.split('/')[1] ?? ''}`;

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
