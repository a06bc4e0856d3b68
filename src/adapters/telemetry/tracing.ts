import type { Attributes, Context, Span, TextMapGetter } from '@opentelemetry/api';
import { context, propagation, ROOT_CONTEXT, SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { resourceFromAttributes } from '@opentelemetry/resources';
import type { SpanExporter } from '@opentelemetry/sdk-trace-base';
import {
  AlwaysOffSampler,
  AlwaysOnSampler,
  BatchSpanProcessor,
  ParentBasedSampler,
  SimpleSpanProcessor,
} from '@opentelemetry/sdk-trace-base';
import { NodeTracerProvider } from '@opentelemetry/sdk-trace-node';
import { TRACEPARENT_META_KEY, TRACESTATE_META_KEY } from '@modelcontextprotocol/server';

export { SpanKind };

const TRACER = 'holdfast';

export interface Tracing {
  /** Whether spans leave the process (an exporter is configured). */
  readonly exporting: boolean;
  shutdown(): Promise<void>;
}

/** Whether the standard OTEL_* variables ask for OTLP trace export. */
export function otlpRequested(env: NodeJS.ProcessEnv): boolean {
  const exporter = env.OTEL_TRACES_EXPORTER?.trim();
  if (exporter === 'none' || env.OTEL_SDK_DISABLED === 'true') return false;
  return exporter === 'otlp' || !!env.OTEL_EXPORTER_OTLP_ENDPOINT || !!env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT;
}

/**
 * Registers the process's tracer provider. Span and trace ids exist either way (log lines carry
 * them); spans are recorded and sent only when an exporter is configured: OTLP over HTTP by the
 * standard variables (endpoint, headers, timeout read by the exporter itself), or the one a test
 * passes. Without one the sampler drops every span, which costs next to nothing.
 */
export function startTracing(
  env: NodeJS.ProcessEnv,
  version: string,
  exporter: SpanExporter | undefined = otlpRequested(env) ? new OTLPTraceExporter() : undefined,
): Tracing {
  const provider = new NodeTracerProvider({
    resource: resourceFromAttributes({
      'service.name': env.OTEL_SERVICE_NAME?.trim() || 'holdfast',
      'service.version': version,
    }),
    sampler: exporter ? new ParentBasedSampler({ root: new AlwaysOnSampler() }) : new AlwaysOffSampler(),
    spanProcessors: exporter
      ? [
          env.HOLDFAST_TRACE_SYNC === '1'
            ? new SimpleSpanProcessor(exporter)
            : new BatchSpanProcessor(exporter),
        ]
      : [],
  });
  provider.register();
  return { exporting: !!exporter, shutdown: () => provider.shutdown() };
}

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

/**
 * The caller's context from a request's `_meta` (2026-07-28 carries `traceparent` there); when
 * it has none, the active context (the HTTP request's span, if any).
 */
export function contextFromMeta(meta: Record<string, unknown> | undefined): Context {
  const traceparent = meta?.[TRACEPARENT_META_KEY];
  if (typeof traceparent !== 'string') return context.active();
  const carrier: Record<string, string> = { traceparent };
  const tracestate = meta?.[TRACESTATE_META_KEY];
  if (typeof tracestate === 'string') carrier.tracestate = tracestate;
  const extracted = propagation.extract(ROOT_CONTEXT, carrier);
  // A malformed traceparent extracts nothing: keep the active context rather than a new root.
  return trace.getSpanContext(extracted) ? extracted : context.active();
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
