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
import { csrfFor } from '../support/console-attack.js';
import { addPersonWithPassword, signIn } from '../support/person.js';
import { addAgent, identityDeps } from '../support/provision.js';
import type { RunningServer } from '../support/spawn-server.js';
import { runCli, spawnCli, spawnServer, tempDbPath, untilSealed } from '../support/spawn-server.js';

/**
 * Seed 004, the agent access contract (docs/contracts/seeds/004_6ff0d81b7a9488c9.txt, WorthPath's
 * "远程 MCP 接入"), walked in its own order, for what is not the agent-access profile's tools and
 * flows (test/contracts/profile-004-agent-access.test.ts): OAuth, the transport, the deployment
 * rules, the console and the probe, against Holdfast's own server. Each `it` names the inventory
 * rows it proves (docs/contracts/004-agent-access.md); the difference of this file, sign-in
 * without sign-up, is proven by its attack test. OAuth is driven by real HTTP against the spawned
 * server.
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
  it('[004-start-2] the console shows the connections: personal access tokens and apps connected through OAuth', async () => {
    const cookie = await signIn(server.url, server.agent.email, server.agent.password);
    const connections = await page('/console/connections', cookie);
    expect(connections).toContain('Personal access tokens');
    expect(connections).toContain('Conformance host');
    // Each with its scopes and write policy.
    expect(connections).toMatch(/read, draft, write, sensitive · draft/);
  });

  it('[004-start-1] the connections page shows the actual MCP address and what to paste into Claude Code, Claude Desktop, Cursor, VS Code and the MCP Inspector', async () => {
    const cookie = await signIn(server.url, server.agent.email, server.agent.password);
    const connections = await page('/console/connections', cookie);
    const address = new URL('/mcp', server.url).href;
    expect(connections).toContain(`<code id="mcp-url">${address}</code>`);
    for (const host of ['Claude Code', 'Claude Desktop', 'Cursor', 'VS Code', 'MCP Inspector'])
      expect(connections, host).toContain(`<summary>${host}</summary>`);
    expect(connections).toContain(`claude mcp add --transport http holdfast ${address}`);
  });

  it('[004-start-4] the console shows the recent calls', async () => {
    const read = await call(agent, 'list_calendars', { limit: 1 });
    await untilSealed(server.dbPath);
    const cookie = await signIn(server.url, server.agent.email, server.agent.password);
    expect(await page('/console/activity?tool=list_calendars', cookie)).toContain(
      `<code>${read.meta.operationId}</code>`,
    );
  });

  it('[004-start-5] the default write policy is draft: a new token and the consent page start there', async () => {
    expect((await tokenOf('--name', 'default policy')).writePolicy).toBe('draft');
    const { page: consentPage } = await consent(
      { scope: 'read', state: 's', code_challenge: pkce().challenge },
      { scopes: ['read'], policy: 'readonly' },
    );
    expect(consentPage).toMatch(/name="writePolicy" value="draft" checked/);
  });

  it('[004-start-6] a client that supports remote OAuth connects to the MCP address over Streamable HTTP', async () => {
    expect((await call(oauthAgent, 'list_calendars', { limit: 5 })).ok).toBe(true);
  });

  it('[004-start-7] discovery: a call without a token is 401 whose WWW-Authenticate names /.well-known/oauth-protected-resource/mcp, and that document names the resource and its authorization server', async () => {
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

  it('[004-start-8 004-clients-2] OAuth 2.1 authorization code with PKCE S256 only: plain PKCE and a wrong verifier are refused', async () => {
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

  it('[004-start-9] RFC 8707: the resource must be this server’s /mcp', async () => {
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

  it('[004-start-10 004-clients-2] dynamic registration of public clients (token_endpoint_auth_method none)', async () => {
    const metadata = (await (
      await fetch(new URL('/.well-known/oauth-authorization-server', server.url))
    ).json()) as Record<string, any>;
    expect(metadata.registration_endpoint).toBe(new URL('/oauth/register', server.url).href);
    expect(metadata.token_endpoint_auth_methods_supported).toContain('none');
    expect(host.clientInformation()!.client_id).toEqual(expect.any(String));
  });

  it('[004-start-12] the consent page names the client, where the answer goes, the resource and the permissions asked', async () => {
    const { page: consentPage } = await consent(
      { scope: 'read draft', state: 's', code_challenge: pkce().challenge },
      { scopes: ['read'], policy: 'readonly' },
    );
    expect(consentPage).toContain('Hand-driven host');
    expect(consentPage).toContain('127.0.0.1:45999');
    expect(consentPage).toContain(`<code id="resource">${mcpUrl().href}</code>`);
    expect(consentPage).toContain(`${server.agent.email} in `);
    expect(consentPage).toMatch(/name="writePolicy" value="draft"/);
    expect(consentPage).toMatch(/name="scope" value="read"/);
    expect(consentPage).toMatch(/name="scope" value="draft"/);
  });

  it('[004-start-11] attack: people sign in and nobody signs up — the agent’s attempts to sign up, or to sign in as someone nobody added, gain 0 sessions and 0 people', async () => {
    const login = await (await fetch(new URL('/login', server.url))).text();
    expect(login).toContain('Sign in to Holdfast');
    expect(login).not.toMatch(/sign.?up|register/i);
    const origin = new URL(server.url).origin;
    const people = () => rows('SELECT count(*) AS n FROM people')[0]!.n as number;
    const sessions = () => rows('SELECT count(*) AS n FROM sessions')[0]!.n as number;
    const [peopleBefore, sessionsBefore] = [people(), sessions()];
    const made = { email: 'agent.made.me@example.com', password: 'a password the agent chose 1' };
    const bearer = { authorization: `Bearer ${server.agent.token}` };
    const form = (path: string, fields: Record<string, string>, headers: Record<string, string> = {}) =>
      fetch(new URL(path, origin), {
        method: 'POST',
        redirect: 'manual',
        headers: { 'content-type': 'application/x-www-form-urlencoded', origin, ...headers },
        body: new URLSearchParams(fields),
      });
    /** A session gained: a session cookie set, or a way on past the sign-in. */
    const gained = async (answer: Promise<Response>) => {
      const response = await answer;
      const cookie = response.headers.getSetCookie().some((c) => /holdfast_session=[^;]/.test(c));
      const location = response.headers.get('location') ?? '';
      return cookie || response.status === 200 || (response.status === 303 && !location.startsWith('/login'));
    };
    const signInAs = async (email: string, password: string) => {
      const page = await fetch(new URL('/login', origin));
      const csrf = /name="csrf" value="([^"]+)"/.exec(await page.text())?.[1] ?? '';
      const cookie = page.headers
        .getSetCookie()
        .map((c) => c.split(';')[0])
        .join('; ');
      return form('/login', { csrf, email, password, next: '/' }, { cookie });
    };
    const attacks: [string, () => Promise<boolean>][] = [
      ...['/register', '/signup', '/login/register', '/console/register'].map(
        (path): [string, () => Promise<boolean>] => [
          `open ${path}`,
          async () => (await fetch(new URL(path, origin), { redirect: 'manual' })).status === 200,
        ],
      ),
      ...['/register', '/signup'].map((path): [string, () => Promise<boolean>] => [
        `POST ${path}`,
        () => gained(form(path, made)),
      ]),
      ['sign in as someone nobody added', () => gained(signInAs(made.email, made.password))],
      [
        'add a person on the console with its bearer token',
        () => gained(form('/console/people', { email: made.email, role: 'approver' }, bearer)),
      ],
    ];
    let succeeded = 0;
    for (const [name, attack] of attacks)
      if (await attack()) {
        succeeded++;
        console.log(`attack succeeded: ${name}`);
      }
    expect(succeeded).toBe(0);
    expect([people(), sessions()]).toEqual([peopleBefore, sessionsBefore]);
  });

  it('[004-start-13] the browser comes back to the exact registered callback with the state unchanged', async () => {
    const state = `st-${randomBytes(9).toString('base64url')}`;
    const { back } = await consent(
      { scope: 'read', state, code_challenge: pkce().challenge },
      { scopes: ['read'], policy: 'readonly' },
    );
    expect(`${back.origin}${back.pathname}`).toBe(redirectUri);
    expect(back.searchParams.get('state')).toBe(state);
    expect(back.searchParams.get('code')).toEqual(expect.any(String));
  });

  it('[004-start-14] the permissions are read (queries), draft (drafts), write (ordinary writes) and sensitive', async () => {
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

  it('[004-start-15] every grant includes read: a draft-only OAuth grant and a draft-only token both read', async () => {
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

  it('[004-start-16] sensitive is given only on the web page, unticked, after a fresh sign-in — never by a tool argument', async () => {
    const { page: consentPage } = await consent(
      { scope: 'read sensitive', state: 's', code_challenge: pkce().challenge },
      { scopes: ['read'], policy: 'readonly' },
    );
    expect(consentPage).toMatch(/name="scope" value="sensitive"/);
    expect(consentPage).not.toMatch(/name="scope" value="sensitive" checked/);
    const confirmed = await confirm(agent, await hold(), { confirmed: true });
    expect(confirmed.error).toMatchObject({ code: 'INVALID_ARGUMENTS', details: { field: 'confirmed' } });
  });

  it('[004-writes-9] a network retry with the same idempotencyKey and arguments replays the first answer', async () => {
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

  it('[004-writes-10] after the state changed, the old key with other arguments is refused: a new request needs a new key', async () => {
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

  it('[004-start-24] passwords are typed only on the website: no tool takes one, no command sets one', async () => {
    const { tools } = await agent.listTools();
    expect(JSON.stringify(tools.map((t) => t.inputSchema))).not.toMatch(/password/i);
    const help = await spawnCli(['users', '--help']);
    expect(help.stdout).toContain('No password is ever set from the command line');
  });

  it('[004-start-25] a password reset revokes the person’s connections: their next call is 401', async () => {
    const { deps, close } = await identityDeps(server.dbPath);
    const carol = await addAgent(deps, { email: 'carol@local.example', role: 'approver' });
    await close();
    expect((await bearerToolsList(mcpUrl(), carol.token)).status).toBe(200);
    const reset = await runCli(['users', 'reset-password', carol.email, '--db', server.dbPath]);
    expect(reset.status, reset.stderr).toBe(0);
    expect((await bearerToolsList(mcpUrl(), carol.token)).status).toBe(401);
  });

  it('[004-start-25 004-start-24] the person changing their own password, on the website only (their account page, with the current one), revokes their agent tokens and ends their other sessions', async () => {
    const dana = await addPersonWithPassword(server, { email: 'dana@local.example', role: 'approver' });
    const made = await runCli([
      'tokens',
      'create',
      dana.email,
      '--scopes',
      'read',
      '--json',
      '--db',
      server.dbPath,
    ]);
    const token = (JSON.parse(made.stdout) as { token: string }).token;
    const here = await signIn(server.url, dana.email, dana.password);
    const there = await signIn(server.url, dana.email, dana.password);
    expect((await bearerToolsList(mcpUrl(), token)).status).toBe(200);
    const next = 'dana has a new passphrase now';
    const changed = await fetch(new URL('/account/password', server.url), {
      method: 'POST',
      redirect: 'manual',
      headers: {
        cookie: here,
        origin: new URL(server.url).origin,
        'content-type': 'application/x-www-form-urlencoded',
      },
      body: new URLSearchParams({
        csrf: csrfFor(server, here, 'account-password'),
        current: dana.password,
        next,
        repeated: next,
        endConnections: 'yes',
      }),
    });
    expect(changed.status).toBe(303);
    expect((await bearerToolsList(mcpUrl(), token)).status).toBe(401);
    const elsewhere = await fetch(new URL('/account', server.url), {
      redirect: 'manual',
      headers: { cookie: there },
    });
    expect(elsewhere.status).toBe(303);
  });
});

describe('§2 开发启动与环境 (development start and environment)', () => {
  it('[004-env-1 004-delivery-1] migrations only move forward: migrating a live database keeps its data', async () => {
    const before = businessCounts();
    const migrated = await runCli(['db', 'migrate', '--db', server.dbPath]);
    expect(migrated.status, migrated.stderr).toBe(0);
    expect(businessCounts()).toEqual(before);
  });

  it('[004-env-2 004-env-6] the fixed OAuth resource is the public URL (`--public-url`, HOLDFAST_PUBLIC_URL) + /mcp; off loopback it must be https', async () => {
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

  it('[004-env-3] the web authorization pages live on the same public origin', async () => {
    const metadata = await getAs(proxied, '/.well-known/oauth-authorization-server', {
      host: 'holdfast.example',
    });
    const parsed = JSON.parse(metadata.body) as Record<string, string>;
    expect(parsed.issuer).toBe('https://holdfast.example');
    expect(parsed.authorization_endpoint).toBe('https://holdfast.example/oauth/authorize');
  });

  it('[004-env-4 004-env-5] allowed browser origins are exact host names (`--allowed-host`, repeatable): no wildcards', async () => {
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

  it('[004-env-6] behind https, cookies are Secure, HttpOnly and SameSite=Strict', async () => {
    const login = await getAs(proxied, '/login', { host: 'holdfast.example' });
    expect(login.status).toBe(200);
    expect(login.setCookie.length).toBeGreaterThan(0);
    for (const cookie of login.setCookie) {
      expect(cookie).toMatch(/;\s*Secure/i);
      expect(cookie).toMatch(/;\s*HttpOnly/i);
      expect(cookie).toMatch(/;\s*SameSite=Strict/i);
    }
  });

  it('[004-env-7] /mcp takes its own Bearer token only: a signed-in person’s cookie or a session id is no credential', async () => {
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

  it('[004-env-11 004-env-12 004-env-13] the seed’s variables under --profile agent-access: MCP_PUBLIC_URL is the resource, MCP_WEB_URL the same origin, MCP_ALLOWED_ORIGINS exact Origins let in beside it (attack: a wildcard, a path or a web entry elsewhere refused at start; a look-alike Origin 403)', async () => {
    const web = 'http://localhost:5173';
    const seeded = await spawnServer(['--profile', 'agent-access'], {
      dbPath: server.dbPath,
      env: {
        MCP_PUBLIC_URL: 'http://localhost:3100/mcp',
        MCP_WEB_URL: 'http://localhost:3100',
        MCP_ALLOWED_ORIGINS: `${web}, http://127.0.0.1:5173`,
      },
    });
    try {
      const metadata = await fetch(new URL('/.well-known/oauth-protected-resource/mcp', seeded.url));
      expect(((await metadata.json()) as { resource: string }).resource).toBe('http://localhost:3100/mcp');
      const post = (origin: string) =>
        fetch(new URL('/mcp', seeded.url), {
          method: 'POST',
          headers: {
            origin,
            'content-type': 'application/json',
            accept: 'application/json, text/event-stream',
            'mcp-protocol-version': '2025-06-18',
            authorization: `Bearer ${server.agent.token}`,
          },
          body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
        });
      expect((await post(web)).status).toBe(200);
      expect((await post('http://127.0.0.1:5173')).status).toBe(200);
      let admitted = 0;
      for (const origin of ['http://localhost:5174', 'http://evil.localhost:5173', 'https://localhost:5173'])
        if ((await post(origin)).status !== 403) admitted++;
      expect(admitted).toBe(0);
    } finally {
      await seeded.stop();
    }
    const refused: [Record<string, string>, RegExp][] = [
      [
        { MCP_PUBLIC_URL: 'http://localhost:3100/api' },
        /MCP_PUBLIC_URL must be the resource, ending in \/mcp/,
      ],
      [
        { MCP_PUBLIC_URL: 'http://localhost:3100/mcp', MCP_WEB_URL: web },
        /MCP_WEB_URL=http:\/\/localhost:5173/,
      ],
      [{ MCP_ALLOWED_ORIGINS: 'https://*.example.com' }, /no wildcard/],
      [{ MCP_ALLOWED_ORIGINS: 'https://app.example.com/path' }, /exact Origins/],
      [
        { MCP_PUBLIC_URL: 'http://holdfast.example/mcp', HOLDFAST_PRODUCTION: '1' },
        /MCP_PUBLIC_URL must be https in production/,
      ],
    ];
    for (const [env, message] of refused) {
      const run = await spawnCli(
        ['serve', '--profile', 'agent-access', '--port', '0', '--db', server.dbPath],
        {
          env: { ...process.env, ...env },
        },
      );
      expect(run.status, JSON.stringify(env)).toBe(2);
      expect(run.stderr, JSON.stringify(env)).toMatch(message);
    }
  });

  it('[004-env-8] clients without Origin are let in; a request with an Origin must match', async () => {
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

  it('[004-env-9] the Host must be the resource’s own', async () => {
    expect((await getAs(server, '/mcp', { host: 'evil.example' })).status).toBe(403);
    expect(
      (await getAs(proxied, '/.well-known/oauth-protected-resource/mcp', { host: 'evil.example' })).status,
    ).toBe(403);
  });

  it('[004-env-10] behind a proxy the resource URL is the configured one, never built from forwarded headers', async () => {
    const forged = await getAs(proxied, '/.well-known/oauth-protected-resource/mcp', {
      host: 'holdfast.example',
      'x-forwarded-host': 'evil.example',
      'x-forwarded-proto': 'http',
    });
    expect(JSON.parse(forged.body)).toMatchObject({ resource: 'https://holdfast.example/mcp' });
  });
});

describe('§3 已验证的客户端配置 (verified client configuration)', () => {
  it('[004-clients-2] the official SDK’s StreamableHTTPClientTransport with a personal access token as Bearer lists the tools, as the sample does', async () => {
    const { tools } = await agent.listTools();
    expect(tools.length).toBeGreaterThan(10);
  });

  it('[004-clients-2 004-clients-12 004-clients-13] the official SDK’s OAuthClientProvider: discovery, dynamic registration, PKCE, redirectToAuthorization and finishAuth(code)', async () => {
    expect(host.authorizationUrl?.searchParams.get('code_challenge_method')).toBe('S256');
    expect(host.authorizationUrl?.searchParams.get('resource')).toBe(mcpUrl().href);
    expect(host.tokens()?.access_token).toEqual(expect.any(String));
    expect((await oauthAgent.listTools()).tools.length).toBeGreaterThan(10);
  });

  it('[004-clients-2] refresh rotates the refresh token; a spent one is refused', async () => {
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

  it('[004-clients-2] revocation: revoking at /oauth/revoke stops the connection at its next call', async () => {
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

  it('[004-clients-3] the server negotiates the protocol: the SDK client’s default 2025-11-25, and 2026-07-28 to a client that asks for it', async () => {
    const legacy = await connectHttp(server.url, 'legacy');
    try {
      expect(legacy.getNegotiatedProtocolVersion()).toBe('2025-11-25');
    } finally {
      await legacy.close();
    }
    expect(agent.getNegotiatedProtocolVersion()).toBe('2026-07-28');
  });

  it('[004-clients-7 004-delivery-2] a read-only protocol diagnostic client: `holdfast probe URL --token T` checks every step and writes nothing', async () => {
    const before = businessCounts();
    const probed = await probe();
    expect(probed.status, probed.stdout + probed.stderr).toBe(0);
    for (const step of ['health', 'OAuth protected-resource metadata', 'MCP connection', 'tools'])
      expect(probed.stdout).toContain(`ok   ${step}`);
    expect(probed.stdout).toContain('(read-only)');
    expect(businessCounts()).toEqual(before);
  });

  it('[004-clients-8] a personal access token made on the console is shown once, on the page the form leads to; never again', async () => {
    const cookie = await signIn(server.url, server.agent.email, server.agent.password);
    const origin = new URL(server.url).origin;
    const made = await fetch(new URL('/console/tokens', origin), {
      method: 'POST',
      redirect: 'manual',
      headers: { cookie, origin, 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        csrf: csrfFor(server, cookie, 'console-connections'),
        name: 'made on the web',
        scopes: 'read',
        writePolicy: 'readonly',
        days: '30',
      }),
    });
    expect(made.status).toBe(303);
    // The secret travels to the next page only, in a short-lived cookie the page clears.
    const flash = made.headers
      .getSetCookie()
      .map((c) => c.split(';')[0]!)
      .filter((c) => c.startsWith('holdfast_flash_'));
    expect(flash).toHaveLength(1);
    const shown = await page('/console/connections', [cookie, ...flash].join('; '));
    const secret = /<code class="secret" id="new-token">\s*(hf_pat_[^<\s]+)/.exec(shown)?.[1];
    expect(secret, shown.slice(0, 400)).toEqual(expect.any(String));
    expect(shown).toContain('Shown once');
    expect((await bearerToolsList(mcpUrl(), secret!)).status).toBe(200);
    expect(await page('/console/connections', cookie)).not.toContain(secret);
    const listed = await runCli(['tokens', 'list', '--db', server.dbPath, '--json']);
    expect(listed.stdout).toContain('made on the web');
    expect(listed.stdout).not.toContain(secret);
  });

  it('[004-clients-9 004-clients-10 004-clients-11] the probe takes the address from MCP_SERVER_URL (its /mcp) and the token from MCP_ACCESS_TOKEN, and passes every step', async () => {
    const probed = await spawnCli(['probe'], {
      env: { ...process.env, MCP_SERVER_URL: mcpUrl().href, MCP_ACCESS_TOKEN: server.agent.token },
    });
    expect(probed.status, probed.stdout + probed.stderr).toBe(0);
    for (const step of ['health', 'OAuth protected-resource metadata', 'MCP connection', 'tools'])
      expect(probed.stdout).toContain(`ok   ${step}`);
    const without = await spawnCli(['probe'], {
      env: { ...process.env, MCP_SERVER_URL: '', MCP_ACCESS_TOKEN: server.agent.token },
    });
    expect(without.status).not.toBe(0);
    expect(without.stderr).toContain('MCP_SERVER_URL');
  });

  it('[004-clients-14] the server returns the original state (and iss, RFC 9207) for the client to check', async () => {
    const state = randomBytes(16).toString('hex');
    const { back } = await consent(
      { scope: 'read', state, code_challenge: pkce().challenge },
      { scopes: ['read'], policy: 'readonly' },
    );
    expect(back.searchParams.get('state')).toBe(state);
    expect(back.searchParams.get('iss')).toBe(new URL(server.url).origin);
  });
});

describe('§4 写入、权限和一致性 (writes, permissions and consistency)', () => {
  it('[004-writes-8 004-writes-9] the idempotency record and the change commit together: a retried key never books twice', async () => {
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

  it('[004-writes-10] the same key with other arguments is refused', async () => {
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

  it('[004-writes-14] amounts are decimal strings', async () => {
    const held = await hold(agent, priced);
    expect(held.price).toEqual({ amount: '500.00', currency: 'CNY' });
  });

  it('[004-writes-15] instants come back in UTC, with each calendar’s local form', async () => {
    const held = await hold();
    expect(held.start).toMatch(/Z$/);
    expect(held.local[0]).toMatchObject({ timeZone: 'UTC', start: expect.stringMatching(/\+00:00$/) });
  });

  it('[004-writes-16] a page holds at most 100', async () => {
    for (const tool of ['list_bookings', 'list_calendars', 'list_customers']) {
      expect((await call(agent, tool, { limit: 101 })).error?.details.field, tool).toBe('limit');
      expect((await call(agent, tool, { limit: 100 })).ok, tool).toBe(true);
    }
  });

  it('[004-writes-17] bookings page with opaque cursors bound to their query', async () => {
    await hold();
    await hold();
    const first = await ok(agent, 'list_bookings', { limit: 1 });
    expect(first.nextCursor).toEqual(expect.any(String));
    const next = await ok(agent, 'list_bookings', { limit: 1, cursor: first.nextCursor });
    expect(next.bookings[0].id).not.toBe(first.bookings[0].id);
    const misused = await call(agent, 'list_bookings', {
      limit: 1,
      status: 'CONFIRMED',
      cursor: first.nextCursor,
    });
    expect(misused.error?.code).toBe('INVALID_CURSOR');
  });
});

describe('§5 备份、图标和敏感操作 (backups, icons and sensitive operations)', () => {
  it('[004-files-2] no deleting in bulk: no tool deletes, clears, purges or imports; the one destructive tool (cancel_booking) is gated', async () => {
    const { tools } = await agent.listTools();
    expect(tools.map((t) => t.name).filter((n) => /delete|remove|clear|purge|wipe|import/.test(n))).toEqual(
      [],
    );
    const destructive = tools.filter((t) => t.annotations?.destructiveHint === true).map((t) => t.name);
    expect(destructive).toContain('cancel_booking');
  });

  it('[004-files-1] a copy of the data holds no password, session cookie or token: each is stored only as a digest', async () => {
    const made = await tokenOf('--name', 'not in any backup');
    const cookie = await signIn(server.url, server.agent.email, server.agent.password);
    const session = decodeURIComponent(cookie.slice(cookie.indexOf('=') + 1));
    expect(session.length).toBeGreaterThan(20);
    const files = [server.dbPath, `${server.dbPath}-wal`].filter((f) => existsSync(f));
    expect(rows('SELECT count(*) AS n FROM access_tokens')[0]!.n).toBeGreaterThan(1);
    for (const file of files) {
      const bytes = readFileSync(file);
      expect(bytes.includes(Buffer.from(made.token)), file).toBe(false);
      expect(bytes.includes(Buffer.from(made.token.slice('hf_pat_'.length))), file).toBe(false);
      expect(bytes.includes(Buffer.from(server.agent.password)), file).toBe(false);
      expect(bytes.includes(Buffer.from(session)), file).toBe(false);
    }
  });
});

describe('§6 服务和代理 (service and proxy)', () => {
  it('[004-service-1 004-service-2 004-writes-13] stateless Streamable HTTP: each POST is authenticated on its own, and answers standard JSON-RPC results', async () => {
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

  it('[004-service-3] GET and DELETE /mcp are 405; no session is issued', async () => {
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
  it('[004-service-3] no subscription sessions: resource changes only through a stateless listen request', async () => {
    expect(agent.getServerCapabilities()?.resources?.subscribe).toBe(true);
    const answer = await fetch(mcpUrl(), { headers: { authorization: `Bearer ${server.agent.token}` } });
    expect(answer.status).toBe(405);
    expect(answer.headers.get('mcp-session-id')).toBeNull();
  });

  it('[004-service-4] OAuth, tokens, approvals, idempotency and the audit are kept in the database', () => {
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

  it('[004-service-5] logs keep no tool arguments, passwords or tokens', async () => {
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

  it('[004-service-8] sign-in is rate limited per person and address: after 5 failures, 429 with Retry-After', async () => {
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
  it('[004-delivery-1] `holdfast db migrate` creates the schema on a new database', async () => {
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

  it('[004-delivery-2 004-delivery-3] the repository carries typecheck and build scripts and end-to-end tests with the official SDK client, OAuth included', () => {
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

  it('[004-delivery-4] the probe discovers every tool the server offers', async () => {
    const probed = await probe();
    const count = (await agent.listTools()).tools.length;
    expect(probed.stdout).toMatch(new RegExp(`\\n {5}${count} tools\\n`));
  });
});

describe('§6 服务和代理, last: the OAuth routes’ own limit', () => {
  // Last in the file: it spends this address's registrations for the next 10 minutes.
  it('[004-service-7] the OAuth routes are limited in the process: past 60 registrations from one address, 429 with Retry-After', async () => {
    const register = () =>
      fetch(new URL('/oauth/register', server.url), {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({
          client_name: 'flood',
          redirect_uris: [redirectUri],
          token_endpoint_auth_method: 'none',
        }),
      });
    const statuses: number[] = [];
    let retryAfter: string | null = null;
    for (let i = 0; i < 61 && !statuses.includes(429); i++) {
      const answer = await register();
      statuses.push(answer.status);
      retryAfter = answer.headers.get('retry-after');
    }
    expect(statuses.at(-1)).toBe(429);
    expect(statuses.filter((s) => s === 201).length).toBeGreaterThan(40);
    expect(Number(retryAfter)).toBeGreaterThan(0);
  });
});
