import { randomBytes } from 'node:crypto';
import pg from 'pg';

/** CI and this machine run PostgreSQL on 127.0.0.1:5432 (trust auth); override with TEST_DATABASE_URL. */
export const PG_URL = process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

/** A schema of its own for one test file, dropped afterwards. */
export function freshSchema(): { name: string; url: string; drop: () => Promise<void> } {
  const name = `hf_test_${randomBytes(6).toString('hex')}`;
  return {
    name,
    url: `${PG_URL}?schema=${name}`,
    async drop() {
      const client = new pg.Client({ connectionString: PG_URL });
      await client.connect();
      await client.query(`DROP SCHEMA IF EXISTS ${name} CASCADE`);
      await client.end();
    },
  };
}

export async function withClient<T>(schema: string, fn: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: PG_URL, options: `-c search_path=${schema},public` });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}
