import { createHash } from 'node:crypto';
import * as oidc from 'openid-client';
import { CaldavError } from '../../ports/caldav.js';
import type { CaldavOAuth } from '../../ports/caldav.js';

/** An access token is renewed this long before the server said it expires (clock skew, a slow request). */
const EARLY_MS = 30_000;
/** When the token endpoint names no lifetime, a token is used this long. */
const DEFAULT_LIFETIME_MS = 5 * 60_000;

function refused(error: unknown): CaldavError {
  if (error instanceof CaldavError) return error;
  if (error instanceof oidc.ResponseBodyError)
    return new CaldavError(
      error.error === 'invalid_grant'
        ? 'the OAuth server refused the refresh token (invalid_grant): authorize again and reconnect'
        : `the OAuth server refused the refresh (${error.error.slice(0, 60)})`,
    );
  const code = (error as { code?: unknown } | null)?.code;
  if (code === 'OAUTH_TIMEOUT' || code === 'OAUTH_ABORT')
    return new CaldavError('the OAuth server did not answer in time');
  const cause = (error as { cause?: unknown } | null)?.cause;
  if (cause instanceof Response)
    return new CaldavError(`the OAuth token endpoint answered HTTP ${cause.status}`);
  return new CaldavError('the OAuth token endpoint could not be used');
}

/**
 * Access tokens for OAuth 2.0 sign-in (Google's CalDAV takes no passwords): obtained with the
 * refresh token by openid-client's refresh grant through the guarded fetch, kept in memory until
 * shortly before they expire, renewed on a 401. Only the refresh token and client secret are stored (sealed).
 */
export function oauthAccess(fetch: typeof globalThis.fetch, now: () => number = Date.now) {
  const cache = new Map<string, { token: string; until: number }>();
  const keyOf = (o: CaldavOAuth) =>
    createHash('sha256').update(`${o.tokenUrl}\n${o.clientId}\n${o.refreshToken}`).digest('hex');

  async function refresh(o: CaldavOAuth): Promise<string> {
    const config = new oidc.Configuration(
      { issuer: new URL(o.tokenUrl).origin, token_endpoint: o.tokenUrl },
      o.clientId,
      o.clientSecret,
    );
    config[oidc.customFetch] = fetch as oidc.CustomFetch;
    // Plain http only to a token endpoint on this machine: the guarded fetch refuses any other.
    if (new URL(o.tokenUrl).protocol === 'http:') oidc.allowInsecureRequests(config);
    try {
      const answer = await oidc.refreshTokenGrant(config, o.refreshToken);
      const lifetime = (answer.expiresIn() ?? DEFAULT_LIFETIME_MS / 1000) * 1000;
      cache.set(keyOf(o), { token: answer.access_token, until: now() + lifetime - EARLY_MS });
      return answer.access_token;
    } catch (error) {
      throw refused(error);
    }
  }

  return {
    /** The Authorization header's value: a cached access token while it lasts, else a new one. */
    async header(o: CaldavOAuth, renew = false): Promise<string> {
      const cached = cache.get(keyOf(o));
      if (!renew && cached && cached.until > now()) return `Bearer ${cached.token}`;
      return `Bearer ${await refresh(o)}`;
    },
  };
}
