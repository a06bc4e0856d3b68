import type { ProviderLogin } from '../../adapters/http/index.js';
import { PROVIDER_CALLBACK_PATH } from '../../adapters/http/index.js';
import type { Logger } from '../../adapters/log/index.js';
import type { LoginRelyingParty } from '../../adapters/oauth/index.js';
import type { Runtime } from './compose.js';
import type { ServerConfig } from '../config/config.js';
import { StartupError } from './startup-error.js';
import { loadLoginRelyingParty } from '../../adapters/oauth/index.js';

/** Each request to the provider gives up after this; a slow provider is an unavailable one. */
const PROVIDER_TIMEOUT_SECONDS = 10;
/** After discovery failed, the provider is asked again no sooner than this. */
const REDISCOVER_AFTER_MS = 5_000;

/**
 * The organisation's OpenID Connect provider people sign in to the pages through
 * (--login-issuer …), or null. Its state cookie is sealed with a key derived from the audit
 * key, so an attempt begun on one instance finishes on any other.
 */
export function loginProviderFor(
  runtime: Runtime,
  config: ServerConfig,
  logger: Logger,
): ProviderLogin | null {
  const login = config.loginProvider;
  if (login === null) return null;
  const base = runtime.publicBaseUrl.replace(/\/+$/, '');
  if (new URL(login.issuer).origin === new URL(base).origin)
    throw new StartupError(
      `--login-issuer ${login.issuer} is this server itself; name the organisation's identity provider.`,
    );
  const redirectUri = `${base}${PROVIDER_CALLBACK_PATH}`;
  // openid-client loads with the first sign-in through the provider.
  let party: Promise<LoginRelyingParty> | null = null;
  const relyingParty = () =>
    (party ??= Promise.all([loadLoginRelyingParty(), import('../../adapters/net/index.js')]).then(
      ([{ loginRelyingParty }, { outboundFetch }]) =>
        loginRelyingParty({
          issuer: login.issuer,
          clientId: login.clientId,
          clientSecret: login.clientSecret,
          redirectUri,
          stateKey: runtime.auditKey.derive('login-oidc'),
          now: () => runtime.deps.clock.now(),
          timeoutSeconds: PROVIDER_TIMEOUT_SECONDS,
          retryAfterMs: REDISCOVER_AFTER_MS,
          fetch: outboundFetch({ allowPrivate: config.allowPrivateUpstreams }),
        }),
    ));
  logger.info('people may sign in through an identity provider', {
    issuer: login.issuer,
    clientId: login.clientId,
    client: login.clientSecret === null ? 'public (PKCE)' : 'confidential (client_secret_post)',
    redirectUri,
  });
  return {
    name: login.name,
    redirectUri,
    begin: async (next) => (await relyingParty()).begin(next),
    finish: async (query, sealed) => (await relyingParty()).finish(query, sealed),
  };
}
