import type { BearerIdentity } from '../../adapters/http/index.js';
import type { Logger } from '../../adapters/log/index.js';
import { outboundFetch } from '../../adapters/net/index.js';
import { externalTokenVerifier } from '../../adapters/oauth/index.js';
import { authenticateExternal } from '../../app/identity/external-tokens.js';
import { readExternalClaims } from '../../domain/identity/external-claims.js';
import type { Runtime } from './compose.js';
import type { ServerConfig } from '../config/config.js';
import { StartupError } from './startup-error.js';

export interface ExternalIssuers {
  /** The configured issuer a bearer token claims to come from, or null: not an external token. */
  issuerOf(token: string): string | null;
  /** The identity a token of that issuer stands for, or null (401). */
  authenticate(token: string, issuer: string): Promise<BearerIdentity | null>;
}

/** A refusal is logged at most this often per issuer and reason: unverified tokens must not flood the log. */
const LOG_REFUSALS_EVERY_MS = 60_000;

/**
 * Access tokens of the operator's identity providers (--auth-issuer) on /mcp: verified by the
 * adapter, mapped to an existing Holdfast person by the app. Null when none is configured.
 */
export function startExternalIssuers(
  runtime: Runtime,
  config: ServerConfig,
  logger: Logger,
  own: { readonly issuer: string; readonly resource: string },
): ExternalIssuers | null {
  const auth = config.externalAuth;
  if (auth === null) return null;
  if (auth.issuers.some((i) => i.issuer.replace(/\/+$/, '') === own.issuer))
    throw new StartupError(
      `--auth-issuer ${own.issuer} is this server's own authorization server; name only external identity providers.`,
    );
  const { deps } = runtime;
  const verifier = externalTokenVerifier({
    issuers: auth.issuers,
    audiences: auth.audiences.length > 0 ? auth.audiences : [own.resource],
    algorithms: auth.algorithms,
    refetchCooldownMs: auth.refetchCooldownSeconds * 1000,
    fetch: outboundFetch({ allowPrivate: config.allowPrivateUpstreams }),
    now: () => deps.clock.now(),
    onUnavailable: (issuer, problem) =>
      logger.warn('identity provider unavailable; its tokens are refused until it answers', {
        issuer,
        problem,
        retryAfterSeconds: auth.refetchCooldownSeconds,
      }),
  });
  const lastLogged = new Map<string, number>();
  const refused = (issuer: string, reason: string): null => {
    const key = `${issuer} ${reason}`;
    const now = Date.now();
    if (now - (lastLogged.get(key) ?? 0) >= LOG_REFUSALS_EVERY_MS) {
      lastLogged.set(key, now);
      logger.info('identity provider token refused', { issuer, reason });
    }
    return null;
  };
  logger.info('accepting identity provider tokens', {
    issuers: auth.issuers.map((i) => i.issuer),
    audiences: auth.audiences.length > 0 ? auth.audiences : [own.resource],
  });
  return {
    issuerOf: (token) => verifier.issuerOf(token),
    async authenticate(token, issuer) {
      const verified = await verifier.verify(token, issuer);
      if (!verified.ok) return refused(issuer, verified.reason);
      const read = readExternalClaims(issuer, verified.payload, auth.claims);
      if (!read.ok) return refused(issuer, read.reason);
      const found = await authenticateExternal(deps, read.claims, {
        defaultTenantId: config.tenantId,
        writePolicy: auth.writePolicy,
      });
      if (!found.ok) return refused(issuer, found.reason);
      return {
        principal: found.principal,
        toolMode: found.toolMode,
        clientId: found.clientId,
        expiresAt: read.claims.expiresAt,
      };
    },
  };
}
