import type { AuthInfo } from '@modelcontextprotocol/server';
import { OAuthError, OAuthErrorCode, requireBearerAuth } from '@modelcontextprotocol/server';
import type { Authenticated } from '../../app/identity/tokens.js';

/**
 * The SDK's bearer gate over Holdfast's personal access tokens: no, malformed, unknown,
 * expired or revoked token -> 401 with a `WWW-Authenticate: Bearer` challenge. The verified
 * principal rides on AuthInfo to the tool handlers.
 */
export function bearerGate(
  authenticate: (secret: string) => Promise<Authenticated | null>,
): (request: Request) => Promise<AuthInfo | Response> {
  return requireBearerAuth({
    verifier: {
      async verifyAccessToken(token: string): Promise<AuthInfo> {
        const found = await authenticate(token);
        if (!found)
          throw new OAuthError(OAuthErrorCode.InvalidToken, 'The token is unknown, expired or revoked.');
        return {
          token,
          clientId: found.token.id,
          scopes: [...found.principal.scopes],
          expiresAt: Math.floor(found.token.expiresAt / 1000),
          extra: { principal: found.principal },
        };
      },
    },
  });
}
