import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningServer } from '../support/spawn-server.js';
import { spawnCli, spawnServer } from '../support/spawn-server.js';

// holdfast probe against the spawned server: what a host would see, and nothing written.
let server: RunningServer;
beforeAll(async () => {
  server = await spawnServer([]);
});
afterAll(() => server?.stop());

/** Rows of every business table: a read-only probe leaves them as they were. */
function businessRows(): Record<string, number> {
  const db = new Database(server.dbPath, { readonly: true });
  try {
    return Object.fromEntries(
      ['bookings', 'allocations', 'calendars', 'approvals', 'idempotency', 'access_tokens'].map((t) => [
        t,
        (db.prepare(`SELECT count(*) AS n FROM ${t}`).get() as { n: number }).n,
      ]),
    );
  } finally {
    db.close();
  }
}

describe('holdfast probe', () => {
  it('reports health, metadata, protocol, tools and one read, and writes nothing', async () => {
    const before = businessRows();
    const probed = await spawnCli(['probe', server.url, '--token', server.agent.token]);
    expect(probed.status, probed.stdout + probed.stderr).toBe(0);
    expect(probed.stdout).toContain('(read-only)');
    for (const step of [
      'health',
      'OAuth protected-resource metadata',
      'MCP connection',
      'tools',
      'one read (list_calendars)',
    ])
      expect(probed.stdout).toContain(`ok   ${step}`);
    expect(probed.stdout).toMatch(/holdfast \S+, protocol 2026-07-28/);
    expect(probed.stdout).toMatch(/\n {5}24 tools\n/);
    expect(probed.stdout).toMatch(/read: .*check_availability/);
    expect(probed.stdout).toMatch(/write: .*hold_slot/);
    expect(probed.stdout).toMatch(/\d+ calendar\(s\) visible to this token/);
    expect(businessRows()).toEqual(before);
  });

  it('fails the step a bad token fails, takes the token from MCP_ACCESS_TOKEN, and refuses what is not a URL', async () => {
    const refused = await spawnCli(['probe', server.url, '--token', 'hf_pat_not-a-token']);
    expect(refused.status).toBe(1);
    expect(refused.stdout).toContain('ok   health');
    expect(refused.stdout).toContain('FAIL MCP connection');
    // The token from MCP_ACCESS_TOKEN (kept out of the process list): the same read passes.
    const fromEnv = await spawnCli(['probe', server.url], {
      env: { ...process.env, MCP_ACCESS_TOKEN: server.agent.token },
    });
    expect(fromEnv.status, fromEnv.stdout).toBe(0);
    expect(fromEnv.stdout).toMatch(/\d+ calendar\(s\) visible to this token/);
    const notUrl = await spawnCli(['probe', 'holdfast.example']);
    expect(notUrl.status).toBe(2);
    expect(notUrl.stderr).toContain('is not a URL');
  });
});
