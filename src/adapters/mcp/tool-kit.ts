import { randomBytesPooled } from '../ids/random-ids.js';
import type {
  CallToolResult,
  InputRequiredResult,
  McpServer,
  RequestStateCodec,
  ServerContext,
  ToolAnnotations,
} from '@modelcontextprotocol/server';
import type { ScopeChallengeHandler } from '@modelcontextprotocol/server';
import { CLIENT_INFO_META_KEY, TRACEPARENT_META_KEY } from '@modelcontextprotocol/server';
import { z } from 'zod';
import type { AppDeps } from '../../app/deps.js';
import type { Scope } from '../../domain/calendar.js';
import type { Principal } from '../../domain/identity/principal.js';
import type { ContractProfile } from '../../domain/identity/identity.js';
import { formatInstant } from '../../domain/time/instant.js';
import type { AuditEntry, AuditLog, EffectAudit } from '../../ports/audit.js';
import { DomainError } from '../../domain/errors.js';
import { isLimited, SCOPES } from '../../domain/identity/identity.js';
import { previewOf, rejectedPreview } from '../audit/preview.js';
import type { Logger } from '../log/json-logger.js';
import type { EntryBase } from '../audit/call-audit.js';
import { CallAudit } from '../audit/call-audit.js';
import { parseArguments, publishOnly } from './edge-schema.js';
import { inspectInput, printable } from './input-guard.js';
import { envelopeOf } from './schemas.js';
import type { Links } from './links.js';
import type { ToolError } from './tool-error.js';
import { toToolError } from './tool-error.js';
import type { Span } from '@opentelemetry/api';
import { trace } from '@opentelemetry/api';
import { activeIds, inSpan } from '../telemetry/tracing.js';
import { contextFromMeta } from './trace-meta.js';
import type { CallMetrics } from '../telemetry/call-metrics.js';
import { answerText } from './answer-text.js';

/** What the MRTR approval round-trip carries, sealed by the codec and bound to the principal. */
export interface ApprovalState {
  readonly approvalId: string;
  readonly intentHash: string;
}

export interface ToolContext {
  readonly deps: AppDeps;
  /**
   * Who a request acts for: from its verified bearer token over HTTP (the SDK hands the
   * authentication gate's result to the handler), fixed for the one stdio connection. Null: nobody.
   */
  principalOf(request: ServerContext): Principal | null;
  readonly logger: Logger;
  readonly transport: 'stdio' | 'http';
  readonly audit: AuditLog;
  /** Keyed digests for the audit: of values a preview must not show, and of whole arguments. */
  readonly digests: {
    preview(value: unknown): string;
    /** `validated`: the input passed the edge rule (else it may hold what RFC 8785 refuses). */
    arguments(value: unknown, validated: boolean): string;
  };
  readonly stateCodec: RequestStateCodec<ApprovalState>;
  /** How a person reaches approvals and payments this transport tells agents about. */
  readonly links: Links;
  /** The tool contracts offered beside Holdfast's own. */
  readonly profile: ProfileSettings;
  /** Calls, outcomes and latencies for /metrics (a no-op where nothing is served). */
  readonly metrics: CallMetrics;
}

export type ToolSurface = 'flat' | 'catalog';

export interface ProfileSettings {
  /**
   * The contract served unless a tenant chose another: Holdfast's own tools (`standard`), those
   * beside the reservation-operations contract's five (`hotel-ops`), or one of the source systems
   * as itself (`expert-booking`, `bookings`, `deltat`, `agent-access`; profiles/).
   */
  readonly profile: ContractProfile;
  /** Contract tools off on this server: calls answer MCP_TOOL_DISABLED. */
  readonly disabledTools: readonly string[];
  /** How agents see Holdfast's tools unless their tenant chose: all listed, or the catalog. */
  readonly toolMode: ToolSurface;
  /** The largest request this server takes (the contract's tools take text up to it). */
  readonly maxBodyBytes: number;
  /** deltat: a refused time comes with the times free instead (DELTAT_COUNTER_OFFER=0: never). */
  readonly counterOffers: boolean;
}

export interface ToolCall {
  readonly traceId: string;
  readonly request: ServerContext;
  /** Write tools hand this to their use case, which records the call with its effect. */
  readonly audit: EffectAudit;
  /** The keyed digest of the call's arguments, already computed for the audit. */
  readonly argumentsDigest: string;
}

export interface ToolRun<D> {
  readonly data: D;
  readonly replayed?: boolean;
  /** What the envelope's meta says beside the call's own times and ids (find_slots: `cache`). */
  readonly meta?: Readonly<Record<string, unknown>>;
}

/** A tool may answer with a multi-round-trip request instead of a result (2026-07-28 clients). */
export interface ToolInputRequired {
  readonly inputRequired: InputRequiredResult;
}

/** What a tool runs with: the context, and the principal of this very call. */
export interface RunContext extends ToolContext {
  readonly principal: Principal;
}

export interface ToolDefinition<I, D> {
  readonly name: string;
  /** The scope a connection needs to call it (over HTTP a call without it gets 403 insufficient_scope). */
  readonly scope: Scope;
  readonly title: string;
  readonly description: string;
  readonly kind: AuditEntry['kind'];
  readonly input: z.ZodType<I>;
  readonly data: z.ZodType;
  readonly annotations: ToolAnnotations;
  /**
   * The answer depends on the arguments alone (the tool catalog): the per-call meta goes to the
   * result's `_meta`, so the same request gets byte-identical content a host may cache.
   */
  readonly stable?: boolean;
  /** The text content of a successful answer, where the generic compact text does not fit. */
  text?(data: D): string;
  /** How a contract profile answers (its own shapes and codes); absent: Holdfast's envelope. */
  readonly shape?: AnswerShape;
  run(ctx: RunContext, input: I, call: ToolCall): Promise<ToolRun<D> | ToolInputRequired>;
}

/** The ids and times every answer carries in its meta. */
export type CallMeta = Readonly<Record<string, unknown>>;

/**
 * What a tool's answers look like on the wire: Holdfast's envelope, or a contract profile's own
 * (deltat's bare answers and `CODE: message` refusals, bookings-mcp's text payloads, …). The use
 * case, audit, budget and edge are the same whatever the shape.
 */
export interface AnswerShape {
  /** The output schema to publish around a tool's data; absent: none is published. */
  output?(data: z.ZodType): z.ZodType;
  ok(answer: { tool: string; data: unknown; meta: CallMeta; text?: string }): CallToolResult;
  error(answer: { tool: string; error: ToolError; meta: CallMeta }): CallToolResult;
}

/** Holdfast's own: `{ ok, data, meta }` and `{ ok: false, error, meta }`, with a compact text. */
export const ENVELOPE: AnswerShape = {
  output: (data) => envelopeOf(data),
  ok: ({ tool, data, meta, text }) => {
    const envelope = { ok: true, data, meta };
    return {
      content: [{ type: 'text' as const, text: text ?? answerText(tool, envelope) }],
      structuredContent: envelope,
    };
  },
  error: ({ tool, error, meta }) => {
    const envelope = { ok: false, error, meta };
    return {
      isError: true,
      content: [{ type: 'text' as const, text: answerText(tool, envelope) }],
      structuredContent: envelope,
    };
  },
};

export function defineTool<I, D>(definition: ToolDefinition<I, D>): ToolDefinition<I, D> {
  return definition;
}

const TRACEPARENT = /^[\da-f]{2}-([\da-f]{32})-[\da-f]{16}-[\da-f]{2}$/;

/**
 * Reuses the caller's W3C trace id when it sent one, so logs join up across systems: the
 * message's own `_meta.traceparent` (2026-07-28 clients) first, then the HTTP request's span.
 */
export function traceIdOf(request: ServerContext): string {
  const traceparent = request.mcpReq._meta?.[TRACEPARENT_META_KEY];
  const match = typeof traceparent === 'string' ? TRACEPARENT.exec(traceparent) : null;
  if (match) return match[1]!;
  return activeIds()?.traceId ?? randomBytesPooled(16).toString('hex');
}

interface CompiledSchemas {
  readonly input: ReturnType<typeof publishOnly>;
  readonly output: ReturnType<typeof publishOnly> | undefined;
  /** Every field name the input schema knows: a refused call's field path keeps only these. */
  readonly fieldNames: ReadonlySet<string>;
  outputJson?: Record<string, unknown>;
}

/** Property names anywhere in a JSON Schema (iteratively: schemas are small but nested). */
function propertyNames(schema: unknown): Set<string> {
  const names = new Set<string>();
  const stack: unknown[] = [schema];
  while (stack.length > 0) {
    const node = stack.pop();
    if (!node || typeof node !== 'object') continue;
    const properties = (node as { properties?: Record<string, unknown> }).properties;
    if (properties) for (const name of Object.keys(properties)) names.add(name);
    stack.push(...Object.values(node));
  }
  return names;
}

/** The published output schema: the stable catalog's envelope, the shape's, or none. */
function outputOf(tool: ToolDefinition<unknown, unknown>): ReturnType<typeof publishOnly> | undefined {
  if (tool.stable) return publishOnly(envelopeOf(tool.data, { stable: true }));
  const shape = tool.shape ?? ENVELOPE;
  return shape.output ? publishOnly(shape.output(tool.data)) : undefined;
}

// HTTP builds a server per request: build each tool's schemas (and their JSON Schema) once per process.
const compiled = new WeakMap<object, CompiledSchemas>();

function schemasOf(tool: ToolDefinition<unknown, unknown>): CompiledSchemas {
  let schemas = compiled.get(tool);
  // Outputs are built by typed code and checked by the client SDK in the end-to-end tests;
  // re-validating every answer against its own schema on the hot path buys nothing.
  if (!schemas)
    compiled.set(
      tool,
      (schemas = {
        input: publishOnly(tool.input),
        output: outputOf(tool),
        fieldNames: propertyNames(z.toJSONSchema(tool.input, { io: 'input', unrepresentable: 'any' })),
      }),
    );
  return schemas;
}

/**
 * "Claude Desktop 0.9.2" — what the client declared: per request in 2026-07-28, at initialize
 * before. Self-declared, so only ever shown as such, escaped and bounded.
 */
export function declaredClient(request: ServerContext, server: McpServer, identity: ClientIdentity): string {
  const envelope = request.mcpReq.envelope as Record<string, unknown> | undefined;
  const declared = (envelope?.[CLIENT_INFO_META_KEY] ??
    (identity === 'connection' ? server.server.getClientVersion() : undefined)) as
    { name?: unknown; version?: unknown } | undefined;
  const name = typeof declared?.name === 'string' ? declared.name : 'undeclared client';
  const version = typeof declared?.version === 'string' ? ` ${declared.version}` : '';
  return printable(`${name}${version}`, 80);
}

interface Admission<I> {
  readonly input?: I;
  readonly rejection?: unknown;
  readonly argumentsDigest: string;
  readonly preview: string;
}

/**
 * The edge: the hostile-input rule, then the schema. Digest and preview come from input that
 * passed the rule (so they cannot throw); refused input is digested by a bounded walk and
 * previewed only by the field that was wrong.
 */
function admit<I>(
  ctx: ToolContext,
  schema: z.ZodType<I>,
  known: ReadonlySet<string>,
  raw: unknown,
): Admission<I> {
  const problem = inspectInput(raw);
  if (problem) {
    return {
      rejection: new DomainError('INVALID_ARGUMENTS', `${problem.field}: ${problem.message}`, {
        field: problem.field,
      }),
      argumentsDigest: ctx.digests.arguments(raw, false),
      preview: rejectedPreview(problem.field, known),
    };
  }
  const argumentsDigest = ctx.digests.arguments(raw, true);
  try {
    const input = parseArguments(schema, raw);
    return { input, argumentsDigest, preview: previewOf(input, (v) => ctx.digests.preview(v)) };
  } catch (rejection) {
    const field = rejection instanceof DomainError ? String(rejection.details.field) : '(arguments)';
    return { rejection, argumentsDigest, preview: rejectedPreview(field, known) };
  }
}

/**
 * Where a call's client is declared: `request` — in each request's envelope only (2026-07-28
 * over HTTP, where one server instance serves many clients in turn); `connection` — at
 * initialize, for the whole connection (stdio, 2025-era HTTP).
 */
export type ClientIdentity = 'request' | 'connection';

/**
 * A call over HTTP whose token lacks the tool's scope gets 403 insufficient_scope naming every
 * scope it needs: those it has and this one, so re-authorizing for them loses nothing.
 */
export function stepUpTo(scope: Scope): ScopeChallengeHandler {
  return ({ authInfo }) => {
    if (!authInfo || authInfo.scopes.includes(scope)) return undefined;
    const needed = SCOPES.filter((s) => s === scope || authInfo.scopes.includes(s));
    return {
      scopes: needed as [Scope, ...Scope[]],
      errorDescription: `${scope} is needed for this tool`,
    };
  };
}

export function registerTool<I, D>(
  server: McpServer,
  ctx: ToolContext,
  tool: ToolDefinition<I, D>,
  identity: ClientIdentity = 'connection',
): void {
  const schemas = schemasOf(tool as ToolDefinition<unknown, unknown>);
  const registered = server.registerTool(
    tool.name,
    {
      title: tool.title,
      description: tool.description,
      inputSchema: schemas.input,
      ...(schemas.output ? { outputSchema: schemas.output } : {}),
      annotations: { title: tool.title, openWorldHint: false, ...tool.annotations },
      scopeChallenge: stepUpTo(tool.scope),
    },
    toolHandler(server, ctx, tool, identity),
  );
  // The SDK converts the output schema lazily per registration; hand it the conversion done once.
  if (!schemas.output) return;
  if (schemas.outputJson === undefined) schemas.outputJson = registered.outputSchemaJson;
  else registered.outputSchemaJson = schemas.outputJson;
}

export type ToolHandler = (
  args: unknown,
  request: ServerContext,
) => Promise<CallToolResult | InputRequiredResult>;

/**
 * A call of `tool` from edge to answer: the hostile-input rule and strict schema, the call
 * budget, the use case, the audit record and the envelope. The catalog's call tool hands the
 * logical tool's arguments to the same handler, so both surfaces behave alike.
 */
export function toolHandler<I, D>(
  server: McpServer,
  ctx: ToolContext,
  tool: ToolDefinition<I, D>,
  identity: ClientIdentity,
): ToolHandler {
  const schemas = schemasOf(tool as ToolDefinition<unknown, unknown>);
  // One span per call: a child of the caller's traceparent (2026-07-28 `_meta`) or of the HTTP
  // request's span; the answer names its trace and span, the log lines carry them too.
  return (args: unknown, request: ServerContext) =>
    inSpan(
      `tool ${tool.name}`,
      {
        parent: contextFromMeta(request.mcpReq._meta),
        attributes: { 'mcp.tool.name': tool.name, 'mcp.transport': ctx.transport },
      },
      (span) => handle(args, request, span),
    );

  async function handle(args: unknown, request: ServerContext, span: Span) {
    const started = performance.now();
    const ids = span.spanContext();
    const traced = trace.isSpanContextValid(ids);
    const receivedAt = formatInstant(ctx.deps.clock.now());
    const clientSentAt = clientSentAtOf(request);
    const meta = {
      traceId: traced ? ids.traceId : traceIdOf(request),
      ...(traced ? { spanId: ids.spanId } : {}),
      operationId: ctx.deps.ids.newUuid(),
      serverTime: receivedAt,
      // When known, every answer orders clientSentAt <= serverReceivedAt <= serverResultCreatedAt.
      ...(clientSentAt ? { clientSentAt } : {}),
      serverReceivedAt: receivedAt,
    };
    const admission = admit(ctx, tool.input, schemas.fieldNames, args ?? {});
    // The audit names the connection (credential and its name) and the client as it declared
    // itself (untrusted, printable). Nobody: only possible if a transport skipped authentication.
    const caller = ctx.principalOf(request);
    const client = declaredClient(request, server, identity);
    const principal: Principal = caller
      ? { ...caller, clientId: `${caller.clientId} · ${client}` }
      : ANONYMOUS;
    // Every line of the call names who called (person and connection) and from where (transport
    // and the client as it declared itself: untrusted, printable).
    const log = {
      action: tool.name,
      operation_id: meta.operationId,
      transport: ctx.transport,
      caller: { person: principal.subject, connection: principal.connectionId, tenant: principal.tenantId },
      source: { transport: ctx.transport, client },
    };
    const base: EntryBase = {
      tenantId: principal.tenantId,
      subject: principal.subject,
      clientId: principal.clientId,
      transport: ctx.transport,
      tool: tool.name,
      kind: tool.kind,
      argumentsDigest: admission.argumentsDigest,
      preview: admission.preview,
      traceId: meta.traceId,
      operationId: meta.operationId,
    };
    const audit = new CallAudit(base, ctx.audit, () => ctx.deps.clock.now(), started);
    markAudited(request);
    const finish = async (outcome: string, end?: Parameters<CallAudit['finish']>[0]) => {
      const appending = performance.now();
      await audit
        .finish(end)
        .catch((error: unknown) => ctx.logger.error('audit append failed', { ...log, error: String(error) }));
      const now = performance.now();
      ctx.metrics.auditAppended((now - appending) / 1000);
      ctx.metrics.callFinished(tool.name, outcome, (now - started) / 1000);
    };
    // When the answer was made, for the wire timing contract (between arrival and departure).
    const created = () => ({ serverResultCreatedAt: formatInstant(ctx.deps.clock.now()) });
    try {
      if (!caller) throw new DomainError('FORBIDDEN', 'No credential: this call acts for nobody.', {});
      if (admission.rejection !== undefined) throw admission.rejection;
      await withinCallBudget(ctx, principal);
      const result = await tool.run({ ...ctx, principal }, admission.input as I, {
        traceId: meta.traceId,
        request,
        audit,
        argumentsDigest: admission.argumentsDigest,
      });
      if ('inputRequired' in result) {
        await finish('input_required', { outcome: 'input_required', code: 'APPROVAL_REQUIRED', message: '' });
        return result.inputRequired;
      }
      await finish('ok');
      const callMeta = {
        ...meta,
        ...result.meta,
        ...(result.replayed ? { idempotentReplay: true } : {}),
        ...created(),
      };
      ctx.logger.info('tool call', {
        ...log,
        outcome: 'ok',
        replayed: !!result.replayed,
        durationMs: elapsed(started),
      });
      if (tool.stable) {
        const answer = { ok: true, data: result.data };
        return {
          content: [{ type: 'text' as const, text: tool.text!(result.data) }],
          structuredContent: answer,
          _meta: { ...callMeta, ...STABLE_CACHE_HINT },
        };
      }
      const text = tool.text?.(result.data);
      return (tool.shape ?? ENVELOPE).ok({
        tool: tool.name,
        data: result.data,
        meta: callMeta,
        ...(text !== undefined ? { text } : {}),
      });
    } catch (thrown) {
      const error = toToolError(thrown, ctx.links);
      if (error.code === 'INTERNAL') {
        ctx.logger.error('tool failed', {
          ...log,
          error: thrown instanceof Error ? thrown.stack : String(thrown),
        });
      }
      await finish(error.code, { outcome: 'error', code: error.code, message: error.message });
      ctx.logger.info('tool call', {
        ...log,
        outcome: 'error',
        code: error.code,
        durationMs: elapsed(started),
      });
      return (tool.shape ?? ENVELOPE).error({ tool: tool.name, error, meta: { ...meta, ...created() } });
    }
  }
}

/** Catalog answers change only when the server is upgraded: a day, for every caller alike. */
const STABLE_CACHE_HINT = { ttlMs: 86_400_000, cacheScope: 'public' } as const;

export const ANONYMOUS: Principal = {
  tenantId: '-',
  subject: 'anonymous',
  clientId: 'anonymous',
  connectionId: 'anonymous',
  scopes: [],
  writePolicy: 'readonly',
  limits: {
    callsPerMinute: 0,
    activeHoldsPerPerson: 0,
    activeHoldsPerConnection: 0,
    openApprovalsPerPerson: 0,
    heldCalendarHoursPerPerson: 0,
  },
};

/** Calls per connection per minute, counted across every instance sharing the database. */
export async function withinCallBudget(ctx: ToolContext, principal: Principal): Promise<void> {
  const max = principal.limits.callsPerMinute;
  if (!isLimited(max)) return;
  const taken = await ctx.deps.rateLimits.take(`calls:${principal.connectionId}`, max, 60_000);
  if (!taken.ok)
    throw new DomainError('RATE_LIMITED', `At most ${max} calls per minute on this connection.`, {
      limit: 'calls_per_minute',
      max,
      retryAfterMs: taken.retryAfterMs,
    });
}

/**
 * Tells the HTTP gate in front of /mcp that this request's audit record is the handler's own
 * (AuthInfo.extra.gate, see adapters/http/mcp-gate.ts), so the gate writes none. Over stdio
 * there is no gate and nothing to tell.
 */
export function markAudited(request: ServerContext): void {
  const marks = request.http?.authInfo?.extra?.gate as { audited: boolean } | undefined;
  if (marks) marks.audited = true;
}

export function elapsed(started: number): number {
  return Math.round((performance.now() - started) * 10) / 10;
}

const RFC3339 = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d{1,9})?(Z|[+-]\d\d:\d\d)$/;

/** The client's own clock, when it said (`_meta.clientSentAt`, RFC 3339); never guessed. */
function clientSentAtOf(request: ServerContext): string | undefined {
  const sent = (request.mcpReq._meta as Record<string, unknown> | undefined)?.clientSentAt;
  return typeof sent === 'string' && RFC3339.test(sent) && !Number.isNaN(Date.parse(sent)) ? sent : undefined;
}
