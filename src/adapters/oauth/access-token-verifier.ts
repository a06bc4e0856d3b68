import type { JWK, JWTPayload } from 'jose';
import { createLocalJWKSet, errors, jwtVerify } from 'jose';
import { SIGNING_ALG } from './signing-keys.js';

/** What a verified access token says; who it acts for is looked up from its grant. */
export interface AccessTokenClaims {
  readonly subject: string;
  readonly clientId: string;
  readonly grantId: string;
  readonly scopes: readonly string[];
  readonly audience: string;
  readonly expiresAt: number;
}

const RELOAD_AT_MOST_EVERY_MS = 1_000;
/** Keys removed elsewhere (a purge after a leak) stop verifying here within this long. */
const RELOAD_AT_LEAST_EVERY_MS = 60_000;

/**
 * Checks a JWT access token as the resource server: this issuer, this resource as audience,
 * ES256 only (no `none`, no HMAC), `at+jwt`, unexpired, signed by a key of this installation.
 * A key id it does not know makes it reload the keys (another instance or the CLI rotated),
 * at most once a second: a token asking within that second waits for the next reload rather
 * than being refused, and any number of unknown key ids share that one reload. The keys are
 * reloaded every minute anyway (a purged key stops verifying).
 */
export function accessTokenVerifier(options: {
  readonly issuer: string;
  readonly audience: string;
  readonly loadPublicKeys: () => Promise<JWK[]>;
}): (token: string) => Promise<AccessTokenClaims | null> {
  let keys: ReturnType<typeof createLocalJWKSet> | undefined;
  let loadedAt = 0;
  const reload = async () => {
    keys = createLocalJWKSet({ keys: await options.loadPublicKeys() });
    loadedAt = Date.now();
    return keys;
  };
  let pending: Promise<ReturnType<typeof createLocalJWKSet>> | null = null;
  const reloadSoon = () =>
    (pending ??= (async () => {
      const wait = loadedAt + RELOAD_AT_MOST_EVERY_MS - Date.now();
      if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
      try {
        return await reload();
      } finally {
        pending = null;
      }
    })());
  const verify = async (token: string, keySet: ReturnType<typeof createLocalJWKSet>) => {
    const { payload } = await jwtVerify(token, keySet, {
      issuer: options.issuer,
      audience: options.audience,
      algorithms: [SIGNING_ALG],
      typ: 'at+jwt',
      requiredClaims: ['exp', 'sub', 'client_id', 'hf_grant'],
    });
    return payload;
  };
  return async (token) => {
    if (token.length > 4096 || token.split('.').length !== 3) return null;
    let payload: JWTPayload;
    try {
      const fresh = keys && Date.now() - loadedAt < RELOAD_AT_LEAST_EVERY_MS ? keys : await reload();
      payload = await verify(token, fresh);
    } catch (error) {
      if (!(error instanceof errors.JWKSNoMatchingKey)) return null;
      try {
        payload = await verify(token, await reloadSoon());
      } catch {
        return null;
      }
    }
    const { sub, client_id: clientId, hf_grant: grantId, scope, exp } = payload;
    if (typeof clientId !== 'string' || typeof grantId !== 'string' || typeof sub !== 'string') return null;
    return {
      subject: sub,
      clientId,
      grantId,
      scopes: typeof scope === 'string' ? scope.split(' ').filter(Boolean) : [],
      audience: options.audience,
      expiresAt: (exp ?? 0) * 1000,
    };
  };
}
