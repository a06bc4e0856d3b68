import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MODERN_META, postJsonRpc } from '../support/mcp-clients.js';
import type { RunningServer } from '../support/spawn-server.js';
import { runCli, spawnServer } from '../support/spawn-server.js';

// The expert-booking contract's way of serving Holdfast, by one name: --profile expert-booking is
// the catalog, the wire timing contract and 2026-07-28 clients only, on the spawned server.
let server: RunningServer;

beforeAll(async () => {
  server = await spawnServer(['--no-seed', '--profile', 'expert-booking']);
});
afterAll(() => server?.stop());

const sentNow = () => {
  const at = new Date().toISOString();
  return { headers: { 'x-mcp-client-sent-at': at }, meta: { ...MODERN_META, clientSentAt: at } };
};

describe('holdfast serve --profile expert-booking', () => {
  it('lists the catalog, answers with the server’s times, and refuses a request that does not say when it was sent', async () => {
    const sent = sentNow();
    const listed = await postJsonRpc(
      server.url,
      server.agent.token,
      { id: 1, method: 'tools/list', params: { _meta: sent.meta } },
      sent.headers,
    );
    expect(listed.status).toBe(200);
    expect((listed.body.result.tools as { name: string }[]).map((t) => t.name).sort()).toEqual([
      'tool_catalog.call',
      'tool_catalog.read',
      'tool_catalog.search',
    ]);
    expect(listed.headers.get('x-mcp-server-received-at')).toMatch(/^\d{4}-\d\d-\d\dT/);
    const untimed = await postJsonRpc(server.url, server.agent.token, {
      id: 2,
      method: 'tools/list',
      params: { _meta: MODERN_META },
    });
    expect(untimed.status).toBe(400);
    expect(JSON.stringify(untimed.body)).toContain('MISSING_CLIENT_TIMESTAMP');
  });

  it('refuses a 2025-era initialize, naming the protocol it serves', async () => {
    const at = new Date().toISOString();
    const res = await fetch(server.url, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${server.agent.token}`,
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'x-mcp-client-sent-at': at,
      },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 3,
        method: 'initialize',
        params: {
          protocolVersion: '2025-11-25',
          capabilities: {},
          clientInfo: { name: 'old', version: '1' },
          _meta: { clientSentAt: at },
        },
      }),
    });
    const text = await res.text();
    expect(text).toMatch(/2026-07-28/);
    expect(text).toMatch(/error/i);
  });

  it('tenants set --tool-profile expert-booking gives one tenant the catalog', async () => {
    const set = await runCli([
      'tenants',
      'set',
      'local',
      '--tool-profile',
      'expert-booking',
      '--db',
      server.dbPath,
    ]);
    expect(set.status, set.stderr).toBe(0);
    expect(set.stdout).toContain('tools expert-booking');
    const clash = await runCli([
      'tenants',
      'set',
      'local',
      '--tool-profile',
      'expert-booking',
      '--tools',
      'flat',
      '--db',
      server.dbPath,
    ]);
    expect(clash.status).toBe(2);
    expect(clash.stderr).toContain('leave out --tools');
  });
});
