// Start-up, measured from spawn: what a person typing a command, a desktop host starting a stdio
// server and an orchestrator starting an instance each wait for. Median of several spawns per
// row, with `node -e 0` beside them in the same run (the floor any Node program pays).
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { callTool, cpuMsOf, provision, spawnHoldfast } from './load.mjs';
import { pick } from './scale.mjs';

const SPAWNS = pick(5, 1);
const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

const CPU_AT_EXIT = new URL('./cpu-at-exit.mjs', import.meta.url).href;

/**
 * Wall time of a process from spawn to exit, and the CPU time it used (written by a preload as it
 * exits): the CPU time barely moves with the machine's load, so the guard reads it. Rejects on a
 * non-zero exit.
 */
function timeExit(args) {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn(process.execPath, ['--import', CPU_AT_EXIT, ...args], {
      stdio: ['ignore', 'ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    let cpu = '';
    child.stderr.on('data', (chunk) => (stderr += chunk));
    child.stdio[3].on('data', (chunk) => (cpu += chunk));
    child.once('close', (code) =>
      code === 0
        ? resolve({ ms: performance.now() - started, cpuMs: Number(cpu) })
        : reject(new Error(`${args.join(' ')}: ${stderr}`)),
    );
  });
}

/**
 * `holdfast stdio` from spawn until its first answers: `initialize` as hosts of 2025-11-25 send
 * it, and `server/discover` as a 2026-07-28 client probes first (an AI SDK host gives it 1 s).
 * With the CPU time the process had used when it answered.
 */
function timeStdio(database, first) {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn(
      process.execPath,
      ['dist/bin/holdfast.js', 'stdio', '--no-seed', '--console-port', '0', ...database],
      { stdio: ['pipe', 'pipe', 'ignore'] },
    );
    child.stdout.setEncoding('utf8');
    child.stdout.once('data', () => {
      const answered = { ms: performance.now() - started, cpuMs: cpuMsOf(child.pid) };
      child.once('exit', () => resolve(answered));
      child.stdin.end();
    });
    child.once('error', reject);
    child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', id: 1, ...first })}\n`);
  });
}

const INITIALIZE = {
  method: 'initialize',
  params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'bench', version: '1' } },
};
const DISCOVER = {
  method: 'server/discover',
  params: {
    _meta: {
      'io.modelcontextprotocol/protocolVersion': '2026-07-28',
      'io.modelcontextprotocol/clientInfo': { name: 'bench', version: '1' },
      'io.modelcontextprotocol/clientCapabilities': {},
    },
  },
};

/** `holdfast serve` from spawn until its first MCP call is answered; then its resident memory once idle. */
async function timeServe(database, token) {
  const started = performance.now();
  const server = await spawnHoldfast(database, token);
  try {
    await callTool(server.url, 'list_calendars', {});
    const firstCall = { ms: performance.now() - started, cpuMs: cpuMsOf(server.pid) };
    // Idle: the first call's garbage collected and its buffers given back (the smoke run only looks).
    await new Promise((r) => setTimeout(r, pick(1000, 100)));
    const status = readFileSync(`/proc/${server.pid}/status`, 'utf8');
    return { firstCall, rss: Number(/VmRSS:\s+(\d+) kB/.exec(status)[1]) / 1024 };
  } finally {
    await server.stopAndWait();
  }
}

/** Every start-up row, each the median of its spawns, interleaved so a busy moment hits all rows alike. */
export async function benchStartup(dir) {
  const database = ['--db', join(dir, 'startup.db')];
  const token = provision(database);
  const rows = {
    'node -e 0': [],
    'holdfast --version': [],
    'holdfast --help': [],
    'holdfast approvals list (existing database)': [],
    'holdfast stdio: first answer to initialize (2025-11-25)': [],
    'holdfast stdio: first answer to server/discover (2026-07-28)': [],
    'holdfast serve: first MCP call answered': [],
  };
  const rss = [];
  for (let i = 0; i < SPAWNS; i++) {
    rows['node -e 0'].push(await timeExit(['-e', '0']));
    rows['holdfast --version'].push(await timeExit(['dist/bin/holdfast.js', '--version']));
    rows['holdfast --help'].push(await timeExit(['dist/bin/holdfast.js', '--help']));
    rows['holdfast approvals list (existing database)'].push(
      await timeExit(['dist/bin/holdfast.js', 'approvals', 'list', ...database]),
    );
    rows['holdfast stdio: first answer to initialize (2025-11-25)'].push(
      await timeStdio(database, INITIALIZE),
    );
    rows['holdfast stdio: first answer to server/discover (2026-07-28)'].push(
      await timeStdio(database, DISCOVER),
    );
    const serve = await timeServe(database, token);
    rows['holdfast serve: first MCP call answered'].push(serve.firstCall);
    rss.push(serve.rss);
  }
  return {
    spawns: SPAWNS,
    rows: Object.entries(rows).map(([name, runs]) => ({
      name,
      ms: median(runs.map((r) => r.ms)),
      cpuMs: median(runs.map((r) => r.cpuMs)),
    })),
    serveIdleRssMiB: median(rss),
  };
}
