import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runConformance, tokenProxy } from '../support/conformance.js';
import type { RunningServer } from '../support/spawn-server.js';
import { spawnServer } from '../support/spawn-server.js';

// The official conformance CLI against the server, through a local proxy that adds the owner's
// token (see tokenProxy). test/e2e/conformance-authorization.browser.test.ts runs the
// authorization-server scenarios, and these with an OAuth access token.

let server: RunningServer;
let proxy: Awaited<ReturnType<typeof tokenProxy>>;
beforeAll(async () => {
  server = await spawnServer();
  proxy = await tokenProxy(server, server.agent.token);
});
afterAll(async () => {
  await proxy?.close();
  await server?.stop();
});

describe('MCP conformance suite against the running server', () => {
  // The resource and prompt scenarios that read fixtures by name (test://static-text,
  // test_simple_prompt) test the conformance project's own example server, not a product; these
  // are the ones that apply to any server.
  it.each([
    'server-initialize',
    'tools-list',
    'ping',
    'dns-rebinding-protection',
    'resources-list',
    'prompts-list',
    'completion-complete',
    'caching',
    'sep-2164-resource-not-found',
  ])(
    '%s passes',
    async (scenario) => {
      // Not spawnSync: the proxy lives in this process and must keep serving meanwhile.
      const run = await runConformance(['server', '--url', proxy.url, '--scenario', scenario]);
      expect(run.output, run.output).toMatch(/Passed: ([1-9]\d*)\/\1, 0 failed/);
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
