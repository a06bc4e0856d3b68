import { spawn, spawnSync } from 'node:child_process';
import Database from 'better-sqlite3';
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export const CLI = join(process.cwd(), 'dist/main/cli.js');

export interface RunningServer {
  readonly url: string;
  readonly port: number;
  readonly dbPath: string;
  readonly process: ChildProcess;
  readonly logs: string[];
  stop(): Promise<void>;
}

export function tempDbPath(): { path: string; cleanup: () => void } {
  const dir = mkdtempSync(join(tmpdir(), 'holdfast-'));
  return { path: join(dir, 'holdfast.db'), cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

/** Spawns the real entry point on a free port and waits until it listens. */
export async function spawnServer(
  args: string[] = [],
  options: { env?: Record<string, string>; dbPath?: string } = {},
): Promise<RunningServer> {
  const db = options.dbPath ? { path: options.dbPath, cleanup: () => undefined } : tempDbPath();
  const where = args.includes('--database') ? [] : ['--db', db.path];
  const child = spawn(process.execPath, [CLI, 'serve', '--port', '0', ...where, ...args], {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, ...options.env },
  });
  const logs: string[] = [];
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`server did not start:\n${logs.join('')}`)), 20_000);
    child.stderr!.setEncoding('utf8');
    child.stderr!.on('data', (chunk: string) => {
      logs.push(chunk);
      const match = /"url":"(http:\/\/[^"]+)"/.exec(logs.join(''));
      if (match) {
        clearTimeout(timer);
        resolve(match[1]!);
      }
    });
    child.once('exit', (code) => reject(new Error(`server exited with ${code}:\n${logs.join('')}`)));
  });
  const port = Number(new URL(url).port);
  return {
    url,
    port,
    dbPath: db.path,
    process: child,
    logs,
    async stop() {
      if (child.exitCode === null) {
        const exited = new Promise((resolve) => child.once('exit', resolve));
        child.kill('SIGTERM');
        await exited;
      }
      db.cleanup();
    },
  };
}

/** Runs an operator command of the real CLI against a database, as a person would. */
export function runCli(args: string[]): { status: number | null; stdout: string; stderr: string } {
  const run = spawnSync(process.execPath, [CLI, ...args], { encoding: 'utf8', timeout: 30_000 });
  return { status: run.status, stdout: run.stdout, stderr: run.stderr };
}

/** Waits until a running server has linked every written audit entry into the chain (SQLite). */
export async function untilSealed(dbPath: string, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const db = new Database(dbPath, { readonly: true });
    const { n } = db.prepare('SELECT count(*) AS n FROM audit_pending').get() as { n: number };
    db.close();
    if (n === 0) return;
    if (Date.now() > deadline) throw new Error(`${n} audit entries still pending after ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
