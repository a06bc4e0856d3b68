// hold_slot over stdio against the stdio no-op, 32 requests in flight on one connection each.
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { percentile, provision } from './load.mjs';
import { pick } from './scale.mjs';

const DAY = 86_400_000;
const SLOT = 15 * 60_000;

/** One stdio MCP connection (2025-06-18 initialize, as desktop hosts do) with pipelined calls. */
async function connect(args) {
  const child = spawn(process.execPath, args, { stdio: ['pipe', 'pipe', 'ignore'] });
  const waiting = new Map();
  let buffered = '';
  child.stdout.setEncoding('utf8');
  child.stdout.on('data', (chunk) => {
    buffered += chunk;
    let newline;
    while ((newline = buffered.indexOf('\n')) >= 0) {
      const line = buffered.slice(0, newline);
      buffered = buffered.slice(newline + 1);
      if (!line.trim()) continue;
      const message = JSON.parse(line);
      waiting.get(message.id)?.(message);
      waiting.delete(message.id);
    }
  });
  let nextId = 1;
  const request = (method, params) =>
    new Promise((resolve) => {
      const id = nextId++;
      waiting.set(id, resolve);
      child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', id, method, params })}\n`);
    });
  await request('initialize', {
    protocolVersion: '2025-06-18',
    capabilities: {},
    clientInfo: { name: 'holdfast-bench', version: '1.0.0' },
  });
  child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' })}\n`);
  const callTool = async (name, args) => {
    const answer = await request('tools/call', { name, arguments: args });
    if (answer.error) throw new Error(`${name}: ${JSON.stringify(answer.error)}`);
    return answer.result.structuredContent;
  };
  const stop = () =>
    new Promise((resolve) => {
      child.once('exit', resolve);
      child.stdin.end();
      setTimeout(() => child.kill('SIGKILL'), 3000).unref();
    });
  return { callTool, stop };
}

async function load(concurrency, total, makeCall) {
  const latencies = [];
  let issued = 0;
  let failures = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (issued < total) {
        const i = issued++;
        const t0 = performance.now();
        const result = await makeCall(i).catch(() => ({ ok: false }));
        if (result?.ok === false) failures++;
        latencies.push(performance.now() - t0);
      }
    }),
  );
  latencies.sort((a, b) => a - b);
  return {
    callsPerSecond: total / ((performance.now() - started) / 1000),
    p50: percentile(latencies, 50),
    p99: percentile(latencies, 99),
    max: latencies[latencies.length - 1],
    failures,
  };
}

export async function benchStdio({ rounds, calls = pick(2000, 32) }) {
  const dir = mkdtempSync(join(tmpdir(), 'holdfast-bench-stdio-'));
  const noop = await connect(['bench/noop-stdio.mjs']);
  // holdfast stdio acts for the database's only person; it needs no token.
  const database = ['--db', join(dir, 'stdio.db')];
  provision(database, { token: false });
  const holdfast = await connect([
    ...(process.env.STDIO_PROF ? ['--cpu-prof', '--cpu-prof-dir', process.env.STDIO_PROF] : []),
    'dist/bin/holdfast.js',
    'stdio',
    '--no-seed',
    '--console-port',
    '0',
    ...database,
  ]);
  try {
    const everyDay = Object.fromEntries(
      ['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'].map((d) => [d, [{ start: '00:00', end: '24:00' }]]),
    );
    const calendars = [];
    for (let i = 0; i < 8; i++) {
      const created = await holdfast.callTool('create_calendar', {
        name: `Stdio room ${i}`,
        timeZone: 'UTC',
        availability: { weekly: everyDay, overrides: [] },
        idempotencyKey: randomUUID(),
      });
      calendars.push(created.data.calendar.id);
    }
    const base = Math.ceil(Date.now() / DAY) * DAY + DAY;
    let seq = 0;
    const hold = () => {
      const n = seq++;
      const start = base + Math.floor(n / calendars.length) * SLOT;
      return holdfast.callTool('hold_slot', {
        calendarIds: [calendars[n % calendars.length]],
        start: new Date(start).toISOString(),
        end: new Date(start + SLOT).toISOString(),
        idempotencyKey: randomUUID(),
      });
    };
    const noopCall = () => noop.callTool('noop', {});
    await load(8, pick(200, 8), hold);
    await load(8, pick(200, 8), noopCall);
    let best = { noop: null, hold: null };
    for (let round = 0; round < rounds; round++) {
      const n = await load(32, calls, noopCall);
      const h = await load(32, calls, hold);
      if (!best.noop || n.callsPerSecond > best.noop.callsPerSecond) best.noop = n;
      if (!best.hold || h.callsPerSecond > best.hold.callsPerSecond) best.hold = h;
    }
    return best;
  } finally {
    await noop.stop();
    await holdfast.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}
