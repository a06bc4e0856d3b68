import type { Context } from '@opentelemetry/api';
import { context, propagation, ROOT_CONTEXT, trace } from '@opentelemetry/api';
import { TRACEPARENT_META_KEY, TRACESTATE_META_KEY } from '@modelcontextprotocol/server';

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
