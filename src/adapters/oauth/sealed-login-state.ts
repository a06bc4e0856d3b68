import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';

/**
 * What a browser carries between leaving for the identity provider and coming back: the
 * PKCE verifier, state and nonce of that one attempt, and the page to land on. It travels in
 * a cookie sealed with AES-256-GCM under a key every instance derives from the audit key, so
 * any instance can finish what another began, and the browser can neither read nor change it.
 */
export interface LoginState {
  readonly state: string;
  readonly nonce: string;
  readonly verifier: string;
  /** A path on this site, already checked. */
  readonly next: string;
  readonly expiresAt: number;
}

/** Binds a sealed value to its purpose: a value sealed for something else does not open here. */
const AAD = Buffer.from('holdfast-login-oidc/1');
const IV_BYTES = 12;
const TAG_BYTES = 16;
/** Far above what a sealed state takes (about 300 characters); anything bigger is not one. */
const MAX_SEALED = 2048;

export function sealLoginState(key: Buffer, value: LoginState): string {
  const iv = randomBytes(IV_BYTES);
  const cipher = createCipheriv('aes-256-gcm', key, iv).setAAD(AAD);
  const body = Buffer.concat([cipher.update(JSON.stringify(value), 'utf8'), cipher.final()]);
  return Buffer.concat([iv, body, cipher.getAuthTag()]).toString('base64url');
}

const text = (value: unknown, max: number): value is string =>
  typeof value === 'string' && value.length > 0 && value.length <= max;

/** The state a cookie holds; null when absent, tampered with, sealed under another key, or expired. */
export function openLoginState(key: Buffer, sealed: string | undefined, now: number): LoginState | null {
  if (!sealed || sealed.length > MAX_SEALED || !/^[A-Za-z0-9_-]+$/.test(sealed)) return null;
  const raw = Buffer.from(sealed, 'base64url');
  if (raw.length <= IV_BYTES + TAG_BYTES) return null;
  let value: Record<string, unknown>;
  try {
    const decipher = createDecipheriv('aes-256-gcm', key, raw.subarray(0, IV_BYTES)).setAAD(AAD);
    decipher.setAuthTag(raw.subarray(raw.length - TAG_BYTES));
    const plain = Buffer.concat([
      decipher.update(raw.subarray(IV_BYTES, raw.length - TAG_BYTES)),
      decipher.final(),
    ]);
    value = JSON.parse(plain.toString('utf8')) as Record<string, unknown>;
  } catch {
    return null;
  }
  const { state, nonce, verifier, next, expiresAt } = value;
  if (!text(state, 200) || !text(nonce, 200) || !text(verifier, 200) || !text(next, 600)) return null;
  if (typeof expiresAt !== 'number' || expiresAt <= now) return null;
  return { state, nonce, verifier, next, expiresAt };
}
