import type { AuthInfo } from '@modelcontextprotocol/server';
import { OAuthError, OAuthErrorCode, requireBearerAuth } from '@modelcontextprotocol/server';
import type { Principal } from '../../domain/identity/principal.js';

/** What a verified bearer credential stands for. */
export interface BearerIdentity {
  readonly principal: Principal;
  /** The tool surface the tenant chose for its connections (undefined: the server's). */
  readonly toolMode?: 'flat' | 'catalog';
  /** The token or OAuth client the audit names. */
  readonly clientId: string;
  readonly expiresAt: number;
}

export interface BearerGateOptions {
  /** The identity a bearer secret stands for (personal access token or OAuth access token), or null. */
  readonly authenticate: (secret: string) => Promise<BearerIdentity | null>;
  /** The canonical URL of /mcp: every accepted token is for it. */
  readonly resource: string;
  /** RFC 9728 metadata, advertised in every 401 and 403 challenge, when OAuth is on. */
  readonly resourceMetadataUrl?: string;
}

/**
 * The SDK's bearer gate: no, malformed, unknown, expired or revoked token, or one for another
 * resource -> 401 with a `WWW-Authenticate: Bearer` challenge (naming the resource metadata).
 * The verified principal rides on AuthInfo to the tool handlers.
 */
export function bearerGate(options: BearerGateOptions): (request: Request) => Promise<AuthInfo | Response> {
  return requireBearerAuth({
    resourceMetadataUrl: options.resourceMetadataUrl,
    expectedResource: new URL(options.resource),
    verifier: {
      async verifyAccessToken(token: string): Promise<AuthInfo> {
        const found = await options.authenticate(token);
        if (!found)
          throw new OAuthError(
            OAuthErrorCode.InvalidToken,
            'The token is unknown, expired, revoked or not for this server.',
          );
        return {
          token,
          clientId: found.clientId,
          scopes: [...found.principal.scopes],
          expiresAt: Math.floor(found.expiresAt / 1000),
          resource: new URL(options.resource),
          extra: { principal: found.principal, toolMode: found.toolMode },
        };
      },
    },
  });
}
