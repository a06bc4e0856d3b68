import Database from 'better-sqlite3';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { follow, Jar } from '../support/oauth-by-http.js';
import { TestOAuthHost } from '../support/oauth-host.js';
import { addPersonWithPassword, signIn } from '../support/person.js';
import type { RunningServer } from '../support/spawn-server.js';
import { spawnServer } from '../support/spawn-server.js';

// Consent is a person's act. An agent that knows the authorization URL (it started the flow)
// tries to finish it itself — without a session, with its bearer token, with a session's
// cookie but a forged or borrowed CSRF token — and a viewer tries to give more than their
// role allows. The host's callback must never receive a code.

let server: RunningServer;
let host: TestOAuthHost;

beforeAll(async () => {
  server = await spawnServer(['--no-seed']);
  host = await TestOAuthHost.start('Impatient agent');
});
afterAll(async () => {
  await host?.close();
  await server?.stop();
});

/** The host begins an authorization; returns the URL its person would be sent to. */
async function begin(): Promise<URL> {
  host.authorizationUrl = undefined;
  const transport = new StreamableHTTPClientTransport(new URL('/mcp', server.url), { authProvider: host });
  await new Client({ name: 'agent', version: '1' }).connect(transport).catch(() => undefined);
  expect(host.authorizationUrl).toBeDefined();
  return host.authorizationUrl!;
}

/** Follows the authorization URL with these cookies; returns where it stopped (the interaction) and the jar. */
async function interactionOf(url: URL, cookie = '') {
  const jar = new Jar(cookie);
  const reached = await follow(url, jar, host.redirectUrl);
  const path = reached.url.pathname.startsWith('/oauth/interaction/')
    ? reached.url.pathname
    : decodeURIComponent(reached.url.searchParams.get('next') ?? '');
  return { path, jar, page: await reached.answer.text() };
}

const post = (path: string, headers: Record<string, string>, fields: Record<string, string>) =>
  fetch(new URL(path, server.url), {
    method: 'POST',
    redirect: 'manual',
    headers: {
      'content-type': 'application/x-www-form-urlencoded',
      origin: new URL(server.url).origin,
      ...headers,
    },
    body: new URLSearchParams({ decision: 'allow', writePolicy: 'direct', scope: 'write', ...fields }),
  });

const connectionCount = () => {
  const db = new Database(server.dbPath, { readonly: true });
  try {
    return (db.prepare('SELECT count(*) AS n FROM oauth_connections').get() as { n: number }).n;
  } finally {
    db.close();
  }
};

describe('an agent finishing its own authorization', () => {
  it('no session, a bearer token, a forged or another request’s CSRF token: 0 codes issued', async () => {
    const person = await signIn(server.url, server.agent.email, server.agent.password);
    const target = await interactionOf(await begin());
    expect(target.path).toMatch(/^\/oauth\/interaction\//);
    // Another request's consent page, opened by the person: its CSRF token is real, but not for this request.
    const other = await interactionOf(await begin(), person);
    const borrowed = /name="csrf" value="([^"]+)"/.exec(
      other.page.slice(other.page.indexOf('/oauth/interaction/')),
    )?.[1];
    expect(borrowed).toBeDefined();

    const attempts: Record<string, () => Promise<Response>> = {
      'no session at all': () => post(target.path, { cookie: target.jar.header() }, {}),
      'the owner’s bearer token': () =>
        post(target.path, { cookie: target.jar.header(), authorization: `Bearer ${server.agent.token}` }, {}),
      'the person’s session, no CSRF token': () =>
        post(target.path, { cookie: `${target.jar.header()}; ${person}` }, {}),
      'the person’s session, a forged CSRF token': () =>
        post(target.path, { cookie: `${target.jar.header()}; ${person}` }, { csrf: 'x'.repeat(43) }),
      'the person’s session, another request’s CSRF token': () =>
        post(target.path, { cookie: `${target.jar.header()}; ${person}` }, { csrf: borrowed! }),
      'a made-up interaction': () =>
        post('/oauth/interaction/not-a-real-uid', { cookie: person }, { csrf: borrowed! }),
    };
    let codes = 0;
    for (const [name, attempt] of Object.entries(attempts)) {
      const answer = await attempt();
      const location = answer.headers.get('location') ?? '';
      if (location.startsWith(host.redirectUrl) && new URL(location).searchParams.has('code')) codes++;
      expect([403, 404], `${name}: ${answer.status} ${location}`).toContain(answer.status);
    }
    expect(codes).toBe(0);
    expect(host.callbacks.filter((c) => c.has('code'))).toHaveLength(0);
    expect(connectionCount()).toBe(0);
  });

  it('a viewer cannot give write, sensitive or a direct policy, whatever the form says', async () => {
    const viewer = await addPersonWithPassword(server, { email: 'viewer@local.example', role: 'viewer' });
    const session = await signIn(server.url, viewer.email, viewer.password);
    const { path, jar, page } = await interactionOf(await begin(), session);
    expect(path).toMatch(/^\/oauth\/interaction\//);
    const csrf = /action="\/oauth\/interaction\/[^"]+"[\s\S]*?name="csrf" value="([^"]+)"/.exec(page)?.[1];
    expect(csrf).toBeDefined();
    expect(page).not.toContain('value="direct"');
    let granted = 0;
    for (const fields of [
      { scope: 'write', writePolicy: 'readonly' },
      { scope: 'sensitive', writePolicy: 'readonly' },
      { scope: 'read', writePolicy: 'direct' },
      { scope: 'read', writePolicy: 'draft' },
    ]) {
      const answer = await post(path, { cookie: jar.header() }, { csrf: csrf!, ...fields });
      if ((answer.headers.get('location') ?? '').includes('code=')) granted++;
      expect(answer.status, JSON.stringify(fields)).toBe(400);
    }
    expect(granted).toBe(0);
    expect(connectionCount()).toBe(0);
    // What a viewer may give goes through: the refusals above were the role's, not the form's.
    const allowed = await follow(new URL(path, server.url), jar, host.redirectUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', origin: new URL(server.url).origin },
      body: new URLSearchParams({ csrf: csrf!, decision: 'allow', scope: 'read', writePolicy: 'readonly' }),
    });
    expect(allowed.url.searchParams.get('code')).toBeTruthy();
    expect(connectionCount()).toBe(1);
  });
});
