import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createOpenCalendar } from '../support/fixtures.js';
import { connectHttp } from '../support/mcp-clients.js';
import type { RunningServer } from '../support/spawn-server.js';
import { runCli, spawnServer } from '../support/spawn-server.js';

// The links the command line prints (a setup link, a feed's address) lead to the server people
// use: the address it serves at, recorded in the database when it starts — not port 3000.

let server: RunningServer;
beforeAll(async () => {
  server = await spawnServer(['--no-seed']);
});
afterAll(async () => {
  await server?.stop();
});

describe('links printed by the command line', () => {
  it('users add, users setup-link and feeds create print the running server’s address', async () => {
    const origin = new URL(server.url).origin;
    expect(origin).not.toBe('http://127.0.0.1:3000');
    const email = `cli-${randomUUID().slice(0, 8)}@local.example`;
    const added = await runCli(['users', 'add', email, '--role', 'viewer', '--db', server.dbPath]);
    expect(added.status, added.stderr).toBe(0);
    const again = await runCli(['users', 'setup-link', email, '--db', server.dbPath]);
    const agent = await connectHttp(server.url, 'modern');
    const room = await createOpenCalendar(agent, 'Linked room');
    await agent.close();
    const feed = await runCli(['feeds', 'create', room, '--db', server.dbPath]);
    expect(feed.status, feed.stderr).toBe(0);
    for (const printed of [added.stdout, again.stdout, feed.stdout]) {
      const links = printed.match(/https?:\/\/[^\s"]+/g) ?? [];
      expect(links.length, printed).toBeGreaterThan(0);
      for (const link of links) expect(new URL(link).origin, printed).toBe(origin);
    }
    // The printed setup link works on that server.
    const setup = added.stdout.match(/https?:\/\/\S+\/setup\/\S+/)![0];
    expect((await fetch(setup, { redirect: 'manual' })).status).toBe(200);
  });

  it('--public-url wins over the recorded address', async () => {
    const email = `cli-${randomUUID().slice(0, 8)}@local.example`;
    const added = await runCli([
      'users',
      'add',
      email,
      '--public-url',
      'https://book.example.com',
      '--db',
      server.dbPath,
    ]);
    expect(added.status, added.stderr).toBe(0);
    expect(added.stdout).toContain('https://book.example.com/setup/');
  });
});
