import type { JWTPayload, JWTVerifyGetKey } from 'jose';
import { createLocalJWKSet, createRemoteJWKSet, customFetch, decodeJwt, errors, jwtVerify } from 'jose';
import type { OutboundFetch } from '../net/outbound-guard.js';
import { discoverJwksUrl } from './issuer-discovery.js';

/** An identity provider whose access tokens /mcp accepts. */
export interface ExternalIssuer {
  /** Exactly as its tokens' `iss` spells it. */
  readonly issuer: string;
  /** Its key set; null: found through discovery on the first token. */
  readonly jwksUrl: string | null;
}

export interface ExternalTokenVerifierOptions {
  readonly issuers: readonly ExternalIssuer[];
  /** Accepted `aud` values: Holdfast's /mcp URL unless the IdP names its APIs otherwise. */
  readonly audiences: readonly string[];
  /** Asymmetric algorithms only: a symmetric key would be one the IdP shares with every client. */
  readonly algorithms: readonly string[];
  /** The least time between two fetches of one issuer's keys or metadata (a token with an unknown key id cannot make Holdfast hammer the IdP). */
  readonly refetchCooldownMs: number;
  /** Metadata and keys are fetched through this (the outbound guard unless the operator allowed private upstreams). */
  readonly fetch: OutboundFetch;
  readonly now: () => number;
  /** The IdP could not be reached or answered nonsense; said once per outage, never with a token. */
  readonly onUnavailable: (issuer: string, problem: string) => void;
}

export type ExternalVerification =
  | { readonly ok: true; readonly issuer: string; readonly payload: JWTPayload }
  | { readonly ok: false; readonly issuer: string; readonly reason: string };

/** Bigger than any IdP's access token (Entra's with group claims included), smaller than a flood. */
const MAX_TOKEN_CHARS = 8192;
const FETCH_TIMEOUT_MS = 5_000;
const CLOCK_TOLERANCE_SECONDS = 30;

/** A failure to fetch keys or metadata, as opposed to something wrong with the token. */
class KeysUnavailable extends Error {}

const TOKEN_FAULTS: Readonly<Record<string, string>> = {
  [errors.JWTExpired.code]: 'expired',
  [errors.JOSEAlgNotAllowed.code]: 'algorithm not allowed',
  [errors.JWSSignatureVerificationFailed.code]: 'bad signature',
  [errors.JWKSNoMatchingKey.code]: 'signed by a key the issuer does not publish',
  [errors.JWKSMultipleMatchingKeys.code]: 'no published key verifies it',
  [errors.JWSInvalid.code]: 'malformed',
  [errors.JWTInvalid.code]: 'malformed',
  [errors.JOSENotSupported.code]: 'unsupported key or algorithm',
};

function reasonOf(error: unknown): string {
  if (error instanceof errors.JWTClaimValidationFailed) return `${error.claim} ${error.reason}`;
  if (error instanceof errors.JOSEError) return TOKEN_FAULTS[error.code] ?? error.code;
  return 'not verifiable';
}

type RemoteKeys = ReturnType<typeof createRemoteJWKSet>;

interface IssuerKeys {
  keys: RemoteKeys | null;
  pending: Promise<RemoteKeys> | null;
  /** After a failed fetch, nothing is asked of the IdP again before this (keys it published still verify). */
  unavailableUntil: number;
}

/**
 * Verifies access tokens of external identity providers with jose: the issuer's published
 * keys (remote JWKS cache: a key id it has not seen refetches the set, at most once per
 * cooldown — that is how a rotation arrives), issuer, audience, `exp` required, a small clock
 * tolerance, an algorithm allowlist. Metadata and keys are fetched on the first token, not at
 * start-up, so an IdP that is down delays nothing but its own tokens.
 */
export function externalTokenVerifier(options: ExternalTokenVerifierOptions) {
  const byIssuer = new Map(options.issuers.map((i) => [i.issuer, i]));
  const state = new Map<string, IssuerKeys>(
    options.issuers.map((i) => [i.issuer, { keys: null, pending: null, unavailableUntil: 0 }]),
  );

  const unavailable = (issuer: string, keys: IssuerKeys, error: unknown): KeysUnavailable => {
    // Requests waiting on the same failed fetch report it once.
    if (Date.now() >= keys.unavailableUntil)
      options.onUnavailable(issuer, error instanceof Error ? error.message : String(error));
    keys.unavailableUntil = Date.now() + options.refetchCooldownMs;
    return new KeysUnavailable();
  };

  const keySetOf = async (issuer: ExternalIssuer, keys: IssuerKeys): Promise<RemoteKeys> => {
    if (keys.keys) return keys.keys;
    if (Date.now() < keys.unavailableUntil) throw new KeysUnavailable();
    keys.pending ??= (async () => {
      const url = issuer.jwksUrl
        ? new URL(issuer.jwksUrl)
        : await discoverJwksUrl(issuer.issuer, FETCH_TIMEOUT_MS, options.fetch);
      return createRemoteJWKSet(url, {
        timeoutDuration: FETCH_TIMEOUT_MS,
        cooldownDuration: options.refetchCooldownMs,
        [customFetch]: options.fetch,
      });
    })().finally(() => {
      keys.pending = null;
    });
    try {
      return (keys.keys = await keys.pending);
    } catch (error) {
      throw unavailable(issuer.issuer, keys, error);
    }
  };

  /** The remote set, with fetch failures told apart from tokens signed by unknown keys. */
  const keyGetter =
    (issuer: ExternalIssuer, keys: IssuerKeys): JWTVerifyGetKey =>
    async (header, token) => {
      const remote = await keySetOf(issuer, keys);
      if (Date.now() < keys.unavailableUntil) {
        // The IdP failed a moment ago: verify with the keys it still has cached, ask it nothing
        // (an unknown key id would otherwise make every request a fetch from a failing IdP).
        const cached = remote.fresh ? remote.jwks() : undefined;
        if (!cached) throw new KeysUnavailable();
        return createLocalJWKSet(cached)(header, token);
      }
      try {
        return await remote(header, token);
      } catch (error) {
        if (
          error instanceof errors.JWKSNoMatchingKey ||
          error instanceof errors.JWKSMultipleMatchingKeys ||
          error instanceof errors.JOSENotSupported
        )
          throw error;
        throw unavailable(issuer.issuer, keys, error);
      }
    };

  return {
    /** The configured issuer a token claims to be from (unverified: it only picks the verifier), or null. */
    issuerOf(token: string): string | null {
      if (token.length > MAX_TOKEN_CHARS) return null;
      try {
        const { iss } = decodeJwt(token);
        return typeof iss === 'string' && byIssuer.has(iss) ? iss : null;
      } catch {
        return null;
      }
    },

    async verify(token: string, issuer: string): Promise<ExternalVerification> {
      const configured = byIssuer.get(issuer);
      const keys = state.get(issuer);
      if (!configured || !keys) return { ok: false, issuer, reason: 'not a configured issuer' };
      if (token.length > MAX_TOKEN_CHARS) return { ok: false, issuer, reason: 'too large' };
      try {
        const { payload } = await jwtVerify(token, keyGetter(configured, keys), {
          issuer,
          audience: [...options.audiences],
          algorithms: [...options.algorithms],
          requiredClaims: ['exp'],
          clockTolerance: CLOCK_TOLERANCE_SECONDS,
          currentDate: new Date(options.now()),
        });
        return { ok: true, issuer, payload };
      } catch (error) {
        if (error instanceof KeysUnavailable) return { ok: false, issuer, reason: 'keys unavailable' };
        return { ok: false, issuer, reason: reasonOf(error) };
      }
    },
  };
}

export type ExternalTokenVerifier = ReturnType<typeof externalTokenVerifier>;
