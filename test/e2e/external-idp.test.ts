import { randomUUID } from 'node:crypto';
import { exportSPKI, importJWK, SignJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createOpenCalendar, futureHour, plusMinutes } from '../support/fixtures.js';
import { call, connectHttp } from '../support/mcp-clients.js';
import { LocalIssuer, newKey } from '../support/local-issuer.js';
import { addAgent, identityDeps } from '../support/provision.js';
import type { RunningServer } from '../support/spawn-server.js';
import { runCli, spawnServer, untilSealed } from '../support/spawn-server.js';

// Access tokens of the operator's identity providers on /mcp: verified (issuer, audience,
// expiry, algorithm, published key), then mapped to an existing, enabled Holdfast person.

const COOLDOWN_S = 1;
let server: RunningServer;
let idpA: LocalIssuer;
let idpB: LocalIssuer;
/** Configured while down: the server must start anyway and pick it up once it answers. */
let idpDown: LocalIssuer;
/** Never configured. */
let stranger: LocalIssuer;
/** Metadata only at RFC 8414's /.well-known/oauth-authorization-server. */
let oauthOnly: LocalIssuer;
/** Its metadata names another issuer than the one configured. */
let misnamed: LocalIssuer;
let room: string;

beforeAll(async () => {
  [idpA, idpB, stranger] = await Promise.all([
    LocalIssuer.start(),
    LocalIssuer.start('ES256'),
    LocalIssuer.start(),
  ]);
  oauthOnly = await LocalIssuer.start('PS256', { metadataAt: 'oauth-authorization-server' });
  misnamed = await LocalIssuer.start('RS256', { claimsIssuer: 'https://elsewhere.example/' });
  idpDown = await LocalIssuer.start('EdDSA');
  const downPort = Number(new URL(idpDown.issuer).port);
  await idpDown.stop();
  server = await spawnServer([
    '--no-seed',
    '--allow-private-upstreams',
    ...[idpA.issuer, idpB.issuer, oauthOnly.issuer, misnamed.issuer, `http://127.0.0.1:${downPort}`].flatMap(
      (issuer) => ['--auth-issuer', issuer],
    ),
    ...['--auth-scope-claim', 'scope,permissions', '--auth-jwks-cooldown', String(COOLDOWN_S)],
  ]);
  const owner = await connectHttp(server.url, 'modern');
  room = await createOpenCalendar(owner, 'Room 1');
  await owner.close();
});
afterAll(async () => {
  await server?.stop();
  await Promise.all([idpA, idpB, oauthOnly, misnamed, idpDown, stranger].map((i) => i?.stop()));
});

/** Claims a well-configured IdP puts in an access token for the provisioned owner. */
const good = (overrides: Record<string, unknown> = {}) => ({
  aud: server.url,
  sub: 'idp-user-1',
  email: server.agent.email.toUpperCase(),
  scope: 'openid email read draft write',
  azp: 'agent-app',
  ...overrides,
});

/** Connects with this bearer token, lists the tools and finds slots; records every HTTP answer. */
async function tryToken(token: string) {
  const seen: { status: number; challenge: string | null }[] = [];
  const recording: typeof fetch = async (input, init) => {
    const response = await fetch(input, init);
    seen.push({ status: response.status, challenge: response.headers.get('www-authenticate') });
    return response;
  };
  const outcome = await connectHttp(server.url, 'modern', { token, fetch: recording })
    .then(async (client) => {
      const tools = await client.listTools();
      const from = futureHour(3);
      const found = await call(client, 'find_slots', {
        calendarIds: [room],
        from,
        to: plusMinutes(from, 180),
        durationMinutes: 60,
        limit: 3,
      });
      await client.close();
      return found.ok && tools.tools.length > 0 ? 'accepted' : 'refused in the envelope';
    })
    .catch(() => 'refused');
  return { outcome, seen };
}

async function expectRefused(cases: [string, string][]) {
  const results = [];
  for (const [name, token] of cases) results.push({ name, ...(await tryToken(token)) });
  const accepted = results.filter((r) => r.outcome !== 'refused' || r.seen.some((s) => s.status === 200));
  expect(accepted.map((r) => r.name)).toEqual([]);
  for (const r of results) {
    expect(
      r.seen.map((s) => s.status),
      r.name,
    ).toEqual([401]);
    expect(r.seen[0]!.challenge, r.name).toMatch(/^Bearer .*resource_metadata="/);
  }
}

const b64 = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');

describe('external identity providers on /mcp', () => {
  it('a token with the right claims lists tools and finds slots; its policy is draft; the audit names the IdP and client', async () => {
    expect((await tryToken(await idpA.sign(good()))).outcome).toBe('accepted');
    // The second issuer, at the same time; scopes as an array claim (Auth0's permissions).
    const fromB = await idpB.sign(good({ scope: undefined, permissions: ['read', 'draft'], azp: 'b-app' }));
    expect((await tryToken(fromB)).outcome).toBe('accepted');
    // A third, whose metadata is only at RFC 8414's address.
    expect((await tryToken(await oauthOnly.sign(good()))).outcome).toBe('accepted');
    expect(oauthOnly.hits.discovery).toBe(1);

    const agent = await connectHttp(server.url, 'modern', { token: await idpA.sign(good()) });
    const start = futureHour(4);
    const held = await call(agent, 'hold_slot', {
      calendarIds: [room],
      start,
      end: plusMinutes(start, 60),
      idempotencyKey: randomUUID(),
    });
    expect(held.ok, JSON.stringify(held.error)).toBe(true);
    const confirm = await call(agent, 'confirm_booking', {
      bookingId: held.data!.booking.id,
      expectedVersion: held.data!.booking.version,
      idempotencyKey: randomUUID(),
    });
    expect(confirm.error?.code).toBe('APPROVAL_REQUIRED');
    await agent.close();

    await untilSealed(server.dbPath);
    const tail = (await runCli(['audit', 'tail', '-n', '50', '--json', '--db', server.dbPath])).stdout;
    expect(tail).toContain(`idp:${idpA.issuer}#agent-app`);
    expect(tail).toContain(`idp:${idpB.issuer}#b-app`);
  });

  it('wrong audience, issuer, key, expiry or algorithm: 401 with a Bearer challenge, accepted 0', async () => {
    const now = Math.floor(Date.now() / 1000);
    const publicKey = await importJWK(idpA.key.publicJwk, 'RS256', { extractable: true });
    const pem = await exportSPKI(publicKey as CryptoKey);
    const hmacWithPublicKey = await new SignJWT({ iss: idpA.issuer, exp: now + 300, ...good() })
      .setProtectedHeader({ alg: 'HS256', kid: idpA.key.kid })
      .sign(new TextEncoder().encode(pem));
    const unsigned = `${b64({ alg: 'none', typ: 'JWT' })}.${b64({ iss: idpA.issuer, exp: now + 300, ...good() })}.`;
    const foreignKey = await newKey('RS256');
    await expectRefused([
      ['another resource as audience', await idpA.sign(good({ aud: 'https://other.example/mcp' }))],
      ['no audience', await idpA.sign(good({ aud: undefined }))],
      ['an issuer not configured', await stranger.sign(good())],
      ['the configured iss, signed by an unknown key', await idpA.sign(good(), { key: foreignKey })],
      [
        'the configured iss, an unknown key under its key id',
        await idpA.sign(good(), { key: foreignKey, kid: idpA.key.kid }),
      ],
      ['the configured iss, signed by another issuer’s key', await stranger.sign(good({ iss: idpA.issuer }))],
      ['expired two minutes ago', await idpA.sign(good({ iat: now - 900, exp: now - 120 }))],
      ['no expiry', await idpA.sign(good({ exp: undefined }))],
      ['not valid yet', await idpA.sign(good({ nbf: now + 600 }))],
      ['alg none', unsigned],
      ['HS256 keyed with the public key', hmacWithPublicKey],
      ['an issuer whose metadata names another issuer', await misnamed.sign(good())],
    ]);
    expect(misnamed.hits.jwks, 'keys are never fetched from a misnamed issuer').toBe(0);
    expect(server.logs.join('')).toContain('configure --auth-issuer exactly as the provider');
  });

  it('unknown, disabled, other-tenant or unverified people and tokens without a usable scope: 401, accepted 0', async () => {
    const { deps, close } = await identityDeps(server.dbPath);
    const disabled = await addAgent(deps, { email: 'gone@local.example' });
    const elsewhere = await addAgent(deps, { email: 'far@other.example', tenant: 'other' });
    const viewer = await addAgent(deps, { email: 'look@local.example', role: 'viewer' });
    await close();
    expect((await runCli(['users', 'disable', disabled.email, '--db', server.dbPath])).status).toBe(0);
    await expectRefused([
      ['nobody with that email', await idpA.sign(good({ email: 'nobody@local.example' }))],
      ['no email claim', await idpA.sign(good({ email: undefined }))],
      ['a disabled person', await idpA.sign(good({ email: disabled.email }))],
      ['a person of another tenant', await idpA.sign(good({ email: elsewhere.email }))],
      ['an email the IdP says is unverified', await idpA.sign(good({ email_verified: false }))],
      ['no Holdfast scope', await idpA.sign(good({ scope: 'openid email profile' }))],
      ['a viewer asking only for write', await idpA.sign(good({ email: viewer.email, scope: 'write' }))],
    ]);
    // The control: the viewer with a scope their role has gets in.
    expect((await tryToken(await idpA.sign(good({ email: viewer.email, scope: 'read' })))).outcome).toBe(
      'accepted',
    );
  });

  it('key rotation: a token signed with the new key is accepted once the cooldown allows a refetch; the retired key is refused', async () => {
    const before = idpA.key;
    const oldToken = await idpA.sign(good());
    expect((await tryToken(oldToken)).outcome).toBe('accepted');
    const jwksFetches = idpA.hits.jwks;
    for (let i = 0; i < 3; i++) expect((await tryToken(await idpA.sign(good()))).outcome).toBe('accepted');
    expect(idpA.hits.jwks, 'known keys come from the cache').toBe(jwksFetches);

    await idpA.rotate();
    expect(idpA.key.kid).not.toBe(before.kid);
    await new Promise((resolve) => setTimeout(resolve, COOLDOWN_S * 1000 + 200));
    expect((await tryToken(await idpA.sign(good()))).outcome).toBe('accepted');
    expect(idpA.hits.jwks).toBe(jwksFetches + 1);
    await expectRefused([['a token of the retired key', oldToken]]);
  });

  it('an IdP that goes down: tokens of keys it published still verify, even after an unknown key id made a refetch fail', async () => {
    const known = await idpB.sign(good({ azp: 'b-app' }));
    expect((await tryToken(known)).outcome).toBe('accepted');
    const port = Number(new URL(idpB.issuer).port);
    await idpB.stop();
    try {
      await new Promise((resolve) => setTimeout(resolve, COOLDOWN_S * 1000 + 200));
      await expectRefused([
        ['an unknown key id while the IdP is down', await idpB.sign(good(), { key: await newKey('ES256') })],
      ]);
      expect((await tryToken(known)).outcome).toBe('accepted');
    } finally {
      await idpB.listen(port);
    }
  });

  it('an issuer that was down at start-up is picked up once it answers', async () => {
    const down = new URL(idpDown.issuer);
    const token = await idpDown.sign(good());
    await expectRefused([['its IdP is unreachable', token]]);
    await idpDown.listen(Number(down.port));
    await new Promise((resolve) => setTimeout(resolve, COOLDOWN_S * 1000 + 200));
    expect((await tryToken(token)).outcome).toBe('accepted');
    expect(idpDown.hits.discovery).toBe(1);
    expect(server.logs.join('')).toContain('identity provider unavailable');
  });
});

describe('claim mapping (Entra-like: preferred_username, scp, a tenant claim, a custom audience)', () => {
  let mapped: RunningServer;
  let discoveries: number;
  const TENANT_CLAIM = 'https://holdfast.example/tenant';
  const AUDIENCE = 'api://holdfast';

  beforeAll(async () => {
    discoveries = idpA.hits.discovery;
    mapped = await spawnServer([
      '--no-seed',
      '--allow-private-upstreams',
      ...['--auth-issuer', idpA.issuer, '--auth-jwks-url', `${idpA.issuer}/jwks`],
      ...['--auth-audience', AUDIENCE, '--auth-person-claim', 'preferred_username,upn'],
      ...['--auth-scope-claim', 'scp', '--auth-tenant-claim', TENANT_CLAIM],
    ]);
    const { deps, close } = await identityDeps(mapped.dbPath);
    await addAgent(deps, { email: 'ana@other.example', tenant: 'other', role: 'approver' });
    await close();
  });
  afterAll(() => mapped?.stop());

  const entra = (overrides: Record<string, unknown> = {}) => ({
    aud: AUDIENCE,
    preferred_username: 'Ana@Other.example',
    scp: 'read draft',
    [TENANT_CLAIM]: 'other',
    azp: 'entra-app',
    ...overrides,
  });

  async function outcome(token: string) {
    return connectHttp(mapped.url, 'modern', { token })
      .then(async (client) => {
        const listed = await call(client, 'list_calendars', {});
        await client.close();
        return listed.ok ? 'accepted' : 'refused in the envelope';
      })
      .catch(() => 'refused');
  }

  it('maps the configured claims, and refuses a token missing or contradicting them', async () => {
    expect(await outcome(await idpA.sign(entra()))).toBe('accepted');
    expect(
      await outcome(await idpA.sign(entra({ preferred_username: undefined, upn: 'ana@other.example' }))),
    ).toBe('accepted');
    const refused = {
      'the tenant claim names another tenant': await outcome(
        await idpA.sign(entra({ [TENANT_CLAIM]: 'local' })),
      ),
      'no tenant claim': await outcome(await idpA.sign(entra({ [TENANT_CLAIM]: undefined }))),
      'the default audience, not the configured one': await outcome(
        await idpA.sign(entra({ aud: mapped.url })),
      ),
      'scopes in scope, not scp': await outcome(await idpA.sign(entra({ scp: undefined, scope: 'read' }))),
      'the person only in email': await outcome(
        await idpA.sign(entra({ preferred_username: undefined, email: 'ana@other.example' })),
      ),
    };
    expect(Object.entries(refused).filter(([, o]) => o !== 'refused')).toEqual([]);
    expect(idpA.hits.discovery, 'with --auth-jwks-url nothing is discovered').toBe(discoveries);
  });
});
