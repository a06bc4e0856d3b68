import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { DOC_PATHS } from '../support/docs.js';
import { describe, expect, it } from 'vitest';
import { connectHttp, ok } from '../support/mcp-clients.js';
import { runCli, tempDbPath } from '../support/spawn-server.js';

describe('the README commands', () => {
  it('`npm start` builds, seeds the demo calendars, prints the first-owner link and serves MCP', async () => {
    const db = tempDbPath();
    // The README's command, on a free port and a scratch database instead of 3000 and ./data.
    const child = spawn('npm', ['start', '--silent', '--', '--port', '0', '--db', db.path], {
      stdio: ['ignore', 'ignore', 'pipe'],
      detached: true,
    });
    try {
      let log = '';
      const [url, setupUrl] = await new Promise<[string, string]>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`npm start did not listen:\n${log}`)), 60_000);
        child.once('exit', (code) =>
          reject(new Error(`npm start exited with ${code} before listening:\n${log}`)),
        );
        child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
          log += chunk;
          const url = /"url":"(http:\/\/[^"]+)"/.exec(log)?.[1];
          const setup = /(http:\/\/\S+\/setup\/hf_setup_\S+)/.exec(log)?.[1];
          if (url && setup) {
            clearTimeout(timer);
            resolve([url, setup]);
          }
        });
      });
      // What the README says next: open the link to create the owner, then make the agent a token.
      const created = await fetch(setupUrl, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded', origin: new URL(setupUrl).origin },
        body: new URLSearchParams({ email: 'you@example.com', password: 'a long enough password' }),
      });
      expect(created.status, await created.clone().text()).toBe(200);
      const made = await runCli(['tokens', 'create', 'you@example.com', '--db', db.path, '--json']);
      expect(made.status, made.stderr).toBe(0);
      const { token } = JSON.parse(made.stdout) as { token: string };
      const client = await connectHttp(url, 'modern', { token });
      const { calendars } = await ok(client, 'list_calendars', {});
      expect(calendars.map((c: { name: string }) => c.name)).toContain('Jade Room (meeting room)');
      await client.close();
      expect(log).toContain('seeded demo calendars');
    } finally {
      // Its process group may be gone already (it exited): the failure above is the one to see.
      if (child.exitCode === null && child.signalCode === null) {
        const exited = new Promise((resolve) => child.once('exit', resolve));
        process.kill(-child.pid!, 'SIGTERM');
        await exited;
      }
      db.cleanup();
    }
  }, 90_000);

  it('every npm script the README and docs/ name exists', () => {
    const readme = DOC_PATHS.map((path) => readFileSync(path, 'utf8')).join('\n');
    const scripts = (JSON.parse(readFileSync('package.json', 'utf8')) as { scripts: Record<string, string> })
      .scripts;
    const named = [...readme.matchAll(/npm run ([\w:-]+)/g)].map((m) => m[1]!);
    expect(named.length).toBeGreaterThan(3);
    for (const name of new Set(named)) expect(scripts, `npm run ${name}`).toHaveProperty(name);
  });
});
