import type { AuthInfo } from '@modelcontextprotocol/server';
import {
  bearerAuthChallengeResponse,
  OAuthError,
  OAuthErrorCode,
  verifyBearerToken,
} from '@modelcontextprotocol/server';
import { errorCatalog, isDomainError } from '../../domain/errors.js';
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
 * The verified principal rides on AuthInfo to the tool handlers. A credential that cannot be
 * checked because the database is away is neither accepted nor refused: 503 with Retry-After,
 * as a JSON-RPC error coded UNAVAILABLE.
 */
export function bearerGate(options: BearerGateOptions): (request: Request) => Promise<AuthInfo | Response> {
  const resolved = {
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
  };
  return async (request) => {
    const [header] = (request.headers.get('authorization') ?? '').split(',');
    try {
      return await verifyBearerToken(header || undefined, resolved);
    } catch (error) {
      if (isDomainError(error, 'UNAVAILABLE')) return unavailableAnswer(error.details.retryAfterMs);
      return bearerAuthChallengeResponse(error, resolved);
    }
  };
}

/** 503 for a request whose credential cannot be checked now: coded, retryable, with when to retry. */
export function unavailableAnswer(retryAfterMs: number): Response {
  return Response.json(
    {
      jsonrpc: '2.0',
      id: null,
      error: {
        code: -32000,
        message: 'UNAVAILABLE: the database cannot be reached right now; retry the same call shortly.',
        data: {
          code: 'UNAVAILABLE',
          retryable: true,
          retryAfterMs,
          recovery: errorCatalog.UNAVAILABLE.recovery,
        },
      },
    },
    { status: 503, headers: { 'Retry-After': String(Math.max(1, Math.ceil(retryAfterMs / 1000))) } },
  );
}
