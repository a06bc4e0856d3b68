/**
 * The subset of a database connection the SQL of every aggregate needs: statements with `?`
 * placeholders, rows out, affected-row counts. Each engine adapts its driver to it.
 */
export interface SqlRunner {
  all<T>(sql: string, params?: readonly unknown[]): Promise<T[]>;
  /** Affected rows. */
  run(sql: string, params?: readonly unknown[]): Promise<number>;
}

/** What differs between the engines, and only that (in the spirit of Kysely's dialect adapters). */
export interface SqlDialect {
  readonly engine: 'sqlite' | 'postgres';
  /** Literal truth of a boolean column in SQL text (SQLite stores 0/1). */
  readonly TRUE: string;
  readonly FALSE: string;
  /** A row lock that skips rows another transaction holds (PostgreSQL), or nothing (SQLite: one writer). */
  readonly skipLocked: string;
  /**
   * One statement that records a webhook event and fans it out to its deliveries (PostgreSQL: the
   * function its booking triggers call, so both paths write alike), answering `written`; null
   * where the shared statements do it.
   */
  readonly recordWebhookEvent: string | null;
  /** SQL testing a boolean field of a JSON text column. */
  jsonFlag(column: string, field: string): string;
  /** SQL reading a text field (`a` or nested `a.b`) of a JSON text column (NULL when absent). */
  jsonText(column: string, field: string): string;
  /** Serialises transactions that name the same key, until they end. */
  serialize(runner: SqlRunner, key: string): Promise<void>;
  /** The one place a driver's failures become domain errors; anything unknown stays internal. */
  mapError(error: unknown): unknown;
}

/** `?, ?, ?` */
export const placeholders = (n: number): string => Array.from({ length: n }, () => '?').join(', ');
