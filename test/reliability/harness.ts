import type pg from 'pg';
import { appendFileSync, mkdirSync } from 'node:fs';
import Database from 'better-sqlite3';
import { afterAll } from 'vitest';
import type { Client } from '@modelcontextprotocol/client';
import { connectHttp } from '../support/mcp-clients.js';
import { freshSchema, withClient } from '../support/postgres.js';
import type { WritePolicy } from '../../src/domain/identity/identity.js';
import type { RunningServer } from '../support/spawn-server.js';
import { spawnServer, tempDbPath } from '../support/spawn-server.js';

/** `npm run reliability` sets RELIABILITY=full; `npm test` runs the same scenarios small. */
export const FULL = process.env.RELIABILITY === 'full';
export const scale = <T>(small: T, full: T): T => (FULL ? full : small);

const FIGURES = '.reliability/figures.jsonl';

/** Keeps a scenario's figures for the table `npm run reliability` prints. */
export function record(
  scenario: string,
  backend: string,
  figures: Record<string, string | number | boolean>,
): void {
  mkdirSync('.reliability', { recursive: true });
  appendFileSync(
    FIGURES,
    `${JSON.stringify({ scenario, backend, full: FULL, at: new Date().toISOString(), ...figures })}\n`,
  );
}

export type BackendKind = 'sqlite' | 'postgres';

export interface Backend {
  readonly kind: BackendKind;
  readonly label: string;
  readonly databaseArgs: string[];
  servers: RunningServer[];
  urls(): string[];
  /** Overlapping active allocations, by a direct query on the database. */
  overlaps(): Promise<number>;
  sql<T>(query: string, params?: unknown[]): Promise<T[]>;
  /** Kills instance i without warning and starts it again on the same database. */
  crashAndRestart(i: number): Promise<void>;
  stop(): Promise<void>;
}

export interface BackendOptions {
  readonly instances?: number;
  readonly serverArgs?: string[];
  readonly env?: Record<string, string>;
  /** The write policy of the token every client uses (default direct: trusted automation). */
  readonly writePolicy?: WritePolicy;
  /** PostgreSQL: the server to use instead of the shared one (one the test owns, to restart or break). */
  readonly postgresUrl?: string;
  /** Runs against the migrated database before the servers take traffic (e.g. to drop a guard). */
  readonly tamper?: (sql: (query: string) => Promise<void>) => Promise<void>;
}

const OVERLAPS_SQLITE = `SELECT count(*) AS n FROM allocations x JOIN allocations y
  ON x.tenant_id = y.tenant_id AND x.calendar_id = y.calendar_id AND x.booking_id < y.booking_id
  WHERE x.active = 1 AND y.active = 1 AND x.start_at < y.end_at AND y.start_at < x.end_at`;
const OVERLAPS_PG = `SELECT count(*)::int AS n FROM allocations x JOIN allocations y
  ON x.tenant_id = y.tenant_id AND x.calendar_id = y.calendar_id AND x.booking_id < y.booking_id
  WHERE x.active AND y.active AND int8range(x.start_at, x.end_at, '[)') && int8range(y.start_at, y.end_at, '[)')`;

export async function startBackend(kind: BackendKind, options: BackendOptions = {}): Promise<Backend> {
  const instances = options.instances ?? (kind === 'postgres' ? 2 : 1);
  const serverArgs = ['--no-seed', ...(options.serverArgs ?? [])];
  const spawnOptions = { env: options.env ?? {}, writePolicy: options.writePolicy ?? 'direct' };
  if (kind === 'sqlite') {
    const db = tempDbPath();
    const sqlite = <T>(query: string, params: unknown[] = []): T[] => {
      const conn = new Database(db.path);
      try {
        const statement = conn.prepare(query);
        return (statement.reader ? statement.all(...params) : (statement.run(...params), [])) as T[];
      } finally {
        conn.close();
      }
    };
    const first = await spawnServer(['--db', db.path, ...serverArgs], { ...spawnOptions, dbPath: db.path });
    if (options.tamper) await options.tamper(async (q) => void sqlite(q));
    const backend: Backend = {
      kind,
      label: 'SQLite, 1 instance',
      databaseArgs: ['--db', db.path],
      servers: [first],
      urls: () => backend.servers.map((s) => s.url),
      overlaps: async () => sqlite<{ n: number }>(OVERLAPS_SQLITE)[0]!.n,
      sql: async (query, params) => sqlite(query, params),
      async crashAndRestart(i) {
        backend.servers[i]!.process.kill('SIGKILL');
        await new Promise((resolve) => backend.servers[i]!.process.once('exit', resolve));
        backend.servers[i] = await spawnServer(['--db', db.path, ...serverArgs], {
          ...spawnOptions,
          dbPath: db.path,
        });
      },
      async stop() {
        await Promise.all(backend.servers.map((s) => s.stop()));
        db.cleanup();
      },
    };
    return backend;
  }
  const base = options.postgresUrl;
  const schema = freshSchema(base);
  const inSchema = <T>(fn: (client: pg.Client) => Promise<T>) => withClient(schema.name, fn, base);
  const args = [...schema.args, ...serverArgs];
  const first = await spawnServer(args, spawnOptions);
  if (options.tamper) await options.tamper(async (q) => void (await inSchema((c) => c.query(q))));
  const rest = await Promise.all(
    Array.from({ length: instances - 1 }, () => spawnServer(args, spawnOptions)),
  );
  const backend: Backend = {
    kind,
    label: `PostgreSQL, ${instances} instance${instances > 1 ? 's' : ''}`,
    databaseArgs: schema.args,
    servers: [first, ...rest],
    urls: () => backend.servers.map((s) => s.url),
    overlaps: async () => inSchema(async (c) => (await c.query(OVERLAPS_PG)).rows[0].n as number),
    sql: (query, params) => inSchema(async (c) => (await c.query(query, params)).rows),
    async crashAndRestart(i) {
      backend.servers[i]!.process.kill('SIGKILL');
      await new Promise((resolve) => backend.servers[i]!.process.once('exit', resolve));
      backend.servers[i] = await spawnServer(args, spawnOptions);
    },
    async stop() {
      await Promise.all(backend.servers.map((s) => s.stop()));
      await schema.drop();
    },
  };
  return backend;
}

/**
 * A backend started on first use and stopped after the enclosing describe block: for scenarios
 * that each work on calendars of their own and need no fresh database.
 */
export function sharedBackend(start: () => Promise<Backend>): () => Promise<Backend> {
  let started: Promise<Backend> | null = null;
  afterAll(async () => {
    if (started) await (await started).stop();
  });
  return () => (started ??= start());
}

/** `count` official SDK clients spread round-robin over the instances, both protocol eras. */
export async function clientsFor(backend: Backend, count: number): Promise<Client[]> {
  const urls = backend.urls();
  return Promise.all(
    Array.from({ length: count }, (_, i) =>
      connectHttp(urls[i % urls.length]!, i % 3 === 2 ? 'legacy' : 'modern'),
    ),
  );
}

export function percentile(sorted: number[], p: number): number {
  return sorted.length === 0
    ? NaN
    : sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}
