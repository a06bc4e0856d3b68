import type Database from 'better-sqlite3';
import type { SqlDialect, SqlRunner } from '../sql/sql-runner.js';
import type { SqliteDb } from './sqlite-database.js';
import { mapSqliteError } from './sqlite-errors.js';

type Statement = Database.Statement<unknown[], unknown>;

/** Statements run synchronously on one connection; prepared once per connection (preparing costs more than running). */
export class SqliteRunner implements SqlRunner {
  private readonly statements = new Map<string, Statement>();

  constructor(readonly db: SqliteDb) {}

  private prepare(sql: string): Statement {
    let statement = this.statements.get(sql);
    if (!statement) {
      // Queries with a variable number of placeholders vary; keep the cache bounded.
      if (this.statements.size >= 2_000) this.statements.clear();
      this.statements.set(sql, (statement = this.db.prepare<unknown[], unknown>(sql)));
    }
    return statement;
  }

  all<T>(sql: string, params: readonly unknown[] = []): Promise<T[]> {
    try {
      return Promise.resolve(this.prepare(sql).all(...params) as T[]);
    } catch (error) {
      return Promise.reject(mapSqliteError(error));
    }
  }

  run(sql: string, params: readonly unknown[] = []): Promise<number> {
    try {
      return Promise.resolve(this.prepare(sql).run(...params).changes);
    } catch (error) {
      return Promise.reject(mapSqliteError(error));
    }
  }
}

export const sqliteDialect: SqlDialect = {
  engine: 'sqlite',
  TRUE: '1',
  FALSE: '0',
  // One writer at a time: there is nothing to skip.
  skipLocked: '',
  // Two shared statements, in the writer's transaction.
  recordWebhookEvent: null,
  jsonFlag: (column, field) => `json_extract(${column}, '$.${field}') = 1`,
  jsonText: (column, field) => `json_extract(${column}, '$.${field}')`,
  // The single writer connection already serialises every write transaction.
  serialize: () => Promise.resolve(),
  mapError: mapSqliteError,
};
