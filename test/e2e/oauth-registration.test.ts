import { get } from 'node:http';
import { createServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectByHttp } from '../support/oauth-by-http.js';
import { TestOAuthHost } from '../support/oauth-host.js';
import type { RunningServer } from '../support/spawn-server.js';
import { runCli, spawnServer } from '../support/spawn-server.js';
import type { TestCa } from '../support/test-ca.js';
import { makeTestCa } from '../support/test-ca.js';

// How agent hosts register: dynamic registration with a redirect policy that takes every real
// host's callback and nothing dangerous, and Client ID Metadata Documents fetched over https
// (a local server with a throwaway CA) with size, time and address limits.

let ca: TestCa;
let documents: ReturnType<typeof createServer>;
let docs = '';
/** Allows metadata documents on private addresses (the local document server is one). */
let open: RunningServer;
/** The default: documents on private addresses are refused. */
let strict: RunningServer;
let host: TestOAuthHost;

const routes: Record<string, (url: string) => { body: string; delayMs?: number; status?: number }> = {};

beforeAll(async () => {
  ca = makeTestCa();
  documents = createServer({ cert: ca.cert, key: ca.key }, (req, res) => {
    const route = routes[req.url ?? ''];
    if (!route) return void res.writeHead(404).end();
    const { body, delayMs = 0, status = 200 } = route(`${docs}${req.url}`);
    setTimeout(
      () =>
        res
          .writeHead(status, { 'content-type': 'application/json', location: `${docs}/good.json` })
          .end(body),
      delayMs,
    ).unref();
  });
  await new Promise<void>((resolve) => documents.listen(0, '127.0.0.1', resolve));
  docs = `https://127.0.0.1:${(documents.address() as AddressInfo).port}`;
  const env = { NODE_EXTRA_CA_CERTS: ca.caFile };
  [open, strict] = await Promise.all([
    spawnServer(['--no-seed', '--oauth-allow-private-metadata'], { env }),
    spawnServer(['--no-seed'], { env }),
  ]);
  host = await TestOAuthHost.start('Metadata document host', `${docs}/good.json`);
  const document = (url: string, extra: Record<string, unknown> = {}) =>
    JSON.stringify({
      client_id: url,
      client_name: 'Metadata document host',
      redirect_uris: [host.redirectUrl],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
      ...extra,
    });
  Object.assign(routes, {
    '/good.json': (url: string) => ({ body: document(url) }),
    '/mismatch.json': () => ({ body: document(`${docs}/good.json`) }),
    '/oversize.json': (url: string) => ({ body: document(url, { padding: 'x'.repeat(6 * 1024) }) }),
    '/slow.json': (url: string) => ({ body: document(url), delayMs: 4_000 }),
    '/secret.json': (url: string) => ({ body: document(url, { client_secret: 'shh' }) }),
    '/javascript.json': (url: string) => ({
      body: document(url, { redirect_uris: ['javascript:alert(1)'] }),
    }),
    '/redirected.json': () => ({ body: '', status: 302 }),
    '/not-json.json': () => ({ body: '<html>hello</html>' }),
  });
});
afterAll(async () => {
  await host?.close();
  await Promise.all([open?.stop(), strict?.stop()]);
  documents?.close();
  ca?.cleanup();
});

function register(server: RunningServer, metadata: Record<string, unknown>) {
  return fetch(new URL('/oauth/register', server.url), {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ token_endpoint_auth_method: 'none', client_name: 'Hostile', ...metadata }),
  });
}

/** The first step of an authorization with this client id: does the server take the client? */
async function authorize(server: RunningServer, clientId: string, redirectUri: string) {
  const url = new URL('/oauth/authorize', server.url);
  url.search = new URLSearchParams({
    client_id: clientId,
    redirect_uri: redirectUri,
    response_type: 'code',
    scope: 'read',
    state: 'state-1',
    code_challenge: 'E9Melhoa2OwvFrEMTJguCQaoeKlY1ZRHkEZpCl6QR8Q',
    code_challenge_method: 'S256',
    resource: new URL('/mcp', server.url).href,
  }).toString();
  const answer = await fetch(url, { redirect: 'manual' });
  return { status: answer.status, location: answer.headers.get('location') ?? '', body: await answer.text() };
}

/** GET with a Host and forwarded headers of the caller's choosing. */
function getAs(server: RunningServer, path: string, headers: Record<string, string>) {
  return new Promise<{ status: number; body: string }>((resolve, reject) => {
    get({ host: '127.0.0.1', port: server.port, path, headers }, (answer) => {
      let body = '';
      answer.setEncoding('utf8');
      answer.on('data', (chunk: string) => (body += chunk));
      answer.on('end', () => resolve({ status: answer.statusCode ?? 0, body }));
    }).on('error', reject);
  });
}

describe('authorization server metadata', () => {
  it('names the issuer’s origin for every endpoint whatever Host or X-Forwarded-* a caller sends; no DPoP, logout or offline_access', async () => {
    const origin = new URL(strict.url).origin;
    for (const headers of <Record<string, string>[]>[
      { host: `localhost:${strict.port}` },
      { host: `127.0.0.1:${strict.port}`, 'x-forwarded-host': 'evil.example', 'x-forwarded-proto': 'https' },
    ]) {
      const answer = await getAs(strict, '/.well-known/oauth-authorization-server', headers);
      expect(answer.status).toBe(200);
      const metadata = JSON.parse(answer.body) as Record<string, unknown>;
      expect(metadata.issuer).toBe(origin);
      const urls = Object.entries(metadata).filter(([k]) => k.endsWith('_endpoint') || k === 'jwks_uri');
      expect(urls.length).toBeGreaterThanOrEqual(5);
      for (const [key, url] of urls) expect(String(url), key).toMatch(new RegExp(`^${origin}/oauth/`));
      expect(metadata).not.toHaveProperty('dpop_signing_alg_values_supported');
      expect(metadata).not.toHaveProperty('end_session_endpoint');
      expect(metadata.scopes_supported).not.toContain('offline_access');
      expect(metadata.code_challenge_methods_supported).toEqual(['S256']);
      expect(metadata.response_types_supported).toEqual(['code']);
      expect(metadata.grant_types_supported).toEqual(['authorization_code', 'refresh_token']);
    }
  });
});

describe('dynamic client registration', () => {
  it('takes the callbacks real hosts use: Claude, ChatGPT, Cursor, VS Code, mcp-remote, any loopback port', async () => {
    const real = [
      'https://claude.ai/api/mcp/auth_callback',
      'https://chatgpt.com/connector_platform_oauth_redirect',
      'cursor://anysphere.cursor-mcp/oauth/callback',
      'vscode://vscode.github-authentication/did-authenticate',
      'https://vscode.dev/redirect',
      'http://127.0.0.1:33418/',
      'http://localhost:3334/oauth/callback',
      'http://[::1]:50123/callback',
    ];
    for (const uri of real) {
      const answer = await register(strict, { redirect_uris: [uri] });
      expect(answer.status, `${uri}: ${await answer.clone().text()}`).toBe(201);
      const client = (await answer.json()) as { client_id: string; redirect_uris: string[] };
      expect(client.redirect_uris).toEqual([uri]);
      // And the authorization endpoint takes that client with that callback (to the sign-in page).
      const started = await authorize(strict, client.client_id, uri);
      expect(started.status, uri).toBe(303);
      expect(started.location, uri).toMatch(/^\/oauth\/interaction\//);
    }
  });

  it('refuses fragments, browser schemes, wildcards, credentials, plain http elsewhere, implicit and password grants; registered 0', async () => {
    const hostile: Record<string, Record<string, unknown>> = {
      fragment: { redirect_uris: ['https://app.example/cb#frag'] },
      'empty fragment': { redirect_uris: ['https://app.example/cb#'] },
      javascript: { redirect_uris: ['javascript:alert(document.cookie)'] },
      'javascript, disguised': { redirect_uris: ['JavaScript://%0aalert(1)'] },
      data: { redirect_uris: ['data:text/html,<script>alert(1)</script>'] },
      file: { redirect_uris: ['file:///etc/passwd'] },
      vbscript: { redirect_uris: ['vbscript:msgbox(1)'] },
      'wildcard host': { redirect_uris: ['https://*.example.com/cb'] },
      'wildcard path': { redirect_uris: ['https://app.example/*'] },
      'credentials (localhost@evil)': { redirect_uris: ['http://localhost@evil.example/cb'] },
      'credentials in https': { redirect_uris: ['https://user:pass@app.example/cb'] },
      'plain http elsewhere': { redirect_uris: ['http://evil.example/cb'] },
      'loopback look-alike': { redirect_uris: ['http://127.0.0.1.evil.example/cb'] },
      'https to loopback name': { redirect_uris: ['https://localhost/cb'] },
      'a browser hand-off (Edge)': { redirect_uris: ['microsoft-edge:https://evil.example/steal'] },
      'a browser hand-off (Chrome, iOS)': { redirect_uris: ['googlechromes://evil.example/steal'] },
      'a browser hand-off (Safari)': { redirect_uris: ['x-safari-https://evil.example/steal'] },
      'a URL inside an app callback': { redirect_uris: ['myapp:https://evil.example/steal'] },
      'an intent URI': { redirect_uris: ['intent://evil.example/#Intent;scheme=https;end'] },
      'one bad among good': { redirect_uris: ['http://127.0.0.1:1/cb', 'javascript:alert(1)'] },
      'no redirect uri': { redirect_uris: [] },
      'not a uri': { redirect_uris: ['not a uri'] },
      implicit: {
        redirect_uris: ['https://app.example/cb'],
        response_types: ['token'],
        grant_types: ['implicit'],
      },
      password: { redirect_uris: ['https://app.example/cb'], grant_types: ['password'] },
      'keys fetched from a url': {
        redirect_uris: ['https://app.example/cb'],
        token_endpoint_auth_method: 'private_key_jwt',
        jwks_uri: 'http://169.254.169.254/latest/meta-data/',
      },
      'a thousand redirect uris': {
        redirect_uris: Array.from({ length: 1000 }, (_, i) => `https://app${i}.example/${'x'.repeat(200)}`),
      },
    };
    let registered = 0;
    for (const [name, metadata] of Object.entries(hostile)) {
      const answer = await register(strict, metadata);
      const text = await answer.text();
      if (answer.status === 201) registered++;
      expect(answer.status, `${name}: ${text.slice(0, 200)}`).toBeGreaterThanOrEqual(400);
      expect(answer.status, name).toBeLessThan(500);
      expect(text, name).not.toMatch(/at .*\.js:\d+/);
    }
    expect(registered).toBe(0);
  });

  it('registration is bounded: a client nobody connects is forgotten after a day; size and rate are capped', async () => {
    const answer = await register(strict, { redirect_uris: ['http://127.0.0.1:4100/cb'] });
    const { client_id } = (await answer.json()) as { client_id: string };
    const db = new Database(strict.dbPath, { readonly: true });
    const row = db
      .prepare("SELECT expires_at FROM oauth_records WHERE kind = 'Client' AND id = ?")
      .get(client_id) as {
      expires_at: number;
    };
    db.close();
    expect(Math.abs(row.expires_at - (Date.now() + 24 * 3600_000))).toBeLessThan(120_000);
    const contacts = await register(strict, {
      redirect_uris: ['http://127.0.0.1:4100/cb'],
      contacts: Array.from({ length: 6 }, (_, i) => `a${i}@example.com`),
    });
    expect(contacts.status).toBe(400);
    const huge = await register(strict, {
      redirect_uris: ['http://127.0.0.1:4100/cb'],
      client_name: 'x'.repeat(20_000),
    });
    expect(huge.status).toBe(413);
    // One address registering in a loop meets 429 with Retry-After, well before it could fill anything.
    let created = 0;
    let limited: Response | null = null;
    for (let i = 0; i < 100 && !limited; i++) {
      const next = await register(open, { redirect_uris: [`http://127.0.0.1:${5000 + i}/cb`] });
      if (next.status === 201) created++;
      else if (next.status === 429) limited = next;
    }
    expect(limited).not.toBeNull();
    expect(created).toBeLessThanOrEqual(60);
    expect(Number(limited!.headers.get('retry-after'))).toBeGreaterThan(0);
  });

  it('a registered client cannot swap its callback at authorization time', async () => {
    const answer = await register(strict, { redirect_uris: ['http://127.0.0.1:4000/cb'] });
    const { client_id } = (await answer.json()) as { client_id: string };
    for (const other of [
      'http://127.0.0.1:4000/cb/../evil',
      'https://evil.example/cb',
      'http://127.0.0.1:4000/cb?x=1',
    ]) {
      const started = await authorize(strict, client_id, other);
      expect(started.status, other).toBe(400);
      expect(started.location, other).toBe('');
    }
  });
});

describe('Client ID Metadata Documents', () => {
  it('the full flow with an https client id: fetched, trusted by origin, shown and recorded as that origin', async () => {
    const client = await connectByHttp(open, host);
    await client.close();
    expect(host.clientInformation()!.client_id).toBe(`${docs}/good.json`);
    const listed = await runCli(['connections', 'list', '--db', open.dbPath, '--json']);
    const [connection] = JSON.parse(listed.stdout) as { clientId: string; clientName: string }[];
    expect(connection).toMatchObject({ clientId: `${docs}/good.json`, clientName: docs });
  });

  it('refuses a document on a private address unless the operator allows it, before connecting: 0 connections', async () => {
    const docsPort = (documents.address() as AddressInfo).port;
    let connections = 0;
    const count = () => connections++;
    documents.on('connection', count);
    try {
      // An outsider names this host every way a URL can; the server must not even connect.
      for (const hostPart of [
        `127.0.0.1:${docsPort}`,
        `localhost:${docsPort}`,
        `localhost.:${docsPort}`,
        `[::ffff:127.0.0.1]:${docsPort}`,
        `[::ffff:7f00:1]:${docsPort}`,
        `[::127.0.0.1]:${docsPort}`,
        `2130706433:${docsPort}`,
        `0x7f.1:${docsPort}`,
        `api.localhost:${docsPort}`,
      ]) {
        const started = await authorize(strict, `https://${hostPart}/good.json`, host.redirectUrl);
        expect(started.status, hostPart).toBe(400);
        expect(started.location).toBe('');
        expect(started.body).toContain('invalid_client');
      }
      expect(connections).toBe(0);
      // The control: the server that may fetch private documents does connect to the same
      // listener (a document it has not cached yet).
      await authorize(open, `${docs}/uncached-${Date.now()}.json`, host.redirectUrl);
      expect(connections).toBeGreaterThan(0);
    } finally {
      documents.off('connection', count);
    }
  });

  it('refuses mismatched, oversize, slow, secret-bearing, redirected, non-JSON documents and bad callbacks; accepted 0', async () => {
    let accepted = 0;
    for (const path of [
      '/mismatch.json',
      '/oversize.json',
      '/slow.json',
      '/secret.json',
      '/javascript.json',
      '/redirected.json',
      '/not-json.json',
      '/missing.json',
    ]) {
      const started = await authorize(open, `${docs}${path}`, host.redirectUrl);
      if (started.status === 303) accepted++;
      expect(started.status, `${path}: ${started.body.slice(0, 200)}`).toBe(400);
      // An unknown client never gets a redirect: the error page stays on this server.
      expect(started.location, path).toBe('');
    }
    expect(accepted).toBe(0);
  });

  it('refuses client ids that are not plain https URLs', async () => {
    for (const id of [
      `${docs.replace('https:', 'http:')}/good.json`,
      `${docs}/good.json#x`,
      `${docs}/a/../good.json`,
      `https://user@127.0.0.1:1/good.json`,
    ]) {
      const started = await authorize(open, id, host.redirectUrl);
      expect(started.status, id).toBe(400);
      expect(started.location, id).toBe('');
    }
  });
});
