import { execFile, spawn, spawnSync } from 'node:child_process';
import Database from 'better-sqlite3';
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TenantLimits, WritePolicy } from '../../src/domain/identity/identity.js';
import type { Agent } from './provision.js';
import { provision } from './provision.js';

export const CLI = join(process.cwd(), 'dist/main/cli.js');

export interface RunningServer {
  readonly url: string;
  /** The owner provisioned on its database, with a token of every scope and a password. */
  readonly agent: Agent & { password: string };
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

const provisioned = new Map<string, Promise<Agent & { password: string }>>();

/**
 * One owner per database, shared by every instance on it (as one person's token would be).
 * Over HTTP the write policy is the token's: the owner's token gets `writePolicy`; the first
 * call for a database decides.
 */
export function provisionOnce(database: string, limits?: Partial<TenantLimits>, writePolicy?: WritePolicy) {
  let agent = provisioned.get(database);
  if (!agent) provisioned.set(database, (agent = provision(database, { limits, writePolicy })));
  return agent;
}

/** Which token a test client sends to which server by default. */
export const tokensByUrl = new Map<string, string>();

/**
 * Spawns the real entry point on a free port and waits until it listens. Its database first
 * gets an owner with a token (see provision), unless `provision` is false.
 */
export async function spawnServer(
  args: string[] = [],
  options: {
    env?: Record<string, string>;
    dbPath?: string;
    provision?: boolean;
    limits?: Partial<TenantLimits>;
    /** The provisioned token's write policy (default draft); `serve` has none of its own. */
    writePolicy?: WritePolicy;
  } = {},
): Promise<RunningServer> {
  const db = options.dbPath ? { path: options.dbPath, cleanup: () => undefined } : tempDbPath();
  const database = args.includes('--database')
    ? args[args.indexOf('--database') + 1]!
    : args.includes('--db')
      ? args[args.indexOf('--db') + 1]!
      : db.path;
  const agent =
    options.provision === false
      ? { email: '', personId: '', token: '', tokenId: '', password: '' }
      : await provisionOnce(database, options.limits, options.writePolicy);
  const where = args.includes('--database') || args.includes('--db') ? [] : ['--db', db.path];
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
  if (agent.token) tokensByUrl.set(url, agent.token);
  return {
    url,
    agent,
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

/** runCli without blocking: several operator commands may run side by side (each is a process). */
export function runCliAsync(
  args: string[],
): Promise<{ status: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [CLI, ...args],
      { encoding: 'utf8', timeout: 60_000 },
      (error, stdout, stderr) => {
        const code = (error as { code?: unknown } | null)?.code;
        resolve({ status: error ? (typeof code === 'number' ? code : null) : 0, stdout, stderr });
      },
    );
  });
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
