import { describe, expect, it } from 'vitest';
import { demoCalendars } from '../../src/main/runtime/seed.js';
import { freshSchema, withClient } from '../support/postgres.js';
import { spawnServer } from '../support/spawn-server.js';

describe('two instances starting at the same instant on an empty PostgreSQL schema', () => {
  it.each([1, 2, 3])('seed the demo calendars exactly once (try %i)', async () => {
    const schema = freshSchema();
    const servers = await Promise.all([spawnServer(schema.args), spawnServer(schema.args)]);
    try {
      const names = await withClient(schema.name, async (c) =>
        (await c.query<{ name: string }>('SELECT name FROM calendars ORDER BY name')).rows.map((r) => r.name),
      );
      expect(names).toEqual(demoCalendars.map((d) => d.name).sort());
    } finally {
      await Promise.all(servers.map((s) => s.stop()));
      await schema.drop();
    }
  });
});

describe('processes starting together on a new SQLite file', () => {
  it('migrate it once, without tripping over each other (10 rounds of 3 at once)', async () => {
    const { spawn } = await import('node:child_process');
    const { tempDbPath, CLI } = await import('../support/spawn-server.js');
    const failures: string[] = [];
    for (let round = 0; round < 10; round++) {
      const db = tempDbPath();
      const runs = await Promise.all(
        Array.from(
          { length: 3 },
          () =>
            new Promise<{ code: number | null; stderr: string }>((resolve) => {
              const child = spawn(process.execPath, [CLI, 'db', 'migrate', '--db', db.path]);
              let stderr = '';
              child.stderr.on('data', (chunk) => (stderr += chunk));
              child.on('exit', (code) => resolve({ code, stderr }));
            }),
        ),
      );
      for (const run of runs) if (run.code !== 0) failures.push(run.stderr.trim());
      db.cleanup();
    }
    expect(failures).toEqual([]);
  }, 120_000);
});
