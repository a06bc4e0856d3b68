import { performance } from 'node:perf_hooks';
import type { WebhookRequest, WebhookResponse, WebhookSender } from '../../ports/webhook-delivery.js';
import { inSpan, outgoingTraceHeaders, SpanKind } from '../telemetry/tracing.js';
import { guardedPost, RefusedAddressError } from './guarded-post.js';
import type { WebhookSecretBox } from './secret-box.js';
import { signWebhook } from './webhook-signature.js';

export interface SenderOptions {
  /** `--allow-private-webhooks`: loopback and private receivers (and http to loopback) for tests. */
  readonly allowPrivate: boolean;
  readonly secrets: WebhookSecretBox;
  readonly timeoutMs?: number;
  readonly maxResponseBytes?: number;
}

const LOOPBACK_HOSTS = new Set(['127.0.0.1', 'localhost', '[::1]']);

/** Sends each event as Standard Webhooks JSON over https, with the caller's trace as `traceparent`. */
export function httpWebhookSender(options: SenderOptions): WebhookSender {
  const guard = {
    allowPrivate: options.allowPrivate,
    timeoutMs: options.timeoutMs ?? 10_000,
    maxResponseBytes: options.maxResponseBytes ?? 4096,
  };
  return {
    send: (request) =>
      inSpan(
        'webhook.deliver',
        { kind: SpanKind.CLIENT, attributes: { 'http.request.method': 'POST' } },
        () => send(request, options, guard),
      ),
  };
}

async function send(
  request: WebhookRequest,
  options: SenderOptions,
  guard: Parameters<typeof guardedPost>[3],
): Promise<WebhookResponse> {
  const started = performance.now();
  const elapsed = () => performance.now() - started;
  let url: URL;
  try {
    url = new URL(request.url);
  } catch {
    return { statusCode: null, durationMs: 0, error: 'not a URL' };
  }
  // Checked again here, not only when the subscription was added: the server's flag may differ.
  const insecure = url.protocol === 'http:' && !(options.allowPrivate && LOOPBACK_HOSTS.has(url.hostname));
  if (insecure || (url.protocol !== 'https:' && url.protocol !== 'http:'))
    return { statusCode: null, durationMs: 0, error: 'refused: a webhook URL must be https' };
  const secret = options.secrets.open(request.sealedSecret);
  const headers = {
    'content-type': 'application/json',
    'user-agent': 'Holdfast-Webhooks/1',
    'webhook-id': request.eventId,
    'webhook-timestamp': String(request.timestamp),
    'webhook-signature': signWebhook(secret, request.eventId, request.timestamp, request.body),
    ...outgoingTraceHeaders(),
  };
  try {
    const answer = await guardedPost(url, headers, request.body, guard);
    const ok = answer.statusCode >= 200 && answer.statusCode < 300;
    const redirect = answer.statusCode >= 300 && answer.statusCode < 400;
    return {
      statusCode: answer.statusCode,
      durationMs: elapsed(),
      error: ok
        ? null
        : redirect
          ? `HTTP ${answer.statusCode}: redirects are not followed`
          : `HTTP ${answer.statusCode}${answer.excerpt ? `: ${answer.excerpt.replace(/\s+/g, ' ').slice(0, 120)}` : ''}`,
    };
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    return {
      statusCode: null,
      durationMs: elapsed(),
      error: error instanceof RefusedAddressError ? `refused: ${message}` : message.slice(0, 200),
    };
  }
}
