import type { Client } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectStdio } from '../support/mcp-clients.js';
import { tempDbPath } from '../support/spawn-server.js';

// Every tool schema a client lists, on each surface (flat, catalog, hotel-ops), checked against
// the rules the model APIs document for tool parameters — the common subset, so one schema works
// with all of them. Sources (December 2026):
//  - OpenAI function calling / Structured Outputs, "Supported schemas": root an object, not
//    anyOf; types string, number, integer, boolean, object, array, null; anyOf; enum; no allOf,
//    not, if/then/else, dependent*, patternProperties; string formats date-time, time, date,
//    duration, email, hostname, ipv4, ipv6, uuid.
//  - Gemini FunctionDeclaration.parameters (the OpenAPI 3.0 Schema subset): one `type` per schema
//    (nullable is anyOf or `nullable`, never a type array), enum of strings, no $ref or oneOf.
//    (Its older rule that an OBJECT needs properties is not applied: the catalog's `arguments` and
//    hotel-ops' free-form objects have none, and parametersJsonSchema accepts them.)
//  - Anthropic tool input_schema: a JSON Schema object at the root.
//  - MCP Inspector --strict: no `type` arrays, no empty `{}` schemas.
type Schema = Record<string, unknown>;

const TYPES = ['string', 'number', 'integer', 'boolean', 'object', 'array', 'null'];
const FORMATS = ['date-time', 'time', 'date', 'duration', 'email', 'hostname', 'ipv4', 'ipv6', 'uuid'];
const UNSUPPORTED = [
  '$ref',
  '$defs',
  'definitions',
  'oneOf',
  'allOf',
  'not',
  'if',
  'then',
  'else',
  'patternProperties',
  'dependentSchemas',
  'dependentRequired',
  'unevaluatedProperties',
];

/** Every subschema with where it sits, the root first. */
function* subschemas(schema: Schema, path = ''): Generator<[string, Schema]> {
  yield [path || '(root)', schema];
  const children: [string, unknown][] = [];
  for (const [name, value] of Object.entries((schema.properties as Schema | undefined) ?? {}))
    children.push([`${path}.${name}`, value]);
  if (schema.items) children.push([`${path}[]`, schema.items]);
  if (
    schema.additionalProperties &&
    typeof schema.additionalProperties === 'object' &&
    !isEmpty(schema.additionalProperties)
  )
    children.push([`${path}{}`, schema.additionalProperties]);
  for (const [i, branch] of ((schema.anyOf as unknown[] | undefined) ?? []).entries())
    children.push([`${path}|${i}`, branch]);
  for (const [where, child] of children) yield* subschemas(child as Schema, where);
}

/** What the rules above refuse in one tool's input schema (outputs: the type and `{}` rules). */
function violations(schema: Schema, direction: 'input' | 'output'): string[] {
  const found: string[] = [];
  if (direction === 'input' && (schema.type !== 'object' || schema.anyOf))
    found.push('(root): not a plain object');
  for (const [path, node] of subschemas(schema)) {
    if (Object.keys(node).length === 0) found.push(`${path}: empty schema {}`);
    if (Array.isArray(node.type)) found.push(`${path}: type array ${JSON.stringify(node.type)}`);
    else if (node.type !== undefined && !TYPES.includes(node.type as string))
      found.push(`${path}: type ${String(node.type)}`);
    if (isEmpty(node.additionalProperties)) found.push(`${path}: additionalProperties {}`);
    if (direction === 'output') continue;
    if (node.type === undefined && !node.anyOf && !node.enum) found.push(`${path}: no type`);
    for (const keyword of UNSUPPORTED) if (keyword in node) found.push(`${path}: ${keyword}`);
    if (node.format && !FORMATS.includes(node.format as string))
      found.push(`${path}: format ${String(node.format)}`);
    if (node.enum && !(node.enum as unknown[]).every((v) => typeof v === 'string'))
      found.push(`${path}: enum not strings`);
    if (node.additionalProperties === true) found.push(`${path}: additionalProperties true`);
  }
  return found;
}

const isEmpty = (value: unknown) =>
  !!value && typeof value === 'object' && !Array.isArray(value) && Object.keys(value).length === 0;

const SURFACES: Record<string, string[]> = {
  flat: [],
  catalog: ['--tools', 'catalog'],
  'hotel-ops': ['--profile', 'hotel-ops'],
};
const listed = new Map<string, { name: string; inputSchema: Schema; outputSchema?: Schema }[]>();
const dbs: (() => void)[] = [];

beforeAll(async () => {
  for (const [surface, args] of Object.entries(SURFACES)) {
    const db = tempDbPath();
    dbs.push(db.cleanup);
    const client: Client = await connectStdio(db.path, 'modern', args);
    listed.set(surface, (await client.listTools()).tools as never);
    await client.close();
  }
}, 60_000);
afterAll(() => dbs.forEach((cleanup) => cleanup()));

describe('portable tool schemas', () => {
  it.each(Object.keys(SURFACES))(
    '%s: every input schema is in the subset all the model APIs accept',
    (surface) => {
      const tools = listed.get(surface)!;
      expect(tools.length).toBeGreaterThan(2);
      const found = tools.flatMap((tool) =>
        violations(tool.inputSchema, 'input').map((v) => `${tool.name} ${v}`),
      );
      expect(found).toEqual([]);
    },
  );

  it.each(Object.keys(SURFACES))(
    '%s: output schemas have one type per schema and no empty {} (Inspector --strict)',
    (surface) => {
      const found = listed
        .get(surface)!
        .flatMap((tool) =>
          (tool.outputSchema ? violations(tool.outputSchema, 'output') : []).map((v) => `${tool.name} ${v}`),
        );
      expect(found).toEqual([]);
    },
  );

  it('every date-time input keeps its format, with a pattern that admits offsets and a description that asks for one', () => {
    const instants = [...listed.values()]
      .flat()
      .flatMap((tool) =>
        [...subschemas(tool.inputSchema)].map(([path, node]) => [`${tool.name}${path}`, node] as const),
      )
      .filter(([, node]) => node.format === 'date-time');
    expect(instants.length).toBeGreaterThan(10);
    for (const [where, node] of instants) {
      const pattern = new RegExp(node.pattern as string);
      expect(pattern.test('2026-12-03T09:00:00+01:00'), where).toBe(true);
      expect(pattern.test('2026-12-03T08:00:00Z'), where).toBe(true);
      expect(pattern.test('2026-12-03T09:00:00'), where).toBe(false);
      expect(node.description, where).toMatch(/offset/i);
    }
  });

  it('the checker finds what it is meant to find (each rule on a schema that breaks it)', () => {
    const bad: Schema = {
      type: 'object',
      properties: {
        a: { type: ['string', 'null'] },
        b: {},
        c: { type: 'object', additionalProperties: {} },
        d: { $ref: '#/x' },
        e: { type: 'string', format: 'uri-reference' },
        f: { type: 'integer', enum: [1, 2] },
      },
    };
    expect(violations(bad, 'input')).toEqual([
      '.a: type array ["string","null"]',
      '.b: empty schema {}',
      '.b: no type',
      '.c: additionalProperties {}',
      '.d: no type',
      '.d: $ref',
      '.e: format uri-reference',
      '.f: enum not strings',
    ]);
  });
});
