import { randomUUID } from 'node:crypto';
import type { Context } from 'hono';
import type { PageApp } from './page-app.js';

/**
 * The hotel operations contract's REST interfaces, each the twin of one of its tools: the body
 * is the tool's arguments and the answer its envelope. A call is the tool call itself: the body
 * is streamed inside a JSON-RPC `tools/call` through POST /mcp's own gate (credential first,
 * nothing read before it, the same body limit, scopes, audit and budget), so no path here can do
 * what the tool would not.
 */
export const REST_TWINS: Readonly<Record<string, string>> = {
  '/api/ai-query/v1/case-context': 'th_hotel_query_case_context',
  '/api/ai-query/v1/object-detail': 'th_hotel_query_object_detail',
  '/api/ai-query/v1/message-conversation/tasks': 'th_hotel_list_message_conversation_tasks',
  '/api/ai-query/v1/message-conversation/messages': 'th_hotel_list_message_conversation_messages',
  '/api/integrations/superagent/task-results': 'th_hotel_submit_task_results',
};

const META = {
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientInfo': { name: 'rest-twin', version: '1' },
  'io.modelcontextprotocol/clientCapabilities': {},
};

/** `callMcp` answers a request as POST /mcp does (its gate, the contract's codes). */
export function mountRestTwins(
  app: PageApp,
  callMcp: (request: Request, c: Context) => Promise<Response>,
): void {
  for (const [path, tool] of Object.entries(REST_TWINS))
    app.post(path, async (c) => restAnswer(await callMcp(asToolCall(c.req.raw, tool), c)));
}

/** The REST request as the JSON-RPC call of its tool, its body streamed in as the arguments. */
function asToolCall(request: Request, tool: string): Request {
  const head = `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":${JSON.stringify(tool)},"_meta":${JSON.stringify(META)},"arguments":`;
  const encoder = new TextEncoder();
  const source = request.body;
  const body = new ReadableStream<Uint8Array>({
    async start(controller) {
      controller.enqueue(encoder.encode(head));
      if (source)
        for await (const chunk of source as unknown as AsyncIterable<Uint8Array>) controller.enqueue(chunk);
      else controller.enqueue(encoder.encode('{}'));
      controller.enqueue(encoder.encode('}}'));
      controller.close();
    },
  });
  const headers = new Headers(request.headers);
  headers.delete('content-length');
  headers.set('content-type', 'application/json');
  headers.set('accept', 'application/json, text/event-stream');
  headers.set('mcp-protocol-version', '2026-07-28');
  headers.set('mcp-method', 'tools/call');
  headers.set('mcp-name', tool);
  return new Request(new URL('/mcp', request.url), {
    method: 'POST',
    headers,
    body,
    signal: request.signal,
    duplex: 'half',
  } as RequestInit);
}

/**
 * The tool's envelope as the REST answer (200: the envelope says whether it succeeded); a refusal
 * before any tool ran (no credential 401, too large 413) as /mcp gave it.
 */
async function restAnswer(response: Response): Promise<Response> {
  const text = await response.text();
  const message = parseAnswer(text, response.headers.get('content-type') ?? '');
  const result = message?.result as { structuredContent?: { success?: boolean } } | undefined;
  const envelope = result?.structuredContent;
  if (envelope && typeof envelope.success === 'boolean') return Response.json(envelope);
  const error = message?.error as { message?: string; data?: { code?: string } } | undefined;
  if (error)
    return Response.json(
      {
        success: false,
        request_id: `req-${randomUUID()}`,
        trace_id: '',
        data: null,
        warnings: [],
        error: { code: error.data?.code ?? 'MCP_REQUEST_INVALID', message: error.message ?? '', details: {} },
      },
      { status: 400 },
    );
  const headers = new Headers(response.headers);
  headers.delete('content-length');
  return new Response(text, { status: response.status, headers });
}

function parseAnswer(text: string, type: string): Record<string, unknown> | null {
  const json = type.startsWith('text/event-stream')
    ? (/^data: (.*)$/m.exec(text)?.[1] ?? '')
    : type.startsWith('application/json')
      ? text
      : '';
  try {
    const parsed = JSON.parse(json) as unknown;
    return parsed && typeof parsed === 'object' && 'jsonrpc' in parsed
      ? (parsed as Record<string, unknown>)
      : null;
  } catch {
    return null;
  }
}
