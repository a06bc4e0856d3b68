import { execFileSync, spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningServer } from '../support/spawn-server.js';
import { spawnServer } from '../support/spawn-server.js';

// The official conformance CLI needs Node 22; the script installs one beside the project (not on PATH).
const node22 = execFileSync('bash', [join(process.cwd(), 'scripts/ensure-node22.sh')], {
  encoding: 'utf8',
}).trim();
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
