import { z } from 'zod';
import { envelopeOf } from '../schemas.js';
import type { ToolDefinition } from '../tool-kit.js';

/**
 * The logical tools as the catalog shows them: a `tool://` location, a one-line summary, and
 * one fixed document per tool (name, description, scope, annotations, input and output JSON
 * Schema, as a model reads them: see forReading) cut into lines. Built once per tool list; nothing in it depends on the caller, the
 * clock or the data, so every answer made from it is byte-identical for the same request.
 */
export interface CatalogEntry {
  readonly name: string;
  readonly title: string;
  readonly location: string;
  readonly summary: string;
  /** Lower-cased name, title and description: what a search matches against. */
  readonly haystack: string;
  readonly lines: readonly string[];
}

export const LOCATION_PREFIX = 'tool://holdfast/';

/**
 * JSON whose small parts stay on one line: an object or array that fits in `width` characters
 * is written inline, a bigger one gets a line per member. Several times fewer lines than
 * two-space indentation, and as exact.
 */
export function compactJson(value: unknown, indent = '', width = 100): string {
  const inline = JSON.stringify(value);
  if (inline.length + indent.length <= width || value === null || typeof value !== 'object') return inline;
  const inner = `${indent}  `;
  if (Array.isArray(value))
    return `[\n${value.map((item) => `${inner}${compactJson(item, inner, width)}`).join(',\n')}\n${indent}]`;
  const members = Object.entries(value as Record<string, unknown>).map(
    ([key, item]) => `${inner}${JSON.stringify(key)}: ${compactJson(item, inner, width)}`,
  );
  return `{\n${members.join(',\n')}\n${indent}}`;
}

/** The first sentence: enough to choose a tool, short enough to list them all. */
function summaryOf(description: string): string {
  // A sentence ends at a full stop before a capital or the end ("e.g. x" goes on).
  const end = description.search(/\.(\s+[A-Z]|$)/);
  return end === -1 ? description : description.slice(0, end + 1);
}

/**
 * A schema as a model reads it: a `pattern` beside a `format` (zod writes the regular expression
 * of every date-time, uuid and e-mail: hundreds of characters saying what the format says), the
 * `$schema` line and the bounds of every safe integer are left out. The server still validates
 * every call against the whole schema; tools/list publishes it whole.
 */
export function forReading(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(forReading);
  if (schema === null || typeof schema !== 'object') return schema;
  const kept: Record<string, unknown> = {};
  const node = schema as Record<string, unknown>;
  for (const [key, value] of Object.entries(node)) {
    if (key === '$schema' || (key === 'pattern' && typeof node.format === 'string')) continue;
    if ((key === 'minimum' || key === 'maximum') && Math.abs(value as number) === Number.MAX_SAFE_INTEGER)
      continue;
    kept[key] = forReading(value);
  }
  return kept;
}

function entryOf(tool: ToolDefinition<unknown, unknown>): CatalogEntry {
  const output = tool.shape ? tool.shape.output?.(tool.data) : envelopeOf(tool.data);
  const document = {
    name: tool.name,
    location: `${LOCATION_PREFIX}${tool.name}`,
    title: tool.title,
    description: tool.description,
    scope: tool.scope,
    annotations: tool.annotations,
    inputSchema: forReading(z.toJSONSchema(tool.input, { io: 'input', unrepresentable: 'any' })),
    // The answer as the tool's shape writes it (a contract profile's own envelope), else Holdfast's.
    ...(output
      ? { outputSchema: forReading(z.toJSONSchema(output, { io: 'output', unrepresentable: 'any' })) }
      : {}),
  };
  return {
    name: tool.name,
    title: tool.title,
    location: document.location,
    summary: summaryOf(tool.description),
    haystack: `${tool.name} ${tool.title} ${tool.description}`.toLowerCase(),
    lines: compactJson(document).split('\n'),
  };
}

const built = new WeakMap<readonly unknown[], readonly CatalogEntry[]>();

/** The catalog of `tools`, in name order (stable whatever order they were registered in). */
export function catalogOf(tools: readonly ToolDefinition<unknown, unknown>[]): readonly CatalogEntry[] {
  let entries = built.get(tools);
  if (!entries) {
    entries = tools.map(entryOf).sort((a, b) => (a.name < b.name ? -1 : 1));
    built.set(tools, entries);
  }
  return entries;
}

/** `find_slots` or `tool://holdfast/find_slots` → its entry; anything else → undefined. */
export function entryNamed(entries: readonly CatalogEntry[], name: string): CatalogEntry | undefined {
  const bare = name.startsWith(LOCATION_PREFIX) ? name.slice(LOCATION_PREFIX.length) : name;
  return entries.find((e) => e.name === bare);
}

/** Every word of the query (any case) in the tool's name, title or description; empty: all. */
export function searchEntries(entries: readonly CatalogEntry[], query: string): readonly CatalogEntry[] {
  const words = query.toLowerCase().split(/\s+/).filter(Boolean);
  // Tools whose name holds more of the words come first ("booking": the booking tools before
  // tools that merely mention bookings); otherwise by name, so a page never changes.
  const inName = (e: CatalogEntry) => words.filter((w) => e.name.includes(w)).length;
  return entries
    .filter((e) => words.every((w) => e.haystack.includes(w)))
    .map((e) => ({ e, rank: inName(e) }))
    .sort((a, b) => b.rank - a.rank || (a.e.name < b.e.name ? -1 : 1))
    .map(({ e }) => e);
}

export interface LinePage {
  readonly lines: readonly string[];
  readonly offset: number;
  readonly totalLines: number;
  readonly truncated: boolean;
  readonly omittedLines: number;
  readonly next: { readonly offset: number; readonly limit: number } | null;
}

/** Lines [offset, offset + limit) of an entry's document, and where the rest starts. */
export function pageOfLines(entry: CatalogEntry, offset: number, limit: number): LinePage {
  const totalLines = entry.lines.length;
  const lines = entry.lines.slice(offset, offset + limit);
  const end = Math.min(totalLines, offset + lines.length);
  const omittedLines = totalLines - end;
  return {
    lines,
    offset,
    totalLines,
    truncated: omittedLines > 0,
    omittedLines,
    next: omittedLines > 0 ? { offset: end, limit } : null,
  };
}
