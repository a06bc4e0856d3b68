import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Agent, setGlobalDispatcher } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call } from '../support/mcp-clients.js';
import { connectByHttp } from '../support/oauth-by-http.js';
import { TestOAuthHost } from '../support/oauth-host.js';
import { signIn } from '../support/person.js';
import type { RunningServer } from '../support/spawn-server.js';
import { spawnServer } from '../support/spawn-server.js';
import type { TestCa } from '../support/test-ca.js';
import { makeTestCa } from '../support/test-ca.js';
import type { TlsProxy } from '../support/tls-proxy.js';
import { findCaddy, startCaddy, startNodeProxy } from '../support/tls-proxy.js';
import { freePort } from '../support/net.js';

// docs/operations.md's deployment recipe, run: Caddy (Debian's package) with its Caddyfile
// terminates TLS with a throwaway CA's certificate in front of `holdfast serve --public-url
// https://… --trust-proxy`, and a remote host goes through the whole OAuth flow over https.
// Without Caddy on the machine, a TLS proxy in Node stands in (the run says which).

let ca: TestCa;
let server: RunningServer;
let dir: string;
let publicUrl = '';

/** The Caddyfile of docs/operations.md, for this machine: its site, its backend, the test CA's certificate. */
function caddyfileFromReadme(site: string, backendPort: number, cert: string, key: string): string {
  const block = /```caddyfile\n([\s\S]*?)```/.exec(readFileSync('docs/operations.md', 'utf8'))?.[1];
  expect(block).toBeDefined();
  expect(block).toContain('holdfast.example.com {');
  expect(block).toContain('reverse_proxy 127.0.0.1:8080');
  const site_ = block!
    .replace('holdfast.example.com {', `${site} {\n\ttls ${cert} ${key}`)
    .replace('127.0.0.1:8080', `127.0.0.1:${backendPort}`);
  return `{\n\tadmin off\n\tauto_https disable_redirects\n\tstorage file_system ${dir}/data\n}\n${site_}`;
}

async function untilUp(url: string) {
  for (let i = 0; i < 100; i++) {
    const up = await fetch(url).then(
      (r) => r.ok,
      () => false,
    );
    if (up) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`the proxy did not come up at ${url}`);
}

let proxy: TlsProxy;

beforeAll(async () => {
  ca = makeTestCa();
  dir = mkdtempSync(join(tmpdir(), 'holdfast-caddy-'));
  // This process trusts the throwaway CA, as a host's machine trusts a real one.
  setGlobalDispatcher(new Agent({ connect: { ca: readFileSync(ca.caFile) } }));
  const port = await freePort();
  publicUrl = `https://127.0.0.1:${port}`;
  server = await spawnServer(['--no-seed', '--public-url', publicUrl, '--trust-proxy']);
  const caddy = findCaddy();
  if (caddy) {
    writeFileSync(join(dir, 'cert.pem'), ca.cert);
    writeFileSync(join(dir, 'key.pem'), ca.key);
    const caddyfile = caddyfileFromReadme(
      publicUrl,
      server.port,
      join(dir, 'cert.pem'),
      join(dir, 'key.pem'),
    );
    proxy = startCaddy(caddy, dir, caddyfile);
  } else proxy = await startNodeProxy(ca, port, server.port);
  console.log(`TLS proxy for the deployment test: ${proxy.source}`);
  await untilUp(`${publicUrl}/healthz`);
});
afterAll(async () => {
  await proxy?.stop();
  await server?.stop();
  ca?.cleanup();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('behind Caddy with TLS, as docs/operations.md deploys it', () => {
  it('every issuer and metadata URL is the public https URL', async () => {
    const resource = (await (
      await fetch(`${publicUrl}/.well-known/oauth-protected-resource/mcp`)
    ).json()) as {
      resource: string;
      authorization_servers: string[];
    };
    expect(resource.resource).toBe(`${publicUrl}/mcp`);
    expect(resource.authorization_servers).toEqual([publicUrl]);
    const metadata = (await (
      await fetch(`${publicUrl}/.well-known/oauth-authorization-server`)
    ).json()) as Record<string, unknown>;
    expect(metadata.issuer).toBe(publicUrl);
    for (const key of ['authorization_endpoint', 'token_endpoint', 'registration_endpoint', 'jwks_uri'])
      expect(String(metadata[key]), key).toMatch(new RegExp(`^${publicUrl}/oauth/`));
    const challenge = (
      await fetch(`${publicUrl}/mcp`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} }),
      })
    ).headers.get('www-authenticate');
    expect(challenge).toContain(`resource_metadata="${publicUrl}/.well-known/oauth-protected-resource/mcp"`);
  });

  it('a remote host signs its person in over https and calls tools; cookies are __Host- and Secure', async () => {
    const login = await fetch(`${publicUrl}/login`);
    expect(login.headers.getSetCookie().join('\n')).toMatch(/; Secure/);
    const session = await signIn(publicUrl, server.agent.email, server.agent.password);
    expect(session).toMatch(/^__Host-holdfast_session=/);
    const host = await TestOAuthHost.start('Host behind the internet');
    try {
      const client = await connectByHttp({ url: publicUrl, agent: server.agent }, host);
      expect((await call(client, 'list_calendars', {})).ok).toBe(true);
      await client.close();
      const claims = JSON.parse(
        Buffer.from(host.tokens()!.access_token.split('.')[1]!, 'base64url').toString(),
      );
      expect(claims).toMatchObject({ iss: publicUrl, aud: `${publicUrl}/mcp` });
    } finally {
      await host.close();
    }
  });
});
