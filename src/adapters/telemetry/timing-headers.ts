/** The wire timing contract's header names (see src/adapters/http/timing-contract.ts). */
export const CLIENT_SENT_AT = 'x-mcp-client-sent-at';
export const SERVER_RECEIVED_AT = 'x-mcp-server-received-at';
export const SERVER_RESPONDED_AT = 'x-mcp-server-responded-at';
/** When Holdfast sent a request of its own (the payment query). */
export const SERVER_REQUEST_SENT_AT = 'x-mcp-server-request-sent-at';
