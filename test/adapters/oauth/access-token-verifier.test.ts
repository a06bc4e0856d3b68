import { exportJWK, generateKeyPair, SignJWT } from 'jose';
import type { JWK } from 'jose';
import { describe, expect, it } from 'vitest';
import { accessTokenVerifier } from '../../../src/adapters/oauth/access-token-verifier.js';

const ISSUER = 'https://holdfast.example';
const AUDIENCE = `${ISSUER}/mcp`;

async function signingKey(kid: string) {
  const { privateKey, publicKey } = await generateKeyPair('ES256', { extractable: true });
  return { privateKey, publicJwk: { ...(await exportJWK(publicKey)), kid, alg: 'ES256' } as JWK };
}

function token(key: { privateKey: CryptoKey }, kid: string): Promise<string> {
  return new SignJWT({ client_id: 'client', hf_grant: 'grant', scope: 'read' })
    .setProtectedHeader({ alg: 'ES256', typ: 'at+jwt', kid })
    .setIssuer(ISSUER)
    .setAudience(AUDIENCE)
    .setSubject('person')
    .setExpirationTime('5m')
    .sign(key.privateKey);
}

describe('access token verifier: keys rotated elsewhere', () => {
  it('a token signed by a key made just after the last reload is accepted, not refused for being early', async () => {
    const first = await signingKey('k1');
    const published: JWK[] = [first.publicJwk];
    let loads = 0;
    const verify = accessTokenVerifier({
      issuer: ISSUER,
      audience: AUDIENCE,
      loadPublicKeys: async () => (loads++, [...published]),
    });
    expect(await verify(await token(first, 'k1'))).toMatchObject({ subject: 'person', grantId: 'grant' });
    // The CLI (or another instance) rotates at once: its key is new to this verifier.
    const second = await signingKey('k2');
    published.push(second.publicJwk);
    expect(await verify(await token(second, 'k2'))).toMatchObject({ subject: 'person' });
    expect(loads).toBe(2);
  });

  it('many unknown key ids at once share one reload, and are refused', async () => {
    const first = await signingKey('k1');
    let loads = 0;
    const verify = accessTokenVerifier({
      issuer: ISSUER,
      audience: AUDIENCE,
      loadPublicKeys: async () => (loads++, [first.publicJwk]),
    });
    expect(await verify(await token(first, 'k1'))).not.toBeNull();
    const forged = await signingKey('unknown');
    const tokens = await Promise.all(Array.from({ length: 20 }, (_, i) => token(forged, `made-up-${i}`)));
    const answers = await Promise.all(tokens.map((t) => verify(t)));
    expect(answers.filter((a) => a !== null)).toHaveLength(0);
    expect(loads).toBe(2);
  });
});
