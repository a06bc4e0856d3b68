import { describe, expect, it } from 'vitest';
import type { ClaimMapping } from '../../src/domain/identity/external-claims.js';
import {
  DEFAULT_CLAIM_MAPPING,
  externalWritePolicy,
  readExternalClaims,
} from '../../src/domain/identity/external-claims.js';

// Reading a verified IdP token through the claim mapping; pure, so every shape is tried here.

const ISS = 'https://idp.example';
const EXP = 2_000_000_000;
const read = (payload: Record<string, unknown>, mapping: ClaimMapping = DEFAULT_CLAIM_MAPPING) =>
  readExternalClaims(ISS, { exp: EXP, ...payload }, mapping);

describe('readExternalClaims', () => {
  it('Keycloak: email and a space-separated scope; unknown scopes dropped', () => {
    expect(
      read({ email: 'Ana@Example.com', scope: 'openid email read draft', azp: 'holdfast-agent' }),
    ).toEqual({
      ok: true,
      claims: {
        issuer: ISS,
        person: 'Ana@Example.com',
        tenant: null,
        scopes: ['read', 'draft'],
        client: 'holdfast-agent',
        expiresAt: EXP * 1000,
      },
    });
  });

  it('Auth0: scope and the permissions array united; client_id when there is no azp', () => {
    const mapping = { ...DEFAULT_CLAIM_MAPPING, scopeClaims: ['scope', 'permissions'] };
    const result = read(
      { email: 'a@b.example', scope: 'read', permissions: ['write', 7], client_id: 'm2m' },
      mapping,
    );
    expect(result.ok && [result.claims.scopes, result.claims.client]).toEqual([['read', 'write'], 'm2m']);
  });

  it('Entra ID: the first present of preferred_username or upn, scp and roles, appid for the client', () => {
    const mapping = {
      personClaims: ['preferred_username', 'upn'],
      tenantClaims: [],
      scopeClaims: ['scp', 'roles'],
    };
    const result = read(
      { upn: 'ana@contoso.example', scp: 'read', roles: ['sensitive'], appid: 'guid' },
      mapping,
    );
    expect(result.ok && [result.claims.person, result.claims.scopes, result.claims.client]).toEqual([
      'ana@contoso.example',
      ['read', 'sensitive'],
      'guid',
    ]);
  });

  it('a tenant claim, when mapped, must be there', () => {
    const mapping = { ...DEFAULT_CLAIM_MAPPING, tenantClaims: ['tenant'] };
    const found = read({ email: 'a@b.example', tenant: 'acme' }, mapping);
    expect(found.ok && found.claims.tenant).toBe('acme');
    expect(read({ email: 'a@b.example' }, mapping)).toEqual({ ok: false, reason: 'no tenant claim' });
  });

  it.each([
    ['no person claim', { scope: 'read' }, 'no usable email claim'],
    ['a person claim that is not a string', { email: ['a@b.example'] }, 'no usable email claim'],
    ['a person claim with control characters', { email: 'a@b.example\n' }, 'no usable email claim'],
    [
      'an email the IdP has not verified',
      { email: 'a@b.example', email_verified: false },
      'email_verified is false',
    ],
    ['no exp', { email: 'a@b.example', exp: undefined }, 'no exp claim'],
  ])('refuses %s', (_name, payload, reason) => {
    expect(read(payload)).toEqual({ ok: false, reason });
  });
});

describe('externalWritePolicy', () => {
  it.each([
    ['owner', null, 'draft'],
    ['approver', null, 'draft'],
    ['viewer', null, 'readonly'],
    ['owner', 'direct', 'direct'],
    ['approver', 'readonly', 'readonly'],
    ['viewer', 'direct', 'readonly'],
    ['viewer', 'draft', 'readonly'],
  ] as const)('a %s with %s configured gets %s', (role, configured, expected) => {
    expect(externalWritePolicy(role, configured)).toBe(expected);
  });
});
