import type { McpServer, ScopeChallengeHandler } from '@modelcontextprotocol/server';
import { z } from 'zod';
import { decodeCursor, encodeCursor } from '../../../app/page-cursor.js';
import { DomainError } from '../../../domain/errors.js';
import type { Scope } from '../../../domain/calendar.js';
import type { ClientIdentity, ToolContext, ToolDefinition, ToolHandler } from '../tool-kit.js';
import { publishOnly } from '../edge-schema.js';
import { defineTool, registerTool, stepUpTo, toolHandler } from '../tool-kit.js';
import type { CatalogEntry } from './catalog-entries.js';
import { catalogOf, entryNamed, pageOfLines, searchEntries } from './catalog-entries.js';
import { workflowSignatures } from './catalog-signatures.js';

type AnyTool = ToolDefinition<unknown, unknown>;

interface SearchAnswer {
  readonly tools: readonly { name: string; title: string; location: string; summary: string }[];
  readonly total: number;
  readonly nextCursor: string | null;
}

interface ReadAnswer {
  readonly location: string;
  readonly offset: number;
  readonly lines: readonly string[];
  readonly totalLines: number;
  readonly continueWith: string | null;
}

const toolName = z
  .string()
  .min(1)
  .max(200)
  .describe('A tool name from tool_catalog.search, or its tool:// location.');

function notFound(entries: readonly CatalogEntry[], name: string): never {
  throw new DomainError(
    'NOT_FOUND',
    `tool: no tool named ${JSON.stringify(name.slice(0, 80))}; tool_catalog.search lists the ${entries.length} there are.`,
    { field: 'tool' },
  );
}

function searchTool(entries: readonly CatalogEntry[]) {
  return defineTool({
    name: 'tool_catalog.search',
    scope: 'read',
    title: 'Search the tool catalog',
    description:
      'Finds Holdfast tools by words in their name, title or description ("" lists all), limit at a time. Each has a tool:// location and a one-line summary; read its full schema with tool_catalog.read, run it with tool_catalog.call. Answers never change while the server runs.',
    input: z.strictObject({
      query: z.string().max(200).describe('Words every listed tool must contain; "" for all.'),
      limit: z.int().min(1).max(50).describe('How many tools to list (1-50).'),
      cursor: z.string().max(512).optional().describe('nextCursor of the same query, for the next page.'),
    }),
    data: z.object({
      tools: z.array(
        z.object({ name: z.string(), title: z.string(), location: z.string(), summary: z.string() }),
      ),
      total: z.int(),
      nextCursor: z.string().nullable(),
    }),
    kind: 'read',
    stable: true,
    annotations: { readOnlyHint: true, idempotentHint: true },
    text: (data: SearchAnswer) =>
      [
        `${data.tools.length} of ${data.total} tools${data.nextCursor ? `; more with cursor ${data.nextCursor}` : ''}`,
        ...data.tools.map((t) => `${t.location} — ${t.title}: ${t.summary}`),
      ].join('\n'),
    async run({ deps }, input) {
      const query = input.query.trim().toLowerCase().split(/\s+/).filter(Boolean).join(' ');
      const found = searchEntries(entries, query);
      const from = decodeCursor(deps.digest, { catalog: query }, input.cursor) ?? 0;
      const page = found.slice(from, from + input.limit);
      const end = from + page.length;
      return {
        data: {
          tools: page.map(({ name, title, location, summary }) => ({ name, title, location, summary })),
          total: found.length,
          nextCursor: end < found.length ? encodeCursor(deps.digest, { catalog: query }, end) : null,
        },
      };
    },
  });
}

function readTool(entries: readonly CatalogEntry[]) {
  return defineTool({
    name: 'tool_catalog.read',
    scope: 'read',
    title: 'Read a tool’s schema',
    description:
      'Reads the complete, fixed schema document of one tool (description, scope, input and output JSON Schema) as numbered lines: limit lines from the 0-based offset. The answer says totalLines, whether it was truncated and where the rest starts (next). Answers never change while the server runs.',
    input: z.strictObject({
      tool: toolName,
      offset: z.int().min(0).describe('First line to return, 0-based.'),
      limit: z.int().min(1).max(1000).describe('How many lines to return (1-1000).'),
    }),
    data: z.object({
      tool: z.string(),
      location: z.string(),
      offset: z.int(),
      lines: z.array(z.string()),
      totalLines: z.int(),
      truncated: z.boolean(),
      omittedLines: z.int(),
      next: z.object({ offset: z.int(), limit: z.int() }).nullable(),
      continueWith: z.string().nullable(),
    }),
    kind: 'read',
    stable: true,
    annotations: { readOnlyHint: true, idempotentHint: true },
    text: (data: ReadAnswer) =>
      [
        `${data.location} lines ${data.offset}-${data.offset + data.lines.length - 1} of ${data.totalLines}${data.continueWith ? `; ${data.continueWith}` : ' (the end)'}`,
        ...data.lines,
      ].join('\n'),
    async run(_ctx, input) {
      const entry = entryNamed(entries, input.tool) ?? notFound(entries, input.tool);
      if (input.offset >= entry.lines.length)
        throw new DomainError(
          'INVALID_ARGUMENTS',
          `offset: past the end; ${entry.location} has ${entry.lines.length} lines (0-${entry.lines.length - 1}).`,
          { field: 'offset' },
        );
      const page = pageOfLines(entry, input.offset, input.limit);
      return {
        data: {
          tool: entry.name,
          location: entry.location,
          ...page,
          lines: [...page.lines],
          continueWith: page.next
            ? `${page.omittedLines} more lines: call tool_catalog.read with tool "${entry.name}", offset ${page.next.offset}, limit ${page.next.limit}.`
            : null,
        },
      };
    },
  });
}

const callInput = z.strictObject({
  tool: toolName,
  arguments: z
    .record(z.string(), z.unknown())
    .optional()
    .describe('The tool’s own arguments, exactly as its input schema says; passed on untouched.'),
});

/** Reached only when the call cannot be handed on: its own arguments are wrong, or no such tool. */
function callTool(entries: readonly CatalogEntry[], signatures: readonly string[]) {
  return defineTool({
    name: 'tool_catalog.call',
    scope: 'read',
    title: 'Call a tool from the catalog',
    description: [
      'Runs one Holdfast tool: tool is its name or tool:// location, arguments its arguments as its schema (tool_catalog.read) says. The answer is that tool’s own answer, validated and audited exactly as if it had been called by name; a wrong argument is refused naming its field.',
      ...(signatures.length
        ? [
            'The booking tools take these arguments (call them without reading; ? marks optional, … more in the schema; find any other tool with tool_catalog.search):',
            ...signatures,
          ]
        : []),
    ].join('\n'),
    input: callInput,
    data: z.record(z.string(), z.unknown()),
    kind: 'read',
    annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false },
    async run(_ctx, input) {
      return notFound(entries, input.tool);
    },
  });
}

/** Over HTTP a token without the logical tool's scope is stepped up as that tool would be. */
function stepUpToCalled(entries: readonly CatalogEntry[], tools: readonly AnyTool[]): ScopeChallengeHandler {
  return (context) => {
    const params = context.request.params as { arguments?: { tool?: unknown } } | undefined;
    const name = params?.arguments?.tool;
    const entry = typeof name === 'string' ? entryNamed(entries, name) : undefined;
    const scope: Scope = tools.find((t) => t.name === entry?.name)?.scope ?? 'read';
    return stepUpTo(scope)(context);
  };
}

const definitions = new WeakMap<readonly AnyTool[], ReturnType<typeof buildCatalogTools>>();

function buildCatalogTools(tools: readonly AnyTool[]) {
  const entries = catalogOf(tools);
  return {
    entries,
    search: searchTool(entries) as AnyTool,
    read: readTool(entries) as AnyTool,
    call: callTool(entries, workflowSignatures(tools)) as AnyTool,
  };
}

/** The three definitions, once per tool list: a server is built per HTTP request, its schemas are not. */
function catalogToolsOf(tools: readonly AnyTool[]) {
  let built = definitions.get(tools);
  if (!built) definitions.set(tools, (built = buildCatalogTools(tools)));
  return built;
}

/**
 * The progressive surface: three tools instead of every tool. `tool_catalog.call` hands a
 * well-formed call of a known tool to that tool's own handler; anything else gets the refusal
 * of the call tool itself (audited like any call).
 */
export function registerCatalog(
  server: McpServer,
  ctx: ToolContext,
  tools: readonly AnyTool[],
  identity: ClientIdentity,
): void {
  const { entries, search, read, call } = catalogToolsOf(tools);
  registerTool(server, ctx, search, identity);
  registerTool(server, ctx, read, identity);
  const handlers = new Map<string, ToolHandler>(
    tools.map((t) => [t.name, toolHandler(server, ctx, t, identity)]),
  );
  const refuse = toolHandler(server, ctx, call, identity);
  server.registerTool(
    call.name,
    {
      title: call.title,
      description: call.description,
      inputSchema: publishOnly(callInput),
      annotations: { title: call.title, openWorldHint: false, ...call.annotations },
      scopeChallenge: stepUpToCalled(entries, tools),
    },
    (args: unknown, request) => {
      const parsed = callInput.safeParse(args ?? {});
      const entry = parsed.success ? entryNamed(entries, parsed.data.tool) : undefined;
      const handler = entry && handlers.get(entry.name);
      return handler && parsed.success
        ? handler(parsed.data.arguments ?? {}, request)
        : refuse(args, request);
    },
  );
}
