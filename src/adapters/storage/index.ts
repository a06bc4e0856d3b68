import type { Pool } from 'pg';
import type { Store } from '../../ports/store/index.js';

/** What a shared database lends the caches and limits that several instances must agree on. */
export interface SharedDatabase {
  readonly pool: Pool;
  readonly schema: string;
  /** The connection URL without Holdfast's `?schema=` parameter (for a LISTEN connection). */
  readonly connectionString: string;
}

export interface OpenedStore {
  readonly store: Store;
  /** For traces and logs: which engine answers. */
  readonly engine: 'sqlite' | 'postgresql';
  /** PostgreSQL: what instances share; SQLite: null (one process, nothing to share). */
  readonly shared: SharedDatabase | null;
}

export function isPostgresUrl(database: string): boolean {
  return /^postgres(ql)?:\/\//.test(database);
}

/**
 * Opens (and migrates) a SQLite file path or a postgres:// URL. Only the engine asked for is
 * loaded. `create: false` refuses a database that does not exist yet.
 */
export async function openStore(
  database: string,
  options: {
    readonly create: boolean;
    /** A server writes from a thread of its own; a one-off command writes on its own thread. */
    readonly longRunning: boolean;
    /** PostgreSQL: the most connections to hold. */
    readonly maxConnections?: number;
    /** PostgreSQL: how long a statement may go unanswered. */
    readonly queryTimeoutMs?: number;
    /** PostgreSQL: connections the database dropped, listeners lost and restored (never fatal). */
    readonly warn?: (message: string, fields: Record<string, unknown>) => void;
  },
): Promise<OpenedStore> {
  const { create } = options;
  if (!isPostgresUrl(database)) {
    const { SqliteStore } = await import('./sqlite/sqlite-store.js');
    const writer = options.longRunning ? 'thread' : 'inline';
    return { store: await SqliteStore.open(database, { create, writer }), engine: 'sqlite', shared: null };
  }
  const { PgStore } = await import('./postgres/pg-store.js');
  const store = await PgStore.open(database, {
    create,
    maxConnections: options.maxConnections,
    cacheCredentials: options.longRunning,
    ...(options.warn ? { warn: options.warn } : {}),
    ...(options.queryTimeoutMs ? { queryTimeoutMs: options.queryTimeoutMs } : {}),
  });
  const { connectionString } = PgStore.parseUrl(database);
  return {
    store,
    engine: 'postgresql',
    shared: { pool: store.pool, schema: store.schema, connectionString },
  };
}
export { DatabaseMissingError } from './database-missing.js';
