import { execFile, spawn } from 'node:child_process';
import Database from 'better-sqlite3';
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TenantLimits, WritePolicy } from '../../src/domain/identity/identity.js';
import type { Agent } from './provision.js';
import { provision } from './provision.js';

export const CLI = join(process.cwd(), 'dist/bin/holdfast.js');

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

export interface Finished {
  /** The exit code; null when killed (a timeout). */
  readonly status: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/**
 * Runs a program to its end without blocking this process: a test whose event loop is blocked
 * cannot see its pooled connections close, and a spawnSync is exactly such a block.
 */
export function runProcess(
  command: string,
  args: readonly string[],
  options: { env?: NodeJS.ProcessEnv; cwd?: string; timeoutMs?: number } = {},
): Promise<Finished> {
  return new Promise((resolve) => {
    execFile(
      command,
      args,
      {
        encoding: 'utf8',
        timeout: options.timeoutMs ?? 60_000,
        maxBuffer: 64 * 1024 * 1024,
        env: options.env,
        cwd: options.cwd,
      },
      (error, stdout, stderr) => {
        const code = (error as { code?: unknown } | null)?.code;
        resolve({ status: error ? (typeof code === 'number' ? code : null) : 0, stdout, stderr });
      },
    );
  });
}

/**
 * Runs a command of the real CLI in a process of its own (an operator's, or `serve` that is
 * expected to refuse), as a person would: for the tests whose subject is the CLI itself.
 */
export function spawnCli(
  args: readonly string[],
  options: { env?: NodeJS.ProcessEnv } = {},
): Promise<Finished> {
  return runProcess(process.execPath, [CLI, ...args], options);
}

/**
 * Runs an operator command's own code (argument parsing, the command, the wording of its
 * errors and exit code) in this process, where a test uses the CLI as one step among others:
 * a process per step would cost a second of start-up. The process around it, `holdfast`'s
 * dispatch and its exit, are proven by the tests that use spawnCli.
 */
export async function runCli(
  args: readonly string[],
  options: { env?: NodeJS.ProcessEnv } = {},
): Promise<Finished> {
  const [{ readConfig }, { runOperatorCommand }, { explain }] = await Promise.all([
    import('../../src/main/config/config.js'),
    import('../../src/main/cli/operator-commands.js'),
    import('../../src/main/cli/errors.js'),
  ]);
  let stdout = '';
  try {
    const config = readConfig(args, options.env ?? process.env);
    if (['serve', 'stdio', 'help', 'version'].includes(config.command))
      throw new Error(`runCli runs operator commands; spawn "${config.command}" with spawnCli`);
    const status = await runOperatorCommand(config, (text) => (stdout += `${text}\n`));
    return { status, stdout, stderr: '' };
  } catch (error) {
    const { line, exitCode } = explain(error, args);
    return { status: exitCode, stdout, stderr: `holdfast: ${line}\n` };
  }
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

/** A mail gateway's ingestion secret for the database, as `holdfast inbox tokens create` prints it. */
export async function ingestSecretFor(dbPath: string): Promise<string> {
  const created = await runCli(['inbox', 'tokens', 'create', '--name', 'gateway', '--db', dbPath, '--json']);
  if (created.status !== 0) throw new Error(`inbox tokens create failed: ${created.stderr}`);
  return (JSON.parse(created.stdout) as { secret: string }).secret;
}
