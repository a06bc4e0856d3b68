import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import type { JWK } from 'jose';
import { exportJWK, generateKeyPair } from 'jose';
import type { Clock } from '../../ports/clock.js';
import type { SealedSigningKey, Store } from '../../ports/store/index.js';

/** The one algorithm Holdfast signs access tokens with, and the only one it accepts. */
export const SIGNING_ALG = 'ES256';

/** AES-256-GCM with the installation's secret; the key id is bound in as associated data. */
export function seal(secret: Buffer, kid: string, jwk: JWK): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', secret, iv).setAAD(Buffer.from(kid));
  const body = Buffer.concat([cipher.update(JSON.stringify(jwk)), cipher.final()]);
  return Buffer.concat([iv, cipher.getAuthTag(), body]).toString('base64url');
}

export function unseal(secret: Buffer, kid: string, sealed: string): JWK {
  const raw = Buffer.from(sealed, 'base64url');
  const decipher = createDecipheriv('aes-256-gcm', secret, raw.subarray(0, 12))
    .setAAD(Buffer.from(kid))
    .setAuthTag(raw.subarray(12, 28));
  return JSON.parse(Buffer.concat([decipher.update(raw.subarray(28)), decipher.final()]).toString()) as JWK;
}

async function newKey(secret: Buffer, now: number): Promise<SealedSigningKey> {
  const { privateKey } = await generateKeyPair(SIGNING_ALG, { extractable: true });
  const kid = randomBytes(12).toString('base64url');
  const jwk = { ...(await exportJWK(privateKey)), kid, alg: SIGNING_ALG, use: 'sig' };
  return { kid, sealed: seal(secret, kid, jwk), createdAt: now, retiredAt: null };
}

export interface SigningKeys {
  /** Private keys, the active one first (oidc-provider signs with it); retired ones still verify. */
  readonly private: JWK[];
  readonly active: string;
}

/**
 * The signing keys every instance shares, made on first use (once, however many instances
 * start at the same time). A wrong secret fails here, loudly, rather than at the first token.
 */
export async function loadSigningKeys(store: Store, clock: Clock, secret: Buffer): Promise<SigningKeys> {
  let sealed = await store.read((tx) => tx.oauth.signingKeys());
  if (sealed.length === 0) {
    const fresh = await newKey(secret, clock.now());
    sealed = await store.write(async (tx) => {
      await tx.serialize('oauth-signing-keys');
      const existing = await tx.oauth.signingKeys();
      if (existing.length > 0) return existing;
      await tx.oauth.addSigningKey(fresh);
      return [fresh];
    });
  }
  const ordered = [
    ...sealed.filter((k) => k.retiredAt === null),
    ...sealed.filter((k) => k.retiredAt !== null),
  ];
  return { private: ordered.map((k) => unseal(secret, k.kid, k.sealed)), active: ordered[0]!.kid };
}

/**
 * Retired keys keep verifying this long: past the longest access token, and time for a
 * rolling restart (an instance signs with the key it started with).
 */
export const RETIRED_KEY_GRACE_MS = 24 * 60 * 60_000;

/**
 * A new active key; the others retire (they keep verifying what they signed). Keys retired
 * longer than the grace go; `purgeRetired` removes every retired key now (a key leaked:
 * tokens it signed stop verifying within a minute, and every instance must restart).
 */
export async function rotateSigningKeys(
  store: Store,
  clock: Clock,
  secret: Buffer,
  options: { readonly purgeRetired?: boolean } = {},
): Promise<{ kid: string; removed: number }> {
  const now = clock.now();
  const fresh = await newKey(secret, now);
  return store.write(async (tx) => {
    await tx.serialize('oauth-signing-keys');
    await tx.oauth.addSigningKey(fresh);
    await tx.oauth.retireSigningKeysExcept(fresh.kid, now);
    const removed = await tx.oauth.removeRetiredSigningKeys(
      options.purgeRetired ? now + 1 : now - RETIRED_KEY_GRACE_MS,
    );
    return { kid: fresh.kid, removed };
  });
}

/** The public half of private JWKs, for verifying. */
export function publicKeys(keys: readonly JWK[]): JWK[] {
  return keys.map(({ kid, kty, crv, x, y, alg, use }) => ({ kid, kty, crv, x, y, alg, use }));
}
