import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';

/** CI and this machine run PostgreSQL on 127.0.0.1:5432 (trust auth); override with TEST_DATABASE_URL. */
export const PG_URL = process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

/**
 * A schema of its own for one test file, dropped afterwards, and an audit key file of its own
 * that every instance and CLI call on the schema shares (`args`).
 */
export function freshSchema(base: string = PG_URL): {
  name: string;
  url: string;
  args: string[];
  drop: () => Promise<void>;
} {
  const name = `hf_test_${randomBytes(6).toString('hex')}`;
  const keyDir = mkdtempSync(join(tmpdir(), 'holdfast-pg-'));
  const url = `${base}?schema=${name}`;
  return {
    name,
    url,
    args: ['--database', url, '--audit-key-file', join(keyDir, 'audit.key')],
    async drop() {
      rmSync(keyDir, { recursive: true, force: true });
      const client = new pg.Client({ connectionString: base });
      await client.connect();
      await client.query(`DROP SCHEMA IF EXISTS ${name} CASCADE`);
      await client.end();
    },
  };
}

export async function withClient<T>(
  schema: string,
  fn: (client: pg.Client) => Promise<T>,
  base: string = PG_URL,
): Promise<T> {
  const client = new pg.Client({ connectionString: base, options: `-c search_path=${schema},public` });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}
