// A small closed-loop load generator: `concurrency` workers, each sending the next request as soon as
// the previous one answers, for a fixed number of calls. Raw JSON-RPC over keep-alive HTTP so the client
// costs as little as possible and the ratio reflects the servers.
import { spawn } from 'node:child_process';

const META = {
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientInfo': { name: 'holdfast-bench', version: '1.0.0' },
  'io.modelcontextprotocol/clientCapabilities': {},
};

let nextId = 1;

/** One 2026-07-28 tools/call; resolves with the tool's structuredContent. */
export async function callTool(url, name, args) {
  const res = await fetch(url, {
    method: 'POST',
    headers: {
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
  const body = await res.json();
  if (body.error) throw new Error(`${name}: ${JSON.stringify(body.error)}`);
  return body.result.structuredContent;
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
    stop: () => child.kill('SIGTERM'),
    /** SIGTERM, then wait for the process to end (it writes --cpu-prof profiles on the way out). */
    stopAndWait: async () => {
      child.kill('SIGTERM');
      await exited;
    },
  };
}
