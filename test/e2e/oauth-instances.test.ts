import { createServer, request } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call } from '../support/mcp-clients.js';
import { bearerToolsList } from '../support/net.js';
import { connectByHttp } from '../support/oauth-by-http.js';
import { TestOAuthHost } from '../support/oauth-host.js';
import { freshSchema } from '../support/postgres.js';
import type { RunningServer } from '../support/spawn-server.js';
import { spawnServer } from '../support/spawn-server.js';

// Two instances on one PostgreSQL database behind one address (a load balancer that
// alternates, as a round-robin proxy without sticky sessions does): the person's sign-in,
// the authorization and the tokens must work whichever instance each request lands on.

const schema = freshSchema();
let a: RunningServer;
let b: RunningServer;
const upstreams: number[] = [];
const landed: string[] = [];
let next = 0;

/** Round robin; a request may name its instance with x-instance (stripped before it goes on). */
const balancer = createServer((req, res) => {
  const named = req.headers['x-instance'];
  const index = named === 'a' ? 0 : named === 'b' ? 1 : next++ % 2;
  landed.push(index === 0 ? 'a' : 'b');
  const headers = { ...req.headers };
  delete headers['x-instance'];
  const upstream = request(
    { host: '127.0.0.1', port: upstreams[index], method: req.method, path: req.url, headers },
    (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    },
  );
  upstream.on('error', () => res.writeHead(502).end());
  req.pipe(upstream);
});

let publicUrl = '';

beforeAll(async () => {
  await new Promise<void>((resolve) => balancer.listen(0, '127.0.0.1', resolve));
  publicUrl = `http://127.0.0.1:${(balancer.address() as AddressInfo).port}`;
  const args = [...schema.args, '--no-seed', '--public-url', publicUrl];
  [a, b] = await Promise.all([spawnServer(args), spawnServer(args)]);
  upstreams.push(a.port, b.port);
});
afterAll(async () => {
  await Promise.all([a?.stop(), b?.stop()]);
  await new Promise((resolve) => balancer.close(resolve));
  await schema.drop();
});

const listTools = (token: string, instance: 'a' | 'b') =>
  bearerToolsList(new URL('/mcp', publicUrl), token, { 'x-instance': instance });

describe('OAuth across two instances sharing PostgreSQL', () => {
  it('registration, sign-in, consent and code exchange alternate between instances and still work', async () => {
    const host = await TestOAuthHost.start('Balanced host');
    try {
      const before = landed.length;
      const client = await connectByHttp({ url: publicUrl, agent: a.agent }, host);
      expect(new Set(landed.slice(before))).toEqual(new Set(['a', 'b']));
      expect((await call(client, 'list_calendars', {})).ok).toBe(true);
      await client.close();

      // Each instance accepts the token, whichever issued it: one issuer, shared signing keys.
      const token = host.tokens()!.access_token;
      expect((await listTools(token, 'a')).status).toBe(200);
      expect((await listTools(token, 'b')).status).toBe(200);

      // Revoked through one instance, refused by both.
      const revoked = await fetch(new URL('/oauth/revoke', publicUrl), {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded', 'x-instance': 'a' },
        body: new URLSearchParams({
          token: host.tokens()!.refresh_token!,
          client_id: host.clientInformation()!.client_id,
        }),
      });
      expect(revoked.status).toBe(200);
      for (const instance of ['a', 'b'] as const) {
        const answer = await listTools(token, instance);
        expect(answer.status, instance).toBe(401);
        expect(answer.headers.get('www-authenticate'), instance).toContain(
          `resource_metadata="${publicUrl}/.well-known/oauth-protected-resource/mcp"`,
        );
      }
    } finally {
      await host.close();
    }
  });

  it('both instances publish the same issuer and keys', async () => {
    const metadata = await Promise.all(
      (['a', 'b'] as const).map(async (instance) => {
        const headers = { 'x-instance': instance };
        const server = await (
          await fetch(new URL('/.well-known/oauth-authorization-server', publicUrl), { headers })
        ).json();
        const jwks = await (await fetch(new URL('/oauth/jwks', publicUrl), { headers })).json();
        return { issuer: (server as { issuer: string }).issuer, jwks };
      }),
    );
    expect(metadata[0]!.issuer).toBe(publicUrl);
    expect(metadata[1]).toEqual(metadata[0]);
  });
});
