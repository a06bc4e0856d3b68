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
 * standard variables (endpoint, headers, timeout read by the exporter itself; its code is loaded
 * only then), or the one a test passes. Without one the sampler drops every span, which costs
 * next to nothing.
 */
export async function startTracing(
  env: NodeJS.ProcessEnv,
  version: string,
  given?: SpanExporter,
): Promise<Tracing> {
  const exporter =
    given ??
    (otlpRequested(env)
      ? new (await import('@opentelemetry/exporter-trace-otlp-http')).OTLPTraceExporter()
      : undefined);
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
