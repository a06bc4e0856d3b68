import { spawn } from 'node:child_process';
import { afterAll, describe, expect, it } from 'vitest';
import { CLI, tempDbPath } from '../support/spawn-server.js';

const db = tempDbPath();
afterAll(() => db.cleanup());

/** Starts `holdfast serve` with `args`, fetches `paths` once it listens, and returns its stderr. */
async function serveAndRead(args: string[], listening: RegExp, paths: string[] = []): Promise<string> {
  const child = spawn(process.execPath, [CLI, 'serve', '--port', '0', '--db', db.path, ...args], {
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let logs = '';
  try {
    const url = await new Promise<string>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`did not start:\n${logs}`)), 20_000);
      child.stderr.on('data', (chunk: Buffer) => {
        logs += chunk;
        const match = listening.exec(logs);
        if (match) resolve((clearTimeout(timer), match[1]!));
      });
    });
    for (const path of paths) expect((await fetch(new URL(path, url))).status).toBe(200);
    return logs;
  } finally {
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGTERM');
    await exited;
  }
}

describe('the log on stderr', () => {
  it('is JSON lines on a pipe, and no third-party warning: Holdfast names the Node.js lines it supports itself', async () => {
    // The OAuth metadata loads oidc-provider, which warns on every Node.js it does not list.
    const logs = await serveAndRead([], /"url":"(http:[^"]+)"/, ['/.well-known/openid-configuration']);
    const events = logs
      .split('\n')
      .filter((line) => line.startsWith('{'))
      .map((line) => JSON.parse(line) as { level: string; message: string });
    expect(events.map((e) => e.message)).toContain('holdfast listening');
    expect(logs).not.toContain('oidc-provider');
    const supported = ['v22.', 'v24.'].some((line) => process.version.startsWith(line));
    const told = events.filter((e) => e.level === 'warn' && e.message.includes('supports Node.js 22 and 24'));
    expect(told.length).toBe(supported ? 0 : 1);
  }, 30_000);

  it('is one readable line per event with --log-format pretty (what a terminal gets by default)', async () => {
    const logs = await serveAndRead(['--log-format', 'pretty'], /holdfast listening {2}url=(http:\S+)/);
    const line = logs.split('\n').find((l) => l.includes('holdfast listening'))!;
    expect(line).toMatch(/^\d\d:\d\d:\d\dZ holdfast listening {2}url=http:\/\/127\.0\.0\.1:\d+\/mcp /);
    expect(logs.split('\n').filter((l) => l.startsWith('{'))).toEqual([]);
  }, 30_000);
});
