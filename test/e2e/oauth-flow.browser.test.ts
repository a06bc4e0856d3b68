import Database from 'better-sqlite3';
import { Client, StreamableHTTPClientTransport, UnauthorizedError } from '@modelcontextprotocol/client';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchBrowser } from '../support/browser.js';
import { call } from '../support/mcp-clients.js';
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
  await browser?.close();
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

/** The person's side: sign in if asked, look at the consent page, choose a policy, allow. */
async function personAllows(host: TestOAuthHost, policy: string) {
  await page.goto(host.authorizationUrl!.href);
  if (new URL(page.url()).pathname === '/login') {
    await page.fill('input[name=email]', server.agent.email);
    await page.fill('input[name=password]', server.agent.password);
    await page.click('form[action="/login"] button[type=submit]');
  }
  await page.waitForSelector('#client-name');
  const consent = {
    client: await page.textContent('#client-name'),
    redirect: await page.textContent('#redirect-host'),
    scopes: (await page.textContent('#scopes'))!.replace(/\s+/g, ' '),
  };
  await page.check(`input[name=writePolicy][value=${policy}]`);
  // `sensitive` (asked for: the SDK asks for every scope the metadata lists) stays unticked unless chosen.
  expect(await page.isChecked('input[name=scope][value=sensitive]')).toBe(false);
  await page.click('button[value=allow]');
  await page.waitForSelector('#done');
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

const callWith = (accessToken: string) =>
  fetch(mcpUrl(), {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      authorization: `Bearer ${accessToken}`,
      'mcp-protocol-version': '2025-06-18',
    },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} }),
  });

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
});
