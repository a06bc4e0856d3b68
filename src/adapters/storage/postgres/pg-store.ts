import pg from 'pg';
import type { PoolClient } from 'pg';
import type { Instant } from '../../../domain/time/instant.js';
import type { Credential, Store, StoreTx } from '../../../ports/store/index.js';
import type { AggregateClass, AggregateOverrides } from '../sql/aggregates.js';
import type { SqlStoreTx } from '../sql/sql-store-tx.js';
import { TokensSql } from '../sql/tokens-sql.js';
import { sqlStoreTx } from '../sql/sql-store-tx.js';
import { singleCall } from '../sql/single-call.js';
import type { Migration, MigrationTarget } from '../migration.js';
import { runMigrations } from '../migration.js';
import { mapPgError, RETRYABLE_SQLSTATES, sqlStateOf } from './pg-errors.js';
import { databaseUnavailable, isConnectionLoss, isSlowLoss, isUnavailable } from './pg-connection-loss.js';
import { DatabaseMissingError } from '../database-missing.js';
import { pgMigrations } from './pg-migrations.js';
import { PgBookings } from './pg-bookings.js';
import { PgFeeds } from './pg-feeds.js';
import { PgCredentialCache } from './pg-credential-cache.js';
import { PgRunner, pgDialect } from './pg-sql.js';

export interface PgStoreOptions {
  /** Schema to keep Holdfast's tables in (tests use one each); default `public`. */
  readonly schema?: string;
  readonly maxConnections?: number;
  /** false: refuse a schema Holdfast never created, instead of creating it. */
  readonly create?: boolean;
  /** A server: remember credentials between calls (pg-credential-cache.ts); a one-off command reads once. */
  readonly cacheCredentials?: boolean;
  /** Told of a pooled connection the database dropped, and of listeners lost and restored. */
  readonly warn?: (message: string, fields: Record<string, unknown>) => void;
  /** A statement not answered within this is given up and its connection dropped (`--pg-query-timeout`). */
  readonly queryTimeoutMs?: number;
}

/** A new connection not made within this answers UNAVAILABLE: a call never hangs on a dead server. */
const CONNECT_TIMEOUT_MS = 5_000;
const DEFAULT_QUERY_TIMEOUT_MS = 15_000;
/** After a call found the database by a timeout, the next ones are told at once for this long. */
const AWAY_MS = 2_000;
/** A fresh connection is tried again this often when the first attempt found the server away. */
const ACQUIRE_ATTEMPTS = 3;

const MAX_ATTEMPTS = 6;
const SCHEMA_NAME = /^[a-z_][a-z0-9_]{0,62}$/;

/**
 * Store on PostgreSQL for several stateless instances: one short transaction
 * per use case on a pooled connection. Serialization failures and deadlocks
 * (40001, 40P01) are retried as whole transactions; the exclusion constraint
 * refuses overlaps (23P01).
 */
export class PgStore implements Store {
  private credentials: PgCredentialCache | null = null;
  private aggregates: AggregateOverrides = PG_AGGREGATES;

  private constructor(
    readonly pool: pg.Pool,
    readonly schema: string,
  ) {}

  /** Splits `?schema=name` off a connection URL. */
  static parseUrl(url: string): { connectionString: string; schema: string } {
    const parsed = new URL(url);
    const schema = parsed.searchParams.get('schema') ?? 'public';
    parsed.searchParams.delete('schema');
    return { connectionString: parsed.toString(), schema };
  }

  static async open(url: string, options: PgStoreOptions = {}): Promise<PgStore> {
    const parsed = PgStore.parseUrl(url);
    const schema = options.schema ?? parsed.schema;
    if (!SCHEMA_NAME.test(schema)) throw new Error(`Invalid schema name "${schema}"`);
    const settings = {
      connectionString: parsed.connectionString,
      // btree_gist's operator classes live in public.
      options: `-c search_path=${schema},public`,
    };
    const queryTimeoutMs = options.queryTimeoutMs ?? DEFAULT_QUERY_TIMEOUT_MS;
    const pool = new pg.Pool({
      ...settings,
      max: options.maxConnections ?? 20,
      // Bounds on each connection, not on the pool's queue: past the pool a call waits for a
      // connection, as it always did; only a server that does not answer is given up on.
      Client: class BoundedClient extends pg.Client {
        constructor(config?: pg.ClientConfig) {
          super({
            ...config,
            connectionTimeoutMillis: CONNECT_TIMEOUT_MS,
            query_timeout: queryTimeoutMs,
            keepAlive: true,
            keepAliveInitialDelayMillis: 10_000,
          });
        }
      },
    });
    // An idle pooled connection the server dropped (a restart, a fail-over) emits 'error' on the
    // pool: unhandled, that would end the process. The pool has already let go of it.
    const warn = options.warn ?? (() => undefined);
    pool.on('error', (error) => warn('database connection lost', { error: error.message }));
    // A connection lost while checked out (between a transaction's statements) emits 'error' on
    // its client, which nothing else listens to then; its next statement fails, and the call with it.
    pool.on('connect', (client) => client.on('error', () => undefined));
    const store = new PgStore(pool, schema);
    try {
      // Migrations on a connection of their own, without the statement bound (an index may take long).
      await store.prepare(options.create ?? true, settings);
    } catch (error) {
      await pool.end();
      throw error;
    }
    if (options.cacheCredentials) {
      const cache = await PgCredentialCache.start(parsed.connectionString, schema, warn);
      store.credentials = cache;
      store.aggregates = { ...PG_AGGREGATES, tokens: cachedTokens(cache) };
    }
    return store;
  }

  private async prepare(create: boolean, settings: pg.ClientConfig): Promise<void> {
    const client = new pg.Client(settings);
    client.on('error', () => undefined);
    await client.connect();
    try {
      if (!create) {
        const { rows } = await client.query<{ found: string | null }>('SELECT to_regclass($1) AS found', [
          `${this.schema}.schema_migrations`,
        ]);
        if (rows[0]?.found === null) throw new DatabaseMissingError(`schema ${this.schema}`);
      }
      const { rows } = await client.query<{ synchronous_commit: string }>('SHOW synchronous_commit');
      if (rows[0]?.synchronous_commit !== 'on') {
        throw new Error(`PostgreSQL synchronous_commit is ${rows[0]?.synchronous_commit}, expected on`);
      }
      await migrate(client, this.schema);
    } finally {
      await client.end().catch(() => undefined);
    }
  }

  read<T>(work: (tx: StoreTx) => Promise<T>): Promise<T> {
    return this.transaction('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY', work);
  }

  write<T>(work: (tx: StoreTx) => Promise<T>): Promise<T> {
    return this.transaction('BEGIN', work);
  }

  /** One statement needs no snapshot of its own: BEGIN and COMMIT would triple its round trips. */
  async readOne<T>(work: (tx: StoreTx) => Promise<T>): Promise<T> {
    this.refuseWhileAway();
    try {
      return await work(singleCall(this.tx(new PgRunner(this.pool))));
    } catch (error) {
      this.noteLoss(error);
      throw mapPgError(error);
    }
  }

  /** Until this instant a call is answered UNAVAILABLE at once (the last one waited out a timeout). */
  private awayUntil = 0;

  private refuseWhileAway(): void {
    const left = this.awayUntil - Date.now();
    if (left > 0) throw databaseUnavailable(left);
  }

  /** A loss found by a timeout: the next calls need not wait one out too. */
  private noteLoss(error: unknown): void {
    const cause = (error as { cause?: unknown } | null)?.cause;
    if (isSlowLoss(error) || isSlowLoss(cause)) this.awayUntil = Date.now() + AWAY_MS;
  }

  /** The one call runs on the pool without BEGIN/COMMIT: one autocommitted statement is one round trip. */
  writeOne<T>(work: (tx: StoreTx) => Promise<T>): Promise<T> {
    return this.retrying(async () => {
      const tx = this.tx(new PgRunner(this.pool));
      const result = await work(singleCall(tx));
      for (const callback of tx.committed) callback();
      return result;
    });
  }

  private tx(runner: PgRunner): SqlStoreTx {
    return sqlStoreTx(runner, pgDialect, this.aggregates);
  }

  /** Remembering credentials, with its connection listening for their changes (tests, health). */
  get credentialsListening(): boolean {
    return this.credentials?.listening ?? false;
  }

  private transaction<T>(begin: string, work: (tx: StoreTx) => Promise<T>): Promise<T> {
    return this.retrying(async () => {
      const client = await this.begun(begin);
      // A connection lost mid-transaction is destroyed, never handed to the next call.
      let broken: Error | undefined;
      try {
        const tx = this.tx(new PgRunner(client));
        const result = await work(tx);
        await client.query('COMMIT');
        for (const callback of tx.committed) callback();
        return result;
      } catch (error) {
        if (isUnavailable(error)) broken = error instanceof Error ? error : new Error(String(error));
        else await client.query('ROLLBACK').catch(() => undefined);
        throw error;
      } finally {
        client.release(broken);
      }
    });
  }

  /**
   * A connection with its transaction begun. A pooled connection the server dropped while idle, or
   * a server not back yet, fails before anything was sent: that is tried again on a fresh
   * connection, briefly (then the call answers UNAVAILABLE).
   */
  private async begun(begin: string): Promise<PoolClient> {
    for (let attempt = 1; ; attempt++) {
      let client: PoolClient | null = null;
      try {
        client = await this.pool.connect();
        await client.query(begin);
        return client;
      } catch (error) {
        // A broken connection is not returned to the pool.
        client?.release(error instanceof Error ? error : true);
        if (!isConnectionLoss(error) || attempt >= ACQUIRE_ATTEMPTS) throw error;
        await new Promise((resolve) => setTimeout(resolve, 50 * attempt));
      }
    }
  }

  /** Serialization failures, deadlocks and a racing first use of one idempotency key run the whole unit again. */
  private async retrying<T>(attempt: () => Promise<T>): Promise<T> {
    this.refuseWhileAway();
    for (let n = 1; ; n++) {
      try {
        return await attempt();
      } catch (error) {
        this.noteLoss(error);
        const state = sqlStateOf(error) ?? sqlStateOf((error as { cause?: unknown }).cause);
        const idempotencyRace =
          state === '23505' && (error as { constraint?: string }).constraint === 'idempotency_pkey';
        if ((RETRYABLE_SQLSTATES.has(state ?? '') || idempotencyRace) && n < MAX_ATTEMPTS) {
          await new Promise((resolve) => setTimeout(resolve, Math.random() * 5 * n));
          continue;
        }
        throw mapPgError(error);
      }
    }
  }

  async close(): Promise<void> {
    await this.credentials?.close();
    await this.pool.end();
  }
}

/** PostgreSQL's own SQL for a hold in one statement and for busy time under a lock. */
const PG_AGGREGATES: AggregateOverrides = { bookings: PgBookings, feeds: PgFeeds };

/** Tokens whose credential lookup goes through a server's cache, and whose touch keeps it in step. */
function cachedTokens(cache: PgCredentialCache): AggregateClass<'tokens'> {
  return class CachedTokens extends TokensSql {
    override credentialOf(secretHash: string): Promise<Credential | null> {
      return cache.credentialOf(secretHash, (hash) => super.credentialOf(hash));
    }

    override async touchToken(id: string, now: Instant): Promise<void> {
      await super.touchToken(id, now);
      cache.touched(id, now);
    }
  };
}

/**
 * Applies pending migrations under an advisory lock, so instances starting together do not race
 * (the lock also makes each `apply` the only one: none can find its version taken).
 */
async function migrate(
  client: pg.ClientBase,
  schema: string,
  migrations: readonly Migration[] = pgMigrations,
): Promise<void> {
  await client.query('SELECT pg_advisory_lock(hashtext($1))', [`holdfast-migrate:${schema}`]);
  try {
    await client.query('CREATE EXTENSION IF NOT EXISTS btree_gist WITH SCHEMA public');
    await client.query(`CREATE SCHEMA IF NOT EXISTS ${schema}`);
    await runMigrations(pgMigrationTarget(client), migrations);
  } finally {
    await client.query('SELECT pg_advisory_unlock(hashtext($1))', [`holdfast-migrate:${schema}`]);
  }
}

function pgMigrationTarget(client: pg.ClientBase): MigrationTarget {
  return {
    async appliedVersions() {
      await client.query(
        'CREATE TABLE IF NOT EXISTS schema_migrations (version integer PRIMARY KEY, name text NOT NULL, applied_at timestamptz NOT NULL)',
      );
      const { rows } = await client.query<{ version: number }>('SELECT version FROM schema_migrations');
      return rows.map((r) => r.version);
    },
    async apply(migration) {
      await client.query('BEGIN');
      try {
        await client.query(migration.sql);
        await client.query(
          'INSERT INTO schema_migrations (version, name, applied_at) VALUES ($1, $2, now())',
          [migration.version, migration.name],
        );
        await client.query('COMMIT');
        return true;
      } catch (error) {
        await client.query('ROLLBACK');
        throw error;
      }
    },
  };
}
