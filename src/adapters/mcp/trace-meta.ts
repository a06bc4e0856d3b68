import type { Context } from '@opentelemetry/api';
import { randomBytes } from 'node:crypto';
import { context, propagation, ROOT_CONTEXT, trace, TraceFlags } from '@opentelemetry/api';
import { TRACEPARENT_META_KEY, TRACESTATE_META_KEY } from '@modelcontextprotocol/server';

/**
 * The caller's context from a request's `_meta` (2026-07-28 carries `traceparent` there); when
 * it has none, the active context (the HTTP request's span, if any).
 */
export function contextFromMeta(meta: Record<string, unknown> | undefined): Context {
  const traceparent = meta?.[TRACEPARENT_META_KEY];
  if (typeof traceparent !== 'string') return fromRequestSpanId(meta?.requestSpanId) ?? context.active();
  const carrier: Record<string, string> = { traceparent };
  const tracestate = meta?.[TRACESTATE_META_KEY];
  if (typeof tracestate === 'string') carrier.tracestate = tracestate;
  const extracted = propagation.extract(ROOT_CONTEXT, carrier);
  // A malformed traceparent extracts nothing: keep the active context rather than a new root.
  return trace.getSpanContext(extracted) ? extracted : context.active();
}

const UUID = /^[\da-f]{8}-[\da-f]{4}-[\da-f]{4}-[\da-f]{4}-[\da-f]{12}$/i;

/**
 * A caller that names its request with a UUID (`_meta.requestSpanId`, expert-booking's clients)
 * gets a trace id derived from it, the same every time: its 128 bits as 32 lowercase hex. The
 * span under it is new for each call, as OpenTelemetry's span ids are (16 hex, not a UUID).
 */
function fromRequestSpanId(value: unknown): Context | undefined {
  if (typeof value !== 'string' || !UUID.test(value)) return undefined;
  const traceId = value.replace(/-/g, '').toLowerCase();
  const spanId = randomBytes(8).toString('hex');
  const parent = { traceId, spanId, traceFlags: TraceFlags.SAMPLED, isRemote: true };
  return trace.isSpanContextValid(parent) ? trace.setSpanContext(ROOT_CONTEXT, parent) : undefined;
}
