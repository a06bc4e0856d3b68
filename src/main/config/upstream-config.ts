import { refusedHost } from '../../adapters/net/index.js';
import type { ExternalAuthConfig } from './external-auth-config.js';
import type { LoginProviderConfig } from './login-provider-config.js';

/** The upstreams the operator names, each with the flag or variable that named it. */
export interface Upstreams {
  readonly externalAuth: ExternalAuthConfig | null;
  readonly loginProvider: LoginProviderConfig | null;
  readonly paymentQueryBaseUrl: string | null;
}

/**
 * The outbound guard applied where the operator names an upstream, as feeds and webhooks apply
 * it where they are added: an identity provider or payment provider on this host or a private
 * network is refused at start-up unless the operator says so (`--allow-private-upstreams`).
 * Null when every named upstream may be reached; otherwise why not.
 */
export function refusedUpstream(upstreams: Upstreams): string | null {
  const named: [string, string][] = [
    ...(upstreams.externalAuth?.issuers ?? []).flatMap((i): [string, string][] => [
      ['--auth-issuer', i.issuer],
      ...(i.jwksUrl ? [['--auth-jwks-url', i.jwksUrl] as [string, string]] : []),
    ]),
    ...(upstreams.loginProvider
      ? [['--login-issuer', upstreams.loginProvider.issuer] as [string, string]]
      : []),
    ...(upstreams.paymentQueryBaseUrl
      ? [['HOLDFAST_PAYMENT_QUERY_BASE_URL', upstreams.paymentQueryBaseUrl] as [string, string]]
      : []),
  ];
  for (const [flag, value] of named) {
    const refused = refusedHost(new URL(value));
    if (refused)
      return (
        `${flag} ${value}: ${refused}. Holdfast does not reach such addresses on anyone's behalf; ` +
        'for a provider on this machine or your private network, pass --allow-private-upstreams ' +
        '(env HOLDFAST_ALLOW_PRIVATE_UPSTREAMS=1)'
      );
  }
  return null;
}
