import { describe, expect, it } from 'vitest';
import { demoCalendars } from '../../src/main/seed.js';
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
