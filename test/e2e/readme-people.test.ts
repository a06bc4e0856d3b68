import { describe, expect, it } from 'vitest';
import { connectHttp, ok } from '../support/mcp-clients.js';
import { holdfastCommands, readDoc } from '../support/docs.js';
import { spawnCli, spawnServer, tempDbPath } from '../support/spawn-server.js';

/** The `holdfast …` lines of docs/people.md, as its reader would type them. */
const commands = holdfastCommands(readDoc('docs/people.md'));

describe('docs/people.md’s people and tokens commands', () => {
  it('run as written against a fresh database', async () => {
    const db = tempDbPath();
    try {
      expect((await spawnCli(['db', 'migrate', '--db', db.path])).status).toBe(0);
      const operator = commands.filter((args) => args[0] !== 'serve');
      expect(operator.map((a) => a.slice(0, 2).join(' '))).toEqual([
        'users add',
        'tokens create',
        'tokens list',
        'hosts add',
        'tenants set',
        'standing-rules grant',
        'standing-rules list',
      ]);
      const out: string[] = [];
      for (const args of operator) {
        const run = await spawnCli([...args, '--db', db.path]);
        expect(run.status, `${args.join(' ')}: ${run.stderr}`).toBe(0);
        out.push(run.stdout);
      }
      expect(out[0]).toMatch(/\/setup\/hf_setup_/);
      expect(out[1]).toMatch(/hf_pat_[\w-]{40,}/);
      expect(out[2]).toContain("Claude on Ana's laptop");
      expect(out[3]).toMatch(/private key/);
      expect(out[4]).toContain('"callsPerMinute":120');
      expect(out[5]).toMatch(
        /^Granted rule_\S+: ana's agents may confirm without asking: any calendar, at most 80\.00 EUR a booking, 3 a day, mon, tue, wed, thu, fri 08:00-18:00 \(Europe\/Berlin\), known customers only/,
      );
      expect(out[6]).toMatch(/rule_\S+\s+yes\s+ana's agents may confirm/);
    } finally {
      db.cleanup();
    }
  });

  it('the deployment line serves behind a TLS proxy (on a free port here)', async () => {
    const serve = commands.find((args) => args[0] === 'serve')!;
    const args = serve.slice(1);
    args.splice(args.indexOf('--port'), 2);
    const server = await spawnServer([...args, '--no-seed']);
    try {
      const agent = await connectHttp(`http://127.0.0.1:${server.port}/mcp`, 'modern', {
        token: server.agent.token,
      });
      expect(await ok(agent, 'list_calendars', { limit: 5 })).toHaveProperty('calendars');
      await agent.close();
    } finally {
      await server.stop();
    }
  });
});
