import type { AuthInfo } from '@modelcontextprotocol/server';
import type { Principal } from '../../domain/identity/principal.js';

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

export interface McpGateOptions {
  readonly authenticate: (request: Request) => Promise<AuthInfo | Response>;
  readonly handle: (request: Request, authInfo: AuthInfo) => Promise<Response>;
  readonly maxBodyBytes: number;
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

interface Peeked {
  readonly method: string;
  readonly id: string | number | null;
  readonly tool?: string;
  /** A notification (no id): nothing answers it, nothing records it. */
  readonly notification: boolean;
}

/** The request's method as its body says, read from a copy (the SDK reads the original). */
async function peek(request: Request, maxBodyBytes: number): Promise<Peeked> {
  const declared = Number(request.headers.get('content-length') ?? NaN);
  if (declared > maxBodyBytes) return { method: 'oversize', id: null, notification: false };
  let text: string;
  try {
    text = await request.clone().text();
  } catch {
    return { method: 'unreadable', id: null, notification: false };
  }
  if (text.length > maxBodyBytes) return { method: 'oversize', id: null, notification: false };
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return { method: 'parse-error', id: null, notification: false };
  }
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
 */
export function mcpGate(options: McpGateOptions) {
  const tally = new AnonymousTally();
  return async (request: Request, address: string): Promise<Response> => {
    const started = options.now();
    const peeked = await peek(request, options.maxBodyBytes);
    const auth = await options.authenticate(request);
    if (auth instanceof Response) {
      const counted = tally.take(address, started);
      if (counted)
        await options.record({
          principal: null,
          clientId: `address ${address}`,
          method: peeked.method,
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
    const common = {
      principal,
      clientId: principal?.clientId ?? auth.clientId,
      method: peeked.method,
      preview: { ...(peeked.tool ? { tool: peeked.tool } : {}) },
    };
    if (
      principal &&
      !peeked.notification &&
      !SELF_AUDITED.has(peeked.method) &&
      !UNBUDGETED.has(peeked.method)
    ) {
      const budget = await options.takeBudget(principal);
      if (!budget.ok) {
        await options.record({
          ...common,
          outcome: 'error',
          code: 'RATE_LIMITED',
          reason: 'calls per minute',
          durationMs: options.now() - started,
        });
        return Response.json({
          jsonrpc: '2.0',
          id: peeked.id,
          error: {
            code: -32000,
            message: 'Too many calls on this connection: wait details.retryAfterMs.',
            data: { code: 'RATE_LIMITED', limit: 'calls_per_minute', retryAfterMs: budget.retryAfterMs },
          },
        });
      }
    }
    const response = await options.handle(request, authInfo);
    if (!marks.audited && !peeked.notification) {
      await options.record({ ...common, ...(await endOf(response)), durationMs: options.now() - started });
      // Refused before its handler ran (an unknown tool, a missing scope, a bad shape): it still
      // counts against the connection's budget, so probing costs what calling does.
      if (principal && SELF_AUDITED.has(peeked.method)) await options.takeBudget(principal);
    }
    return response;
  };
}
