import type { PageApp } from './http-app.js';
import type { HttpBindings } from '@hono/node-server';
import { RESPONSE_ALREADY_SENT } from '@hono/node-server/utils/response';
import { buildOAuthProtectedResourceMetadata } from '@modelcontextprotocol/server';
import type { Context } from 'hono';
import type { AuthorizationEndpoints } from '../oauth/endpoints.js';

export interface AuthorizationRoutesOptions {
  readonly endpoints: AuthorizationEndpoints;
  readonly issuer: string;
  /** The canonical URL of /mcp: the protected resource. */
  readonly resource: string;
  readonly scopes: readonly string[];
}

/**
 * The authorization server's endpoints under /oauth (its own parsing and limits, not the page
 * forms'), RFC 8414 metadata at both discovery paths, and RFC 9728 protected-resource
 * metadata for /mcp. Consent pages (/oauth/interaction) are Holdfast's own, mounted apart.
 */
export function mountAuthorizationRoutes(app: PageApp, options: AuthorizationRoutesOptions) {
  const delegate = async (c: Context<{ Bindings: HttpBindings }>) => {
    await options.endpoints.handle(c.env.incoming, c.env.outgoing);
    return RESPONSE_ALREADY_SENT;
  };
  const base = options.issuer.replace(/\/+$/, '');
  const resourceMetadata = buildOAuthProtectedResourceMetadata({
    oauthMetadata: {
      issuer: base,
      authorization_endpoint: `${base}/oauth/authorize`,
      token_endpoint: `${base}/oauth/token`,
      response_types_supported: ['code'],
    },
    resourceServerUrl: new URL(options.resource),
    scopesSupported: [...options.scopes],
    resourceName: 'Holdfast',
    dangerouslyAllowInsecureIssuerUrl: !base.startsWith('https://'),
  });
  const metadata = (c: Context) => c.json(resourceMetadata, 200, { 'Cache-Control': 'public, max-age=300' });
  app.get('/.well-known/oauth-protected-resource/mcp', metadata);
  app.get('/.well-known/oauth-protected-resource', metadata);
  app.get('/.well-known/openid-configuration', delegate);
  app.get('/.well-known/oauth-authorization-server', (c) => {
    // One document at both paths: RFC 8414 for OAuth clients, OpenID discovery for the rest.
    c.env.incoming.url = '/.well-known/openid-configuration';
    return delegate(c);
  });
  app.all('/oauth/*', (c, next) => (c.req.path.startsWith('/oauth/interaction/') ? next() : delegate(c)));
}
