import type { AuthInfo } from '@modelcontextprotocol/server';
import type { Principal } from '../../domain/identity/principal.js';
import { isDomainError } from '../../domain/errors.js';
import { jsonRpcIdOf } from '../mcp/request-id.js';
import type { BodyLimits, BodyRead } from './bounded-body.js';
import { readBody } from './bounded-body.js';
import { isJson, unsupportedMediaType } from './request-guards.js';

/**
 * What the handlers behind the gate did with one request: a tool, resource, prompt or completion
 * handler that audits and budgets the call itself says so here (it rides on AuthInfo.extra).
 */
export interface GateMarks {
  audited: boolean;
}
// The MCP adapter's markAudited (tool-kit.ts) sets `audited` on AuthInfo.extra.gate.

/** The gate's own record of a request no handler recorded. */
export interface GateRecord {
  /** Null: no valid credential (counted per address and minute, not one record each). */
  readonly principal: Principal | null;
  readonly clientId: string;
  /** The JSON-RPC method (`tools/list`, `tools/call` …), or what the request was when it was none. */
  readonly method: string;
  readonly preview: Record<string, unknown>;
  readonly outcome: 'ok' | 'error';
  readonly code?: string;
  /** Why it was refused, in words (the scope that was missing, the size limit). */
  readonly reason?: string;
  readonly durationMs: number;
}

/** The request's body as read once: parsed JSON, or (not JSON, or empty) its bytes for the SDK to answer. */
export type ReadBody = { readonly parsed: unknown } | { readonly raw: Uint8Array<ArrayBuffer> };

export interface McpGateOptions {
  /** From the headers alone: nothing of the body is read before the credential is known. */
  readonly authenticate: (request: Request) => Promise<AuthInfo | Response>;
  /** The SDK's handler, given the body already read (never read twice). */
  readonly handle: (request: Request, authInfo: AuthInfo, body: ReadBody) => Promise<Response>;
  readonly body: BodyLimits;
  /** A parsed request that may not go on (the timing contract's missing stamp): its answer. */
  readonly inspect?: (message: unknown, request: Request) => Response | undefined;
  /** Appends one audit record (and its log line and metric sample). */
  readonly record: (entry: GateRecord) => Promise<void>;
  /** One point of the connection's calls-per-minute budget; false when it is spent. */
  readonly takeBudget: (principal: Principal) => Promise<{ ok: true } | { ok: false; retryAfterMs: number }>;
  readonly now: () => number;
}

/** Methods whose handlers audit and budget each call themselves (on every transport). */
const SELF_AUDITED = new Set([
  'tools/call',
  'resources/read',
  'resources/list',
  'completion/complete',
  'prompts/get',
]);
/** The handshake is free: a client that cannot even say hello cannot learn it was limited. */
const UNBUDGETED = new Set(['initialize', 'server/discover', 'ping']);

interface Classified {
  readonly method: string;
  readonly id: string | number | null;
  readonly tool?: string;
  /** A notification (no id): nothing answers it, nothing records it. */
  readonly notification: boolean;
}

/** What a request is, before its body is read: the method a 2026-07-28 client names in a header. */
function headerMethod(request: Request): string {
  const named = request.headers.get('mcp-method') ?? '';
  return /^[\w/.-]{1,64}$/.test(named) ? named : '(unread)';
}

/** The method, id and tool of a parsed body (one JSON-RPC message; anything else as what it is). */
function classify(body: unknown): Classified {
  if (typeof body !== 'object' || body === null || Array.isArray(body))
    return { method: Array.isArray(body) ? 'batch' : 'invalid', id: null, notification: false };
  const message = body as { method?: unknown; id?: unknown; params?: { name?: unknown } };
  if (typeof message.method !== 'string') return { method: 'invalid', id: null, notification: false };
  const id = typeof message.id === 'string' || typeof message.id === 'number' ? message.id : null;
  const tool = typeof message.params?.name === 'string' ? message.params.name.slice(0, 64) : undefined;
  return {
    method: message.method.slice(0, 64),
    id,
    ...(message.method === 'tools/call' && tool !== undefined ? { tool } : {}),
    notification: !('id' in message),
  };
}

/** The body read once, parsed once; what it is, for the record and the budget. */
function parsed(bytes: Uint8Array<ArrayBuffer>): { body: ReadBody; classified: Classified } {
  const text = new TextDecoder().decode(bytes);
  try {
    if (text.length > 0) {
      const value: unknown = JSON.parse(text);
      return { body: { parsed: value }, classified: classify(value) };
    }
  } catch {
    // Not JSON: the SDK answers it (a parse error, or the legacy leg's own answer).
  }
  return {
    body: { raw: bytes },
    classified: { method: text.length > 0 ? 'parse-error' : 'invalid', id: null, notification: false },
  };
}

/** A JSON-RPC error answer (with extra headers: Retry-After). */
function rpcError(
  status: number,
  id: string | number | null,
  code: number,
  message: string,
  data?: Record<string, unknown>,
  headers: Record<string, string> = {},
): Response {
  return Response.json(
    { jsonrpc: '2.0', id, error: { code, message, ...(data ? { data } : {}) } },
    { status, headers },
  );
}

/** The answer to a body that could not be read whole, and how it is recorded. */
function refusedBody(
  read: Exclude<BodyRead, { kind: 'read' }>,
  limits: BodyLimits,
): { response: Response; method: string; reason: string } {
  if (read.kind === 'too_large') {
    const head = new TextDecoder().decode(read.head);
    return {
      response: rpcError(
        413,
        jsonRpcIdOf(head),
        -32000,
        `Payload Too Large: Request body must not exceed ${limits.maxBytes} bytes`,
      ),
      method: 'oversize',
      reason: 'body over the limit',
    };
  }
  if (read.kind === 'too_slow')
    return {
      response: rpcError(
        408,
        null,
        -32000,
        `Request Timeout: the body did not arrive within ${Math.round(limits.deadlineMs / 1000)} s`,
      ),
      method: 'too-slow',
      reason: 'body too slow',
    };
  return {
    response: rpcError(400, null, -32700, 'Parse error: the request body could not be read'),
    method: 'unreadable',
    reason: 'body unreadable',
  };
}

/** How an answer the handlers left unrecorded ended: the HTTP status, else the JSON-RPC error. */
async function endOf(response: Response): Promise<Pick<GateRecord, 'outcome' | 'code' | 'reason'>> {
  if (response.status === 403) {
    const challenge = response.headers.get('www-authenticate') ?? '';
    const scope = /scope="([^"]*)"/.exec(challenge)?.[1];
    return {
      outcome: 'error',
      code: 'FORBIDDEN',
      reason: scope ? `insufficient_scope: needs ${scope}` : 'forbidden',
    };
  }
  if (response.status === 413)
    return { outcome: 'error', code: 'INVALID_ARGUMENTS', reason: 'body over the limit' };
  if (response.status === 404) return { outcome: 'error', code: 'NOT_FOUND', reason: 'no such method' };
  if (response.status >= 400)
    return {
      outcome: 'error',
      code: response.status >= 500 ? 'INTERNAL' : 'INVALID_ARGUMENTS',
      reason: `HTTP ${response.status}`,
    };
  if (!(response.headers.get('content-type') ?? '').includes('application/json')) return { outcome: 'ok' };
  try {
    const answer = (await response.clone().json()) as { error?: { code?: number; message?: string } };
    if (!answer?.error) return { outcome: 'ok' };
    const code = answer.error.code === -32601 ? 'NOT_FOUND' : 'INVALID_ARGUMENTS';
    return { outcome: 'error', code, reason: String(answer.error.message ?? '').slice(0, 200) };
  } catch {
    return { outcome: 'ok' };
  }
}

/**
 * Counts refused credentials per address and minute: the first of a minute is recorded at once,
 * the rest of that minute as one count with the next record, so a flood cannot bloat the chain.
 */
class AnonymousTally {
  private readonly minutes = new Map<string, { minute: number; more: number }>();

  constructor(private readonly limit = 10_000) {}

  /** The count to record now (the first of a new minute, with the previous minute's rest), or null. */
  take(address: string, now: number): { previousMinute: number } | null {
    const minute = Math.floor(now / 60_000);
    const seen = this.minutes.get(address);
    if (seen && seen.minute === minute) {
      seen.more++;
      return null;
    }
    if (this.minutes.size >= this.limit) this.minutes.clear();
    this.minutes.set(address, { minute, more: 0 });
    return { previousMinute: seen?.more ?? 0 };
  }
}

/**
 * The one gate in front of every request to /mcp: whatever it asks and however it ends, it
 * leaves exactly one audit record (the handlers' own, or the gate's), and every method the
 * handlers do not budget themselves takes a point of the connection's calls-per-minute budget.
 * In order: the credential from the headers (a refusal reads nothing more), the media type, then
 * the body — read once, bounded in bytes and time — parsed once and handed on.
 */
export function mcpGate(options: McpGateOptions) {
  const tally = new AnonymousTally();
  return async (request: Request, address: string): Promise<Response> => {
    const started = options.now();
    const auth = await options.authenticate(request);
    if (auth instanceof Response) {
      // 503: the credential could not be checked (the database is away); nothing to record it in.
      const counted = auth.status === 503 ? null : tally.take(address, started);
      if (counted)
        await options.record({
          principal: null,
          clientId: `address ${address}`,
          method: headerMethod(request),
          preview: { status: auth.status, previousMinute: counted.previousMinute },
          outcome: 'error',
          code: 'UNAUTHENTICATED',
          reason: auth.status === 401 ? 'no valid bearer token' : `HTTP ${auth.status}`,
          durationMs: options.now() - started,
        });
      return auth;
    }
    const principal = (auth.extra?.principal as Principal | undefined) ?? null;
    const marks: GateMarks = { audited: false };
    const authInfo: AuthInfo = { ...auth, extra: { ...auth.extra, gate: marks } };
    const base = { principal, clientId: principal?.clientId ?? auth.clientId };
    const finished = async (
      response: Response,
      what: { method: string; preview?: Record<string, unknown> },
      end?: Pick<GateRecord, 'outcome' | 'code' | 'reason'>,
    ) => {
      await options.record({
        ...base,
        method: what.method,
        preview: what.preview ?? {},
        ...(end ?? (await endOf(response))),
        durationMs: options.now() - started,
      });
      return response;
    };
    // Only JSON is spoken: anything else is 415 before a byte of it is read.
    if (!isJson(request)) return finished(unsupportedMediaType(), { method: headerMethod(request) });
    const read = await readBody(request, options.body);
    if (read.kind !== 'read') {
      const refused = refusedBody(read, options.body);
      return finished(
        refused.response,
        { method: refused.method },
        {
          outcome: 'error',
          code: 'INVALID_ARGUMENTS',
          reason: refused.reason,
        },
      );
    }
    const { body, classified } = parsed(read.bytes);
    const what = { method: classified.method, preview: classified.tool ? { tool: classified.tool } : {} };
    // What is not JSON has no messages: the timing contract still asks for its header.
    const refusal = options.inspect?.('parsed' in body ? body.parsed : null, request);
    if (refusal) return finished(refusal, what);
    if (
      principal &&
      !classified.notification &&
      !SELF_AUDITED.has(classified.method) &&
      !UNBUDGETED.has(classified.method)
    ) {
      let budget: Awaited<ReturnType<McpGateOptions['takeBudget']>>;
      try {
        budget = await options.takeBudget(principal);
      } catch (error) {
        if (!isDomainError(error, 'UNAVAILABLE')) throw error;
        const retryAfterMs = error.details.retryAfterMs;
        return finished(
          rpcError(
            503,
            classified.id,
            -32000,
            `UNAVAILABLE: ${error.message}`,
            {
              code: 'UNAVAILABLE',
              retryable: true,
              retryAfterMs,
            },
            { 'Retry-After': String(Math.ceil(retryAfterMs / 1000)) },
          ),
          what,
          { outcome: 'error', code: 'UNAVAILABLE', reason: 'the database cannot be reached' },
        );
      }
      if (!budget.ok)
        return finished(
          rpcError(
            200,
            classified.id,
            -32000,
            'Too many calls on this connection: wait details.retryAfterMs.',
            {
              code: 'RATE_LIMITED',
              limit: 'calls_per_minute',
              retryAfterMs: budget.retryAfterMs,
            },
          ),
          what,
          { outcome: 'error', code: 'RATE_LIMITED', reason: 'calls per minute' },
        );
    }
    const response = await options.handle(request, authInfo, body);
    if (!marks.audited && !classified.notification) {
      await finished(response, what);
      // Refused before its handler ran (an unknown tool, a missing scope, a bad shape): it still
      // counts against the connection's budget, so probing costs what calling does.
      if (principal && SELF_AUDITED.has(classified.method))
        await options.takeBudget(principal).catch(() => undefined);
    }
    return response;
  };
}
