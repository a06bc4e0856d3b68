import type { StandardSchemaWithJSON } from '@modelcontextprotocol/server';
import type { z } from 'zod';
import { DomainError } from '../../domain/errors.js';
import { inspectInput, printable, printableField } from './input-guard.js';
import { portableJsonSchema } from './portable-schema.js';

/**
 * Publishes the zod schema's JSON Schema to clients but lets every call reach
 * the handler, so malformed input is answered in Holdfast's own envelope
 * (INVALID_ARGUMENTS naming the field) instead of the SDK's bare text error.
 * The handler then validates once, with the same schema.
 */
export function publishOnly(schema: z.ZodType): StandardSchemaWithJSON {
  const { jsonSchema } = schema['~standard'];
  // The SDK converts the schema on every new server instance (one per HTTP request): convert once.
  const converted = new Map<string, Record<string, unknown>>();
  const memo =
    (direction: 'input' | 'output') =>
    (options: Parameters<typeof jsonSchema.input>[0]): Record<string, unknown> => {
      const key = `${direction}|${String(options.target)}`;
      let json = converted.get(key);
      if (!json) converted.set(key, (json = portableJsonSchema(jsonSchema[direction](options))));
      return { ...json };
    };
  return {
    '~standard': {
      version: 1,
      vendor: 'holdfast',
      validate: (value: unknown) => ({ value }),
      jsonSchema: { input: memo('input'), output: memo('output') },
    },
  } as StandardSchemaWithJSON;
}

/** Strict parse: unknown fields and wrong types fail with INVALID_ARGUMENTS naming the first bad field. */
export function parseArguments<T>(schema: z.ZodType<T>, args: unknown): T {
  const result = schema.safeParse(args ?? {});
  if (result.success) return result.data;
  const issue = result.error.issues[0]!;
  const keys = issue.code === 'unrecognized_keys' ? issue.keys : [];
  const field = printableField([...issue.path, ...(keys.length === 1 ? keys : [])] as (string | number)[]);
  const message = issue.code === 'unrecognized_keys' ? unknownFields(keys) : printable(issue.message, 300);
  throw new DomainError('INVALID_ARGUMENTS', `${field}: ${message}`, {
    field,
    issueCount: result.error.issues.length,
  });
}

/** Names a few unknown fields, never an attacker's thousand. */
function unknownFields(keys: readonly string[]): string {
  const shown = keys.slice(0, 5).map((k) => printable(k, 64));
  const more = keys.length > shown.length ? ` and ${keys.length - shown.length} more` : '';
  return `unknown field${keys.length > 1 ? 's' : ''} ${shown.join(', ')}${more}`;
}

/** The edge rule first (strings, shapes, sizes), then the tool's schema. */
export function validateInput<T>(schema: z.ZodType<T>, args: unknown): T {
  const problem = inspectInput(args ?? {});
  if (problem)
    throw new DomainError('INVALID_ARGUMENTS', `${problem.field}: ${problem.message}`, {
      field: problem.field,
    });
  return parseArguments(schema, args);
}
