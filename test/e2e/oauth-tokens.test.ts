import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import Database from 'better-sqlite3';
import type { Client } from '@modelcontextprotocol/client';
import type { JWTPayload } from 'jose';
import { decodeJwt, decodeProtectedHeader, exportJWK, generateKeyPair, importJWK, SignJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AuditKey } from '../../src/adapters/audit/audit-key.js';
import { unseal } from '../../src/adapters/oauth/signing-keys.js';
import { bearerToolsList } from '../support/net.js';
import { connectByHttp } from '../support/oauth-by-http.js';
import { TestOAuthHost } from '../support/oauth-host.js';
import type { RunningServer } from '../support/spawn-server.js';
import { runCli, spawnServer } from '../support/spawn-server.js';

// The resource server's side of OAuth, attacked the way a stolen, replayed or forged token
// would be. Forgeries are signed with the server's own private key (unsealed here with the
// installation's audit key) so that only the claim under test is wrong.

let server: RunningServer;
let host: TestOAuthHost;
let client: Client;

beforeAll(async () => {
  server = await spawnServer(['--no-seed']);
  host = await TestOAuthHost.start('Token matrix host');
  client = await connectByHttp(server, host, { policy: 'draft' });
});
afterAll(async () => {
  await client?.close();
  await host?.close();
  await server?.stop();
});

const mcpUrl = () => new URL('/mcp', server.url).href;

async function tryToken(token: string) {
  const answer = await bearerToolsList(mcpUrl(), token);
  return { status: answer.status, challenge: answer.headers.get('www-authenticate') ?? '' };
}

/** The server's active signing key, as only someone holding the audit key could have it. */
function serverSigningKey() {
  const secret = new AuditKey(readFileSync(join(dirname(server.dbPath), 'audit.key'), 'utf8')).derive(
    'oauth-signing-keys',
  );
  const db = new Database(server.dbPath, { readonly: true });
  try {
    const row = db.prepare('SELECT kid, sealed FROM oauth_signing_keys WHERE retired_at IS NULL').get() as {
      kid: string;
      sealed: string;
    };
    return unseal(secret, row.kid, row.sealed);
  } finally {
    db.close();
  }
}

async function resign(claims: JWTPayload, header: Record<string, unknown> = {}) {
  const jwk = serverSigningKey();
  const key = await importJWK(jwk, 'ES256');
  return new SignJWT(claims)
    .setProtectedHeader({ alg: 'ES256', typ: 'at+jwt', kid: jwk.kid, ...header })
    .sign(key);
}

const b64 = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');

describe('OAuth access tokens on /mcp', () => {
  it('a genuine token works; every forged, foreign, stale or revoked one is 401 with a challenge; accepted 0', async () => {
    const genuine = host.tokens()!.access_token;
    const claims = decodeJwt(genuine);
    const header = decodeProtectedHeader(genuine);
    expect((await tryToken(genuine)).status).toBe(200);
    // The genuine claims re-signed with the real key pass too: the forgeries below differ only where named.
    expect(await tryToken(await resign({ ...claims }))).toMatchObject({ status: 200 });

    const [h, p, s] = genuine.split('.') as [string, string, string];
    const flipped = s.slice(0, 10) + (s[10] === 'A' ? 'B' : 'A') + s.slice(11);
    const other = await generateKeyPair('ES256');
    const publicJwk = await exportJWK((await generateKeyPair('ES256')).publicKey);
    const now = Math.floor(Date.now() / 1000);
    const attacks: Record<string, string> = {
      'for another resource (wrong aud)': await resign({ ...claims, aud: 'https://elsewhere.example/mcp' }),
      'for another port of this host': await resign({
        ...claims,
        aud: mcpUrl().replace(`:${server.port}`, ':1'),
      }),
      'from another issuer': await resign({ ...claims, iss: 'https://evil.example' }),
      expired: await resign({ ...claims, iat: now - 7200, exp: now - 3600 }),
      'without exp': await resign(Object.fromEntries(Object.entries(claims).filter(([k]) => k !== 'exp'))),
      'tampered signature': `${h}.${p}.${flipped}`,
      'tampered payload (another person)': `${h}.${b64({ ...claims, sub: 'someone-else' })}.${s}`,
      'alg none': `${b64({ ...header, alg: 'none' })}.${p}.`,
      'HS256 keyed with a public key': await new SignJWT({ ...claims })
        .setProtectedHeader({ alg: 'HS256', typ: 'at+jwt', kid: header.kid })
        .sign(new TextEncoder().encode(JSON.stringify(publicJwk))),
      'signed by a stranger’s key under our kid': await new SignJWT({ ...claims })
        .setProtectedHeader({ alg: 'ES256', typ: 'at+jwt', kid: header.kid })
        .sign(other.privateKey),
      'an id token type (typ JWT)': await resign({ ...claims }, { typ: 'JWT' }),
      'a grant that does not exist': await resign({ ...claims, hf_grant: 'no-such-grant' }),
      'a real grant, another subject': await resign({ ...claims, sub: 'someone-else' }),
    };
    let accepted = 0;
    for (const [name, token] of Object.entries(attacks)) {
      const answer = await tryToken(token);
      if (answer.status === 200) {
        accepted++;
        continue;
      }
      expect(answer.status, name).toBe(401);
      expect(answer.challenge, name).toMatch(/^Bearer /);
      expect(answer.challenge, name).toContain('error="invalid_token"');
      expect(answer.challenge, name).toContain('resource_metadata="');
    }
    expect(accepted).toBe(0);
  });

  it('a scope added to a genuine token grants nothing: the connection’s consent still caps it', async () => {
    const claims = decodeJwt(host.tokens()!.access_token);
    const widened = await resign({ ...claims, scope: 'read draft write sensitive' });
    const answer = await fetch(mcpUrl(), {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        authorization: `Bearer ${widened}`,
        'mcp-protocol-version': '2025-06-18',
      },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 2,
        method: 'tools/call',
        params: { name: 'create_calendar', arguments: {} },
      }),
    });
    expect(answer.status).toBe(403);
    expect(answer.headers.get('www-authenticate')).toContain('error="insufficient_scope"');
  });

  it('revoked with the CLI: `connections list` shows it, `connections revoke` ends it at the next call', async () => {
    const listed = await runCli(['connections', 'list', server.agent.email, '--db', server.dbPath, '--json']);
    expect(listed.status, listed.stderr).toBe(0);
    const [connection] = JSON.parse(listed.stdout) as {
      grantId: string;
      clientName: string;
      revokedAt: null;
    }[];
    expect(connection).toMatchObject({ clientName: 'Token matrix host', revokedAt: null });
    // A connected client is kept for good (unconnected registrations expire after a day).
    const db = new Database(server.dbPath, { readonly: true });
    const client = db
      .prepare("SELECT expires_at FROM oauth_records WHERE kind = 'Client' AND id = ?")
      .get(host.clientInformation()!.client_id) as { expires_at: number | null };
    db.close();
    expect(client.expires_at).toBeNull();
    const token = host.tokens()!.access_token;
    expect((await tryToken(token)).status).toBe(200);

    const revoked = await runCli(['connections', 'revoke', connection!.grantId, '--db', server.dbPath]);
    expect(revoked.status, revoked.stderr).toBe(0);
    const after = await tryToken(token);
    expect(after.status).toBe(401);
    expect(after.challenge).toContain('error="invalid_token"');
    const refreshed = await fetch(new URL('/oauth/token', server.url), {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        grant_type: 'refresh_token',
        refresh_token: host.tokens()!.refresh_token!,
        client_id: host.clientInformation()!.client_id,
      }),
    });
    expect(refreshed.status).toBe(400);
    expect((await runCli(['connections', 'revoke', connection!.grantId, '--db', server.dbPath])).status).toBe(
      1,
    );
    const table = await runCli(['connections', 'list', '--db', server.dbPath]);
    expect(table.stdout).toMatch(/Token matrix host.*revoked/);
  });

  it('a rotated key: old tokens still verify, and what the new key signs is accepted without a restart', async () => {
    const second = await TestOAuthHost.start('Rotation host');
    try {
      const before = await connectByHttp(server, second);
      const oldToken = second.tokens()!.access_token;
      await before.close();
      const rotated = await runCli(['oauth', 'rotate-keys', '--db', server.dbPath, '--json']);
      expect(rotated.status, rotated.stderr).toBe(0);
      const { kid } = JSON.parse(rotated.stdout) as { kid: string };
      expect(decodeProtectedHeader(oldToken).kid).not.toBe(kid);
      expect((await tryToken(oldToken)).status).toBe(200);
      // What the new key signs is accepted by this running instance (unknown kid: it reloads).
      expect(serverSigningKey().kid).toBe(kid);
      const fresh = await resign({ ...decodeJwt(oldToken) });
      expect(decodeProtectedHeader(fresh).kid).toBe(kid);
      expect((await tryToken(fresh)).status).toBe(200);

      // A leaked key: every retired key goes at once.
      const purged = await runCli([
        'oauth',
        'rotate-keys',
        '--purge-retired',
        '--db',
        server.dbPath,
        '--json',
      ]);
      expect(JSON.parse(purged.stdout)).toMatchObject({ removedRetiredKeys: 2 });
    } finally {
      await second.close();
    }
  });
});
