import { createHash } from 'node:crypto';
import type pg from 'pg';
import type { SqlDialect, SqlRunner } from '../sql/sql-runner.js';
import { mapPgError } from './pg-errors.js';

const numbered = new Map<string, string>();

/** `?` placeholders to `$1, $2, …`, skipping quoted text; memoised per statement text. */
export function toNumberedParams(sql: string): string {
  let out = numbered.get(sql);
  if (out !== undefined) return out;
  let n = 0;
  let quote: string | null = null;
  out = '';
  for (const ch of sql) {
    if (quote) {
      if (ch === quote) quote = null;
      out += ch;
    } else if (ch === "'" || ch === '"') {
      quote = ch;
      out += ch;
    } else out += ch === '?' ? `$${++n}` : ch;
  }
  if (numbered.size >= 2_000) numbered.clear();
  numbered.set(sql, out);
  return out;
}

const names = new Map<string, string>();

/**
 * The query as a named prepared statement, so each connection parses and plans it once (the
 * hold is one large statement: planning it on every call cost more than running it). Very long
 * texts (the sealer's multi-row inserts) stay unnamed rather than fill every connection's cache.
 */
function preparedQuery(sql: string, values: readonly unknown[]): pg.QueryConfig {
  const text = toNumberedParams(sql);
  if (text.length > 4_000) return { text, values: values as unknown[] };
  let name = names.get(text);
  if (name === undefined) {
    name = `hf_${createHash('sha256').update(text).digest('base64url').slice(0, 24)}`;
    names.set(text, name);
  }
  return { name, text, values: values as unknown[] };
}

/** Statements on a pooled client inside a transaction, or on the pool itself (each one autocommitted). */
export class PgRunner implements SqlRunner {
  constructor(private readonly client: pg.ClientBase | pg.Pool) {}

  async all<T>(sql: string, params: readonly unknown[] = []): Promise<T[]> {
    try {
      return (await this.client.query(preparedQuery(sql, params))).rows as T[];
    } catch (error) {
      throw mapPgError(error);
    }
  }

  async run(sql: string, params: readonly unknown[] = []): Promise<number> {
    try {
      return (await this.client.query(preparedQuery(sql, params))).rowCount ?? 0;
    } catch (error) {
      throw mapPgError(error);
    }
  }
}

export const pgDialect: SqlDialect = {
  engine: 'postgres',
  TRUE: 'true',
  FALSE: 'false',
  skipLocked: ' FOR UPDATE SKIP LOCKED',
  recordWebhookEvent:
    'SELECT holdfast_webhook_record(?::text, ?::text, ?::text, ?::text, ?::bigint, ?::text) AS written',
  jsonFlag: (column, field) => `coalesce((${column}::jsonb ->> '${field}')::boolean, false)`,
  jsonText: (column, field) => `(${column}::jsonb #>> '{${field.split('.').join(',')}}')`,
  // A transaction-scoped advisory lock, per schema, released at COMMIT or ROLLBACK.
  serialize: async (runner, key) => {
    await runner.all("SELECT pg_advisory_xact_lock(hashtext(current_schema() || ':' || ?))", [key]);
  },
  mapError: mapPgError,
};
