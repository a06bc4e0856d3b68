// A small closed-loop load generator: `concurrency` workers, each sending the next request as soon as
// the previous one answers, for a fixed number of calls. Raw JSON-RPC over keep-alive HTTP so the client
// costs as little as possible and the ratio reflects the servers.
import { spawn, spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

const META = {
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientInfo': { name: 'holdfast-bench', version: '1.0.0' },
  'io.modelcontextprotocol/clientCapabilities': {},
};

let nextId = 1;

/** Bearer tokens by server URL: every call to a Holdfast server carries its token (the no-op needs none). */
const tokens = new Map();

/** Far above anything a run reaches: the bench measures the server, not its quotas. */
const UNLIMITED = '999999999';

function holdfast(args) {
  const run = spawnSync(process.execPath, ['dist/bin/holdfast.js', ...args], { encoding: 'utf8' });
  if (run.status !== 0) throw new Error(`holdfast ${args.join(' ')}: ${run.stderr}`);
  return run.stdout;
}

/**
 * What an operator does once per database before agents connect: create it, lift the tenant's
 * limits, add a person and, unless `token` is false, make that person's agent a token of every
 * scope. `database`: the --db or --database arguments (with --audit-key-file). Returns the token.
 */
export function provision(database, { token = true } = {}) {
  const copied = copyOfTemplate(database);
  if (copied !== undefined) return token ? copied : null;
  const made = provisionWithCli(database, { token });
  keepAsTemplate(database, made);
  return made;
}

/**
 * The first SQLite database provisioned with a token, copied aside with its audit key: every later
 * SQLite part of the run starts from a copy instead of five CLI spawns (the same rows, the same
 * token). A part whose folder already holds a different audit key is provisioned anew.
 */
let template = null;

const sqliteFileOf = (database) => (database.length === 2 && database[0] === '--db' ? database[1] : null);

function keepAsTemplate(database, token) {
  const file = sqliteFileOf(database);
  if (template || !file || !token) return;
  const key = join(dirname(file), 'audit.key');
  copyFileSync(file, `${file}.template`);
  copyFileSync(key, `${file}.template.key`);
  template = { file: `${file}.template`, key: `${file}.template.key`, token };
}

function copyOfTemplate(database) {
  const file = sqliteFileOf(database);
  if (!template || !file || existsSync(file)) return undefined;
  const key = join(dirname(file), 'audit.key');
  if (existsSync(key) && !readFileSync(key).equals(readFileSync(template.key))) return undefined;
  mkdirSync(dirname(file), { recursive: true });
  if (!existsSync(key)) copyFileSync(template.key, key);
  copyFileSync(template.file, file);
  return template.token;
}

function provisionWithCli(database, { token }) {
  holdfast(['db', 'migrate', ...database]);
  holdfast([
    'tenants',
    'set',
    'local',
    '--calls-per-minute',
    UNLIMITED,
    '--max-active-holds',
    UNLIMITED,
    '--max-holds-per-connection',
    UNLIMITED,
    '--max-open-approvals-per-person',
    UNLIMITED,
    '--max-held-hours',
    UNLIMITED,
    ...database,
  ]);
  holdfast(['users', 'add', 'bench@example.com', '--role', 'owner', '--json', ...database]);
  if (!token) return null;
  const made = holdfast([
    'tokens',
    'create',
    'bench@example.com',
    '--name',
    'bench',
    '--scopes',
    'read,draft,write,sensitive',
    '--json',
    ...database,
  ]);
  return JSON.parse(made).token;
}

/**
 * `holdfast serve` on a provisioned database (node flags first, e.g. --cpu-prof); calls to it
 * carry `token`. `entry`: the bundle people run, or tsc's unbundled dist/main/cli.js — the same
 * code, whose profile names each package by its file (in the bundle every frame is dist/bin).
 */
export async function spawnHoldfast(database, token, nodeArgs = [], entry = 'dist/bin/holdfast.js') {
  const server = await spawnServer(process.execPath, [
    ...nodeArgs,
    entry,
    'serve',
    '--port',
    '0',
    '--no-seed',
    ...database,
  ]);
  tokens.set(server.url, token);
  return server;
}

/** One 2026-07-28 tools/call; resolves with the tool's structuredContent. */
export async function callTool(url, name, args) {
  return (await callToolWhole(url, name, args)).result.structuredContent;
}

/** One 2026-07-28 tools/call; resolves with the whole result and the bytes of the response body. */
export async function callToolWhole(url, name, args) {
  const token = tokens.get(url);
  const res = await fetch(url, {
    method: 'POST',
    headers: {
      ...(token ? { authorization: `Bearer ${token}` } : {}),
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': '2026-07-28',
      'mcp-method': 'tools/call',
      'mcp-name': name,
    },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: nextId++,
      method: 'tools/call',
      params: { name, arguments: args, _meta: META },
    }),
  });
  if (res.status !== 200) throw new Error(`${name}: HTTP ${res.status}`);
  const raw = await res.text();
  const body = JSON.parse(raw);
  if (body.error) throw new Error(`${name}: ${JSON.stringify(body.error)}`);
  return { result: body.result, bytes: Buffer.byteLength(raw) };
}

export function percentile(sorted, p) {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}

/** Runs `total` calls of makeCall(i) with `concurrency` workers; returns calls/s, p50, p99 and failures. */
export async function runLoad({ concurrency, total, makeCall, expectOk = true }) {
  const latencies = [];
  let issued = 0;
  let failures = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (issued < total) {
        const i = issued++;
        const t0 = performance.now();
        try {
          const result = await makeCall(i);
          if (expectOk && result && result.ok === false) failures++;
        } catch {
          failures++;
        }
        latencies.push(performance.now() - t0);
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  latencies.sort((a, b) => a - b);
  return {
    callsPerSecond: total / seconds,
    p50: percentile(latencies, 50),
    p99: percentile(latencies, 99),
    max: latencies[latencies.length - 1],
    failures,
  };
}

/** Spawns a server process that logs {"url": ...} on stderr and waits for it. */
export async function spawnServer(command, args) {
  const child = spawn(command, args, { stdio: ['ignore', 'ignore', 'pipe'] });
  let log = '';
  const url = await new Promise((resolve, reject) => {
    child.stderr.setEncoding('utf8');
    const onData = (chunk) => {
      log += chunk;
      const match = /"url":"(http:\/\/[^"]+)"/.exec(log);
      if (match) {
        // Keep draining the server's log lines, but stop keeping them.
        child.stderr.off('data', onData);
        child.stderr.resume();
        resolve(match[1]);
      }
    };
    child.stderr.on('data', onData);
    child.once('exit', (code) => reject(new Error(`server exited ${code}: ${log}`)));
  });
  const exited = new Promise((resolve) => child.once('exit', resolve));
  return {
    url,
    pid: child.pid,
    stop: () => child.kill('SIGTERM'),
    /** SIGTERM, then wait for the process to end (it writes --cpu-prof profiles on the way out). */
    stopAndWait: async () => {
      child.kill('SIGTERM');
      await exited;
    },
  };
}

const CLOCK_TICKS_PER_SECOND = Number(spawnSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).stdout) || 100;

/** CPU time (user + system) a process has used so far, in ms (Linux /proc). */
export function cpuMsOf(pid) {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  // Fields after the command name (which may hold spaces): utime and stime are the 12th and 13th.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / CLOCK_TICKS_PER_SECOND;
}
