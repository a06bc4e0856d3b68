import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MODERN_META } from '../support/mcp-clients.js';
import { runCli } from '../support/spawn-server.js';
import type { Backend, BackendKind } from '../reliability/harness.js';
import { startBackend } from '../reliability/harness.js';

// Every request that reaches /mcp leaves exactly one audit record — whatever it asks and
// however it ends: discovery, prompts, a tool the server does not have, a scope the token lacks,
// a body over the limit, a parse error, a budget spent. Requests with no valid credential are
// counted per address and minute (one record, not one each), so a flood cannot bloat the chain.

interface Sent {
  readonly status: number;
  readonly body: string;
}

describe.each(['sqlite', 'postgres'] as BackendKind[])('the audit gate in front of /mcp on %s', (kind) => {
  let backend: Backend;
  let url: string;
  let owner: string;
  let readOnly: string;
  let tight: string;

  beforeAll(async () => {
    backend = await startBackend(kind, { instances: 1 });
    url = `${backend.urls()[0]!}`;
    owner = backend.servers[0]!.agent.token;
    const cli = async (...args: string[]) => {
      const run = await runCli([...args, ...backend.databaseArgs]);
      expect(run.status, run.stderr).toBe(0);
      return run.stdout;
    };
    const email = backend.servers[0]!.agent.email;
    readOnly = JSON.parse(
      await cli('tokens', 'create', email, '--name', 'reader', '--scopes', 'read', '--json'),
    ).token;
    await cli('tenants', 'add', 'tight', '--calls-per-minute', '2');
    await cli('users', 'add', 'tight@tight.example', '--role', 'owner', '--tenant', 'tight');
    tight = JSON.parse(
      await cli('tokens', 'create', 'tight@tight.example', '--name', 'tight', '--tenant', 'tight', '--json'),
    ).token;
  });
  afterAll(() => backend?.stop());

  const records = async () => {
    const [row] = await backend.sql<{ n: number | string }>(
      'SELECT (SELECT count(*) FROM audit_log) + (SELECT count(*) FROM audit_pending) AS n',
    );
    return Number(row!.n);
  };
  /** The newest record, once sealed: what the request was recorded as. */
  const lastRecord = async () => {
    for (let i = 0; i < 250; i++) {
      const [pending] = await backend.sql<{ n: number | string }>('SELECT count(*) AS n FROM audit_pending');
      if (Number(pending!.n) === 0) break;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    const [row] = await backend.sql<{ tool: string; outcome: string; error_code: string | null }>(
      'SELECT tool, outcome, error_code FROM audit_log ORDER BY seq DESC LIMIT 1',
    );
    return `${row!.tool} ${row!.outcome}${row!.error_code ? ` ${row!.error_code}` : ''}`;
  };
  const post = async (token: string | null, body: string, type = 'application/json'): Promise<Sent> => {
    // As a 2026-07-28 client sends it: the method named in a header too.
    const method = /"method":"([^"]+)"/.exec(body.slice(0, 200))?.[1];
    const name = /"params":\{"name":"([^"]+)"/.exec(body.slice(0, 300))?.[1];
    const answer = await fetch(url, {
      method: 'POST',
      headers: {
        ...(token ? { authorization: `Bearer ${token}` } : {}),
        'content-type': type,
        accept: 'application/json, text/event-stream',
        'mcp-protocol-version': '2026-07-28',
        ...(method ? { 'mcp-method': method } : {}),
        ...(name ? { 'mcp-name': name } : {}),
      },
      body,
    });
    return { status: answer.status, body: await answer.text() };
  };
  const rpc = (method: string, params: Record<string, unknown> = {}, id = 1) =>
    JSON.stringify({ jsonrpc: '2.0', id, method, params: { ...params, _meta: MODERN_META } });

  it('one record for every method and every failure class', async () => {
    const cases: [string, () => Promise<Sent>][] = [
      ['tools/list', () => post(owner, rpc('tools/list'))],
      ['prompts/list', () => post(owner, rpc('prompts/list'))],
      ['prompts/get', () => post(owner, rpc('prompts/get', { name: 'what_needs_my_approval' }))],
      ['resources/templates/list', () => post(owner, rpc('resources/templates/list'))],
      ['resources/list', () => post(owner, rpc('resources/list'))],
      ['server/discover', () => post(owner, rpc('server/discover'))],
      ['a tool call', () => post(owner, rpc('tools/call', { name: 'list_calendars', arguments: {} }))],
      [
        'an unknown tool',
        () => post(owner, rpc('tools/call', { name: 'grant_myself_admin', arguments: {} })),
      ],
      ['arguments null', () => post(owner, rpc('tools/call', { name: 'list_calendars', arguments: null }))],
      ['arguments []', () => post(owner, rpc('tools/call', { name: 'list_calendars', arguments: [] }))],
      ['a missing scope', () => post(readOnly, rpc('tools/call', { name: 'cancel_booking', arguments: {} }))],
      ['an unknown method', () => post(owner, rpc('admin/everything'))],
      ['a parse error', () => post(owner, '{"jsonrpc": "2.0", "id": 1, "method": ')],
      ['a batch', () => post(owner, `[${rpc('tools/list')}]`)],
      ['no method', () => post(owner, '{"jsonrpc":"2.0","id":1}')],
      ['not JSON at all', () => post(owner, 'method=tools/list', 'application/x-www-form-urlencoded')],
    ];
    const added: Record<string, number> = {};
    const recorded: Record<string, string> = {};
    for (const [name, send] of cases) {
      const before = await records();
      const sent = await send();
      expect(sent.status, name).toBeLessThan(500);
      added[name] = (await records()) - before;
      recorded[name] = await lastRecord();
    }
    expect(added).toEqual(Object.fromEntries(cases.map(([name]) => [name, 1])));
    // Each as what it was: the handlers' own records for calls they ran, the gate's for the rest.
    expect(recorded).toEqual({
      'tools/list': 'tools/list ok',
      'prompts/list': 'prompts/list ok',
      'prompts/get': 'prompts/get ok',
      'resources/templates/list': 'resources/templates/list ok',
      'resources/list': 'resources/list ok',
      'server/discover': 'server/discover ok',
      'a tool call': 'list_calendars ok',
      'an unknown tool': 'tools/call error INVALID_ARGUMENTS',
      'arguments null': expect.stringMatching(/^(list_calendars|tools\/call) error INVALID_ARGUMENTS$/),
      'arguments []': expect.stringMatching(/^(list_calendars|tools\/call) error INVALID_ARGUMENTS$/),
      'a missing scope': 'tools/call error FORBIDDEN',
      'an unknown method': 'admin/everything error NOT_FOUND',
      'a parse error': 'parse-error error INVALID_ARGUMENTS',
      'a batch': 'batch error INVALID_ARGUMENTS',
      'no method': 'invalid error INVALID_ARGUMENTS',
      // 415 before a byte of it is read: what it was is unknown, and stays so.
      'not JSON at all': '(unread) error INVALID_ARGUMENTS',
    });
    // The scope refusal names the scope that was missing.
    const [scoped] = await backend.sql<{ blocked_reason: string }>(
      "SELECT blocked_reason FROM audit_log WHERE tool = 'tools/call' AND error_code = 'FORBIDDEN'",
    );
    expect(scoped!.blocked_reason).toMatch(/^insufficient_scope: needs .*write/);
    // Activity shows the probe: the unknown tool's name and the missing scope are in the record.
    const [probe] = await backend.sql<{ preview: string; outcome: string }>(
      "SELECT preview, outcome FROM audit_log WHERE preview LIKE '%grant_myself_admin%' UNION ALL SELECT preview, outcome FROM audit_pending WHERE preview LIKE '%grant_myself_admin%'",
    );
    expect(probe).toMatchObject({ outcome: 'error' });
  });

  it('the budget holds for every method: past it, tools/list and prompts/get are refused too, each recorded once', async () => {
    const outcomes: string[] = [];
    const added: number[] = [];
    for (const [i, method] of [
      'tools/list',
      'prompts/get',
      'tools/list',
      'prompts/list',
      'resources/list',
    ].entries()) {
      const before = await records();
      const sent = await post(
        tight,
        rpc(method, method === 'prompts/get' ? { name: 'what_needs_my_approval' } : {}, i + 1),
      );
      added.push((await records()) - before);
      const code = /"code":"([A-Z_]+)"/.exec(sent.body)?.[1];
      outcomes.push(
        code === 'RATE_LIMITED'
          ? 'RATE_LIMITED'
          : 'error' in (JSON.parse(sent.body) as object)
            ? sent.body.slice(0, 200)
            : 'ok',
      );
    }
    expect(outcomes).toEqual(['ok', 'ok', 'RATE_LIMITED', 'RATE_LIMITED', 'RATE_LIMITED']);
    expect(added).toEqual([1, 1, 1, 1, 1]);
  });

  it('no token or a bad one: counted per address and minute, one record for a flood', async () => {
    const before = await records();
    const answers = [];
    for (let i = 0; i < 20; i++)
      answers.push((await post(i % 2 ? 'hf_pat_forged' : null, rpc('tools/list'))).status);
    expect(new Set(answers)).toEqual(new Set([401]));
    expect((await records()) - before).toBeLessThanOrEqual(2); // a minute boundary may fall inside the flood
    expect((await records()) - before).toBeGreaterThanOrEqual(1);
  });

  // Last against this server: the server stops reading a body past the limit, and the
  // connection it came on is not reused afterwards.
  it('a body over the limit: one record, as what it was', async () => {
    const before = await records();
    const sent = await post(owner, rpc('tools/list', { padding: 'x'.repeat(2 * 1024 * 1024) }));
    expect(sent.status).toBe(413);
    expect((await records()) - before).toBe(1);
    expect(await lastRecord()).toBe('oversize error INVALID_ARGUMENTS');
  });
});
