import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { Client, StreamableHTTPClientTransport, UnauthorizedError } from '@modelcontextprotocol/client';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchBrowser, releaseBrowser } from '../support/browser.js';
import { runConformance, tokenProxy } from '../support/conformance.js';
import { personAllows } from '../support/oauth-consent.js';
import { TestOAuthHost } from '../support/oauth-host.js';
import type { RunningServer } from '../support/spawn-server.js';
import { spawnServer } from '../support/spawn-server.js';
import { freePort } from '../support/net.js';

// The official conformance CLI's authorization-server scenarios against the embedded
// authorization server: its metadata (RFC 8414), and a full authorization code grant with PKCE
// S256 and the resource indicator, the CLI's printed authorization URL followed by headless
// Chromium playing the person. Then the server scenarios of conformance.test.ts with an OAuth
// access token instead of a provisioned one, and refused without any.

let server: RunningServer;
let browser: Browser;
let page: Page;
let results: string;

beforeAll(async () => {
  server = await spawnServer(['--no-seed']);
  browser = await launchBrowser();
  page = await browser.newPage();
  results = mkdtempSync(join(tmpdir(), 'holdfast-conformance-'));
});
afterAll(async () => {
  await releaseBrowser(browser);
  await server?.stop();
  if (results) rmSync(results, { recursive: true, force: true });
});

const issuer = () => new URL(server.url).origin;
const mcpUrl = () => new URL('/mcp', server.url).href;

/** The CLI needs a client registered for http://127.0.0.1:<port>/callback: a public one, by dynamic registration. */
async function registerClient(port: number): Promise<string> {
  const registered = await fetch(new URL('/oauth/register', issuer()), {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      client_name: 'MCP conformance CLI',
      redirect_uris: [`http://127.0.0.1:${port}/callback`],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
    }),
  });
  expect(registered.status).toBe(201);
  return ((await registered.json()) as { client_id: string }).client_id;
}

function connectionRows() {
  const db = new Database(server.dbPath, { readonly: true });
  try {
    return db.prepare('SELECT client_name, scopes, write_policy FROM oauth_connections').all();
  } finally {
    db.close();
  }
}

interface Check {
  id: string;
  status: string;
  errorMessage?: string;
}

/** The checks the CLI saved per scenario (`-o`), by scenario name. */
function savedChecks(dir: string): Map<string, Check[]> {
  const byScenario = new Map<string, Check[]>();
  for (const file of readdirSync(dir, { recursive: true }).map(String)) {
    if (!file.endsWith('checks.json')) continue;
    const scenario = ['authorization-server-metadata-endpoint', 'authorization-code-grant'].find((s) =>
      file.includes(s),
    );
    if (scenario) byScenario.set(scenario, JSON.parse(readFileSync(join(dir, file), 'utf8')) as Check[]);
  }
  return byScenario;
}

describe('conformance authorization: the embedded authorization server', () => {
  it('authorization-server-metadata-endpoint and authorization-code-grant pass, the person allowing in Chromium', async () => {
    const port = await freePort();
    const clientId = await registerClient(port);
    const out = join(results, 'authorization');
    let printed: (url: URL) => void = () => undefined;
    const authorizationUrl = new Promise<URL>((resolve) => (printed = resolve));
    const prefix = `${issuer()}/oauth/authorize?`;
    const stop = new AbortController();
    const run = runConformance(
      [
        'authorization',
        '--url',
        issuer(),
        '--client-id',
        clientId,
        '--resource',
        mcpUrl(),
        '--port',
        `${port}`,
        '-o',
        out,
      ],
      {
        timeoutMs: 90_000,
        signal: stop.signal,
        onStdout: (soFar) => {
          // Whole lines only: the last may still be arriving.
          const line = soFar
            .split('\n')
            .slice(0, -1)
            .find((l) => l.startsWith(prefix));
          if (line) printed(new URL(line.trim()));
        },
      },
    );
    try {
      // The CLI prints the URL and waits (up to five minutes) on its callback server; a run
      // that ends first (no URL printed) settles the race instead.
      const first = await Promise.race([authorizationUrl, run]);
      expect(first, 'the CLI ended without printing an authorization URL').toBeInstanceOf(URL);
      const asked = (first as URL).searchParams;
      // The CLI asks for no scope: the server's default (read) is what the person is offered.
      expect(asked.get('scope')).toBeNull();
      expect(asked.get('code_challenge_method')).toBe('S256');
      expect(asked.get('resource')).toBe(mcpUrl());

      const { consent, landedOn } = await personAllows(page, first as URL, server.agent, 'readonly');
      expect(consent.client).toBe('MCP conformance CLI');
      expect(consent.redirect).toContain(`127.0.0.1:${port}`);
      expect(consent.offered).toEqual(['read']);
      expect(landedOn.origin).toBe(`http://127.0.0.1:${port}`);

      const { status, output } = await run;
      expect(output, output).toMatch(/✓ authorization-server-metadata-endpoint: [1-9]\d* passed, 0 failed/);
      expect(output, output).toMatch(/✓ authorization-code-grant: 1 passed, 0 failed/);
      expect(status, output).toBe(0);
      // Every check of both scenarios succeeded: none skipped, none merely a warning.
      const checks = savedChecks(out);
      expect([...checks.keys()].sort()).toEqual([
        'authorization-code-grant',
        'authorization-server-metadata-endpoint',
      ]);
      for (const [scenario, list] of checks) {
        expect(list.length, scenario).toBeGreaterThan(0);
        for (const check of list) expect(check, scenario).toMatchObject({ status: 'SUCCESS' });
      }
      // The code became a connection with what the person gave: read, read-only.
      expect(connectionRows()).toEqual([
        { client_name: 'MCP conformance CLI', scopes: '["read"]', write_policy: 'readonly' },
      ]);
    } finally {
      stop.abort();
      await run;
    }
  }, 120_000);
});

describe('the server scenarios with authentication on', () => {
  /** An access token the way a remote host gets one: 401, registration, the person allows, code + PKCE. */
  async function oauthAccessToken(): Promise<string> {
    const host = await TestOAuthHost.start('Conformance token host');
    try {
      const transport = new StreamableHTTPClientTransport(new URL(mcpUrl()), { authProvider: host });
      const refused = await new Client({ name: 'conformance-token', version: '1.0.0' })
        .connect(transport)
        .then(
          () => null,
          (error: unknown) => error,
        );
      expect(refused).toBeInstanceOf(UnauthorizedError);
      await personAllows(page, host.authorizationUrl!, server.agent, 'draft');
      const callback = host.callbacks.at(-1)!;
      await transport.finishAuth(callback.get('code')!, callback.get('iss') ?? undefined);
      const token = host.tokens()!.access_token;
      const claims = JSON.parse(Buffer.from(token.split('.')[1]!, 'base64url').toString()) as { aud: string };
      expect(claims.aud).toBe(mcpUrl());
      return token;
    } finally {
      await host.close();
    }
  }

  let proxy: Awaited<ReturnType<typeof tokenProxy>>;
  beforeAll(async () => {
    proxy = await tokenProxy(server, await oauthAccessToken());
  });
  afterAll(async () => {
    await proxy?.close();
  });

  it.each(['server-initialize', 'tools-list', 'ping', 'dns-rebinding-protection'])(
    '%s passes with an OAuth access token',
    async (scenario) => {
      const run = await runConformance(['server', '--url', proxy.url, '--scenario', scenario]);
      expect(run.output, run.output).toMatch(/Passed: ([1-9]\d*)\/\1, 0 failed/);
      expect(run.status, run.output).toBe(0);
    },
    90_000,
  );

  it('every answer through the proxy came from an authenticated request (none was a 401)', () => {
    expect(proxy.answers.length).toBeGreaterThan(0);
    expect(proxy.answers.filter((a) => a.status === 401)).toEqual([]);
  });

  it('without a token, server-initialize fails: the server answers 401 with its resource metadata', async () => {
    const run = await runConformance(['server', '--url', mcpUrl(), '--scenario', 'server-initialize']);
    expect(run.status, run.output).not.toBe(0);
    expect(run.output, run.output).toMatch(/Passed: \d+\/\d+, [1-9]\d* failed/);
    // Refused for want of a token, not for anything else.
    expect(run.output, run.output).toContain('"error":"invalid_token"');
    const bare = await fetch(mcpUrl(), {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' }),
    });
    expect(bare.status).toBe(401);
    expect(bare.headers.get('www-authenticate')).toContain(
      `resource_metadata="${issuer()}/.well-known/oauth-protected-resource/mcp"`,
    );
  }, 90_000);
});
