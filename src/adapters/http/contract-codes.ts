/**
 * The reservation-operations contract names MCP-layer failures with codes of its own. Under that
 * profile every failed /mcp answer carries one beside the protocol's: JSON-RPC errors in
 * `error.data.code`, refusals before JSON-RPC (401, 413, 415, 400) in the body's `code`. Additive
 * only: clients that know nothing of the contract read what they always read.
 */

const RPC_CODES: Readonly<Record<number, string>> = {
  [-32700]: 'MCP_REQUEST_INVALID',
  [-32600]: 'MCP_REQUEST_INVALID',
  [-32601]: 'MCP_METHOD_NOT_FOUND',
  [-32602]: 'MCP_REQUEST_INVALID',
  [-32603]: 'MCP_INTERNAL_ERROR',
};

const HTTP_CODES: Readonly<Record<number, string>> = {
  400: 'MCP_REQUEST_INVALID',
  401: 'MCP_AUTH_INVALID',
  413: 'MCP_REQUEST_BODY_TOO_LARGE',
  415: 'MCP_REQUEST_INVALID',
  500: 'MCP_INTERNAL_ERROR',
};

interface RpcError {
  code: number;
  message: string;
  data?: unknown;
}

function contractCodeOf(error: RpcError, status: number): string {
  // A refusal the HTTP status already says precisely (too large, no credential) keeps its meaning.
  if (status === 413 || status === 401) return HTTP_CODES[status]!;
  if (error.code === -32602 && /^Tool \S+ not found/.test(error.message)) return 'MCP_TOOL_NOT_FOUND';
  return RPC_CODES[error.code] ?? 'MCP_REQUEST_INVALID';
}

/** One JSON-RPC message with the contract's code added to its error, if it has one. */
function tagged(message: unknown, status: number): unknown {
  if (!message || typeof message !== 'object') return message;
  const error = (message as { error?: RpcError }).error;
  if (!error || typeof error.code !== 'number') return message;
  const data = error.data && typeof error.data === 'object' ? (error.data as { code?: unknown }) : {};
  // A code the answer already names (UNAVAILABLE, RATE_LIMITED) passes through as it is.
  if (typeof data.code === 'string') return message;
  return { ...message, error: { ...error, data: { ...data, code: contractCodeOf(error, status) } } };
}

function rewriteJson(text: string, status: number): string {
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return text;
  }
  if (Array.isArray(body)) return JSON.stringify(body.map((m) => tagged(m, status)));
  if (body && typeof body === 'object' && 'jsonrpc' in body) return JSON.stringify(tagged(body, status));
  const code = HTTP_CODES[status];
  return code && body && typeof body === 'object' ? JSON.stringify({ ...body, code }) : text;
}

/** Server-sent events: each `data:` line is one JSON-RPC message. */
function rewriteEvents(text: string, status: number): string {
  return text.replace(/^data: (.*)$/gm, (line, json: string) => {
    try {
      return `data: ${JSON.stringify(tagged(JSON.parse(json), status))}`;
    } catch {
      return line;
    }
  });
}

export async function withContractCodes(response: Response): Promise<Response> {
  const type = response.headers.get('content-type') ?? '';
  const json = type.startsWith('application/json');
  if (!json && !type.startsWith('text/event-stream')) return response;
  const text = await response.text();
  const body = json ? rewriteJson(text, response.status) : rewriteEvents(text, response.status);
  const headers = new Headers(response.headers);
  headers.delete('content-length');
  return new Response(body, { status: response.status, statusText: response.statusText, headers });
}
