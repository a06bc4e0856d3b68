import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchBrowser, releaseBrowser } from '../support/browser.js';
import { createOpenCalendar, futureHour, plusMinutes } from '../support/fixtures.js';
import { call, connectHttp } from '../support/mcp-clients.js';
import { personAllows } from '../support/oauth-consent.js';
import type { RunningServer } from '../support/spawn-server.js';
import { spawnServer } from '../support/spawn-server.js';
import { bearerToolsList, freePort } from '../support/net.js';

// A real host: `mcp-remote`, the stdio proxy that Claude Desktop, Cursor and Windsurf users put
// in front of a remote MCP server. It meets the 401, registers itself, prints the authorization
// URL (its attempt to open a browser is a no-op here) and waits on its loopback callback while
// headless Chromium plays the person. The host side is the official SDK client over stdio.

const PROXY = join(process.cwd(), 'node_modules/mcp-remote/dist/proxy.js');

let server: RunningServer;
let browser: Browser;
let room: string;
let home: string;
let callbackPort: number;

beforeAll(async () => {
  // Access tokens of 5 seconds (the shortest allowed), so the restart below meets an expired one.
  server = await spawnServer(['--no-seed', '--oauth-token-ttl', '5']);
  const owner = await connectHttp(server.url, 'modern');
  room = await createOpenCalendar(owner, 'Room with a remote view');
  await owner.close();
  browser = await launchBrowser();
  home = mkdtempSync(join(tmpdir(), 'holdfast-mcp-remote-'));
  callbackPort = await freePort();
});
afterAll(async () => {
  await releaseBrowser(browser);
  await server?.stop();
  if (home) rmSync(home, { recursive: true, force: true });
});

const mcpUrl = () => new URL('/mcp', server.url).href;

/** A tools/list straight to /mcp with this bearer token. */
const callMcp = (accessToken: string) => bearerToolsList(mcpUrl(), accessToken);

function connectionRows() {
  const db = new Database(server.dbPath, { readonly: true });
  try {
    return db
      .prepare('SELECT client_name, redirect_host, scopes, write_policy, revoked_at FROM oauth_connections')
      .all() as {
      client_name: string;
      redirect_host: string;
      scopes: string;
      write_policy: string;
      revoked_at: number | null;
    }[];
  } finally {
    db.close();
  }
}

/**
 * mcp-remote as a host's config starts it, with its own temporary HOME and config directory
 * (nothing reaches the real ~/.mcp-auth), no display, and BROWSER=true so the `open` package's
 * xdg-open "opens" the URL by running `true`. Its stderr is collected.
 */
function mcpRemote(callbackPort: number) {
  const stderr: string[] = [];
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [PROXY, mcpUrl(), String(callbackPort), '--host', '127.0.0.1'],
    env: {
      HOME: home,
      MCP_REMOTE_CONFIG_DIR: join(home, 'mcp-auth'),
      BROWSER: 'true',
    },
    stderr: 'pipe',
  });
  transport.stderr!.on('data', (chunk: Buffer) => stderr.push(chunk.toString('utf8')));
  const authorizationUrl = new Promise<URL>((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`mcp-remote printed no authorization URL:\n${stderr.join('')}`)),
      30_000,
    );
    timer.unref();
    transport.stderr!.on('data', () => {
      // The whole URL: up to the end of its line, which may come in a later chunk.
      const match = /Please authorize this client by visiting:\s+(\S+)\n/.exec(stderr.join(''));
      if (match) {
        clearTimeout(timer);
        resolve(new URL(match[1]!));
      }
    });
  });
  authorizationUrl.catch(() => undefined);
  return { transport, stderr, authorizationUrl };
}

/** What mcp-remote stored in the config directory it was given: its registration and tokens. */
function storedTokens() {
  const dir = join(home, 'mcp-auth');
  const files = readdirSync(dir, { recursive: true }).map(String);
  const tokensFile = files.find((f) => f.endsWith('_tokens.json'));
  if (!tokensFile) throw new Error(`no tokens in ${dir}: ${files.join(', ')}`);
  const tokens = JSON.parse(readFileSync(join(dir, tokensFile), 'utf8')) as {
    access_token: string;
    refresh_token?: string;
  };
  const claims = JSON.parse(Buffer.from(tokens.access_token.split('.')[1]!, 'base64url').toString()) as {
    aud: string;
    exp: number;
  };
  return { files, ...tokens, claims };
}

/** The host's side once the proxy is up: the tools, and three free hours in the room. */
async function toolsAndSlots(client: Client) {
  const { tools } = await client.listTools();
  const from = futureHour(2);
  const found = await call(client, 'find_slots', {
    calendarIds: [room],
    from,
    to: plusMinutes(from, 180),
    durationMinutes: 60,
    limit: 3,
  });
  return { names: tools.map((t) => t.name), found, from };
}

describe('mcp-remote connects to Holdfast through the OAuth flow', () => {
  it('the person signs in and allows in Chromium; then tools/list and find_slots work through the proxy', async () => {
    const remote = mcpRemote(callbackPort);
    const client = new Client({ name: 'stdio-host', version: '1.0.0' });
    try {
      const connected = client.connect(remote.transport, { timeout: 90_000 });
      connected.catch(() => undefined);

      // What mcp-remote sends the person to: Holdfast's authorization endpoint, PKCE S256,
      // this /mcp as the resource, its loopback callback on the port it was given.
      const authorizationUrl = await remote.authorizationUrl;
      expect(authorizationUrl.origin + authorizationUrl.pathname).toBe(
        new URL('/oauth/authorize', server.url).href,
      );
      const asked = authorizationUrl.searchParams;
      expect(asked.get('code_challenge_method')).toBe('S256');
      expect(asked.get('resource')).toBe(mcpUrl());
      expect(asked.get('redirect_uri')).toBe(`http://127.0.0.1:${callbackPort}/oauth/callback`);

      const page = await browser.newPage();
      const { consent, landedOn } = await personAllows(page, authorizationUrl, server.agent, 'draft');
      expect(consent.client).toMatch(/MCP/i);
      expect(consent.redirect).toContain(`127.0.0.1:${callbackPort}`);
      expect(consent.ticked).not.toContain('sensitive');
      expect(landedOn.searchParams.get('code')).toBeTruthy();
      expect(landedOn.searchParams.get('iss')).toBe(new URL(server.url).origin);
      expect(await page.textContent('body')).toContain('Authorization successful');
      await page.close();

      await connected;
      const { names, found, from } = await toolsAndSlots(client);
      expect(names).toEqual(expect.arrayContaining(['find_slots', 'hold_slot', 'list_calendars']));
      expect(found.ok, JSON.stringify(found.error)).toBe(true);
      expect(found.data!.slots).toHaveLength(3);
      expect(found.data!.slots[0].start).toBe(from.replace('.000Z', 'Z'));

      // The grant is one live connection with the policy the person chose, named as on the
      // consent page, answering to mcp-remote's loopback callback.
      const [row, ...others] = connectionRows();
      expect(others).toEqual([]);
      expect(row).toMatchObject({
        client_name: consent.client,
        redirect_host: `127.0.0.1:${callbackPort}`,
        write_policy: 'draft',
        revoked_at: null,
      });
      expect(JSON.parse(row!.scopes)).toEqual(['read', 'draft', 'write']);

      // mcp-remote kept its tokens in the config directory it was given: a JWT for this /mcp.
      const stored = storedTokens();
      expect(stored.claims.aud).toBe(mcpUrl());
      expect(stored.refresh_token).toBeTruthy();
    } finally {
      await client.close().catch(() => undefined);
      await remote.transport.close().catch(() => undefined);
    }
  }, 120_000);

  it('restarted after its access token expired, mcp-remote refreshes on its own: no browser, no person', async () => {
    const before = storedTokens();
    // The server issues 5-second access tokens: wait until the stored one is past its expiry.
    await new Promise((resolve) =>
      setTimeout(resolve, Math.max(0, before.claims.exp * 1000 - Date.now()) + 1500),
    );
    expect((await callMcp(before.access_token)).status).toBe(401);

    const remote = mcpRemote(callbackPort);
    const client = new Client({ name: 'stdio-host', version: '1.0.0' });
    try {
      await client.connect(remote.transport, { timeout: 30_000 });
      const { names, found } = await toolsAndSlots(client);
      expect(names).toContain('find_slots');
      expect(found.ok, JSON.stringify(found.error)).toBe(true);
      expect(found.data!.slots).toHaveLength(3);
      expect(remote.stderr.join('')).not.toContain('Please authorize');

      // Both tokens rotated; the connection is the same one, still live.
      const after = storedTokens();
      expect(after.access_token).not.toBe(before.access_token);
      expect(after.refresh_token).toBeTruthy();
      expect(after.refresh_token).not.toBe(before.refresh_token);
      expect(connectionRows()).toEqual([expect.objectContaining({ revoked_at: null })]);
    } finally {
      await client.close().catch(() => undefined);
      await remote.transport.close().catch(() => undefined);
    }
  }, 60_000);
});
