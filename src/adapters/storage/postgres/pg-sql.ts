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

/** Statements on a pooled client inside a transaction, or on the pool itself (each one autocommitted). */
export class PgRunner implements SqlRunner {
  constructor(private readonly client: pg.ClientBase | pg.Pool) {}

  async all<T>(sql: string, params: readonly unknown[] = []): Promise<T[]> {
    try {
      return (await this.client.query(toNumberedParams(sql), params as unknown[])).rows as T[];
    } catch (error) {
      throw mapPgError(error);
    }
  }

  async run(sql: string, params: readonly unknown[] = []): Promise<number> {
    try {
      return (await this.client.query(toNumberedParams(sql), params as unknown[])).rowCount ?? 0;
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
  jsonFlag: (column, field) => `coalesce((${column}::jsonb ->> '${field}')::boolean, false)`,
  // A transaction-scoped advisory lock, per schema, released at COMMIT or ROLLBACK.
  serialize: async (runner, key) => {
    await runner.all("SELECT pg_advisory_xact_lock(hashtext(current_schema() || ':' || ?))", [key]);
  },
  mapError: mapPgError,
};
