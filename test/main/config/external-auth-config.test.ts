import { describe, expect, it } from 'vitest';
import { readConfig } from '../../../src/main/config/config.js';
import { UsageError } from '../../../src/main/config/usage-error.js';

// The --auth-* flags: defaults when an issuer is named, and each mistake refused naming its flag.

const ISSUER = 'https://idp.example/realms/acme';
const serve = (...args: string[]) => readConfig(['serve', ...args], {});

describe('external identity provider flags', () => {
  it('are off without an issuer; with one, default to email, scope, the /mcp audience and asymmetric algorithms', () => {
    expect(serve().externalAuth).toBeNull();
    expect(serve('--auth-issuer', ISSUER).externalAuth).toEqual({
      issuers: [{ issuer: ISSUER, jwksUrl: null }],
      audiences: [],
      claims: { personClaims: ['email'], tenantClaims: [], scopeClaims: ['scope'] },
      algorithms: ['RS256', 'ES256', 'PS256', 'EdDSA'],
      writePolicy: null,
      refetchCooldownSeconds: 30,
    });
  });

  it('take several issuers, lists of claims, and the same settings from HOLDFAST_AUTH_* variables', () => {
    const flags = serve(
      ...['--auth-issuer', ISSUER, '--auth-issuer', 'https://login.microsoftonline.com/t1/v2.0'],
      ...['--auth-audience', 'api://holdfast', '--auth-person-claim', 'preferred_username,upn'],
      ...['--auth-scope-claim', 'scp,roles', '--auth-tenant-claim', 'https://holdfast.example/tenant'],
      ...['--auth-algorithms', 'RS256', '--auth-write-policy', 'readonly', '--auth-jwks-cooldown', '5'],
    ).externalAuth!;
    expect(flags.issuers.map((i) => i.issuer)).toEqual([ISSUER, 'https://login.microsoftonline.com/t1/v2.0']);
    expect(flags.claims).toEqual({
      personClaims: ['preferred_username', 'upn'],
      tenantClaims: ['https://holdfast.example/tenant'],
      scopeClaims: ['scp', 'roles'],
    });
    expect([flags.audiences, flags.algorithms, flags.writePolicy, flags.refetchCooldownSeconds]).toEqual([
      ['api://holdfast'],
      ['RS256'],
      'readonly',
      5,
    ]);
    const fromEnv = readConfig(['serve'], {
      HOLDFAST_AUTH_ISSUER: `${ISSUER}, https://acme.eu.auth0.com/`,
      HOLDFAST_AUTH_AUDIENCE: 'https://api.acme.example',
      HOLDFAST_AUTH_SCOPE_CLAIM: 'permissions',
    }).externalAuth!;
    expect(fromEnv.issuers.map((i) => i.issuer)).toEqual([ISSUER, 'https://acme.eu.auth0.com/']);
    expect(fromEnv.audiences).toEqual(['https://api.acme.example']);
    expect(fromEnv.claims.scopeClaims).toEqual(['permissions']);
    const single = serve('--auth-issuer', ISSUER, '--auth-jwks-url', `${ISSUER}/certs`).externalAuth!;
    expect(single.issuers).toEqual([{ issuer: ISSUER, jwksUrl: `${ISSUER}/certs` }]);
  });

  it.each([
    [['--auth-issuer', 'http://idp.example'], /--auth-issuer must be an https URL/],
    [['--auth-issuer', 'not a url'], /--auth-issuer must be a URL/],
    [['--auth-issuer', `${ISSUER}?x=1`], /--auth-issuer must be an https URL without query/],
    [['--auth-audience', 'api://holdfast'], /--auth-audience needs --auth-issuer/],
    [['--auth-jwks-url', `${ISSUER}/certs`], /--auth-jwks-url needs --auth-issuer/],
    [
      ['--auth-issuer', ISSUER, '--auth-issuer', 'https://b.example', '--auth-jwks-url', `${ISSUER}/certs`],
      /--auth-jwks-url is the key set of one --auth-issuer/,
    ],
    [
      ['--auth-issuer', ISSUER, '--auth-jwks-url', 'http://idp.example/certs'],
      /--auth-jwks-url must be an https/,
    ],
    [
      ['--auth-issuer', ISSUER, '--auth-algorithms', 'RS256,HS256'],
      /--auth-algorithms must be .*got "HS256"/,
    ],
    [['--auth-issuer', ISSUER, '--auth-algorithms', 'none'], /never none or HS\*/],
    [
      ['--auth-issuer', ISSUER, '--auth-write-policy', 'attested'],
      /--auth-write-policy must be readonly, draft, direct/,
    ],
    [
      ['--auth-issuer', ISSUER, '--auth-jwks-cooldown', '0'],
      /--auth-jwks-cooldown must be a whole number from 1/,
    ],
    [['--auth-issuer', ISSUER, '--auth-person-claim', 'email,'], /--auth-person-claim must be claim names/],
    [['--auth-issuer', ISSUER, '--auth-audience', 'two words'], /--auth-audience must be printable/],
  ])('%j is refused with a usage error naming the flag', (args, message) => {
    expect(() => serve(...args)).toThrow(UsageError);
    expect(() => serve(...args)).toThrow(message);
  });

  it('http issuers only on loopback (a local IdP in development), which the operator must allow', () => {
    const local = (issuer: string) => serve('--auth-issuer', issuer, '--allow-private-upstreams');
    expect(local('http://127.0.0.1:8080/realms/dev').externalAuth!.issuers).toHaveLength(1);
    expect(local('http://localhost:8080').externalAuth!.issuers).toHaveLength(1);
    expect(() => serve('--auth-issuer', 'http://127.0.0.1:8080/realms/dev')).toThrow(
      /--allow-private-upstreams/,
    );
  });
});
