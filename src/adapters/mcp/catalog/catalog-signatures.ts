import { z } from 'zod';
import type { ToolDefinition } from '../tool-kit.js';

/**
 * The booking workflow's tools, in the order a booking uses them: their call signatures ride in
 * tool_catalog.call's description, so a model books without a search or a read (each a round
 * trip and, for a whole schema, thousands of tokens). Every other tool is found and read as usual.
 */
export const WORKFLOW_TOOLS = [
  'list_calendars',
  'find_slots',
  'hold_slot',
  'confirm_booking',
  'get_approval',
  'release_hold',
  'list_bookings',
  'get_booking',
  'cancel_booking',
  'reschedule_booking',
] as const;

type JsonSchema = {
  type?: string | string[];
  format?: string;
  enum?: unknown[];
  const?: unknown;
  items?: JsonSchema;
  properties?: Record<string, JsonSchema>;
  required?: string[];
  anyOf?: JsonSchema[];
  oneOf?: JsonSchema[];
};

const FORMATS: Record<string, string> = {
  'date-time': 'RFC3339',
  uuid: 'uuid',
  email: 'email',
  date: 'date',
};

/** A value's type in a few characters: `RFC3339`, `int`, `string[]`, `A|B`, `{name, email?}`. */
function typeOf(schema: JsonSchema, depth: number): string {
  if (schema.format && FORMATS[schema.format]) return FORMATS[schema.format]!;
  if (schema.enum) return schema.enum.map(String).join('|');
  if (schema.const !== undefined) return JSON.stringify(schema.const);
  const union = schema.anyOf ?? schema.oneOf;
  if (union) return [...new Set(union.map((s) => typeOf(s, depth)))].join('|');
  if (schema.type === 'array') return `${schema.items ? typeOf(schema.items, depth) : 'any'}[]`;
  if (schema.type === 'object' && schema.properties) {
    // One level of nesting shows the member names; deeper ones only that it is an object.
    if (depth > 0) return 'object';
    return `{${membersOf(schema, depth + 1).join(', ')}}`;
  }
  if (schema.type === 'integer') return 'int';
  if (schema.type === 'boolean') return 'bool';
  return Array.isArray(schema.type) ? schema.type.join('|') : (schema.type ?? 'any');
}

/**
 * Left out of the quick reference (an ellipsis says something was): a page's cursor, which an
 * answer hands over with its next page, and a host's signed approval, which only an attesting host
 * sends and reads about in the schema.
 */
const LEFT_OUT = new Set(['cursor', 'humanApproval']);

function membersOf(schema: JsonSchema, depth: number): string[] {
  const required = new Set(schema.required ?? []);
  const members = Object.entries(schema.properties ?? {});
  const shown = members.filter(([name]) => required.has(name) || !LEFT_OUT.has(name));
  const listed = shown.map(([name, member]) =>
    depth === 0
      ? `${name}${required.has(name) ? '' : '?'}: ${typeOf(member, depth)}`
      : `${name}${required.has(name) ? '' : '?'}`,
  );
  return shown.length < members.length ? [...listed, '…'] : listed;
}

/** `hold_slot(calendarIds: string[], start: RFC3339, …, idempotencyKey: uuid)` from the input schema. */
export function signatureOf(tool: ToolDefinition<unknown, unknown>): string {
  const schema = z.toJSONSchema(tool.input, { io: 'input', unrepresentable: 'any' }) as JsonSchema;
  return `${tool.name}(${membersOf(schema, 0).join(', ')})`;
}

/** The workflow tools present (a disabled one is left out), one signature per line. */
export function workflowSignatures(tools: readonly ToolDefinition<unknown, unknown>[]): string[] {
  return WORKFLOW_TOOLS.flatMap((name) => {
    const tool = tools.find((t) => t.name === name);
    return tool ? [signatureOf(tool)] : [];
  });
}
