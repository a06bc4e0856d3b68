import { randomBytes } from 'node:crypto';
import { TRACEPARENT_META_KEY } from '@modelcontextprotocol/server';
import type { McpServer, ServerContext, ToolAnnotations } from '@modelcontextprotocol/server';
import type { z } from 'zod';
import type { AppDeps } from '../../app/deps.js';
import type { Principal } from '../../domain/calendar.js';
import { formatInstant } from '../../domain/time/instant.js';
import type { Logger } from '../log/json-logger.js';
import { parseArguments, publishOnly } from './edge-schema.js';
import { envelopeOf } from './schemas.js';
import { toToolError } from './tool-error.js';

export interface ToolContext {
  readonly deps: AppDeps;
  readonly principal: Principal;
  readonly logger: Logger;
  readonly transport: 'stdio' | 'http';
}

export interface ToolRun<D> {
  readonly data: D;
  readonly replayed?: boolean;
}

export interface ToolDefinition<I, D> {
  readonly name: string;
  readonly title: string;
  readonly description: string;
  readonly input: z.ZodType<I>;
  readonly data: z.ZodType;
  readonly annotations: ToolAnnotations;
  run(ctx: ToolContext, input: I): Promise<ToolRun<D>>;
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
  if (!schemas)
    compiled.set(tool, (schemas = { input: publishOnly(tool.input), output: envelopeOf(tool.data) }));
  return schemas;
}

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
      try {
        const { data, replayed } = await tool.run(ctx, parseArguments(tool.input, args));
        const envelope = { ok: true, data, meta: replayed ? { ...meta, idempotentReplay: true } : meta };
        ctx.logger.info('tool call', { ...log, outcome: 'ok', replayed: !!replayed, ms: elapsed(started) });
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
