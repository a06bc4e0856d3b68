import { randomBytes } from 'node:crypto';
import type { JWK } from 'jose';
import { CompactSign, exportJWK, generateKeyPair, importJWK } from 'jose';
import type { ReceiptClaims } from '../../domain/booking/receipt.js';
import { RECEIPT_TYPE } from '../../domain/booking/receipt.js';
import type { Clock } from '../../ports/clock.js';
import type { PublicJwk } from '../../ports/receipt-signer.js';
import type { SealedSigningKey, Store } from '../../ports/store/index.js';
import { seal, SIGNING_ALG, unseal } from '../oauth/signing-keys.js';

async function newKey(secret: Buffer, now: number): Promise<SealedSigningKey> {
  const { privateKey } = await generateKeyPair(SIGNING_ALG, { extractable: true });
  const kid = `rk_${randomBytes(12).toString('base64url')}`;
  const jwk = { ...(await exportJWK(privateKey)), kid, alg: SIGNING_ALG, use: 'sig' };
  return { kid, sealed: seal(secret, kid, jwk), createdAt: now, retiredAt: null };
}

/** The keys as stored; the first receipt ever signed makes the first key (once, across instances). */
export async function sealedReceiptKeys(
  store: Store,
  clock: Clock,
  secret: Buffer,
): Promise<SealedSigningKey[]> {
  const sealed = await store.read((tx) => tx.receipts.keys());
  if (sealed.length > 0) return sealed;
  const fresh = await newKey(secret, clock.now());
  return store.write(async (tx) => {
    await tx.serialize('receipt-keys');
    const existing = await tx.receipts.keys();
    if (existing.length > 0) return existing;
    await tx.receipts.addKey(fresh);
    return [fresh];
  });
}

const publicHalf = ({ kid, kty, crv, x, y, alg, use }: JWK): PublicJwk =>
  ({ kid, kty, crv, x, y, alg, use }) as PublicJwk;

/** The active private key (it signs) and every key's public half (they verify). */
export async function prepareReceiptKeys(sealed: readonly SealedSigningKey[], secret: Buffer) {
  const active = sealed.find((k) => k.retiredAt === null) ?? sealed[0]!;
  const privateJwk = unseal(secret, active.kid, active.sealed);
  // Unsealing every key proves the secret opens them all: a wrong audit key fails here, loudly.
  const all = sealed.map((k) => publicHalf(unseal(secret, k.kid, k.sealed)));
  return { kid: active.kid, privateKey: await importJWK(privateJwk, SIGNING_ALG), publicKeys: all };
}

export async function signReceipt(
  key: { kid: string; privateKey: Awaited<ReturnType<typeof importJWK>> },
  claims: ReceiptClaims,
): Promise<string> {
  return new CompactSign(new TextEncoder().encode(JSON.stringify(claims)))
    .setProtectedHeader({ alg: SIGNING_ALG, kid: key.kid, typ: RECEIPT_TYPE })
    .sign(key.privateKey);
}

/**
 * A new active receipt key; the others retire. Retired keys are never removed: receipts are
 * kept for years, and each must verify against the published keys as long as it is kept.
 */
export async function rotateReceiptKeys(store: Store, clock: Clock, secret: Buffer): Promise<string> {
  const now = clock.now();
  const fresh = await newKey(secret, now);
  await store.write(async (tx) => {
    await tx.serialize('receipt-keys');
    await tx.receipts.addKey(fresh);
    await tx.receipts.retireKeysExcept(fresh.kid, now);
  });
  return fresh.kid;
}
