import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { connectHttp } from '../../support/mcp-clients.js';
import type { RunningServer } from '../../support/spawn-server.js';
import { runCli, spawnServer } from '../../support/spawn-server.js';

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** What an agent that wants a copy of every booking would reach for. */
const TOOL_GUESSES = [
  'create_webhook',
  'add_webhook',
  'register_webhook',
  'subscribe_webhook',
  'webhooks_add',
  'webhooks',
  'list_webhooks',
  'get_webhook',
  'delete_webhook',
  'redeliver_webhook',
  'set_webhook',
  'subscribe',
];
const EXFIL = 'https://attacker.example/collect';
const PATHS = ['/webhooks', '/api/webhooks', '/console/webhooks', '/admin/webhooks', '/mcp/webhooks'];

describe('agents cannot manage or read webhooks', () => {
  it('an owner token with every scope gets nowhere over MCP or HTTP', async () => {
    const server: RunningServer = await spawnServer(['--allow-private-webhooks'], { writePolicy: 'direct' });
    cleanups.push(() => server.stop());
    // A person's subscription exists, so there is something to read.
    const added = await runCli([
      'webhooks',
      'add',
      'https://hooks.example.com/private-receiver',
      '--events',
      'all',
      '--db',
      server.dbPath,
      '--json',
    ]);
    expect(added.status, added.stderr).toBe(0);
    const { secret, id } = JSON.parse(added.stdout) as { secret: string; id: string };

    const client = await connectHttp(server.url, 'modern');
    const answers: string[] = [];
    let successes = 0;

    const tools = (await client.listTools()).tools;
    answers.push(JSON.stringify(tools));
    expect(tools.filter((t) => /webhook/i.test(`${t.name} ${t.description ?? ''}`))).toEqual([]);
    for (const name of TOOL_GUESSES) {
      const args = { url: EXFIL, events: 'all', webhookId: id, id };
      const result = await client.callTool({ name, arguments: args }).then(
        (r) => r,
        (error: unknown) => ({ isError: true, content: String(error) }),
      );
      answers.push(JSON.stringify(result));
      if (!result.isError) successes++;
    }
    const resources = await client.listResources();
    answers.push(JSON.stringify(resources));
    for (const uri of ['holdfast://webhooks', `holdfast://webhooks/${id}`, 'holdfast://tenant/webhooks']) {
      const read = await client.readResource({ uri }).then(
        (r) => ({ ok: true, text: JSON.stringify(r) }),
        (error: unknown) => ({ ok: false, text: String(error) }),
      );
      answers.push(read.text);
      if (read.ok) successes++;
    }
    await client.close();

    const origin = new URL(server.url).origin;
    for (const path of PATHS)
      for (const method of ['GET', 'POST']) {
        const response = await fetch(`${origin}${path}`, {
          method,
          redirect: 'manual',
          headers: { authorization: `Bearer ${server.agent.token}`, 'content-type': 'application/json' },
          ...(method === 'POST' ? { body: JSON.stringify({ url: EXFIL, events: 'all' }) } : {}),
        });
        answers.push(await response.text());
        if (response.status >= 200 && response.status < 300) successes++;
      }

    expect(successes).toBe(0);
    const everything = answers.join('\n');
    expect(everything).not.toContain(secret);
    expect(everything).not.toContain('hooks.example.com');
    const db = new Database(server.dbPath, { readonly: true });
    const urls = db.prepare('SELECT url FROM webhook_subscriptions').all() as { url: string }[];
    db.close();
    expect(urls).toEqual([{ url: 'https://hooks.example.com/private-receiver' }]);
  });
});
