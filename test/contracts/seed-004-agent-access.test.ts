import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { get } from 'node:http';
import Database from 'better-sqlite3';
import type { Client } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createOpenCalendar, futureHour } from '../support/fixtures.js';
import { call, connectHttp, ok } from '../support/mcp-clients.js';
import { bearerToolsList } from '../support/net.js';
import { connectByHttp, follow, Jar } from '../support/oauth-by-http.js';
import { TestOAuthHost } from '../support/oauth-host.js';
import { addPersonWithPassword, decideOnPage, signIn } from '../support/person.js';
import { addAgent, identityDeps } from '../support/provision.js';
import type { RunningServer } from '../support/spawn-server.js';
import { runCli, spawnCli, spawnServer, tempDbPath, untilSealed } from '../support/spawn-server.js';

/**
 * Contract 004, the agent access contract (/work/shared/seeds/004_6ff0d81b7a9488c9.txt, WorthPath's
 * "远程 MCP 接入"), walked in its own order. Its headings carry no numbers: they are §1–§7 here
 * in the order they appear. In §1 the numbered list keeps its numbers (1-1 … 1-6, parts a, b …);
 * the paragraph before it is 1-0x and the one after it 1-after-N. Elsewhere requirements are
 * numbered 1, 2, 3 … as they appear. OAuth is driven by real HTTP against the spawned server.
 * `different:` pins what Holdfast does instead, for the reason in docs/contracts.md.
 */

let server: RunningServer;
/** The same installation behind a TLS proxy: `--public-url https://holdfast.example --trust-proxy`. */
let proxied: RunningServer;
/** The owner's personal access token (every scope, policy draft). */
let agent: Client;
/** A host connected through OAuth with the SDK's own OAuthClientProvider. */
let host: TestOAuthHost;
let oauthAgent: Client;
/** A client registered by dynamic registration, for flows driven by hand. */
let clientId: string;
const redirectUri = 'http://127.0.0.1:45999/callback';
let room: string;
let priced: string;
let hour = 0;

const mcpUrl = () => new URL('/mcp', server.url);

async function tokenOf(...args: string[]): Promise<{ token: string; scopes: string[]; writePolicy: string }> {
  const made = await runCli([
    'tokens',
    'create',
    server.agent.email,
    ...args,
    '--db',
    server.dbPath,
    '--json',
  ]);
  expect(made.status, made.stderr).toBe(0);
  return JSON.parse(made.stdout) as { token: string; scopes: string[]; writePolicy: string };
}

async function hold(client: Client = agent, calendarId = room) {
  hour += 1;
  const { booking } = await ok(client, 'hold_slot', {
    calendarIds: [calendarId],
    start: futureHour(2, hour),
    end: futureHour(2, hour + 1),
    idempotencyKey: randomUUID(),
  });
  return booking as { id: string; version: number; [field: string]: any };
}

const confirm = (
  client: Client,
  booking: { id: string; version: number },
  extra: Record<string, unknown> = {},
) =>
  call(client, 'confirm_booking', {
    bookingId: booking.id,
    expectedVersion: booking.version,
    idempotencyKey: randomUUID(),
    ...extra,
  });

/** A GET with the Host and other headers of the caller's choosing (fetch will not send another Host). */
function getAs(target: RunningServer, path: string, headers: Record<string, string>) {
  return new Promise<{ status: number; body: string; setCookie: string[] }>((resolve, reject) => {
    get({ host: '127.0.0.1', port: target.port, path, headers }, (answer) => {
      let body = '';
      answer.setEncoding('utf8');
      answer.on('data', (chunk: string) => (body += chunk));
      answer.on('end', () =>
        resolve({ status: answer.statusCode ?? 0, body, setCookie: answer.headers['set-cookie'] ?? [] }),
      );
    }).on('error', reject);
  });
}

const pkce = () => {
  const verifier = randomBytes(32).toString('base64url');
  return { verifier, challenge: createHash('sha256').update(verifier).digest('base64url') };
};

function authorizationUrl(params: Record<string, string>): URL {
  const url = new URL('/oauth/authorize', server.url);
  url.search = new URLSearchParams({
    client_id: clientId,
    redirect_uri: redirectUri,
    response_type: 'code',
    code_challenge_method: 'S256',
    resource: mcpUrl().href,
    ...params,
  }).toString();
  return url;
}

/**
 * The person's side by HTTP: sign in, open the authorization URL, read the consent page, allow
 * with these scopes and policy. Returns the page and where the browser was sent back to.
 */
async function consent(params: Record<string, string>, choice: { scopes: string[]; policy: string }) {
  const jar = new Jar(await signIn(server.url, server.agent.email, server.agent.password));
  const reached = await follow(authorizationUrl(params), jar, redirectUri);
  const page = await reached.answer.text();
  expect(reached.url.pathname, page.slice(0, 300)).toMatch(/^\/oauth\/interaction\//);
  const csrf = /action="\/oauth\/interaction\/[^"]+"[\s\S]*?name="csrf" value="([^"]+)"/.exec(page)?.[1];
  const form = new URLSearchParams({ csrf: csrf ?? '', writePolicy: choice.policy, decision: 'allow' });
  for (const scope of choice.scopes) form.append('scope', scope);
  const done = await follow(reached.url, jar, redirectUri, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', origin: reached.url.origin },
    body: form,
  });
  return { page, back: done.url };
}

async function exchange(code: string, verifier: string) {
  const answer = await fetch(new URL('/oauth/token', server.url), {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({
      grant_type: 'authorization_code',
      code,
      redirect_uri: redirectUri,
      client_id: clientId,
      code_verifier: verifier,
      resource: mcpUrl().href,
    }),
  });
  return { status: answer.status, body: (await answer.json()) as Record<string, any> };
}

/** A whole authorization by hand: consent, code, tokens. */
async function grant(scopes: string[], policy = 'draft') {
  const { verifier, challenge } = pkce();
  const state = randomBytes(12).toString('base64url');
  const { back } = await consent(
    { scope: scopes.join(' '), state, code_challenge: challenge },
    { scopes, policy },
  );
  const tokens = await exchange(back.searchParams.get('code')!, verifier);
  expect(tokens.status, JSON.stringify(tokens.body)).toBe(200);
  return tokens.body as { access_token: string; refresh_token: string; scope: string };
}

async function page(path: string, cookie: string) {
  const answer = await fetch(new URL(path, server.url), { headers: { cookie } });
  expect(answer.status, path).toBe(200);
  return answer.text();
}

function rows(sql: string, ...params: unknown[]): Record<string, any>[] {
  const db = new Database(server.dbPath, { readonly: true });
  try {
    return db.prepare(sql).all(...params) as Record<string, any>[];
  } finally {
    db.close();
  }
}

const businessCounts = () =>
  Object.fromEntries(
    ['bookings', 'allocations', 'calendars', 'approvals', 'idempotency'].map((t) => [
      t,
      rows(`SELECT count(*) AS n FROM ${t}`)[0]!.n as number,
    ]),
  );

let probeRun: ReturnType<typeof spawnCli> | undefined;
/** `holdfast probe` against the server with the owner's token, run once. */
const probe = () => (probeRun ??= spawnCli(['probe', server.url, '--token', server.agent.token]));

beforeAll(async () => {
  [server, proxied] = await Promise.all([
    spawnServer(['--no-seed']),
    spawnServer(['--no-seed', '--public-url', 'https://holdfast.example', '--trust-proxy']),
  ]);
  agent = await connectHttp(server.url, 'modern');
  room = await createOpenCalendar(agent, 'Room');
  priced = await createOpenCalendar(agent, 'Priced room', { amount: '500.00', currency: 'CNY' });
  host = await TestOAuthHost.start('Conformance host');
  oauthAgent = await connectByHttp(server, host, { policy: 'draft' });
  const registered = await fetch(new URL('/oauth/register', server.url), {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      client_name: 'Hand-driven host',
      redirect_uris: [redirectUri],
      token_endpoint_auth_method: 'none',
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
    }),
  });
  expect(registered.status).toBe(201);
  clientId = ((await registered.json()) as { client_id: string }).client_id;
}, 60_000);

afterAll(async () => {
  await Promise.all([agent?.close(), oauthAgent?.close().catch(() => undefined)]);
  await host?.close();
  await Promise.all([server?.stop(), proxied?.stop()]);
});

describe('§1 开始使用 (getting started)', () => {
  it('1-0a the console shows the connections: personal access tokens and apps connected through OAuth', async () => {
    const cookie = await signIn(server.url, server.agent.email, server.agent.password);
    const connections = await page('/console/connections', cookie);
    expect(connections).toContain('Personal access tokens');
    expect(connections).toContain('Conformance host');
  });

  it('1-0e the connections page shows the actual MCP address and what to paste into Claude Code, Claude Desktop, Cursor, VS Code and the MCP Inspector', async () => {
    const cookie = await signIn(server.url, server.agent.email, server.agent.password);
    const connections = await page('/console/connections', cookie);
    const address = new URL('/mcp', server.url).href;
    expect(connections).toContain(`<code id="mcp-url">${address}</code>`);
    for (const host of ['Claude Code', 'Claude Desktop', 'Cursor', 'VS Code', 'MCP Inspector'])
      expect(connections, host).toContain(`<summary>${host}</summary>`);
    expect(connections).toContain(`claude mcp add --transport http holdfast ${address}`);
  });

  it('1-0b the console shows the operations waiting for a person', async () => {
    const asked = await confirm(agent, await hold());
    const approvalId = asked.error!.details.approvalId as string;
    const cookie = await signIn(server.url, server.agent.email, server.agent.password);
    expect(await page('/console/approvals', cookie)).toContain(approvalId);
  });

  it('1-0c the console shows the recent calls', async () => {
    const read = await call(agent, 'list_calendars', { limit: 1 });
    await untilSealed(server.dbPath);
    const cookie = await signIn(server.url, server.agent.email, server.agent.password);
    expect(await page('/console/activity?tool=list_calendars', cookie)).toContain(
      `<code>${read.meta.operationId}</code>`,
    );
  });

  it('1-0d the default write policy is draft: a new token and the consent page start there', async () => {
    expect((await tokenOf('--name', 'default policy')).writePolicy).toBe('draft');
    const { page: consentPage } = await consent(
      { scope: 'read', state: 's', code_challenge: pkce().challenge },
      { scopes: ['read'], policy: 'readonly' },
    );
    expect(consentPage).toMatch(/name="writePolicy" value="draft" checked/);
  });

  it('1-1 a client that supports remote OAuth connects to the MCP address over Streamable HTTP', async () => {
    expect((await call(oauthAgent, 'list_calendars', { limit: 5 })).ok).toBe(true);
  });

  it('1-2a discovery: a call without a token is 401 whose WWW-Authenticate names /.well-known/oauth-protected-resource/mcp, and that document names the resource and its authorization server', async () => {
    const refused = await bearerToolsList(mcpUrl(), 'not-a-token');
    expect(refused.status).toBe(401);
    const metadataUrl = /resource_metadata="([^"]+)"/.exec(
      refused.headers.get('www-authenticate') ?? '',
    )?.[1];
    expect(metadataUrl).toBe(new URL('/.well-known/oauth-protected-resource/mcp', server.url).href);
    const metadata = (await (await fetch(metadataUrl!)).json()) as Record<string, unknown>;
    expect(metadata).toMatchObject({
      resource: mcpUrl().href,
      authorization_servers: [new URL(server.url).origin],
    });
  });

  it('1-2b OAuth 2.1 authorization code with PKCE S256 only: plain PKCE and a wrong verifier are refused', async () => {
    const metadata = (await (
      await fetch(new URL('/.well-known/oauth-authorization-server', server.url))
    ).json()) as Record<string, unknown>;
    expect(metadata.response_types_supported).toEqual(['code']);
    expect(metadata.code_challenge_methods_supported).toEqual(['S256']);
    const plain = await fetch(
      authorizationUrl({
        scope: 'read',
        state: 's',
        code_challenge: 'x'.repeat(43),
        code_challenge_method: 'plain',
      }),
      { redirect: 'manual' },
    );
    expect(plain.headers.get('location') ?? '').not.toMatch(/\/oauth\/interaction\//);
    const { challenge } = pkce();
    const { back } = await consent(
      { scope: 'read', state: 's', code_challenge: challenge },
      { scopes: ['read'], policy: 'readonly' },
    );
    const wrong = await exchange(back.searchParams.get('code')!, pkce().verifier);
    expect(wrong.status).toBe(400);
    expect(wrong.body.error).toBe('invalid_grant');
  });

  it('1-2c RFC 8707: the resource must be this server’s /mcp', async () => {
    const other = await fetch(
      authorizationUrl({
        scope: 'read',
        state: 's',
        code_challenge: pkce().challenge,
        resource: 'https://elsewhere.example/mcp',
      }),
      { redirect: 'manual' },
    );
    const location = other.headers.get('location') ?? '';
    expect(location).not.toMatch(/\/oauth\/interaction\//);
    expect(
      other.status === 400 || new URL(location, server.url).searchParams.get('error') === 'invalid_target',
    ).toBe(true);
  });

  it('1-2d dynamic registration of public clients (token_endpoint_auth_method none)', async () => {
    const metadata = (await (
      await fetch(new URL('/.well-known/oauth-authorization-server', server.url))
    ).json()) as Record<string, any>;
    expect(metadata.registration_endpoint).toBe(new URL('/oauth/register', server.url).href);
    expect(metadata.token_endpoint_auth_methods_supported).toContain('none');
    expect(host.clientInformation()!.client_id).toEqual(expect.any(String));
  });

  it('1-3a the consent page names the client, where the answer goes and the permissions asked', async () => {
    const { page: consentPage } = await consent(
      { scope: 'read draft', state: 's', code_challenge: pkce().challenge },
      { scopes: ['read'], policy: 'readonly' },
    );
    expect(consentPage).toContain('Hand-driven host');
    expect(consentPage).toContain('127.0.0.1:45999');
    expect(consentPage).toMatch(/name="scope" value="read"/);
    expect(consentPage).toMatch(/name="scope" value="draft"/);
  });

  it('1-3b different: people sign in; there is no sign-up (an owner adds people)', async () => {
    const login = await (await fetch(new URL('/login', server.url))).text();
    expect(login).toContain('Sign in to Holdfast');
    expect(login).not.toMatch(/sign.?up|register/i);
    for (const path of ['/register', '/signup'])
      expect((await fetch(new URL(path, server.url))).status, path).toBe(404);
  });

  it('1-3c the browser comes back to the exact registered callback with the state unchanged', async () => {
    const state = `st-${randomBytes(9).toString('base64url')}`;
    const { back } = await consent(
      { scope: 'read', state, code_challenge: pkce().challenge },
      { scopes: ['read'], policy: 'readonly' },
    );
    expect(`${back.origin}${back.pathname}`).toBe(redirectUri);
    expect(back.searchParams.get('state')).toBe(state);
    expect(back.searchParams.get('code')).toEqual(expect.any(String));
  });

  it('1-4a the permissions are read (queries), draft (drafts), write (ordinary writes) and sensitive', async () => {
    const metadata = (await (
      await fetch(new URL('/.well-known/oauth-protected-resource/mcp', server.url))
    ).json()) as {
      scopes_supported: string[];
    };
    expect(metadata.scopes_supported).toEqual(['read', 'draft', 'write', 'sensitive']);
    const readOnly = await grant(['read'], 'readonly');
    const reader = await connectHttp(server.url, 'modern', { token: readOnly.access_token });
    try {
      expect((await call(reader, 'list_calendars', { limit: 1 })).ok).toBe(true);
      const hold = await reader
        .callTool({
          name: 'hold_slot',
          arguments: {
            calendarIds: [room],
            start: futureHour(9),
            end: futureHour(9, 1),
            idempotencyKey: randomUUID(),
          },
        })
        .catch((error: unknown) => error);
      expect(String(hold)).toMatch(/insufficient.?scope/i);
    } finally {
      await reader.close();
    }
  });

  it('1-4b every grant includes read: a draft-only OAuth grant and a draft-only token both read', async () => {
    const drafted = await grant(['draft'], 'draft');
    const viaOAuth = await connectHttp(server.url, 'modern', { token: drafted.access_token });
    try {
      expect((await call(viaOAuth, 'list_calendars', { limit: 1 })).ok).toBe(true);
    } finally {
      await viaOAuth.close();
    }
    const made = await runCli([
      'tokens',
      'create',
      server.agent.email,
      '--name',
      'draft only',
      '--scopes',
      'draft',
      '--json',
      '--db',
      server.dbPath,
    ]);
    expect(made.status, made.stderr).toBe(0);
    expect((JSON.parse(made.stdout) as { scopes: string[] }).scopes).toEqual(['read', 'draft']);
  });

  it('1-4c sensitive is given only on the web page, unticked, after a fresh sign-in — never by a tool argument', async () => {
    const { page: consentPage } = await consent(
      { scope: 'read sensitive', state: 's', code_challenge: pkce().challenge },
      { scopes: ['read'], policy: 'readonly' },
    );
    expect(consentPage).toMatch(/name="scope" value="sensitive"/);
    expect(consentPage).not.toMatch(/name="scope" value="sensitive" checked/);
    const confirmed = await confirm(agent, await hold(), { confirmed: true });
    expect(confirmed.error).toMatchObject({ code: 'INVALID_ARGUMENTS', details: { field: 'confirmed' } });
  });

  it('1-5a different: ids are stable prefixed random ids (bk_…, cal_…), not UUIDs; approvals are UUIDs', async () => {
    const held = await hold();
    expect(held.id).toMatch(/^bk_[A-Za-z0-9_-]{20,}$/);
    expect(room).toMatch(/^cal_/);
    expect((await ok(agent, 'get_booking', { bookingId: held.id })).booking.id).toBe(held.id);
    const asked = await confirm(agent, held);
    expect(asked.error!.details.approvalId).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4/);
  });

  it('1-5b different: a write carries the booking’s expectedVersion, not the account’s expectedState; a stale one is VERSION_CONFLICT with the current version', async () => {
    const held = await hold();
    const stale = await confirm(agent, { id: held.id, version: held.version + 5 });
    expect(stale.error).toMatchObject({
      code: 'VERSION_CONFLICT',
      retryable: true,
      details: { currentVersion: held.version },
    });
  });

  it('1-5c a network retry with the same idempotencyKey and arguments replays the first answer', async () => {
    hour += 1;
    const args = {
      calendarIds: [room],
      start: futureHour(2, hour),
      end: futureHour(2, hour + 1),
      idempotencyKey: randomUUID(),
    };
    const first = await call(agent, 'hold_slot', args);
    const retry = await call(agent, 'hold_slot', args);
    expect(retry.meta.idempotentReplay).toBe(true);
    expect(retry.data).toEqual(first.data);
  });

  it('1-5d after the state changed, the old key with other arguments is refused: a new request needs a new key', async () => {
    hour += 2;
    const key = randomUUID();
    const args = {
      calendarIds: [room],
      start: futureHour(2, hour),
      end: futureHour(2, hour + 1),
      idempotencyKey: key,
    };
    expect((await call(agent, 'hold_slot', args)).ok).toBe(true);
    const reused = await call(agent, 'hold_slot', { ...args, end: futureHour(2, hour + 2) });
    expect(reused.error?.code).toBe('IDEMPOTENCY_CONFLICT');
  });

  it('1-5e different: the same key and arguments from another connection of the same person replay, not refused (keys are the person’s)', async () => {
    hour += 2;
    const args = {
      calendarIds: [room],
      start: futureHour(2, hour),
      end: futureHour(2, hour + 1),
      idempotencyKey: randomUUID(),
    };
    const first = await call(agent, 'hold_slot', args);
    expect(first.ok).toBe(true);
    const made = await runCli([
      'tokens',
      'create',
      server.agent.email,
      '--name',
      'second host',
      '--json',
      '--db',
      server.dbPath,
    ]);
    const second = await connectHttp(server.url, 'modern', {
      token: (JSON.parse(made.stdout) as { token: string }).token,
    });
    try {
      const again = await call(second, 'hold_slot', args);
      expect(again.meta.idempotentReplay).toBe(true);
      expect(again.data).toEqual(first.data);
    } finally {
      await second.close();
    }
  });

  it('1-6a different: a pending write gives approveUrl (the contract’s confirmationUrl), where the person reviews and approves or denies', async () => {
    const asked = await confirm(agent, await hold());
    expect(asked.error?.code).toBe('APPROVAL_REQUIRED');
    const approveUrl = asked.error!.details.approveUrl as string;
    expect(approveUrl).toBe(
      new URL(`/console/approvals/${String(asked.error!.details.approvalId)}`, server.url).href,
    );
    const cookie = await signIn(server.url, server.agent.email, server.agent.password);
    const denied = await decideOnPage(approveUrl, cookie, 'deny');
    expect(denied.status).toBe(200);
  });

  it('1-6b different: get_approval (the contract’s operation_get) answers pending, approved, denied; the agent then runs the action itself', async () => {
    const [a, b] = [await hold(), await hold()];
    const approvalOf = async (booking: typeof a) =>
      (await confirm(agent, booking)).error!.details.approvalId as string;
    const [yes, no] = [await approvalOf(a), await approvalOf(b)];
    expect((await call(agent, 'get_approval', { approvalId: yes })).error?.code).toBe('APPROVAL_PENDING');
    expect((await runCli(['approvals', 'approve', yes, '--db', server.dbPath])).status).toBe(0);
    expect((await runCli(['approvals', 'deny', no, '--db', server.dbPath])).status).toBe(0);
    expect((await ok(agent, 'get_approval', { approvalId: yes })).approval.status).toBe('APPROVED');
    expect((await call(agent, 'get_approval', { approvalId: no })).error?.code).toBe('APPROVAL_DENIED');
    expect((await confirm(agent, a, { approval: { approvalId: yes } })).data?.booking.status).toBe(
      'CONFIRMED',
    );
  });

  it('1-6c a failed completion keeps the approval and says why; the same approval completes it once the cause is gone', async () => {
    const booking = await hold(agent, priced);
    const approvalId = (await confirm(agent, booking)).error!.details.approvalId as string;
    expect((await runCli(['approvals', 'approve', approvalId, '--db', server.dbPath])).status).toBe(0);
    const unpaid = await confirm(agent, booking, { approval: { approvalId } });
    expect(unpaid.error).toMatchObject({ code: 'PAYMENT_PENDING', retryable: true });
    expect((await ok(agent, 'get_approval', { approvalId })).approval.status).toBe('APPROVED');
    expect((await runCli(['payments', 'set', booking.id, 'PAID', '--db', server.dbPath])).status).toBe(0);
    expect((await confirm(agent, booking, { approval: { approvalId } })).data?.booking.status).toBe(
      'CONFIRMED',
    );
  });

  it('1-after-1 passwords are typed only on the website: no tool takes one, no command sets one', async () => {
    const { tools } = await agent.listTools();
    expect(JSON.stringify(tools.map((t) => t.inputSchema))).not.toMatch(/password/i);
    const help = await spawnCli(['users', '--help']);
    expect(help.stdout).toContain('No password is ever set from the command line');
  });

  it('1-after-2 different: a password reset revokes all the person’s agent connections at once (no 5-minute read for the one that made it)', async () => {
    const { deps, close } = await identityDeps(server.dbPath);
    const carol = await addAgent(deps, { email: 'carol@local.example', role: 'approver' });
    await close();
    expect((await bearerToolsList(mcpUrl(), carol.token)).status).toBe(200);
    const reset = await runCli(['users', 'reset-password', carol.email, '--db', server.dbPath]);
    expect(reset.status, reset.stderr).toBe(0);
    expect((await bearerToolsList(mcpUrl(), carol.token)).status).toBe(401);
  });

  it('1-after-3 different: no hidden assets; what a connection without sensitive sees of a customer is masked, whatever the person sees on the website', async () => {
    await ok(agent, 'hold_slot', {
      calendarIds: [room],
      start: futureHour(8),
      end: futureHour(8, 1),
      customer: { name: 'Wang Fang', email: 'wang.fang@example.com' },
      idempotencyKey: randomUUID(),
    });
    const narrow = await connectHttp(server.url, 'modern', {
      token: (await tokenOf('--scopes', 'read')).token,
    });
    try {
      const listed = JSON.stringify(await ok(narrow, 'list_customers', { limit: 100 }));
      expect(listed).not.toContain('wang.fang@example.com');
      expect(listed).toContain('***@example.com');
    } finally {
      await narrow.close();
    }
  });
});

describe('§2 开发启动与环境 (development start and environment)', () => {
  it('2-1 different: no pnpm, Prisma or Windows steps — `npm install && npm start`; `holdfast db migrate` brings the schema up to date', async () => {
    const scripts = (JSON.parse(readFileSync('package.json', 'utf8')) as { scripts: Record<string, string> })
      .scripts;
    expect(scripts.start).toContain('holdfast.js serve');
    expect((await spawnCli(['db', '--help'])).stdout).toContain('holdfast db migrate');
  });

  it('2-2 migrations only move forward: migrating a live database keeps its data', async () => {
    const before = businessCounts();
    const migrated = await runCli(['db', 'migrate', '--db', server.dbPath]);
    expect(migrated.status, migrated.stderr).toBe(0);
    expect(businessCounts()).toEqual(before);
  });

  it('2-3 different: the fixed OAuth resource is `--public-url` (HOLDFAST_PUBLIC_URL) + /mcp, not MCP_PUBLIC_URL; off loopback it must be https', async () => {
    const metadata = await getAs(proxied, '/.well-known/oauth-protected-resource/mcp', {
      host: 'holdfast.example',
    });
    expect(JSON.parse(metadata.body)).toMatchObject({ resource: 'https://holdfast.example/mcp' });
    expect(readFileSync('.env.example', 'utf8')).toMatch(/^HOLDFAST_PUBLIC_URL=/m);
    const plain = await spawnCli([
      'serve',
      '--host',
      '0.0.0.0',
      '--port',
      '0',
      '--db',
      server.dbPath,
      '--public-url',
      'http://holdfast.example',
      '--trust-proxy',
    ]);
    expect(plain.status).toBe(2);
    expect(plain.stderr).toContain('--public-url https://');
  });

  it('2-4 different: the web authorization and confirmation pages live on the same public origin (no MCP_WEB_URL)', async () => {
    const metadata = await getAs(proxied, '/.well-known/oauth-authorization-server', {
      host: 'holdfast.example',
    });
    const parsed = JSON.parse(metadata.body) as Record<string, string>;
    expect(parsed.issuer).toBe('https://holdfast.example');
    expect(parsed.authorization_endpoint).toBe('https://holdfast.example/oauth/authorize');
  });

  it('2-5 different: allowed browser origins are exact host names (`--allowed-host`, repeatable), not MCP_ALLOWED_ORIGINS; there are no wildcards', async () => {
    const help = (await spawnCli(['serve', '--help'])).stdout;
    expect(help).toMatch(/--allowed-host HOST +another Host \(and Origin\) name to accept; repeatable/);
    const wildcard = await fetch(mcpUrl(), {
      method: 'POST',
      headers: {
        origin: 'http://sub.127.0.0.1.nip.io',
        authorization: `Bearer ${server.agent.token}`,
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-protocol-version': '2025-06-18',
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    });
    expect(wildcard.status).toBe(403);
  });

  it('2-6 behind https, cookies are Secure, HttpOnly and SameSite=Strict', async () => {
    const login = await getAs(proxied, '/login', { host: 'holdfast.example' });
    expect(login.status).toBe(200);
    expect(login.setCookie.length).toBeGreaterThan(0);
    for (const cookie of login.setCookie) {
      expect(cookie).toMatch(/;\s*Secure/i);
      expect(cookie).toMatch(/;\s*HttpOnly/i);
      expect(cookie).toMatch(/;\s*SameSite=Strict/i);
    }
  });

  it('2-7 /mcp takes its own Bearer token only: a signed-in person’s cookie or a session id is no credential', async () => {
    const cookie = await signIn(server.url, server.agent.email, server.agent.password);
    const post = (headers: Record<string, string>) =>
      fetch(mcpUrl(), {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          'mcp-protocol-version': '2025-06-18',
          ...headers,
        },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
      });
    expect((await post({ cookie })).status).toBe(401);
    expect((await post({ 'mcp-session-id': randomUUID() })).status).toBe(401);
  });

  it('2-8 clients without Origin are let in; a request with an Origin must match', async () => {
    const post = (headers: Record<string, string>) =>
      fetch(mcpUrl(), {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          'mcp-protocol-version': '2025-06-18',
          authorization: `Bearer ${server.agent.token}`,
          ...headers,
        },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
      });
    expect((await post({})).status).toBe(200);
    expect((await post({ origin: new URL(server.url).origin })).status).toBe(200);
    expect((await post({ origin: 'https://evil.example' })).status).toBe(403);
  });

  it('2-9 the Host must be the resource’s own', async () => {
    expect((await getAs(server, '/mcp', { host: 'evil.example' })).status).toBe(403);
    expect(
      (await getAs(proxied, '/.well-known/oauth-protected-resource/mcp', { host: 'evil.example' })).status,
    ).toBe(403);
  });

  it('2-10 behind a proxy the resource URL is the configured one, never built from forwarded headers', async () => {
    const forged = await getAs(proxied, '/.well-known/oauth-protected-resource/mcp', {
      host: 'holdfast.example',
      'x-forwarded-host': 'evil.example',
      'x-forwarded-proto': 'http',
    });
    expect(JSON.parse(forged.body)).toMatchObject({ resource: 'https://holdfast.example/mcp' });
  });
});

describe('§3 已验证的客户端配置 (verified client configuration)', () => {
  it('3-1 the official SDK’s StreamableHTTPClientTransport with a personal access token as Bearer lists the tools, as the sample does', async () => {
    const { tools } = await agent.listTools();
    expect(tools.length).toBeGreaterThan(10);
  });

  it('3-2 the official SDK’s OAuthClientProvider: discovery, dynamic registration, PKCE, redirectToAuthorization and finishAuth(code)', async () => {
    expect(host.authorizationUrl?.searchParams.get('code_challenge_method')).toBe('S256');
    expect(host.authorizationUrl?.searchParams.get('resource')).toBe(mcpUrl().href);
    expect(host.tokens()?.access_token).toEqual(expect.any(String));
    expect((await oauthAgent.listTools()).tools.length).toBeGreaterThan(10);
  });

  it('3-3 refresh rotates the refresh token; a spent one is refused', async () => {
    const tokens = await grant(['read'], 'readonly');
    const refresh = (refreshToken: string) =>
      fetch(new URL('/oauth/token', server.url), {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({
          grant_type: 'refresh_token',
          refresh_token: refreshToken,
          client_id: clientId,
        }),
      });
    const rotated = await refresh(tokens.refresh_token);
    expect(rotated.status).toBe(200);
    const next = (await rotated.json()) as { access_token: string; refresh_token: string };
    expect(next.refresh_token).not.toBe(tokens.refresh_token);
    expect((await bearerToolsList(mcpUrl(), next.access_token)).status).toBe(200);
    expect((await refresh(tokens.refresh_token)).status).toBe(400);
  });

  it('3-4 revocation: revoking at /oauth/revoke stops the connection at its next call', async () => {
    const tokens = await grant(['read'], 'readonly');
    expect((await bearerToolsList(mcpUrl(), tokens.access_token)).status).toBe(200);
    const revoked = await fetch(new URL('/oauth/revoke', server.url), {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        token: tokens.refresh_token,
        token_type_hint: 'refresh_token',
        client_id: clientId,
      }),
    });
    expect(revoked.status).toBe(200);
    expect((await bearerToolsList(mcpUrl(), tokens.access_token)).status).toBe(401);
  });

  it('3-5 the server negotiates the protocol: the SDK client’s default 2025-11-25, and 2026-07-28 to a client that asks for it', async () => {
    const legacy = await connectHttp(server.url, 'legacy');
    try {
      expect(legacy.getNegotiatedProtocolVersion()).toBe('2025-11-25');
    } finally {
      await legacy.close();
    }
    expect(agent.getNegotiatedProtocolVersion()).toBe('2026-07-28');
  });

  it('3-6 different: the SDK is the maintained v2 line (@modelcontextprotocol/client, server), versions locked by package-lock.json, not SDK 1.31.0', () => {
    const pkg = JSON.parse(readFileSync('package.json', 'utf8')) as { dependencies: Record<string, string> };
    expect(pkg.dependencies['@modelcontextprotocol/client']).toMatch(/^\^2\./);
    const lock = JSON.parse(readFileSync('package-lock.json', 'utf8')) as {
      packages: Record<string, { version: string }>;
    };
    expect(lock.packages['node_modules/@modelcontextprotocol/client']?.version).toMatch(/^2\.\d+\.\d+$/);
    expect(pkg.dependencies).not.toHaveProperty('@modelcontextprotocol/sdk');
  });

  it('3-7 a read-only protocol diagnostic client: `holdfast probe URL --token T` checks every step and writes nothing', async () => {
    const before = businessCounts();
    const probed = await probe();
    expect(probed.status, probed.stdout + probed.stderr).toBe(0);
    for (const step of ['health', 'OAuth protected-resource metadata', 'MCP connection', 'tools'])
      expect(probed.stdout).toContain(`ok   ${step}`);
    expect(probed.stdout).toContain('(read-only)');
    expect(businessCounts()).toEqual(before);
  });

  it('3-8 a personal access token is shown once, when it is made', async () => {
    const made = await tokenOf('--name', 'shown once');
    const listed = await runCli(['tokens', 'list', '--db', server.dbPath, '--json']);
    expect(listed.stdout).toContain('shown once');
    expect(listed.stdout).not.toContain(made.token);
  });

  it('3-9 the server returns the original state (and iss, RFC 9207) for the client to check', async () => {
    const state = randomBytes(16).toString('hex');
    const { back } = await consent(
      { scope: 'read', state, code_challenge: pkce().challenge },
      { scopes: ['read'], policy: 'readonly' },
    );
    expect(back.searchParams.get('state')).toBe(state);
    expect(back.searchParams.get('iss')).toBe(new URL(server.url).origin);
  });

  it('3-10 different: hosts’ configurations are documented (Claude, ChatGPT, Cursor, VS Code, mcp-remote) and their real callbacks register', async () => {
    const docs = readFileSync('docs/oauth.md', 'utf8');
    for (const name of ['Claude', 'ChatGPT', 'Cursor', 'VS Code', 'mcp-remote'])
      expect(docs, name).toContain(name);
    for (const callback of [
      'https://claude.ai/api/mcp/auth_callback',
      'https://chatgpt.com/connector_platform_oauth_redirect',
      'cursor://anysphere.cursor-mcp/oauth/callback',
      'http://localhost:3334/oauth/callback',
    ]) {
      const registered = await fetch(new URL('/oauth/register', server.url), {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({
          client_name: 'host',
          redirect_uris: [callback],
          token_endpoint_auth_method: 'none',
        }),
      });
      expect(registered.status, callback).toBe(201);
    }
  });

  it('3-11 different: the https proxy recipe is documented and run by a test (docs/operations.md, test/e2e/tls-proxy.test.ts)', () => {
    expect(readFileSync('docs/operations.md', 'utf8')).toMatch(/reverse_proxy 127\.0\.0\.1:8080/);
    expect(readFileSync('test/e2e/tls-proxy.test.ts', 'utf8')).toContain('spawnServer(');
  });
});

describe('§4 写入、权限和一致性 (writes, permissions and consistency)', () => {
  it('4-1 policy readonly refuses writes', async () => {
    const readonly = await connectHttp(server.url, 'modern', {
      token: (await tokenOf('--write-policy', 'readonly')).token,
    });
    try {
      const refused = await call(readonly, 'hold_slot', {
        calendarIds: [room],
        start: futureHour(9),
        end: futureHour(9, 1),
        idempotencyKey: randomUUID(),
      });
      expect(refused.error).toMatchObject({ code: 'FORBIDDEN', details: { writePolicy: 'readonly' } });
    } finally {
      await readonly.close();
    }
  });

  it('4-2 policy draft (the default): a draft is saved (the hold), an ordinary write waits for the person', async () => {
    const held = await hold();
    expect(held.status).toBe('HELD');
    expect((await confirm(agent, held)).error?.code).toBe('APPROVAL_REQUIRED');
  });

  it('4-3 policy direct runs ordinary writes', async () => {
    const direct = await connectHttp(server.url, 'modern', {
      token: (await tokenOf('--write-policy', 'direct')).token,
    });
    try {
      const held = await hold(direct);
      expect((await confirm(direct, held)).data?.booking.status).toBe('CONFIRMED');
    } finally {
      await direct.close();
    }
  });

  it('4-4 different: an approval (the contract’s draft) is kept with the person, connection, exact intent and state it was asked for, and, once a person decides, keeps its hold 30 minutes by default, not 10', async () => {
    const held = await hold();
    const before = Date.now();
    const asked = await ok(agent, 'request_approval', {
      bookingId: held.id,
      action: 'confirm_booking',
      idempotencyKey: randomUUID(),
    });
    expect(asked.intent).toMatchObject({ bookingId: held.id, version: held.version });
    const stored = rows('SELECT subject, client_id FROM approvals WHERE id = ?', asked.approvalId)[0]!;
    expect(stored.subject).toBe(rows('SELECT id FROM people WHERE email = ?', server.agent.email)[0]!.id);
    expect(stored.client_id).toContain('tok_');
    // Asked by the agent alone it lasts as its hold does; a person's decision keeps it 30 minutes.
    expect(Date.parse(asked.expiresAt)).toBe(Date.parse(held.expiresAt));
    expect((await runCli(['approvals', 'approve', asked.approvalId, '--db', server.dbPath])).status).toBe(0);
    const kept = await ok(agent, 'get_booking', { bookingId: held.id });
    expect(Date.parse(kept.booking.expiresAt) - before).toBeGreaterThan(29 * 60_000);
  });

  it('4-5 using an approval re-checks the connection, its scope and who owns it', async () => {
    const held = await hold();
    const approvalId = (await confirm(agent, held)).error!.details.approvalId as string;
    expect((await runCli(['approvals', 'approve', approvalId, '--db', server.dbPath])).status).toBe(0);
    const { deps, close } = await identityDeps(server.dbPath);
    const dave = await addAgent(deps, { email: 'dave@local.example', role: 'owner' });
    await close();
    const stranger = await connectHttp(server.url, 'modern', { token: dave.token });
    const noWrite = await tokenOf('--scopes', 'read,draft');
    try {
      expect((await confirm(stranger, held, { approval: { approvalId } })).error?.code).toBe('NOT_FOUND');
      const scoped = await fetch(mcpUrl(), {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          'mcp-protocol-version': '2025-06-18',
          authorization: `Bearer ${noWrite.token}`,
        },
        body: JSON.stringify({
          jsonrpc: '2.0',
          id: 1,
          method: 'tools/call',
          params: {
            name: 'confirm_booking',
            arguments: {
              bookingId: held.id,
              expectedVersion: held.version,
              idempotencyKey: randomUUID(),
              approval: { approvalId },
            },
          },
        }),
      });
      expect(scoped.status).toBe(403);
      expect(scoped.headers.get('www-authenticate')).toContain('insufficient_scope');
      const revocable = await runCli([
        'tokens',
        'create',
        server.agent.email,
        '--name',
        'to revoke',
        '--db',
        server.dbPath,
        '--json',
      ]);
      const { id, token } = JSON.parse(revocable.stdout) as { id: string; token: string };
      expect((await bearerToolsList(mcpUrl(), token)).status).toBe(200);
      expect((await runCli(['tokens', 'revoke', id, '--db', server.dbPath])).status).toBe(0);
      expect((await bearerToolsList(mcpUrl(), token)).status).toBe(401);
      expect((await confirm(agent, held, { approval: { approvalId } })).data?.booking.status).toBe(
        'CONFIRMED',
      );
    } finally {
      await stranger.close();
    }
  });

  it('4-6 confirmed: true is refused by the strict schema', async () => {
    const refused = await call(agent, 'cancel_booking', {
      bookingId: (await hold()).id,
      expectedVersion: 1,
      idempotencyKey: randomUUID(),
      confirmed: true,
    });
    expect(refused.error).toMatchObject({ code: 'INVALID_ARGUMENTS', details: { field: 'confirmed' } });
  });

  it('4-7 the idempotency record and the change commit together: a retried key never books twice', async () => {
    hour += 1;
    const args = {
      calendarIds: [room],
      start: futureHour(2, hour),
      end: futureHour(2, hour + 1),
      idempotencyKey: randomUUID(),
    };
    const answers = await Promise.all([
      call(agent, 'hold_slot', args),
      call(agent, 'hold_slot', args),
      call(agent, 'hold_slot', args),
    ]);
    const ids = new Set(answers.map((a) => a.data?.booking.id));
    expect(ids.size).toBe(1);
    expect(
      rows(
        'SELECT count(*) AS n FROM allocations WHERE calendar_id = ? AND start_at = ?',
        room,
        Date.parse(args.start),
      )[0]!.n,
    ).toBe(1);
  });

  it('4-8 the same key with other arguments is refused', async () => {
    hour += 2;
    const key = randomUUID();
    const base = {
      calendarIds: [room],
      start: futureHour(2, hour),
      end: futureHour(2, hour + 1),
      idempotencyKey: key,
    };
    expect((await call(agent, 'hold_slot', base)).ok).toBe(true);
    expect((await call(agent, 'hold_slot', { ...base, calendarIds: [priced] })).error?.code).toBe(
      'IDEMPOTENCY_CONFLICT',
    );
  });

  it('4-9 different: a write is checked against the booking’s version, not a digest of the whole account — an unrelated change does not refuse it', async () => {
    const held = await hold();
    await hold();
    expect(
      (
        await call(agent, 'release_hold', {
          bookingId: held.id,
          expectedVersion: held.version,
          idempotencyKey: randomUUID(),
        })
      ).ok,
    ).toBe(true);
  });

  it('4-10 amounts are decimal strings', async () => {
    const held = await hold(agent, priced);
    expect(held.price).toEqual({ amount: '500.00', currency: 'CNY' });
  });

  it('4-11 different: instants are RFC 3339 with an offset (a naive local time is refused) and come back in UTC with each calendar’s local form', async () => {
    const naive = await call(agent, 'hold_slot', {
      calendarIds: [room],
      start: '2030-01-07T09:00',
      end: '2030-01-07T10:00',
      idempotencyKey: randomUUID(),
    });
    expect(naive.error).toMatchObject({ code: 'INVALID_ARGUMENTS', details: { field: 'start' } });
    const held = await hold();
    expect(held.start).toMatch(/Z$/);
    expect(held.local[0]).toMatchObject({ timeZone: 'UTC', start: expect.stringMatching(/\+00:00$/) });
  });

  it('4-12 a page holds at most 100', async () => {
    for (const tool of ['list_bookings', 'list_calendars', 'list_customers']) {
      expect((await call(agent, tool, { limit: 101 })).error?.details.field, tool).toBe('limit');
      expect((await call(agent, tool, { limit: 100 })).ok, tool).toBe(true);
    }
  });

  it('4-13 different: lists page with opaque cursors bound to their query, not offsets', async () => {
    await hold();
    await hold();
    const first = await ok(agent, 'list_bookings', { limit: 1 });
    expect(first.nextCursor).toEqual(expect.any(String));
    expect((await call(agent, 'list_bookings', { limit: 1, offset: 1 })).error?.details.field).toBe('offset');
    const misused = await call(agent, 'list_bookings', {
      limit: 1,
      status: 'CONFIRMED',
      cursor: first.nextCursor,
    });
    expect(misused.error?.code).toBe('INVALID_CURSOR');
  });
});

describe('§5 备份、图标和敏感操作 (backups, icons and sensitive operations)', () => {
  it('5-1 different: no backup import or export, icons, data clearing, state_get or operation_get tools — Holdfast is a booking server', async () => {
    const names = (await agent.listTools()).tools.map((t) => t.name);
    for (const tool of [
      'file_upload_request',
      'import_preview',
      'backup_import',
      'backup_export',
      'icon_publish',
      'icon_image',
      'data_clear_request',
      'state_get',
      'operation_get',
    ])
      expect(names, tool).not.toContain(tool);
  });

  it('5-2 a URL handed to the agent grants nothing by itself: the approval page needs a signed-in person, not the agent’s Bearer', async () => {
    const asked = await confirm(agent, await hold());
    const approveUrl = asked.error!.details.approveUrl as string;
    for (const headers of [{}, { authorization: `Bearer ${server.agent.token}` }] as Record<
      string,
      string
    >[]) {
      const answer = await fetch(approveUrl, { redirect: 'manual', headers });
      expect(answer.status).toBe(303);
      expect(answer.headers.get('location')).toMatch(/^\/login\?next=/);
    }
  });

  it('5-3 no deleting in bulk: no tool deletes, clears or purges; the one destructive tool (cancel_booking) is gated', async () => {
    const { tools } = await agent.listTools();
    expect(tools.map((t) => t.name).filter((n) => /delete|remove|clear|purge|wipe/.test(n))).toEqual([]);
    const destructive = tools.filter((t) => t.annotations?.destructiveHint === true).map((t) => t.name);
    expect(destructive).toContain('cancel_booking');
  });

  it('5-4 a copy of the data holds no password or token: both are stored only as digests', async () => {
    const made = await tokenOf('--name', 'not in any backup');
    const files = [server.dbPath, `${server.dbPath}-wal`].filter((f) => existsSync(f));
    expect(rows('SELECT count(*) AS n FROM access_tokens')[0]!.n).toBeGreaterThan(1);
    for (const file of files) {
      const bytes = readFileSync(file);
      expect(bytes.includes(Buffer.from(made.token)), file).toBe(false);
      expect(bytes.includes(Buffer.from(made.token.slice('hf_pat_'.length))), file).toBe(false);
      expect(bytes.includes(Buffer.from(server.agent.password)), file).toBe(false);
    }
  });
});

describe('§6 服务和代理 (service and proxy)', () => {
  it('6-1 stateless Streamable HTTP: each POST is authenticated on its own, and answers standard JSON-RPC results', async () => {
    const post = (body: unknown, token?: string) =>
      fetch(mcpUrl(), {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          'mcp-protocol-version': '2025-06-18',
          ...(token ? { authorization: `Bearer ${token}` } : {}),
        },
        body: JSON.stringify(body),
      });
    const init = await post(
      {
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'x', version: '1' } },
      },
      server.agent.token,
    );
    expect(init.status).toBe(200);
    expect(await init.text()).toContain('"protocolVersion":"2025-06-18"');
    expect((await post({ jsonrpc: '2.0', id: 2, method: 'tools/list' })).status).toBe(401);
    expect((await post({ jsonrpc: '2.0', id: 3, method: 'tools/list' }, server.agent.token)).status).toBe(
      200,
    );
  });

  it('6-2 GET and DELETE /mcp are 405; no session is issued', async () => {
    for (const method of ['GET', 'DELETE'])
      expect(
        (await fetch(mcpUrl(), { method, headers: { authorization: `Bearer ${server.agent.token}` } }))
          .status,
      ).toBe(405);
    const answer = await bearerToolsList(mcpUrl(), server.agent.token);
    expect(answer.headers.get('mcp-session-id')).toBeNull();
  });

  // The seed had no need of notifications then; issue 31 (waitlist offers) brought one. It comes
  // only through a stateless `subscriptions/listen` request, never a session: GET stays 405 (6-2).
  it('6-3 no subscription sessions: resource changes only through a stateless listen request', async () => {
    expect(agent.getServerCapabilities()?.resources?.subscribe).toBe(true);
    const answer = await fetch(mcpUrl(), { headers: { authorization: `Bearer ${server.agent.token}` } });
    expect(answer.status).toBe(405);
    expect(answer.headers.get('mcp-session-id')).toBeNull();
  });

  it('6-4 OAuth, tokens, approvals, idempotency and the audit are kept in the database', () => {
    const tables = rows("SELECT name FROM sqlite_master WHERE type = 'table'").map((r) => r.name as string);
    for (const table of [
      'oauth_records',
      'oauth_connections',
      'access_tokens',
      'approvals',
      'idempotency',
      'audit_log',
    ])
      expect(tables, table).toContain(table);
  });

  it('6-5 logs keep no tool arguments, passwords or tokens', async () => {
    await ok(agent, 'hold_slot', {
      calendarIds: [room],
      start: futureHour(7),
      end: futureHour(7, 1),
      customer: { name: 'Li Lei', email: 'li.lei.secret@example.com', phone: '+86 10 5555 0101' },
      idempotencyKey: randomUUID(),
    });
    await signIn(server.url, server.agent.email, server.agent.password);
    await untilSealed(server.dbPath);
    const logs = server.logs.join('');
    expect(logs).toContain('"action":"hold_slot"');
    for (const secret of [
      'li.lei.secret@example.com',
      'Li Lei',
      '5555 0101',
      server.agent.token,
      server.agent.password,
    ])
      expect(logs, secret).not.toContain(secret);
    const audit = await runCli(['audit', 'tail', '-n', '50', '--json', '--db', server.dbPath]);
    expect(audit.stdout).not.toContain('li.lei.secret@example.com');
  });

  it('6-6 different: the console’s activity shows each person their own calls (owners their whole tenant’s), 50 a page, not the last 100', async () => {
    const erin = await addPersonWithPassword(server, { email: 'erin@local.example', role: 'approver' });
    const mine = await call(agent, 'list_calendars', { limit: 2 });
    await untilSealed(server.dbPath);
    const owner = await signIn(server.url, server.agent.email, server.agent.password);
    const row = `<code>${mine.meta.operationId}</code>`;
    expect(await page('/console/activity?tool=list_calendars', owner)).toContain(row);
    const approver = await signIn(server.url, erin.email, erin.password);
    const theirs = await page('/console/activity?tool=list_calendars', approver);
    expect(theirs).toContain('<h1>Activity</h1>');
    expect(theirs).not.toContain(row);
    expect(readFileSync('docs/console.md', 'utf8')).toContain('The audit trail, newest first, 50 to a page');
  });

  it('6-7 different: the proxy reference is Caddy, not nginx', () => {
    const operations = readFileSync('docs/operations.md', 'utf8');
    expect(operations).toContain('[Caddy](https://caddyserver.com)');
    expect(operations).not.toMatch(/proxy_pass/);
  });

  it('6-8 sign-in is rate limited per person and address: after 5 failures, 429 with Retry-After', async () => {
    const frank = await addPersonWithPassword(server, { email: 'frank@local.example', role: 'viewer' });
    const form = await fetch(new URL('/login', server.url));
    const csrf = /name="csrf" value="([^"]+)"/.exec(await form.text())?.[1] ?? '';
    const cookie = form.headers
      .getSetCookie()
      .map((c) => c.split(';')[0])
      .join('; ');
    const statuses: number[] = [];
    let retryAfter: string | null = null;
    for (let i = 0; i < 6; i++) {
      const answer = await fetch(new URL('/login', server.url), {
        method: 'POST',
        redirect: 'manual',
        headers: {
          'content-type': 'application/x-www-form-urlencoded',
          origin: new URL(server.url).origin,
          cookie,
        },
        body: new URLSearchParams({
          csrf,
          email: frank.email,
          password: 'not the password at all',
          next: '/',
        }),
      });
      statuses.push(answer.status);
      retryAfter = answer.headers.get('retry-after');
    }
    expect(statuses.slice(0, 5).every((s) => s === 403)).toBe(true);
    expect(statuses[5]).toBe(429);
    expect(Number(retryAfter)).toBeGreaterThan(0);
  });
});

describe('§7 实际验证与交付 (verification and delivery)', () => {
  it('7-1 `holdfast db migrate` creates the schema on a new database', async () => {
    const fresh = tempDbPath();
    try {
      const migrated = await runCli(['db', 'migrate', '--db', fresh.path]);
      expect(migrated.status, migrated.stderr).toBe(0);
      expect(existsSync(fresh.path)).toBe(true);
      const db = new Database(fresh.path, { readonly: true });
      try {
        const tables = (
          db.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").all() as { name: string }[]
        ).map((t) => t.name);
        expect(tables).toEqual(
          expect.arrayContaining(['access_tokens', 'oauth_connections', 'approvals', 'audit_log']),
        );
      } finally {
        db.close();
      }
    } finally {
      fresh.cleanup();
    }
  });

  it('7-2 the repository carries typecheck and build scripts and end-to-end tests with the official SDK client, OAuth included', () => {
    const scripts = (JSON.parse(readFileSync('package.json', 'utf8')) as { scripts: Record<string, string> })
      .scripts;
    expect(scripts.typecheck).toEqual(expect.any(String));
    expect(scripts.build).toEqual(expect.any(String));
    for (const file of [
      'test/e2e/oauth-flow.browser.test.ts',
      'test/e2e/mcp-remote.browser.test.ts',
      'test/e2e/probe.test.ts',
    ])
      expect(existsSync(file), file).toBe(true);
  });

  it('7-3 the probe discovers every tool the server offers', async () => {
    const probed = await probe();
    const count = (await agent.listTools()).tools.length;
    expect(probed.stdout).toMatch(new RegExp(`\\n {5}${count} tools\\n`));
  });
});
