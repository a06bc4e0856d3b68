import * as oidc from 'openid-client';
import type { OutboundFetch } from '../net/outbound-guard.js';
import type { ProviderIdentity } from '../../domain/identity/provider-login.js';
import type { LoginState } from './sealed-login-state.js';
import { openLoginState, sealLoginState } from './sealed-login-state.js';

export interface LoginRelyingPartyOptions {
  /** The provider, spelled as its ID tokens' `iss`; found through OpenID Connect discovery. */
  readonly issuer: string;
  readonly clientId: string;
  /** Null: a public client, with PKCE alone. */
  readonly clientSecret: string | null;
  /** `<public URL>/login/oidc/callback`, registered at the provider exactly so. */
  readonly redirectUri: string;
  /** AES-256 key the attempt's state is sealed with (every instance derives the same one). */
  readonly stateKey: Buffer;
  readonly now: () => number;
  /** Each request to the provider (discovery, token, keys, userinfo) gives up after this. */
  readonly timeoutSeconds: number;
  /** After the provider failed to answer discovery, it is asked again no sooner than this. */
  readonly retryAfterMs: number;
  /** Every request to the provider goes through this (the outbound guard unless private upstreams are allowed). */
  readonly fetch: OutboundFetch;
}

/** A person's attempt lasts this long between leaving for the provider and coming back. */
export const LOGIN_ATTEMPT_MS = 10 * 60_000;

/** Why a callback signed nobody in; `unavailable` is the provider's fault, not the browser's. */
export type LoginFailure =
  'no_state' | 'state_mismatch' | 'provider_error' | 'invalid_response' | 'token_refused' | 'unavailable';

export type LoginOutcome =
  | { readonly ok: true; readonly identity: ProviderIdentity; readonly next: string }
  | {
      readonly ok: false;
      readonly failure: LoginFailure;
      /** Where the attempt meant to land, when its state was readable ('/' otherwise). */
      readonly next: string;
      /** For the operator's log; never shown to the browser. */
      readonly detail: string;
    };

/** The provider did not answer discovery (down, slow, or not an OpenID provider). */
export class ProviderUnavailable extends Error {}

export interface LoginRelyingParty {
  /** Where to send the browser, and the sealed state its cookie carries until it comes back. */
  begin(next: string): Promise<{ readonly url: string; readonly sealed: string }>;
  /** The provider's answer at the callback, checked end to end against the sealed state. */
  finish(query: URLSearchParams, sealed: string | undefined): Promise<LoginOutcome>;
}

const describe = (error: unknown) =>
  error instanceof Error
    ? `${error.name}: ${error.message}${(error as { code?: string }).code ? ` (${(error as { code?: string }).code})` : ''}`
    : String(error);

/** What went wrong exchanging the code: the provider down, its refusal, or an answer that failed a check. */
function failureOf(error: unknown): LoginFailure {
  if (error instanceof oidc.AuthorizationResponseError) return 'provider_error';
  if (error instanceof oidc.ResponseBodyError) return error.status >= 500 ? 'unavailable' : 'token_refused';
  if (error instanceof ProviderUnavailable || error instanceof TypeError) return 'unavailable';
  const code = (error as { code?: unknown }).code;
  if (code === 'OAUTH_TIMEOUT' || code === 'OAUTH_ABORT' || code === 'OAUTH_RESPONSE_IS_NOT_CONFORM')
    return 'unavailable';
  return 'invalid_response';
}

/**
 * Holdfast as an OpenID Connect relying party of the organisation's provider (openid-client):
 * authorization code with PKCE S256, state and nonce; the ID token's signature, issuer,
 * audience, expiry and nonce checked by the library. The provider's metadata is discovered on
 * first use, so a provider that is down does not stop the server from starting.
 */
export function loginRelyingParty(options: LoginRelyingPartyOptions): LoginRelyingParty {
  let configuration: Promise<oidc.Configuration> | null = null;
  let failed: { at: number; detail: string } | null = null;

  const discover = async (): Promise<oidc.Configuration> => {
    const insecure = new URL(options.issuer).protocol === 'http:';
    return oidc.discovery(
      new URL(options.issuer),
      options.clientId,
      { redirect_uris: [options.redirectUri] },
      options.clientSecret === null ? oidc.None() : oidc.ClientSecretPost(options.clientSecret),
      // Plain http only to a provider on this machine: the configuration refuses any other.
      {
        timeout: options.timeoutSeconds,
        execute: insecure ? [oidc.allowInsecureRequests] : [],
        // Kept by the configuration for the token, keys and userinfo requests too.
        [oidc.customFetch]: options.fetch as oidc.CustomFetch,
      },
    );
  };

  const configured = (): Promise<oidc.Configuration> => {
    if (failed && options.now() - failed.at < options.retryAfterMs)
      return Promise.reject(new ProviderUnavailable(failed.detail));
    configuration ??= discover().catch((error: unknown) => {
      configuration = null;
      failed = { at: options.now(), detail: describe(error) };
      throw new ProviderUnavailable(failed.detail);
    });
    return configuration;
  };

  /** The ID token's claims; the email pair from userinfo when the ID token leaves it out. */
  const identityOf = async (
    config: oidc.Configuration,
    tokens: Awaited<ReturnType<typeof oidc.authorizationCodeGrant>>,
  ): Promise<ProviderIdentity> => {
    const claims: Record<string, unknown> = { ...tokens.claims() };
    const subject = String(claims.sub);
    if (typeof claims.email !== 'string') {
      const info = await oidc.fetchUserInfo(config, tokens.access_token, subject);
      claims.email = info.email;
      claims.email_verified = info.email_verified;
      if ('xms_edov' in info) claims.xms_edov = info.xms_edov;
    }
    return { issuer: String(claims.iss), subject, claims };
  };

  return {
    async begin(next) {
      const config = await configured();
      const attempt: LoginState = {
        state: oidc.randomState(),
        nonce: oidc.randomNonce(),
        verifier: oidc.randomPKCECodeVerifier(),
        next,
        expiresAt: options.now() + LOGIN_ATTEMPT_MS,
      };
      const url = oidc.buildAuthorizationUrl(config, {
        response_type: 'code',
        redirect_uri: options.redirectUri,
        scope: 'openid email',
        state: attempt.state,
        nonce: attempt.nonce,
        code_challenge: await oidc.calculatePKCECodeChallenge(attempt.verifier),
        code_challenge_method: 'S256',
      });
      return { url: url.href, sealed: sealLoginState(options.stateKey, attempt) };
    },

    async finish(query, sealed) {
      const attempt = openLoginState(options.stateKey, sealed, options.now());
      if (!attempt)
        return { ok: false, failure: 'no_state', next: '/', detail: 'no readable, unexpired state cookie' };
      const { next } = attempt;
      // Checked here before anything is sent anywhere; the library checks it again.
      if (query.get('state') !== attempt.state)
        return { ok: false, failure: 'state_mismatch', next, detail: 'state differs from the cookie' };
      const error = query.get('error');
      if (error !== null)
        return {
          ok: false,
          failure: 'provider_error',
          next,
          detail: `provider answered ${error.slice(0, 80)}`,
        };
      // The URL the provider redirected to, as registered (behind a proxy the request's own differs).
      const current = new URL(options.redirectUri);
      current.search = query.toString();
      try {
        const config = await configured();
        const tokens = await oidc.authorizationCodeGrant(config, current, {
          pkceCodeVerifier: attempt.verifier,
          expectedState: attempt.state,
          expectedNonce: attempt.nonce,
          idTokenExpected: true,
        });
        return { ok: true, identity: await identityOf(config, tokens), next };
      } catch (caught) {
        return { ok: false, failure: failureOf(caught), next, detail: describe(caught) };
      }
    },
  };
}
