import type { OutboundFetch } from '../net/outbound-guard.js';
import { isSafeKeyUrl } from '../../domain/identity/key-url.js';

/** A discovery document is a few kilobytes; more is not one. */
const MAX_DOCUMENT_BYTES = 256 * 1024;

/**
 * Where an issuer's metadata may be: OpenID Connect discovery (appended to the issuer) first,
 * then RFC 8414 (inserted before the issuer's path), since some providers offer only one.
 */
export function discoveryUrls(issuer: string): string[] {
  const url = new URL(issuer);
  const path = url.pathname.replace(/\/+$/, '');
  return [
    `${url.origin}${path}/.well-known/openid-configuration`,
    `${url.origin}/.well-known/oauth-authorization-server${path}`,
  ];
}

async function fetchDocument(
  url: string,
  timeoutMs: number,
  outbound: OutboundFetch,
): Promise<Record<string, unknown>> {
  const response = await outbound(url, {
    signal: AbortSignal.timeout(timeoutMs),
    // A redirect could lead anywhere; metadata is served where the issuer says.
    redirect: 'manual',
    headers: { accept: 'application/json' },
  });
  if (response.status !== 200) throw new Error(`answered ${response.status}`);
  const text = await response.text();
  if (text.length > MAX_DOCUMENT_BYTES) throw new Error(`larger than ${MAX_DOCUMENT_BYTES} bytes`);
  const document: unknown = JSON.parse(text);
  if (typeof document !== 'object' || document === null || Array.isArray(document))
    throw new Error('not a JSON object');
  return document as Record<string, unknown>;
}

/**
 * The JWKS URL an issuer publishes. The document must name the same issuer, exactly (OpenID
 * Connect Discovery §4.3): otherwise tokens from one could be checked with another's keys.
 */
export async function discoverJwksUrl(
  issuer: string,
  timeoutMs: number,
  outbound: OutboundFetch,
): Promise<URL> {
  const problems: string[] = [];
  for (const url of discoveryUrls(issuer)) {
    let document: Record<string, unknown>;
    try {
      document = await fetchDocument(url, timeoutMs, outbound);
    } catch (error) {
      const cause = (error as { cause?: { code?: string } }).cause?.code;
      problems.push(
        `${url}: ${error instanceof Error ? error.message : String(error)}${cause ? ` (${cause})` : ''}`,
      );
      continue;
    }
    if (document.issuer !== issuer)
      throw new Error(
        `${url} names the issuer ${JSON.stringify(document.issuer)}, not ${JSON.stringify(issuer)}: ` +
          'configure --auth-issuer exactly as the provider (and its tokens’ iss) spells it',
      );
    const jwksUri = document.jwks_uri;
    if (typeof jwksUri !== 'string' || !isSafeKeyUrl(jwksUri))
      throw new Error(`${url} has no https jwks_uri`);
    return new URL(jwksUri);
  }
  throw new Error(`no metadata for ${issuer}: ${problems.join('; ')}`);
}
