import { spawn } from 'node:child_process';
import type { IncomingHttpHeaders } from 'node:http';
import { createServer, request } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { nodeBinary } from './runtimes.js';
import type { RunningServer } from './spawn-server.js';

/** The official MCP conformance CLI (devDependency); it needs Node 22, from tools/runtimes. */
export const CONFORMANCE_CLI = join(
  process.cwd(),
  'node_modules/@modelcontextprotocol/conformance/dist/index.js',
);

export interface ConformanceRun {
  readonly status: number | null;
  readonly output: string;
}

/**
 * Linux refuses to run a binary some process still holds open for writing (ETXTBSY): a child
 * forked elsewhere while npm wrote tools/runtimes can hold that descriptor for a moment (the
 * suite's own npx test did rewrite it, through the project's postinstall, until it ran npx with
 * scripts off). Such a refusal is retried briefly; any other error is not.
 */
async function spawnNode22(args: string[], signal: AbortSignal | undefined) {
  for (let attempt = 1; ; attempt++) {
    try {
      return spawn(nodeBinary(22), args, {
        stdio: ['ignore', 'pipe', 'pipe'],
        signal,
        killSignal: 'SIGKILL',
      });
    } catch (error) {
      if ((error as { code?: string }).code !== 'ETXTBSY' || attempt >= 10) throw error;
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  }
}

/**
 * Runs the conformance CLI with Node 22, asynchronously (a proxy or a browser in this process
 * must keep working meanwhile). `onStdout` sees the output as it comes; the run is killed after
 * `timeoutMs`, or when `signal` aborts.
 */
export async function runConformance(
  args: string[],
  options: { timeoutMs?: number; onStdout?: (soFar: string) => void; signal?: AbortSignal } = {},
): Promise<ConformanceRun> {
  let stderr = '';
  const child = await spawnNode22([CONFORMANCE_CLI, ...args], options.signal);
  child.on('error', (error) => (stderr += `\n${String(error)}`));
  let stdout = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
    stdout += chunk;
    options.onStdout?.(stdout);
  });
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  const timer = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs ?? 60_000);
  return new Promise((resolve) =>
    child.once('close', (status) => {
      clearTimeout(timer);
      resolve({ status, output: `${stdout}\n${stderr}` });
    }),
  );
}

/**
 * The server CLI cannot send a bearer token, and the server stays strict, so the CLI talks to
 * this proxy, which adds `token`. Host and Origin naming the proxy are renamed to the server's
 * port (same name); any other name passes unchanged, so a foreign one still meets the server's
 * own guard. Records the server's answer per Host the CLI sent.
 */
export async function tokenProxy(server: RunningServer, token: string) {
  const answers: { host: string; status: number }[] = [];
  const proxy = createServer((req, res) => {
    const port = (proxy.address() as AddressInfo).port;
    const names = new Map(
      ['localhost', '127.0.0.1', '[::1]'].map((n) => [`${n}:${port}`, `${n}:${server.port}`]),
    );
    const rename = (value: string | undefined, scheme = '') => {
      const name = value?.slice(scheme.length);
      return name !== undefined && names.has(name) ? `${scheme}${names.get(name)}` : value;
    };
    const headers: IncomingHttpHeaders = {
      ...req.headers,
      host: rename(req.headers.host),
      authorization: `Bearer ${token}`,
    };
    if (req.headers.origin !== undefined) headers.origin = rename(req.headers.origin, 'http://');
    const upstream = request(
      { host: '127.0.0.1', port: server.port, method: req.method, path: req.url, headers },
      (answer) => {
        answers.push({ host: req.headers.host ?? '', status: answer.statusCode ?? 0 });
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    upstream.on('error', () => res.destroy());
    req.pipe(upstream);
  });
  await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
  const { port } = proxy.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}${new URL(server.url).pathname}`,
    answers,
    close: () =>
      new Promise<void>((resolve) => {
        proxy.closeAllConnections();
        proxy.close(() => resolve());
      }),
  };
}
