import { randomBytes } from 'node:crypto';
import type {
  InputRequiredResult,
  McpServer,
  RequestStateCodec,
  ServerContext,
  ToolAnnotations,
} from '@modelcontextprotocol/server';
import { TRACEPARENT_META_KEY } from '@modelcontextprotocol/server';
import type { z } from 'zod';
import type { AppDeps } from '../../app/deps.js';
import type { Principal } from '../../domain/calendar.js';
import { formatInstant } from '../../domain/time/instant.js';
import type { AuditEntry, AuditLog } from '../../ports/audit.js';
import { redactedPreview } from '../audit/redact.js';
import type { Logger } from '../log/json-logger.js';
import { parseArguments, publishOnly } from './edge-schema.js';
import { envelopeOf } from './schemas.js';
import { toToolError } from './tool-error.js';

/** What the MRTR approval round-trip carries, sealed by the codec and bound to the principal. */
export interface ApprovalState {
  readonly approvalId: string;
  readonly intentHash: string;
}

export interface ToolContext {
  readonly deps: AppDeps;
  readonly principal: Principal;
  readonly logger: Logger;
  readonly transport: 'stdio' | 'http';
  readonly audit: AuditLog;
  readonly stateCodec: RequestStateCodec<ApprovalState>;
}

export interface ToolCall {
  readonly traceId: string;
  readonly request: ServerContext;
}

export interface ToolRun<D> {
  readonly data: D;
  readonly replayed?: boolean;
}

/** A tool may answer with a multi-round-trip request instead of a result (2026-07-28 clients). */
export interface ToolInputRequired {
  readonly inputRequired: InputRequiredResult;
}

export interface ToolDefinition<I, D> {
  readonly name: string;
  readonly title: string;
  readonly description: string;
  readonly kind: AuditEntry['kind'];
  readonly input: z.ZodType<I>;
  readonly data: z.ZodType;
  readonly annotations: ToolAnnotations;
  run(ctx: ToolContext, input: I, call: ToolCall): Promise<ToolRun<D> | ToolInputRequired>;
}

export function defineTool<I, D>(definition: ToolDefinition<I, D>): ToolDefinition<I, D> {
  return definition;
}

const TRACEPARENT = /^[\da-f]{2}-([\da-f]{32})-[\da-f]{16}-[\da-f]{2}$/;

/** Reuses the caller's W3C trace id when it sent one, so logs join up across systems. */
function traceIdOf(request: ServerContext): string {
  const traceparent = request.mcpReq._meta?.[TRACEPARENT_META_KEY];
  const match = typeof traceparent === 'string' ? TRACEPARENT.exec(traceparent) : null;
  return match?.[1] ?? randomBytes(16).toString('hex');
}

interface CompiledSchemas {
  readonly input: ReturnType<typeof publishOnly>;
  readonly output: ReturnType<typeof publishOnly>;
  outputJson?: Record<string, unknown>;
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
      (schemas = { input: publishOnly(tool.input), output: publishOnly(envelopeOf(tool.data)) }),
    );
  return schemas;
}

// Codes that mean a write was stopped by policy, not by bad input: the audit keeps the reason.
const BLOCKING = /^(APPROVAL_|PAYMENT_|FORBIDDEN)/;

export function registerTool<I, D>(server: McpServer, ctx: ToolContext, tool: ToolDefinition<I, D>): void {
  const schemas = schemasOf(tool as ToolDefinition<unknown, unknown>);
  const registered = server.registerTool(
    tool.name,
    {
      title: tool.title,
      description: tool.description,
      inputSchema: schemas.input,
      outputSchema: schemas.output,
      annotations: { title: tool.title, openWorldHint: false, ...tool.annotations },
    },
    async (args: unknown, request: ServerContext) => {
      const started = performance.now();
      const meta = {
        traceId: traceIdOf(request),
        operationId: ctx.deps.ids.newId('op'),
        serverTime: formatInstant(ctx.deps.clock.now()),
      };
      const log = {
        tool: tool.name,
        traceId: meta.traceId,
        operationId: meta.operationId,
        transport: ctx.transport,
      };
      const audit = (
        outcome: AuditEntry['outcome'],
        errorCode: string | null,
        blockedReason: string | null,
      ) =>
        ctx.audit
          .append({
            at: ctx.deps.clock.now(),
            tenantId: ctx.principal.tenantId,
            subject: ctx.principal.subject,
            clientId: ctx.principal.clientId,
            transport: ctx.transport,
            tool: tool.name,
            kind: tool.kind,
            outcome,
            errorCode,
            blockedReason,
            argumentsDigest: ctx.deps.digest.ofJson(args ?? {}),
            preview: redactedPreview(args ?? {}),
            traceId: meta.traceId,
            durationMs: elapsed(started),
          })
          .catch((error: unknown) =>
            ctx.logger.error('audit append failed', { ...log, error: String(error) }),
          );
      try {
        const result = await tool.run(ctx, parseArguments(tool.input, args), {
          traceId: meta.traceId,
          request,
        });
        if ('inputRequired' in result) {
          await audit('input_required', null, 'waiting for the user to approve');
          return result.inputRequired;
        }
        const envelope = {
          ok: true,
          data: result.data,
          meta: result.replayed ? { ...meta, idempotentReplay: true } : meta,
        };
        await audit('ok', null, null);
        ctx.logger.info('tool call', {
          ...log,
          outcome: 'ok',
          replayed: !!result.replayed,
          ms: elapsed(started),
        });
        return {
          content: [{ type: 'text' as const, text: JSON.stringify(envelope) }],
          structuredContent: envelope,
        };
      } catch (thrown) {
        const error = toToolError(thrown);
        if (error.code === 'INTERNAL') {
          ctx.logger.error('tool failed', {
            ...log,
            error: thrown instanceof Error ? thrown.stack : String(thrown),
          });
        }
        await audit('error', error.code, BLOCKING.test(error.code) ? error.message : null);
        ctx.logger.info('tool call', { ...log, outcome: 'error', code: error.code, ms: elapsed(started) });
        const envelope = { ok: false, error, meta };
        return {
          isError: true,
          content: [{ type: 'text' as const, text: JSON.stringify(envelope) }],
          structuredContent: envelope,
        };
      }
    },
  );
  // The SDK converts the output schema lazily per registration; hand it the conversion done once.
  if (schemas.outputJson === undefined) schemas.outputJson = registered.outputSchemaJson;
  else registered.outputSchemaJson = schemas.outputJson;
}

function elapsed(started: number): number {
  return Math.round((performance.now() - started) * 10) / 10;
}
