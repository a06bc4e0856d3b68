import Database from 'better-sqlite3';
import { Client, StreamableHTTPClientTransport, UnauthorizedError } from '@modelcontextprotocol/client';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchBrowser, releaseBrowser } from '../support/browser.js';
import { call } from '../support/mcp-clients.js';
import { bearerToolsList } from '../support/net.js';
import { addPersonWithPassword } from '../support/person.js';
import { personAllows as personAllowsIn } from '../support/oauth-consent.js';
import { TestOAuthHost } from '../support/oauth-host.js';
import type { RunningServer } from '../support/spawn-server.js';
import { spawnServer } from '../support/spawn-server.js';

// A remote agent host connects the way Claude, Cursor or mcp-remote do: a 401 points it at the
// resource metadata, it registers itself, sends the person's browser through sign-in and
// consent (headless Chromium here), exchanges the code with PKCE and calls tools with an
// audience-bound JWT. Then refresh, reuse of a spent refresh token, and revocation.

let server: RunningServer;
let browser: Browser;
let page: Page;

beforeAll(async () => {
  server = await spawnServer(['--no-seed']);
  browser = await launchBrowser();
  page = await browser.newPage();
});
afterAll(async () => {
  await releaseBrowser(browser);
  await server?.stop();
});

const mcpUrl = () => new URL('/mcp', server.url);

function connectionRows() {
  const db = new Database(server.dbPath, { readonly: true });
  try {
    return db.prepare('SELECT * FROM oauth_connections ORDER BY created_at').all() as {
      grant_id: string;
      scopes: string;
      write_policy: string;
      revoked_at: number | null;
      client_name: string;
    }[];
  } finally {
    db.close();
  }
}

/** The person's side (sign in if asked, consent, choose a policy, allow); the host's callback keeps the code. */
async function personAllows(host: TestOAuthHost, policy: string) {
  const { consent } = await personAllowsIn(page, host.authorizationUrl!, server.agent, policy);
  // `sensitive` (asked for: the SDK asks for every scope the metadata lists) stays unticked unless chosen.
  expect(consent.offered).toContain('sensitive');
  expect(consent.ticked).not.toContain('sensitive');
  const callback = host.callbacks.at(-1)!;
  return { consent, code: callback.get('code')!, iss: callback.get('iss') ?? undefined };
}

/** Connects the host's client; the first time it meets the 401 and comes back with a code. */
async function connect(host: TestOAuthHost, policy = 'draft') {
  const first = new StreamableHTTPClientTransport(mcpUrl(), { authProvider: host });
  const client = new Client({ name: 'remote-host', version: '1.0.0' });
  const refused = await client.connect(first).then(
    () => null,
    (error: unknown) => error,
  );
  let consent;
  if (refused) {
    expect(refused).toBeInstanceOf(UnauthorizedError);
    const allowed = await personAllows(host, policy);
    consent = allowed.consent;
    await first.finishAuth(allowed.code, allowed.iss);
  }
  const connected = new Client({ name: 'remote-host', version: '1.0.0' });
  await connected.connect(new StreamableHTTPClientTransport(mcpUrl(), { authProvider: host }));
  return { client: connected, consent };
}

const tokenEndpoint = () => new URL('/oauth/token', server.url);
const refresh = (host: TestOAuthHost, refreshToken: string) =>
  fetch(tokenEndpoint(), {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({
      grant_type: 'refresh_token',
      refresh_token: refreshToken,
      client_id: host.clientInformation()!.client_id,
    }),
  });

const callWith = (accessToken: string) => bearerToolsList(mcpUrl(), accessToken);

describe('a remote agent host signs its person in through OAuth', () => {
  it('discovers from the 401, registers, the person consents in Chromium, and the host calls tools', async () => {
    const host = await TestOAuthHost.start('Remote test host');
    try {
      const { client, consent } = await connect(host, 'draft');
      expect(consent!.client).toBe('Remote test host');
      expect(consent!.redirect).toContain(new URL(host.redirectUrl).host);
      expect(consent!.scopes).toMatch(/read[\s\S]*draft[\s\S]*write/);
      const listed = await call(client, 'list_calendars', {});
      expect(listed.ok).toBe(true);
      // The token is a JWT for this server's /mcp, from this issuer.
      const claims = JSON.parse(
        Buffer.from(host.tokens()!.access_token.split('.')[1]!, 'base64url').toString(),
      );
      expect(claims.aud).toBe(mcpUrl().href);
      expect(claims.iss).toBe(new URL(server.url).origin);
      // The grant is a connection with the person's choice of policy; `sensitive` was never asked for.
      const [row] = connectionRows();
      expect(row!.write_policy).toBe('draft');
      expect(JSON.parse(row!.scopes)).toEqual(['read', 'draft', 'write']);
      // The person's choice holds: a confirm asks for approval instead of confirming.
      const tools = await client.listTools();
      expect(tools.tools.map((t) => t.name)).toContain('confirm_booking');
      await client.close();
    } finally {
      await host.close();
    }
  });

  it('refresh rotates; reusing a spent refresh token revokes the whole grant: its access token stops at once', async () => {
    const host = await TestOAuthHost.start('Refreshing host');
    try {
      const { client } = await connect(host);
      await client.close();
      const first = host.tokens()!;
      const rotated = await refresh(host, first.refresh_token!);
      expect(rotated.status).toBe(200);
      const next = (await rotated.json()) as { access_token: string; refresh_token: string };
      expect(next.refresh_token).not.toBe(first.refresh_token);
      expect((await callWith(next.access_token)).status).toBe(200);

      const reused = await refresh(host, first.refresh_token!);
      expect(reused.status).toBe(400);
      expect(((await reused.json()) as { error: string }).error).toBe('invalid_grant');
      // The family is gone: the rotated refresh token and the live access token both stop.
      expect((await refresh(host, next.refresh_token)).status).toBe(400);
      const after = await callWith(next.access_token);
      expect(after.status).toBe(401);
      expect(after.headers.get('www-authenticate')).toContain('resource_metadata=');
    } finally {
      await host.close();
    }
  });

  it('revoking the refresh token at /oauth/revoke ends the connection: the next call is 401', async () => {
    const host = await TestOAuthHost.start('Revoking host');
    try {
      const { client } = await connect(host, 'readonly');
      const tokens = host.tokens()!;
      expect((await callWith(tokens.access_token)).status).toBe(200);
      const revoked = await fetch(new URL('/oauth/revoke', server.url), {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({
          token: tokens.refresh_token!,
          token_type_hint: 'refresh_token',
          client_id: host.clientInformation()!.client_id,
        }),
      });
      expect(revoked.status).toBe(200);
      expect((await callWith(tokens.access_token)).status).toBe(401);
      const listed = await call(client, 'list_calendars', {}).catch((error: unknown) => error);
      expect(listed).toBeInstanceOf(Error);
      expect(connectionRows().find((r) => r.write_policy === 'readonly')!.revoked_at).not.toBeNull();
      await client.close().catch(() => undefined);
    } finally {
      await host.close();
    }
  });

  it('signed in as someone else half-way: the host is told login_required (the browser is not stuck on the form)', async () => {
    const other = await addPersonWithPassword(server, { email: 'switcher@local.example', role: 'approver' });
    const host = await TestOAuthHost.start('Switching host');
    const context = await browser.newContext();
    const tab = await context.newPage();
    try {
      const transport = new StreamableHTTPClientTransport(mcpUrl(), { authProvider: host });
      await new Client({ name: 'switching', version: '1' }).connect(transport).catch(() => undefined);
      await tab.goto(host.authorizationUrl!.href);
      await tab.fill('input[name=email]', server.agent.email);
      await tab.fill('input[name=password]', server.agent.password);
      await tab.click('form[action="/login"] button[type=submit]');
      await tab.waitForSelector('#client-name');
      // The request now belongs to the owner; another person signs in and continues it.
      const interaction = new URL(tab.url()).pathname;
      await tab.goto(new URL(`/login?next=${encodeURIComponent(interaction)}`, server.url).href);
      await tab.fill('input[name=email]', other.email);
      await tab.fill('input[name=password]', other.password);
      await tab.click('form[action="/login"] button[type=submit]');
      await tab.waitForURL((url) => url.href.startsWith(host.redirectUrl), { waitUntil: 'load' });
      expect(host.callbacks.at(-1)!.get('error')).toBe('login_required');
      expect(host.callbacks.at(-1)!.has('code')).toBe(false);
    } finally {
      await context.close();
      await host.close();
    }
  });
});
