import type {
  McpServer,
  ServerContext,
  StandardSchemaWithJSON,
  ToolAnnotations,
} from '@modelcontextprotocol/server';
import type { z } from 'zod';
import type { Scope } from '../../../domain/calendar.js';
import type { Principal } from '../../../domain/identity/principal.js';
import { formatInstant } from '../../../domain/time/instant.js';
import type { AuditEntry } from '../../../ports/audit.js';
import { CallAudit } from '../../audit/call-audit.js';
import { rejectedPreview, previewOf } from '../../audit/preview.js';
import type { InputLimits } from '../input-guard.js';
import { inspectInput } from '../input-guard.js';
import type { ClientIdentity, RunContext, ToolContext } from '../tool-kit.js';
import { ANONYMOUS, declaredClient, elapsed, markAudited, traceIdOf, withinCallBudget } from '../tool-kit.js';
import { ContractError, toContractError } from './contract-errors.js';
import { envelopeSchema } from './contract-schemas.js';
import { portableJsonSchema } from '../portable-schema.js';

/** What a contract tool answers: its data and the warnings the contract carries beside it. */
export interface ContractRun {
  readonly data: Record<string, unknown>;
  readonly warnings?: readonly unknown[];
}

export interface ContractCall {
  readonly traceId: string;
  readonly audit: CallAudit;
}

export interface ContractTool<I> {
  readonly name: string;
  readonly title: string;
  readonly description: string;
  readonly scope: Scope;
  readonly kind: AuditEntry['kind'];
  /** Published in tools/list: the contract's own JSON Schema, in its portable form (portable-schema.ts). */
  readonly inputJson: Record<string, unknown>;
  /** Listed with the tool in `_meta` (what the schema's root cannot say portably). */
  readonly meta?: Record<string, unknown>;
  /** The strict check of a call (throws ContractError); the submit tool's is its payload adapter. */
  parse(args: unknown): I;
  readonly annotations: ToolAnnotations;
  run(ctx: RunContext, input: I, call: ContractCall): Promise<ContractRun>;
  /** One short Chinese line on what the answer holds, for the text content beside the envelope. */
  summaryZh(data: Record<string, unknown>): string;
}

/**
 * The contract's tools take mail: a thread quoted as evidence is far past the 256 Ki characters
 * Holdfast's own tools allow. Their text may fill the request body limit (10 MB by default with
 * this profile, HOLDFAST_MAX_BODY_MB), and their shapes are the contract's, a little deeper and wider.
 */
export function contractInputLimits(maxBodyBytes: number): InputLimits {
  return {
    maxDepth: 12,
    maxKeys: 256,
    maxArrayItems: 10_000,
    maxValues: 1_000_000,
    maxStringLength: maxBodyBytes,
    maxTotalText: maxBodyBytes,
  };
}

/** The contract's schema as it stands, and every call let through to the handler's own check. */
function published(input: Record<string, unknown>, output: Record<string, unknown>): StandardSchemaWithJSON {
  return {
    '~standard': {
      version: 1,
      vendor: 'holdfast',
      validate: (value: unknown) => ({ value }),
      jsonSchema: { input: () => ({ ...input }), output: () => ({ ...output }) },
    },
  } as StandardSchemaWithJSON;
}

/** A zod parser whose failures are the contract's MCP_REQUEST_INVALID naming the field. */
export function strictParser<I>(schema: z.ZodType<I>): (args: unknown) => I {
  return (args) => {
    const result = schema.safeParse(args ?? {});
    if (result.success) return result.data;
    const issue = result.error.issues[0]!;
    const keys = issue.code === 'unrecognized_keys' ? issue.keys.slice(0, 3) : [];
    const field = [...issue.path.map(String), ...keys].join('.') || '(arguments)';
    throw new ContractError(
      'MCP_REQUEST_INVALID',
      keys.length > 0 ? `${field}: unknown field` : `${field}: ${issue.message}`,
      {
        field,
      },
    );
  };
}

// HTTP builds a server per request: rewrite each contract schema into its portable form once.
const portableForms = new WeakMap<Record<string, unknown>, Record<string, unknown>>();
function portable(schema: Record<string, unknown>): Record<string, unknown> {
  let form = portableForms.get(schema);
  if (!form) portableForms.set(schema, (form = portableJsonSchema(schema)));
  return form;
}

/** A contract tool: its own envelope, the same audit, quotas and scopes as Holdfast's tools. */
export function registerContractTool<I>(
  server: McpServer,
  ctx: ToolContext,
  tool: ContractTool<I>,
  identity: ClientIdentity,
): void {
  const schema = published(portable(tool.inputJson), portable(envelopeSchema));
  server.registerTool(
    tool.name,
    {
      title: tool.title,
      description: tool.description,
      inputSchema: schema,
      outputSchema: schema,
      annotations: { title: tool.title, openWorldHint: false, ...tool.annotations },
      ...(tool.meta ? { _meta: tool.meta } : {}),
      // No HTTP 403 step-up: a missing scope is answered in the contract's envelope (below).
    },
    async (args: unknown, request: ServerContext) => {
      const started = performance.now();
      const traceId = traceIdOf(request);
      // The envelope's trace_id is the caller's own when it sent one; Holdfast's spans keep the W3C id.
      const answeredTrace = callerTraceId(request) ?? traceId;
      const requestId = ctx.deps.ids.newUuid();
      const caller = ctx.principalOf(request);
      const principal: Principal = caller
        ? { ...caller, clientId: `${caller.clientId} · ${declaredClient(request, server, identity)}` }
        : ANONYMOUS;
      const problem = inspectInput(args ?? {}, contractInputLimits(ctx.profile.maxBodyBytes));
      const audit = new CallAudit(
        {
          tenantId: principal.tenantId,
          subject: principal.subject,
          clientId: principal.clientId,
          transport: ctx.transport,
          tool: tool.name,
          kind: tool.kind,
          argumentsDigest: ctx.digests.arguments(args ?? {}, !problem),
          preview: problem
            ? rejectedPreview(problem.field, new Set())
            : previewOf(args ?? {}, (v) => ctx.digests.preview(v)),
          traceId,
          operationId: requestId,
        },
        ctx.audit,
        () => ctx.deps.clock.now(),
        started,
      );
      markAudited(request);
      // The envelope as JSON text first (clients parse it), then the contract's short Chinese summary.
      const answer = (body: Record<string, unknown>, isError: boolean, summary: string) => ({
        ...(isError ? { isError: true } : {}),
        content: [
          { type: 'text' as const, text: JSON.stringify(body) },
          { type: 'text' as const, text: summary },
        ],
        structuredContent: body,
      });
      try {
        if (!caller) throw new ContractError('MCP_AUTH_INVALID', 'No valid credential for this call.', {});
        await refuseDisabled(ctx, principal, tool.name);
        if (!principal.scopes.includes(tool.scope))
          throw new ContractError(
            'MCP_AUTH_INVALID',
            `This credential lacks the ${tool.scope} scope ${tool.name} needs; ask for a token with it (holdfast tokens create --profile hotel-ops).`,
            { missing_scope: tool.scope, granted_scopes: principal.scopes },
          );
        if (problem)
          throw new ContractError(
            problem.tooLarge ? 'MCP_REQUEST_BODY_TOO_LARGE' : 'MCP_REQUEST_INVALID',
            `${problem.field}: ${problem.message}`,
            { field: problem.field },
          );
        const input = tool.parse(args ?? {});
        checkHotel(principal, args);
        await withinCallBudget(ctx, principal);
        const result = await tool.run({ ...ctx, principal }, input, { traceId, audit });
        await audit
          .finish()
          .catch((e: unknown) => ctx.logger.error('audit append failed', { error: String(e) }));
        ctx.logger.info('tool call', {
          action: tool.name,
          traceId,
          ...(answeredTrace !== traceId ? { callerTraceId: answeredTrace } : {}),
          outcome: 'ok',
          durationMs: elapsed(started),
        });
        ctx.metrics.callFinished(tool.name, 'ok', (performance.now() - started) / 1000);
        return answer(
          {
            success: true,
            request_id: requestId,
            trace_id: answeredTrace,
            data: result.data,
            warnings: result.warnings ?? [],
            error: null,
          },
          false,
          `${tool.summaryZh(result.data)}（请求 ${requestId}）`,
        );
      } catch (thrown) {
        const error = toContractError(thrown);
        if (error.code === 'MCP_INTERNAL_ERROR')
          ctx.logger.error('tool failed', {
            action: tool.name,
            traceId,
            error: thrown instanceof Error ? thrown.stack : String(thrown),
          });
        await audit
          .finish({ outcome: 'error', code: error.code, message: error.message })
          .catch((e: unknown) => ctx.logger.error('audit append failed', { error: String(e) }));
        ctx.logger.info('tool call', {
          action: tool.name,
          traceId,
          ...(answeredTrace !== traceId ? { callerTraceId: answeredTrace } : {}),
          outcome: 'error',
          code: error.code,
          durationMs: elapsed(started),
        });
        ctx.metrics.callFinished(tool.name, error.code, (performance.now() - started) / 1000);
        return answer(
          { success: false, request_id: requestId, trace_id: answeredTrace, data: null, warnings: [], error },
          true,
          `失败：${error.code}，${error.message}（请求 ${requestId}）`,
        );
      }
    },
  );
}

/**
 * SuperAgent's own trace id (`_meta.trace_id` of the call), echoed as sent when it is printable
 * ASCII of at most 128 characters; anything else is ignored (never echoed into a log or answer).
 */
function callerTraceId(request: ServerContext): string | null {
  const sent = (request.mcpReq._meta as Record<string, unknown> | undefined)?.trace_id;
  return typeof sent === 'string' && /^[\x21-\x7e]{1,128}$/.test(sent) ? sent : null;
}

/** Off on this server, for this tenant, or the tenant does not take this contract at all. */
async function refuseDisabled(ctx: ToolContext, principal: Principal, name: string): Promise<void> {
  if (ctx.profile.disabledTools.includes(name))
    throw new ContractError('MCP_TOOL_DISABLED', `${name} is switched off on this server.`, { tool: name });
  const tenant = await ctx.deps.store.readOne((tx) => tx.tenants.getTenant(principal.tenantId));
  if (tenant?.toolProfile === 'standard')
    throw new ContractError('MCP_TOOL_DISABLED', `This tenant does not use the hotel-ops tools.`, {
      tool: name,
    });
  if (tenant?.disabledTools.includes(name))
    throw new ContractError('MCP_TOOL_DISABLED', `${name} is switched off for this tenant.`, { tool: name });
}

/** A hotel id is optional; one that is given must be this hotel (the caller's tenant). */
function checkHotel(principal: Principal, args: unknown): void {
  const hotel = (args as { hotel_id?: unknown } | null)?.hotel_id;
  if (typeof hotel === 'string' && hotel !== principal.tenantId)
    throw new ContractError('MCP_REQUEST_INVALID', 'hotel_id: not this hotel; leave it out', {
      field: 'hotel_id',
    });
}

export const serverTime = (ctx: ToolContext) => formatInstant(ctx.deps.clock.now());
