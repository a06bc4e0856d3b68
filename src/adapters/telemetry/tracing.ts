import type { Attributes, Context, Span, TextMapGetter } from '@opentelemetry/api';
import { context, propagation, SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';

export { SpanKind };

const TRACER = 'holdfast';

const tracer = () => trace.getTracer(TRACER);

/**
 * Runs `work` in a new active span (child of `parent`, else of the active context), marks a
 * thrown error on it and ends it whatever happens.
 */
export function inSpan<T>(
  name: string,
  options: { kind?: SpanKind; attributes?: Attributes; parent?: Context },
  work: (span: Span) => Promise<T>,
): Promise<T> {
  return tracer().startActiveSpan(
    name,
    { kind: options.kind ?? SpanKind.INTERNAL, attributes: options.attributes },
    options.parent ?? context.active(),
    async (span) => {
      try {
        return await work(span);
      } catch (error) {
        span.setStatus({
          code: SpanStatusCode.ERROR,
          message: error instanceof Error ? error.name : 'error',
        });
        throw error;
      } finally {
        span.end();
      }
    },
  );
}

const headerGetter: TextMapGetter<Headers> = {
  get: (headers, key) => headers.get(key) ?? undefined,
  keys: (headers) => [...headers.keys()],
};

/** The caller's context from W3C `traceparent`/`tracestate` headers (none: the active one). */
export function contextFromHeaders(headers: Headers): Context {
  return propagation.extract(context.active(), headers, headerGetter);
}

/** `traceparent` (and `tracestate`) for an outgoing request, from the active span. */
export function outgoingTraceHeaders(): Record<string, string> {
  const carrier: Record<string, string> = {};
  propagation.inject(context.active(), carrier);
  return carrier;
}

/** The active span's ids, for log lines and answers; null outside any span. */
export function activeIds(): { traceId: string; spanId: string } | null {
  const span = trace.getActiveSpan();
  if (!span) return null;
  const { traceId, spanId } = span.spanContext();
  return trace.isSpanContextValid(span.spanContext()) ? { traceId, spanId } : null;
}
