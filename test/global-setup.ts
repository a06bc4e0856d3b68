import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { testPostgres } from './support/test-postgres.js';

/** The newest modification time under a directory. */
function newest(dir: string): number {
  let latest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    latest = Math.max(latest, entry.isDirectory() ? newest(path) : statSync(path).mtimeMs);
  }
  return latest;
}

/**
 * End-to-end tests spawn the built entry point: build it when missing or older than the
 * sources. Then find PostgreSQL for the tests that need it and hand its URL to every worker.
 */
export default async function setup(): Promise<() => Promise<void>> {
  if (!existsSync('dist/bin/holdfast.js') || newest('src') > newest('dist'))
    execFileSync('npm', ['run', 'build', '--silent'], { stdio: 'inherit' });
  if (process.env.DATABASE_URL)
    console.log(
      'DATABASE_URL is not used by the tests (they create and drop schemas); set TEST_DATABASE_URL.',
    );
  const postgres = await testPostgres(process.env);
  process.env.TEST_DATABASE_URL = postgres.url;
  // Three test files at once, each with up to two spawned instances on PostgreSQL, stay well
  // under a server's default 100 connections (instances otherwise hold up to 20 each).
  process.env.HOLDFAST_PG_POOL_SIZE ??= '8';
  console.log(`PostgreSQL for the tests: ${postgres.source}`);
  return () => postgres.stop();
}
