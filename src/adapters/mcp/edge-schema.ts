import type { StandardSchemaWithJSON } from '@modelcontextprotocol/server';
import type { z } from 'zod';
import { DomainError } from '../../domain/errors.js';

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
      if (!json) converted.set(key, (json = jsonSchema[direction](options)));
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

function fieldOf(path: readonly PropertyKey[]): string {
  return path.reduce<string>((acc, key) => {
    if (typeof key === 'number') return `${acc}[${key}]`;
    return acc === '' ? String(key) : `${acc}.${String(key)}`;
  }, '');
}

/** Strict parse: unknown fields and wrong types fail with INVALID_ARGUMENTS naming the first bad field. */
export function parseArguments<T>(schema: z.ZodType<T>, args: unknown): T {
  const result = schema.safeParse(args ?? {});
  if (result.success) return result.data;
  const issue = result.error.issues[0]!;
  const keys = issue.code === 'unrecognized_keys' ? issue.keys : [];
  const field = fieldOf([...issue.path, ...(keys.length === 1 ? keys : [])]) || '(arguments)';
  const message =
    issue.code === 'unrecognized_keys'
      ? `unknown field${keys.length > 1 ? 's' : ''} ${keys.join(', ')}`
      : issue.message;
  return raise(field, message, result.error.issues.length);
}

function raise(field: string, message: string, issueCount: number): never {
  throw new DomainError('INVALID_ARGUMENTS', `${field}: ${message}`, { field, issueCount });
}
