/** The header that says when a request was sent (the wire timing contract). */
export declare const CLIENT_SENT_AT = 'x-mcp-client-sent-at';
/**
 * Wraps the fetch of the official SDK's StreamableHTTPClientTransport: each request gets the
 * `x-mcp-client-sent-at` header and the same instant in every message's `params._meta.clientSentAt`.
 */
export declare function withClientTiming(inner?: typeof fetch): typeof fetch;
/** expert-booking-mcp's name for withClientTiming (its src/temporal-http.ts): the same function. */
export declare const createTemporalClientFetch: typeof withClientTiming;
