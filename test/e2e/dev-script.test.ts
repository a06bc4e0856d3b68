import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { rmSync, writeFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { tempDbPath } from '../support/spawn-server.js';

// `npm run dev` as a developer uses it: it builds, serves, and after a change under src/ builds
// again and restarts the server on a new process; Ctrl-C (SIGTERM here) stops everything.
describe('npm run dev', () => {
  it('serves, rebuilds and restarts on a change under src/, and stops on a signal', async () => {
    const db = tempDbPath();
    const name = `dev-touch-${randomBytes(4).toString('hex')}`;
    const touched = `src/main/${name}.ts`;
    const dev = spawn('npm', ['run', 'dev', '--silent', '--', '--port', '0', '--no-seed', '--db', db.path], {
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    });
    let output = '';
    dev.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
    dev.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const until = (pattern: RegExp, after = 0) =>
      new Promise<string>((resolve, reject) => {
        const started = Date.now();
        const timer = setInterval(() => {
          const match = pattern.exec(output.slice(after));
          if (match) {
            clearInterval(timer);
            resolve(match[1] ?? match[0]);
          } else if (Date.now() - started > 120_000) {
            clearInterval(timer);
            reject(new Error(`no ${pattern} in:\n${output}`));
          }
        }, 100);
      });
    let second: string | undefined;
    try {
      const first = await until(/"url":"(http:\/\/[^"]+)"/);
      expect((await fetch(new URL('/healthz', first))).status).toBe(200);
      const mark = output.length;
      writeFileSync(touched, '// written by test/e2e/dev-script.test.ts and removed by it\nexport {};\n');
      await until(/dev: rebuilt; server restarted/, mark);
      second = await until(/"url":"(http:\/\/[^"]+)"/, mark);
      expect((await fetch(new URL('/healthz', second))).status).toBe(200);
    } finally {
      rmSync(touched, { force: true });
      rmSync(`dist/main/${name}.js`, { force: true });
      rmSync(`dist/main/${name}.js.map`, { force: true });
      const exited = new Promise<void>((resolve) => dev.once('exit', () => resolve()));
      process.kill(-dev.pid!, 'SIGTERM');
      await exited;
      db.cleanup();
    }
    // Stopped means stopped: nothing answers where the restarted server was. npm's shell can exit
    // before the server has drained its connections, so allow the graceful stop a bounded time.
    expect(second).toBeDefined();
    expect(await refusesWithin(new URL('/healthz', second!), 20_000)).toBe(true);
  }, 240_000);
});

async function refusesWithin(url: URL, ms: number): Promise<boolean> {
  const until = Date.now() + ms;
  while (Date.now() < until) {
    try {
      await fetch(url);
    } catch {
      return true;
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  return false;
}
