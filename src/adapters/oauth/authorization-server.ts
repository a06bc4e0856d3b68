import type { JWK } from 'jose';
import type { Configuration, KoaContextWithOIDC } from 'oidc-provider';
import Provider, { errors } from 'oidc-provider';
import { SCOPES } from '../../domain/identity/identity.js';
import { checkRedirectUri } from '../../domain/identity/oauth.js';
import type { Clock } from '../../ports/clock.js';
import type { Store } from '../../ports/store/index.js';
import { SIGNING_ALG } from './signing-keys.js';
import { storeAdapter } from './store-adapter.js';
import { outboundFetch } from '../net/outbound-guard.js';

export interface AuthorizationServerOptions {
  /** The public base URL: the issuer, and the origin of every endpoint. */
  readonly issuer: string;
  /** The one resource tokens are for: the canonical URL of /mcp (RFC 8707). */
  readonly resource: string;
  readonly store: Store;
  readonly clock: Clock;
  readonly signingKeys: readonly JWK[];
  /** Keys for the authorization server's own signed cookies. */
  readonly cookieKeys: readonly string[];
  readonly secureCookies: boolean;
  readonly accessTokenTtlSeconds: number;
  /** Client ID Metadata Documents may live on private and loopback addresses (tests, closed networks). */
  readonly allowPrivateClientMetadata: boolean;
  personExists(id: string): Promise<boolean>;
  /** The error page, in Holdfast's own frame. */
  renderError(ctx: KoaContextWithOIDC, out: Record<string, unknown>): void;
}

export const OAUTH_ROUTES = {
  authorization: '/oauth/authorize',
  token: '/oauth/token',
  registration: '/oauth/register',
  revocation: '/oauth/revoke',
  introspection: '/oauth/introspect',
  jwks: '/oauth/jwks',
  end_session: '/oauth/logout',
  userinfo: '/oauth/userinfo',
  pushed_authorization_request: '/oauth/par',
} as const;

/**
 * What an authorization request without `scope` asks for (RFC 6749 §3.3: a pre-defined default
 * or a failure). oidc-provider has no default: it would deny such a request after sign-in.
 * Reading only; the person still sees and decides on the consent page.
 */
export const DEFAULT_SCOPE = 'read';

const TTL = {
  AuthorizationCode: 60,
  Interaction: 10 * 60,
  Session: 12 * 60 * 60,
  Grant: 90 * 24 * 60 * 60,
  RefreshToken: 30 * 24 * 60 * 60,
};

/** Lists a registration may carry, and how long: real hosts register one or two callbacks. */
const LIST_LIMITS: readonly [string, number][] = [
  ['redirect_uris', 10],
  ['contacts', 5],
  ['post_logout_redirect_uris', 5],
  ['grant_types', 5],
  ['response_types', 5],
];

/**
 * Registration's redirect policy, applied to every client before oidc-provider's own checks:
 * an application's own scheme makes it a native client (so `cursor://…` registers), plain
 * http only to loopback, and nothing the policy refuses.
 */
function redirectPolicy(_ctx: unknown, key: string, _value: unknown, metadata: Record<string, unknown>) {
  if (key !== 'software_id') return;
  const uris = Array.isArray(metadata.redirect_uris) ? metadata.redirect_uris : [];
  for (const [field, most] of LIST_LIMITS) {
    const list = metadata[field];
    if (Array.isArray(list) && list.length > most) {
      const refused = new errors.InvalidClientMetadata(`${field}: at most ${most}`);
      throw refused;
    }
  }
  for (const uri of uris) {
    const check = checkRedirectUri(uri);
    if (!check.ok) {
      const refused = new errors.InvalidRedirectUri();
      refused.error_description = `redirect_uris: ${String(uri).slice(0, 200)}: ${check.reason}`;
      throw refused;
    }
    if (check.kind === 'app') metadata.application_type = 'native';
  }
}

/**
 * The embedded OAuth 2.1 authorization server (oidc-provider): authorization code with PKCE
 * S256 for public clients, audience-bound JWT access tokens for /mcp only, rotating refresh
 * tokens whose reuse revokes the grant, revocation, dynamic registration and Client ID
 * Metadata Documents. Its storage is Holdfast's store; people sign in and consent on
 * Holdfast's own pages.
 */
export function createAuthorizationServer(options: AuthorizationServerOptions): Provider {
  const clientMetadataFetch = outboundFetch({ allowPrivate: options.allowPrivateClientMetadata });
  const configuration: Configuration = {
    adapter: storeAdapter(options.store, options.clock),
    jwks: { keys: options.signingKeys as never },
    cookies: {
      keys: [...options.cookieKeys],
      long: { signed: true, secure: options.secureCookies, sameSite: 'lax' },
      short: { signed: true, secure: options.secureCookies, sameSite: 'lax' },
    },
    routes: OAUTH_ROUTES,
    // Holdfast's scopes, registrable by clients; no offline_access: MCP clients get refresh
    // tokens without asking (issueRefreshToken).
    scopes: ['openid', ...SCOPES],
    claims: { openid: ['sub'] },
    responseTypes: ['code'],
    // Public clients (PKCE) and shared secrets; no client keys fetched from a URL at registration.
    clientAuthMethods: ['none', 'client_secret_basic', 'client_secret_post'],
    pkce: { required: () => true },
    clientDefaults: {
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
      id_token_signed_response_alg: SIGNING_ALG,
    },
    enabledJWA: { idTokenSigningAlgValues: [SIGNING_ALG] },
    extraClientMetadata: { properties: ['software_id'], validator: redirectPolicy as never },
    ttl: { ...TTL, AccessToken: options.accessTokenTtlSeconds },
    issueRefreshToken: async (_ctx, client) => client.grantTypeAllowed('refresh_token'),
    rotateRefreshToken: true,
    conformIdTokenClaims: true,
    interactions: { url: async (_ctx, interaction) => `/oauth/interaction/${interaction.uid}` },
    findAccount: async (_ctx, sub) =>
      (await options.personExists(sub)) ? { accountId: sub, claims: async () => ({ sub }) } : undefined,
    extraTokenClaims: async (_ctx, token) => ({ hf_grant: (token as { grantId?: string }).grantId }),
    renderError: async (ctx, out) => options.renderError(ctx, out as unknown as Record<string, unknown>),
    // A metadata document is a few hundred bytes; nothing else is fetched (2.5 s timeout each).
    fetchResponseBodyLimits: {
      'client_id metadata document': 5 * 1024,
      jwks_uri: 64 * 1024,
      sector_identifier_uri: 64 * 1024,
    },
    // Holdfast's one outbound guard, not oidc-provider's (which cut the socket only after it
    // connected): a special-use host is refused as written, a name by what it resolves to,
    // both before anything connects. oidc-provider's own dispatcher is dropped.
    fetch: async (url, init) => {
      const { dispatcher: _ignored, ...request } = init as RequestInit & { dispatcher?: unknown };
      return clientMetadataFetch(String(url), request);
    },
    features: {
      devInteractions: { enabled: false },
      registration: { enabled: true },
      // Tokens at /mcp are Bearer tokens; a DPoP-bound one would be refused there.
      dPoP: { enabled: false },
      rpInitiatedLogout: { enabled: false },
      revocation: { enabled: true },
      userinfo: { enabled: false },
      introspection: { enabled: false },
      clientIdMetadataDocument: {
        enabled: true,
        ack: 'draft-02',
        cacheDuration: { min: 60, max: 24 * 60 * 60 },
      },
      resourceIndicators: {
        enabled: true,
        defaultResource: async () => options.resource,
        useGrantedResource: async () => true,
        getResourceServerInfo: async (_ctx, indicator) => {
          if (indicator !== options.resource)
            throw new errors.InvalidTarget(`resource must be ${options.resource}`);
          return {
            scope: SCOPES.join(' '),
            audience: options.resource,
            accessTokenTTL: options.accessTokenTtlSeconds,
            accessTokenFormat: 'jwt',
            jwt: { sign: { alg: SIGNING_ALG } },
          };
        },
      },
    },
  };
  const provider = new Provider(options.issuer, configuration);
  // The forwarded headers it reads are set from the issuer by the endpoints (see asIssuer).
  provider.proxy = true;
  // Ahead of every other middleware (provider.use would come after its router): the default scope.
  provider.middleware.unshift(async (ctx, next) => {
    if (ctx.method === 'GET' && ctx.path === OAUTH_ROUTES.authorization) {
      const { scope, request_uri: pushed } = ctx.query;
      if (!scope && pushed === undefined) ctx.query = { ...ctx.query, scope: DEFAULT_SCOPE };
    }
    await next();
  });
  return provider;
}
