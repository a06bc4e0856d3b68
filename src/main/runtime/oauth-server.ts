import type { Logger } from '../../adapters/log/index.js';
import type { BearerIdentity } from '../../adapters/http/index.js';
import type { ConsentPagesOptions } from '../../adapters/http/index.js';
import { accessTokenVerifier, loadAuthorizationServer } from '../../adapters/oauth/index.js';
import type { AuthorizationEndpoints } from '../../adapters/oauth/index.js';
import { authorizationEndpoints } from '../../adapters/oauth/index.js';
import { renderOAuthError } from '../../adapters/oauth/index.js';
import { loadSigningKeys, publicKeys } from '../../adapters/oauth/index.js';
import {
  authenticateGrant,
  checkConsent,
  consentOffer,
  recordConnection,
} from '../../app/identity/oauth-connections.js';
import { checkRedirectUri } from '../../domain/identity/oauth.js';
import type { Runtime } from './compose.js';
import type { ServerConfig } from '../config/config.js';
import { operatorCall } from '../cli/operator-audit.js';

export interface OAuthServer {
  readonly endpoints: AuthorizationEndpoints;
  readonly issuer: string;
  /** The canonical URL of /mcp. */
  readonly resource: string;
  readonly resourceMetadataUrl: string;
  /** An OAuth access token's identity, or null (not one, or not valid here). */
  authenticate(token: string): Promise<BearerIdentity | null>;
  /** What the consent pages need besides the sessions. */
  consent: Omit<ConsentPagesOptions, 'sessions' | 'endpoints'>;
}

/** Made on first use; a failed making is tried again by the next request. */
function lazyEndpoints(make: () => Promise<AuthorizationEndpoints>): AuthorizationEndpoints {
  let made: Promise<AuthorizationEndpoints> | null = null;
  const get = () =>
    (made ??= make().catch((error: unknown) => {
      made = null;
      throw error;
    }));
  return {
    handle: async (request, response) => (await get()).handle(request, response),
    pending: async (request, response) => (await get()).pending(request, response),
    answer: async (request, response, outcome) => (await get()).answer(request, response, outcome),
  };
}

/** The secret that seals the signing keys: derived from the installation's audit key, which every instance shares. */
export const sealingSecret = (runtime: Runtime) => runtime.auditKey.derive('oauth-signing-keys');

/**
 * The embedded authorization server for remote agent hosts: issuer and resource from the
 * public URL, signing keys from the store (sealed), tokens verified here as the resource server.
 */
export async function startOAuthServer(
  runtime: Runtime,
  config: ServerConfig,
  logger: Logger,
): Promise<OAuthServer> {
  const { deps } = runtime;
  const issuer = runtime.publicBaseUrl.replace(/\/+$/, '');
  const resource = `${issuer}/mcp`;
  // oidc-provider (and its Koa) loads with the first OAuth request, not with the server: most
  // deployments serve tokens and stdio hosts long before, or without, any OAuth client.
  const endpoints = lazyEndpoints(async () => {
    const keys = await loadSigningKeys(deps.store, deps.clock, sealingSecret(runtime));
    const { createAuthorizationServer } = await loadAuthorizationServer();
    const provider = createAuthorizationServer({
      issuer,
      resource,
      store: deps.store,
      clock: deps.clock,
      signingKeys: keys.private,
      cookieKeys: [runtime.auditKey.derive('oauth-cookies').toString('base64url')],
      secureCookies: issuer.startsWith('https://'),
      accessTokenTtlSeconds: config.oauthAccessTokenTtlSeconds,
      allowPrivateClientMetadata: config.oauthAllowPrivateClientMetadata,
      personExists: async (id) =>
        (await deps.store.read((tx) => tx.people.getPerson(id)))?.disabledAt === null,
      renderError: renderOAuthError,
    });
    provider.on('server_error', (_ctx, error) =>
      logger.error('oauth server error', { error: String(error) }),
    );
    return authorizationEndpoints(provider, { resource, issuer, trustProxy: config.trustProxy });
  });
  const verify = accessTokenVerifier({
    issuer,
    audience: resource,
    loadPublicKeys: async () =>
      publicKeys((await loadSigningKeys(deps.store, deps.clock, sealingSecret(runtime))).private),
  });

  const audit = (tool: string, tenantId: string, subject: string, clientId: string, args: unknown) =>
    operatorCall(runtime, { tool, kind: 'admin', tenantId, transport: 'http', args, subject, clientId });

  return {
    endpoints,
    issuer,
    resource,
    resourceMetadataUrl: `${issuer}/.well-known/oauth-protected-resource/mcp`,
    async authenticate(token) {
      const claims = await verify(token);
      const found = claims && (await authenticateGrant(deps, claims));
      if (!claims || !found) return null;
      return {
        principal: found.principal,
        toolMode: found.toolMode,
        clientId: `oauth:${found.connection.clientId}`,
        expiresAt: claims.expiresAt,
      };
    },
    consent: {
      tenantName: async (tenantId) =>
        (await deps.store.read((tx) => tx.tenants.getTenant(tenantId)))?.name ?? tenantId,
      offer: async (signed, requested) => {
        const tenant = await deps.store.read((tx) => tx.tenants.getTenant(signed.person.tenantId));
        return consentOffer(signed.person, requested, tenant?.defaultWritePolicy);
      },
      check: (signed, requested, chosen, policy) => checkConsent(signed.person, requested, chosen, policy),
      async granted(signed, pending, grantId, choice) {
        const redirect = checkRedirectUri(pending.redirectUri);
        await recordConnection(deps, {
          grantId,
          tenantId: signed.person.tenantId,
          personId: signed.person.id,
          clientId: pending.clientId,
          clientName: pending.verifiedOrigin ?? pending.clientName,
          redirectHost: redirect.ok ? redirect.host : '',
          scopes: choice.scopes,
          writePolicy: choice.writePolicy,
        });
        await audit('oauth_consent', signed.person.tenantId, signed.person.id, `oauth:${pending.clientId}`, {
          grantId,
          scopes: choice.scopes,
          writePolicy: choice.writePolicy,
        }).finish();
      },
      async refused(signed, pending, reason) {
        await audit(
          'oauth_consent',
          signed?.person.tenantId ?? config.tenantId,
          signed?.person.id ?? 'anonymous-page',
          pending ? `oauth:${pending.clientId}` : 'oauth',
          { refused: reason },
        ).finish({ outcome: 'error', code: 'FORBIDDEN', message: reason });
      },
    },
  };
}
