import type { PageApp } from './page-app.js';
import type { HttpBindings } from '@hono/node-server';
import { RESPONSE_ALREADY_SENT } from '@hono/node-server/utils/response';
import { buildOAuthProtectedResourceMetadata } from '@modelcontextprotocol/server';
import type { Context, Next } from 'hono';
import { RateLimiterMemory, RateLimiterRes } from 'rate-limiter-flexible';
import { clientAddress } from './human-session.js';
import type { AuthorizationEndpoints } from '../oauth/endpoints.js';

export interface AuthorizationRoutesOptions {
  readonly endpoints: AuthorizationEndpoints;
  readonly issuer: string;
  /** The canonical URL of /mcp: the protected resource. */
  readonly resource: string;
  readonly scopes: readonly string[];
  /** X-Forwarded-For names the client (behind a trusted proxy). */
  readonly trustProxy: boolean;
  /** How long a request's body may take to arrive (default: a form's 10 s). */
  readonly bodyDeadlineMs?: number;
}

/**
 * Open endpoints anyone may call, limited so that nobody fills the database: registrations
 * (each a stored client) and authorization requests (each a stored interaction), per address
 * and in total, per instance. Real hosts register once and authorize now and then.
 */
const LIMITS = {
  register: { perAddress: [60, 600], total: [200, 600] },
  authorize: { perAddress: [120, 60], total: [1200, 60] },
} as const;

const REGISTRATION_BODY_MAX = 16 * 1024;
/** As long as a person's form may take (request-guards.ts); a client's OAuth request is smaller still. */
const OAUTH_BODY_DEADLINE_MS = 10_000;

function limiter(kind: keyof typeof LIMITS) {
  const [points, duration] = LIMITS[kind].perAddress;
  const [totalPoints, totalDuration] = LIMITS[kind].total;
  const perAddress = new RateLimiterMemory({ points, duration });
  const total = new RateLimiterMemory({ points: totalPoints, duration: totalDuration });
  return async (address: string): Promise<number | null> => {
    try {
      await perAddress.consume(address);
      await total.consume('all');
      return null;
    } catch (refused) {
      return refused instanceof RateLimiterRes ? Math.max(1, Math.ceil(refused.msBeforeNext / 1000)) : 60;
    }
  };
}

/**
 * The authorization server's endpoints under /oauth (its own parsing and limits, not the page
 * forms'), RFC 8414 metadata at both discovery paths, and RFC 9728 protected-resource
 * metadata for /mcp. Consent pages (/oauth/interaction) are Holdfast's own, mounted apart.
 */
export function mountAuthorizationRoutes(app: PageApp, options: AuthorizationRoutesOptions) {
  const limits = { register: limiter('register'), authorize: limiter('authorize') };
  const limited =
    (kind: keyof typeof limits) => async (c: Context<{ Bindings: HttpBindings }>, next: Next) => {
      const retryAfter = await limits[kind](clientAddress(c, options.trustProxy));
      if (retryAfter === null) return next();
      return c.json(
        { error: 'rate_limited', error_description: `Too many requests; try again in ${retryAfter} s.` },
        429,
        { 'Retry-After': String(retryAfter) },
      );
    };
  app.post('/oauth/register', limited('register'), async (c, next) => {
    if (Number(c.req.header('content-length') ?? 0) > REGISTRATION_BODY_MAX)
      return c.json(
        { error: 'invalid_client_metadata', error_description: 'The registration is too large.' },
        413,
      );
    return next();
  });
  app.get('/oauth/authorize', limited('authorize'));
  app.post('/oauth/authorize', limited('authorize'));
  app.post('/oauth/par', limited('authorize'));
  const delegate = async (c: Context<{ Bindings: HttpBindings }>) => {
    // The authorization server reads its own bodies (56 KiB at most) but gives them no deadline:
    // a body not in within a form's deadline loses its connection.
    const { incoming } = c.env;
    const deadline = setTimeout(
      () => {
        if (!incoming.complete) incoming.destroy();
      },
      Math.min(options.bodyDeadlineMs ?? OAUTH_BODY_DEADLINE_MS, OAUTH_BODY_DEADLINE_MS),
    );
    try {
      await options.endpoints.handle(incoming, c.env.outgoing);
    } finally {
      clearTimeout(deadline);
    }
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
