import { execFile } from 'node:child_process';
import type { IncomingHttpHeaders } from 'node:http';
import { createServer, request } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningServer } from '../support/spawn-server.js';
import { spawnServer } from '../support/spawn-server.js';
import { nodeBinary } from '../support/runtimes.js';

// The official conformance CLI needs Node 22; npm install puts one in tools/runtimes (not on PATH).
const node22 = nodeBinary(22);
const cli = join(process.cwd(), 'node_modules/@modelcontextprotocol/conformance/dist/index.js');

/**
 * The CLI cannot send a bearer token, and the server stays strict, so the CLI talks to this
 * proxy, which adds the token. Host and Origin naming the proxy are renamed to the server's
 * port (same name); any other name passes unchanged, so a foreign one still meets the server's
 * own guard. Records the server's answer per Host the CLI sent.
 */
async function tokenProxy(server: RunningServer) {
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
      authorization: `Bearer ${server.agent.token}`,
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

let server: RunningServer;
let proxy: Awaited<ReturnType<typeof tokenProxy>>;
beforeAll(async () => {
  server = await spawnServer();
  proxy = await tokenProxy(server);
});
afterAll(async () => {
  await proxy?.close();
  await server?.stop();
});

describe('MCP conformance suite against the running server', () => {
  it.each(['server-initialize', 'tools-list', 'ping', 'dns-rebinding-protection'])(
    '%s passes',
    async (scenario) => {
      // Not spawnSync: the proxy lives in this process and must keep serving meanwhile.
      const run = await new Promise<{ status: number; output: string }>((resolve) =>
        execFile(
          node22,
          [cli, 'server', '--url', proxy.url, '--scenario', scenario],
          { encoding: 'utf8', timeout: 60_000 },
          (error, stdout, stderr) =>
            resolve({ status: error ? Number(error.code ?? 1) : 0, output: `${stdout}\n${stderr}` }),
        ),
      );
      expect(run.output, run.output).toMatch(/Passed: (\d+)\/\1, 0 failed/);
      expect(run.status, run.output).toBe(0);
    },
    90_000,
  );

  it('the foreign name was refused by the server’s Host guard, not for want of a token', () => {
    const foreign = proxy.answers.filter((a) => !a.host.includes(':'));
    expect(foreign.length).toBeGreaterThan(0);
    for (const answer of foreign) expect(answer).toMatchObject({ status: 403 });
  });
});
