import type { MiddlewareHandler } from 'hono';
import { parseInstant } from '../../domain/time/instant.js';

import { CLIENT_SENT_AT, SERVER_RECEIVED_AT, SERVER_RESPONDED_AT } from '../telemetry/timing-headers.js';

/** The key of the same instant inside the request's `params._meta`. */
export const CLIENT_SENT_AT_META = 'clientSentAt';

/** RFC 3339 with an offset, and a date that exists (the domain's own parser: no 30 February). */
function validInstant(value: string | undefined): value is string {
  if (value === undefined || value.length > 40) return false;
  try {
    parseInstant(value, CLIENT_SENT_AT);
    return true;
  } catch {
    return false;
  }
}

type Stamp = Record<string, string>;

/** Adds the instants to the `_meta` of every result in a JSON-RPC message or batch. */
function stampResults(answer: unknown, times: Stamp): void {
  for (const message of messagesOf(answer) as { result?: { _meta?: Record<string, unknown> } }[])
    if (message.result && typeof message.result === 'object')
      message.result._meta = { ...message.result._meta, ...times };
}

/** An SSE answer (2025-era POSTs): each event's JSON data stamped, the rest as it was. */
function stampEvents(stream: string, times: Stamp): string {
  return stream
    .split('\n')
    .map((line) => {
      if (!line.startsWith('data:')) return line;
      try {
        const answer = JSON.parse(line.slice(5)) as unknown;
        stampResults(answer, times);
        return `data: ${JSON.stringify(answer)}`;
      } catch {
        return line;
      }
    })
    .join('\n');
}

type Message = { id?: unknown; params?: { _meta?: Record<string, unknown> } };

const isMessage = (value: unknown): value is Message =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

function messagesOf(body: unknown): Message[] {
  return (Array.isArray(body) ? body : [body]).filter(isMessage);
}

/**
 * The opt-in wire timing contract (--timing-contract) on POST /mcp: the client states when it
 * sent the request, in the `x-mcp-client-sent-at` header and the same RFC 3339 value in every
 * message's `params._meta.clientSentAt`; the server never guesses it. Otherwise: HTTP 400
 * MISSING_CLIENT_TIMESTAMP, echoing the JSON-RPC id. This checks the body the MCP gate read (after
 * the credential, never reading it again); `timingStamps` then says when the request came and
 * when its answer left.
 */
export function clientSentAtRefusal(body: unknown, request: Request): Response | undefined {
  const sentAt = request.headers.get(CLIENT_SENT_AT) ?? undefined;
  const messages = messagesOf(body);
  const agrees = messages.every((m) => m.params?._meta?.[CLIENT_SENT_AT_META] === sentAt);
  if (validInstant(sentAt) && agrees) return undefined;
  const id =
    messages.length === 1 && ['string', 'number'].includes(typeof messages[0]!.id) ? messages[0]!.id : null;
  const problem = !validInstant(sentAt)
    ? `${CLIENT_SENT_AT} must be an RFC 3339 date-time`
    : `params._meta.${CLIENT_SENT_AT_META} must equal the ${CLIENT_SENT_AT} header`;
  return Response.json(
    {
      jsonrpc: '2.0',
      id,
      error: {
        code: -32600,
        message: `MISSING_CLIENT_TIMESTAMP: ${problem}`,
        data: { code: 'MISSING_CLIENT_TIMESTAMP' },
      },
    },
    { status: 400 },
  );
}

/**
 * Answers carry when the server received the request and when it answered, as headers and in
 * each JSON result's `_meta`, so that
 * clientSentAt <= serverReceivedAt <= serverResultCreatedAt <= serverRespondedAt.
 */
export function timingStamps(now: () => number): MiddlewareHandler {
  return async (c, next) => {
    const receivedAt = new Date(now()).toISOString();
    const sentAt = c.req.header(CLIENT_SENT_AT);
    await next();
    const response = c.res;
    const type = response.headers.get('content-type') ?? '';
    // A stateless POST's answer ends with its response: read it whole, then say when it left.
    const answered =
      type.includes('application/json') || type.includes('text/event-stream') ? await response.text() : null;
    const respondedAt = new Date(now()).toISOString();
    const times: Stamp = validInstant(sentAt)
      ? { clientSentAt: sentAt, serverReceivedAt: receivedAt, serverRespondedAt: respondedAt }
      : { serverReceivedAt: receivedAt, serverRespondedAt: respondedAt };
    if (answered !== null) {
      let body = answered;
      if (type.includes('application/json')) {
        try {
          const answer = JSON.parse(answered) as unknown;
          stampResults(answer, times);
          body = JSON.stringify(answer);
        } catch {
          // Not JSON after all: pass it on untouched.
        }
      } else body = stampEvents(answered, times);
      c.res = new Response(body, response);
    }
    c.res.headers.set(SERVER_RECEIVED_AT, receivedAt);
    c.res.headers.set(SERVER_RESPONDED_AT, respondedAt);
    c.res.headers.delete('content-length');
  };
}
