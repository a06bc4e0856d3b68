import type { ExternalIssuer } from '../../adapters/oauth/index.js';
import { isSafeKeyUrl } from '../../domain/identity/key-url.js';
import type { ClaimMapping } from '../../domain/identity/external-claims.js';
import { DEFAULT_CLAIM_MAPPING } from '../../domain/identity/external-claims.js';
import type { WritePolicy } from '../../domain/identity/identity.js';
import { UsageError } from './usage-error.js';

/** External identity providers whose access tokens /mcp accepts (--auth-issuer …). */
export interface ExternalAuthConfig {
  readonly issuers: readonly ExternalIssuer[];
  /** Empty: Holdfast's canonical /mcp URL (RFC 8707), the audience a resource server should demand. */
  readonly audiences: readonly string[];
  readonly claims: ClaimMapping;
  readonly algorithms: readonly string[];
  /** Null: draft (a viewer: readonly); otherwise this, where the person's role allows it. */
  readonly writePolicy: WritePolicy | null;
  readonly refetchCooldownSeconds: number;
}

/** Signature algorithms with a public key: `none` and HS* are never accepted. */
export const ASYMMETRIC_ALGORITHMS = [
  'RS256',
  'RS384',
  'RS512',
  'PS256',
  'PS384',
  'PS512',
  'ES256',
  'ES384',
  'ES512',
  'EdDSA',
  'Ed25519',
] as const;
export const DEFAULT_ALGORITHMS = ['RS256', 'ES256', 'PS256', 'EdDSA'];

/** The command-line values this reads; each has a HOLDFAST_AUTH_* variable beside it. */
export interface ExternalAuthFlags {
  readonly 'auth-issuer'?: string[];
  readonly 'auth-jwks-url'?: string;
  readonly 'auth-audience'?: string[];
  readonly 'auth-person-claim'?: string;
  readonly 'auth-tenant-claim'?: string;
  readonly 'auth-scope-claim'?: string;
  readonly 'auth-algorithms'?: string;
  readonly 'auth-write-policy'?: string;
  readonly 'auth-jwks-cooldown'?: string;
}

/** A list from a variable: comma or space separated (issuers and audiences hold neither). */
const listOf = (value: string | undefined) => value?.split(/[\s,]+/).filter(Boolean);

function claimNames(value: string | undefined, flag: string, fallback: readonly string[]): readonly string[] {
  if (value === undefined) return fallback;
  const names = value.split(',').map((n) => n.trim());
  if (names.some((n) => !/^[\x21-\x7e]{1,200}$/.test(n)))
    throw new UsageError(`${flag} must be claim names separated by commas, got "${value}"`);
  return names;
}

/** An issuer URL as a flag gives it: https, or http to this machine; no query, fragment or user. */
export function issuerUrl(value: string, flag: string): string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new UsageError(`${flag} must be a URL, got "${value}"`);
  }
  if (!isSafeKeyUrl(value) || url.search || url.hash || url.username)
    throw new UsageError(
      `${flag} must be an https URL without query or fragment (http only to 127.0.0.1 or localhost), got "${value}"`,
    );
  return value;
}

/**
 * --auth-issuer (repeatable; keys found through discovery) or one --auth-issuer with
 * --auth-jwks-url (no discovery), and the rest of the mapping. Null when no issuer is named;
 * any other --auth-* flag without one is a mistake, said as such.
 */
export function readExternalAuth(
  flags: ExternalAuthFlags,
  env: NodeJS.ProcessEnv,
): ExternalAuthConfig | null {
  const issuers = [...new Set(flags['auth-issuer'] ?? listOf(env.HOLDFAST_AUTH_ISSUER) ?? [])].map((i) =>
    issuerUrl(i, '--auth-issuer'),
  );
  const jwksUrl = flags['auth-jwks-url'] ?? env.HOLDFAST_AUTH_JWKS_URL;
  if (issuers.length === 0) {
    const stray = Object.entries(flags).find(([, v]) => v !== undefined)?.[0];
    if (stray)
      throw new UsageError(`--${stray} needs --auth-issuer (the identity provider whose tokens to accept)`);
    return null;
  }
  if (jwksUrl !== undefined) {
    if (issuers.length !== 1)
      throw new UsageError(
        '--auth-jwks-url is the key set of one --auth-issuer; with several, each is discovered',
      );
    issuerUrl(jwksUrl, '--auth-jwks-url');
  }
  const audiences = flags['auth-audience'] ?? listOf(env.HOLDFAST_AUTH_AUDIENCE) ?? [];
  for (const audience of audiences)
    if (!/^[\x21-\x7e]{1,500}$/.test(audience))
      throw new UsageError(`--auth-audience must be printable, without spaces, got "${audience}"`);
  const algorithms = listOf(flags['auth-algorithms'] ?? env.HOLDFAST_AUTH_ALGORITHMS) ?? DEFAULT_ALGORITHMS;
  const refused = algorithms.find((a) => !(ASYMMETRIC_ALGORITHMS as readonly string[]).includes(a));
  if (refused !== undefined || algorithms.length === 0)
    throw new UsageError(
      `--auth-algorithms must be some of ${ASYMMETRIC_ALGORITHMS.join(', ')} (never none or HS*), got "${refused ?? ''}"`,
    );
  const policy = flags['auth-write-policy'] ?? env.HOLDFAST_AUTH_WRITE_POLICY;
  if (policy !== undefined && !['readonly', 'draft', 'direct'].includes(policy))
    throw new UsageError(`--auth-write-policy must be readonly, draft, direct; got "${policy}"`);
  const cooldown = flags['auth-jwks-cooldown'] ?? env.HOLDFAST_AUTH_JWKS_COOLDOWN_SECONDS ?? '30';
  if (!/^\d+$/.test(cooldown) || Number(cooldown) < 1 || Number(cooldown) > 3600)
    throw new UsageError(`--auth-jwks-cooldown must be a whole number from 1 to 3600, got "${cooldown}"`);
  return {
    issuers: issuers.map((issuer) => ({ issuer, jwksUrl: jwksUrl ?? null })),
    audiences,
    claims: {
      personClaims: claimNames(
        flags['auth-person-claim'] ?? env.HOLDFAST_AUTH_PERSON_CLAIM,
        '--auth-person-claim',
        DEFAULT_CLAIM_MAPPING.personClaims,
      ),
      tenantClaims: claimNames(
        flags['auth-tenant-claim'] ?? env.HOLDFAST_AUTH_TENANT_CLAIM,
        '--auth-tenant-claim',
        DEFAULT_CLAIM_MAPPING.tenantClaims,
      ),
      scopeClaims: claimNames(
        flags['auth-scope-claim'] ?? env.HOLDFAST_AUTH_SCOPE_CLAIM,
        '--auth-scope-claim',
        DEFAULT_CLAIM_MAPPING.scopeClaims,
      ),
    },
    algorithms: [...new Set(algorithms)],
    writePolicy: (policy as WritePolicy | undefined) ?? null,
    refetchCooldownSeconds: Number(cooldown),
  };
}
