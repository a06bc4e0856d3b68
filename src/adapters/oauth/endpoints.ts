import type { IncomingMessage, ServerResponse } from 'node:http';
import type Provider from 'oidc-provider';

/** An authorization request waiting for a person: who asks, for what, and whether sign-in or consent is due. */
export interface PendingAuthorization {
  readonly uid: string;
  readonly prompt: 'login' | 'consent' | string;
  readonly clientId: string;
  readonly clientName: string;
  /** Set when the client id is a metadata document URL: the origin that served it. */
  readonly verifiedOrigin: string | null;
  readonly redirectUri: string;
  /** The resource the access is for (RFC 8707): this server's /mcp, the only one accepted. */
  readonly resource: string;
  readonly scopes: readonly string[];
  /** The person the authorization server's session already names, if any. */
  readonly accountId: string | null;
}

export type AuthorizationOutcome =
  | { readonly login: { readonly accountId: string } }
  | { readonly consent: { readonly accountId: string; readonly scopes: readonly string[] } }
  | { readonly error: 'access_denied' | 'login_required'; readonly description: string };

/** What Holdfast's own pages need of the authorization server: the pending request, and its answer. */
export interface AuthorizationEndpoints {
  /** Serves an endpoint of the authorization server (token, registration, discovery…) on raw Node objects. */
  handle(request: IncomingMessage, response: ServerResponse): Promise<void>;
  pending(request: IncomingMessage, response: ServerResponse): Promise<PendingAuthorization | null>;
  /** Records the answer; returns where the browser goes next, and the grant a consent created. */
  answer(
    request: IncomingMessage,
    response: ServerResponse,
    outcome: AuthorizationOutcome,
  ): Promise<{ readonly returnTo: string; readonly grantId: string | null }>;
}

/**
 * Every URL the authorization server builds (endpoints in its metadata, redirects) names the
 * issuer's origin, whatever Host the request came with: the provider trusts the forwarded
 * headers, which are set here from the issuer. A client's own X-Forwarded-For counts only
 * behind a trusted proxy.
 */
function asIssuer(request: IncomingMessage, issuer: URL, trustProxy: boolean): IncomingMessage {
  request.headers['x-forwarded-host'] = issuer.host;
  request.headers['x-forwarded-proto'] = issuer.protocol.slice(0, -1);
  if (!trustProxy) delete request.headers['x-forwarded-for'];
  return request;
}

export function authorizationEndpoints(
  provider: Provider,
  options: { readonly resource: string; readonly issuer: string; readonly trustProxy: boolean },
): AuthorizationEndpoints {
  const { resource } = options;
  const issuer = new URL(options.issuer);
  const callback = provider.callback();
  const inner = {
    handle: async (request: IncomingMessage, response: ServerResponse) => {
      await callback(request, response);
    },

    async pending(request: IncomingMessage, response: ServerResponse): Promise<PendingAuthorization | null> {
      let details;
      try {
        details = await provider.interactionDetails(request, response);
      } catch {
        return null;
      }
      const params = details.params as Record<string, string | undefined>;
      const clientId = String(params.client_id ?? '');
      const client = await provider.Client.find(clientId);
      if (!client) return null;
      const fromDocument = /^https:\/\//.test(clientId);
      return {
        uid: details.uid,
        prompt: details.prompt.name,
        clientId,
        clientName: String(client.clientName ?? clientId).slice(0, 120),
        verifiedOrigin: fromDocument ? new URL(clientId).origin : null,
        redirectUri: String(params.redirect_uri ?? ''),
        resource: String(params.resource ?? resource),
        scopes: String(params.scope ?? '')
          .split(' ')
          .filter(Boolean),
        accountId: details.session?.accountId ?? null,
      };
    },

    async answer(request: IncomingMessage, response: ServerResponse, outcome: AuthorizationOutcome) {
      if ('error' in outcome) {
        const returnTo = await provider.interactionResult(request, response, {
          error: outcome.error,
          error_description: outcome.description,
        });
        return { returnTo, grantId: null };
      }
      if ('login' in outcome) {
        const returnTo = await provider.interactionResult(request, response, { login: outcome.login });
        return { returnTo, grantId: null };
      }
      const details = await provider.interactionDetails(request, response);
      const grant = new provider.Grant({
        accountId: outcome.consent.accountId,
        clientId: String(details.params.client_id),
      });
      // Our scopes are both resource scopes (what the token carries) and registered client
      // scopes; what the person did not give is rejected, so consent is not asked again.
      const requested = String(details.params.scope ?? '')
        .split(' ')
        .filter(Boolean);
      const given = outcome.consent.scopes;
      const withheld = requested.filter((s) => s !== 'openid' && !given.includes(s));
      grant.addResourceScope(resource, given.join(' '));
      grant.addOIDCScope([...given, ...(requested.includes('openid') ? ['openid'] : [])].join(' '));
      if (withheld.length > 0) {
        grant.rejectResourceScope(resource, withheld.join(' '));
        grant.rejectOIDCScope(withheld.join(' '));
      }
      const grantId = await grant.save();
      const returnTo = await provider.interactionResult(
        request,
        response,
        { consent: { grantId } },
        { mergeWithLastSubmission: true },
      );
      return { returnTo, grantId };
    },
  };
  return {
    handle: (request, response) => inner.handle(asIssuer(request, issuer, options.trustProxy), response),
    pending: (request, response) => inner.pending(asIssuer(request, issuer, options.trustProxy), response),
    answer: (request, response, outcome) =>
      inner.answer(asIssuer(request, issuer, options.trustProxy), response, outcome),
  };
}
