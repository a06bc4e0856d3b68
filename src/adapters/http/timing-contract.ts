import type { MiddlewareHandler } from 'hono';

export const CLIENT_SENT_AT = 'x-mcp-client-sent-at';
export const SERVER_RECEIVED_AT = 'x-mcp-server-received-at';
export const SERVER_RESPONDED_AT = 'x-mcp-server-responded-at';
/** The key of the same instant inside the request's `params._meta`. */
export const CLIENT_SENT_AT_META = 'clientSentAt';

const RFC3339 = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d{1,9})?(Z|[+-]\d\d:\d\d)$/i;

function validInstant(value: string | undefined): value is string {
  return value !== undefined && RFC3339.test(value) && !Number.isNaN(Date.parse(value));
}

type Message = { id?: unknown; params?: { _meta?: Record<string, unknown> } };

function messagesOf(body: unknown): Message[] {
  if (Array.isArray(body)) return body as Message[];
  return body && typeof body === 'object' ? [body as Message] : [];
}

/**
 * The opt-in wire timing contract (--timing-contract) on POST /mcp: the client states when it
 * sent the request, in the `x-mcp-client-sent-at` header and the same RFC 3339 value in every
 * message's `params._meta.clientSentAt`; the server never guesses it. Otherwise: HTTP 400
 * MISSING_CLIENT_TIMESTAMP, echoing the JSON-RPC id. Answers carry when the server received the
 * request and when it answered, as headers and in each JSON result's `_meta`, so that
 * clientSentAt <= serverReceivedAt <= serverResultCreatedAt <= serverRespondedAt.
 */
export function timingContract(now: () => number): MiddlewareHandler {
  return async (c, next) => {
    const receivedAt = new Date(now()).toISOString();
    const sentAt = c.req.header(CLIENT_SENT_AT);
    let body: unknown = null;
    try {
      body = JSON.parse(await c.req.raw.clone().text());
    } catch {
      // Malformed JSON is the MCP handler's to answer; the header is still required.
    }
    const messages = messagesOf(body);
    const agrees = messages.every((m) => m.params?._meta?.[CLIENT_SENT_AT_META] === sentAt);
    if (!validInstant(sentAt) || !agrees) {
      const id =
        messages.length === 1 && ['string', 'number'].includes(typeof messages[0]!.id)
          ? messages[0]!.id
          : null;
      const problem = !validInstant(sentAt)
        ? `${CLIENT_SENT_AT} must be an RFC 3339 date-time`
        : `params._meta.${CLIENT_SENT_AT_META} must equal the ${CLIENT_SENT_AT} header`;
      return c.json(
        {
          jsonrpc: '2.0',
          id,
          error: {
            code: -32600,
            message: `MISSING_CLIENT_TIMESTAMP: ${problem}`,
            data: { code: 'MISSING_CLIENT_TIMESTAMP' },
          },
        },
        400,
        { [SERVER_RECEIVED_AT]: receivedAt, [SERVER_RESPONDED_AT]: new Date(now()).toISOString() },
      );
    }
    await next();
    const response = c.res;
    const times = { clientSentAt: sentAt, serverReceivedAt: receivedAt };
    if (response.headers.get('content-type')?.includes('application/json')) {
      const answer = (await response.clone().json()) as unknown;
      const respondedAt = new Date(now()).toISOString();
      for (const message of messagesOf(answer) as { result?: { _meta?: Record<string, unknown> } }[])
        if (message.result)
          message.result._meta = { ...message.result._meta, ...times, serverRespondedAt: respondedAt };
      c.res = new Response(JSON.stringify(answer), response);
      c.res.headers.set(SERVER_RESPONDED_AT, respondedAt);
    } else c.res.headers.set(SERVER_RESPONDED_AT, new Date(now()).toISOString());
    c.res.headers.set(SERVER_RECEIVED_AT, receivedAt);
    c.res.headers.delete('content-length');
  };
}
