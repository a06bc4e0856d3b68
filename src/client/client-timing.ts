/**
 * holdfast/client-timing: the client half of the wire timing contract. Wrap the fetch the
 * official SDK's StreamableHTTPClientTransport uses, and every request is stamped at the moment
 * it is really sent: the `x-mcp-client-sent-at` header, and the same RFC 3339 instant in each
 * JSON-RPC message's `params._meta.clientSentAt`.
 *
 *   new StreamableHTTPClientTransport(url, { fetch: withClientTiming() })
 */
export const CLIENT_SENT_AT = 'x-mcp-client-sent-at';

type Message = { params?: { _meta?: Record<string, unknown> } & Record<string, unknown> };

function stamped(body: string, sentAt: string): string | null {
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    return null;
  }
  for (const message of (Array.isArray(parsed) ? parsed : [parsed]) as Message[]) {
    if (!message || typeof message !== 'object') continue;
    message.params = { ...message.params, _meta: { ...message.params?._meta, clientSentAt: sentAt } };
  }
  return JSON.stringify(parsed);
}

export function withClientTiming(inner: typeof fetch = fetch): typeof fetch {
  return (input, init) => {
    if (typeof init?.body !== 'string' || (init.method ?? 'GET').toUpperCase() !== 'POST')
      return inner(input, init);
    const sentAt = new Date().toISOString();
    const body = stamped(init.body, sentAt);
    if (body === null) return inner(input, init);
    const headers = new Headers(init.headers);
    headers.set(CLIENT_SENT_AT, sentAt);
    return inner(input, { ...init, headers, body });
  };
}

/** expert-booking-mcp's name for the same helper (its src/temporal-http.ts). */
export const createTemporalClientFetch = withClientTiming;
