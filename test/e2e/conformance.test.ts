import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningServer } from '../support/spawn-server.js';
import { spawnServer } from '../support/spawn-server.js';
import { nodeBinary } from '../support/runtimes.js';

// The official conformance CLI needs Node 22; npm install puts one in tools/runtimes (not on PATH).
const node22 = nodeBinary(22);
const cli = join(process.cwd(), 'node_modules/@modelcontextprotocol/conformance/dist/index.js');

let server: RunningServer;
beforeAll(async () => {
  server = await spawnServer();
});
afterAll(() => server.stop());

describe('MCP conformance suite against the running server', () => {
  it.each(['server-initialize', 'tools-list', 'ping', 'dns-rebinding-protection'])(
    '%s passes',
    (scenario) => {
      const run = spawnSync(node22, [cli, 'server', '--url', server.url, '--scenario', scenario], {
        encoding: 'utf8',
        timeout: 60_000,
      });
      const output = `${run.stdout}\n${run.stderr}`;
      expect(output, output).toMatch(/Passed: (\d+)\/\1, 0 failed/);
      expect(run.status, output).toBe(0);
    },
    90_000,
  );
});
