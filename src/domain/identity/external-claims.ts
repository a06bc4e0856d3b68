import type { Role, Scope, WritePolicy } from './identity.js';
import { SCOPES } from './identity.js';
import { policiesOfRole } from './oauth.js';

/**
 * Which claims of an external identity provider's access token name the person, their tenant
 * and their scopes. IdPs disagree (Keycloak: `email`, `scope`; Auth0: `scope` or
 * `permissions`; Entra ID: `preferred_username` or `upn`, `scp` or `roles`), so each is a list
 * of claim names tried in order (person, tenant) or united (scopes).
 */
export interface ClaimMapping {
  readonly personClaims: readonly string[];
  /** Empty: every token is for the server's own tenant. */
  readonly tenantClaims: readonly string[];
  readonly scopeClaims: readonly string[];
}

export const DEFAULT_CLAIM_MAPPING: ClaimMapping = {
  personClaims: ['email'],
  tenantClaims: [],
  scopeClaims: ['scope'],
};

/** What a verified external token says, read through the mapping. */
export interface ExternalClaims {
  readonly issuer: string;
  /** The person claim's value as the IdP wrote it (an email address, to be normalised). */
  readonly person: string;
  /** Null: the token names no tenant (no tenant claim configured). */
  readonly tenant: string | null;
  /** The token's scopes that are Holdfast scopes; any others (openid, profile…) are dropped. */
  readonly scopes: readonly Scope[];
  /** The IdP's client the token was issued to (azp, client_id or Entra's appid), for the audit. */
  readonly client: string;
  readonly expiresAt: number;
}

export type ClaimsReading =
  { readonly ok: true; readonly claims: ExternalClaims } | { readonly ok: false; readonly reason: string };

const printable = (value: string, max: number) =>
  value.length > 0 &&
  value.length <= max &&
  ![...value].some((c) => c.charCodeAt(0) < 0x20 || c === '\u007f');

function firstString(payload: Record<string, unknown>, names: readonly string[]): string | null {
  for (const name of names) {
    const value = payload[name];
    if (typeof value === 'string' && value.length > 0) return value;
  }
  return null;
}

/** Scope claims are a space-separated string (`scope`, `scp`) or an array (`permissions`, `roles`). */
function scopesOf(payload: Record<string, unknown>, names: readonly string[]): Scope[] {
  const found = new Set<string>();
  for (const name of names) {
    const value = payload[name];
    const words = typeof value === 'string' ? value.split(' ') : Array.isArray(value) ? value : [];
    for (const word of words) if (typeof word === 'string') found.add(word);
  }
  return SCOPES.filter((s) => found.has(s));
}

/**
 * Reads a token whose signature, issuer, audience and lifetime were already verified. An
 * email the IdP itself says is unverified does not name anyone: otherwise whoever can type an
 * address into their IdP profile would become that person here.
 */
export function readExternalClaims(
  issuer: string,
  payload: Record<string, unknown>,
  mapping: ClaimMapping,
): ClaimsReading {
  const person = firstString(payload, mapping.personClaims);
  if (person === null || !printable(person, 320))
    return { ok: false, reason: `no usable ${mapping.personClaims.join(' or ')} claim` };
  if (payload.email_verified === false && mapping.personClaims.includes('email'))
    return { ok: false, reason: 'email_verified is false' };
  let tenant: string | null = null;
  if (mapping.tenantClaims.length > 0) {
    tenant = firstString(payload, mapping.tenantClaims);
    if (tenant === null) return { ok: false, reason: `no ${mapping.tenantClaims.join(' or ')} claim` };
  }
  const client = firstString(payload, ['azp', 'client_id', 'appid']) ?? 'unknown-client';
  const exp = payload.exp;
  if (typeof exp !== 'number') return { ok: false, reason: 'no exp claim' };
  return {
    ok: true,
    claims: {
      issuer,
      person,
      tenant,
      scopes: scopesOf(payload, mapping.scopeClaims),
      client: printable(client, 200) ? client : 'unprintable-client',
      expiresAt: exp * 1000,
    },
  };
}

/**
 * The write policy of an external token: the configured one when the role allows it, else the
 * most cautious the role allows (an IdP token carries no consent page where a person chose).
 */
export function externalWritePolicy(role: Role, configured: WritePolicy | null): WritePolicy {
  const allowed = policiesOfRole(role);
  if (configured !== null && allowed.includes(configured)) return configured;
  return allowed.includes('draft') ? 'draft' : 'readonly';
}
