import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { openLoginState, sealLoginState } from '../../../src/adapters/oauth/sealed-login-state.js';
import { readConfig } from '../../../src/main/config/config.js';
import { UsageError } from '../../../src/main/config/usage-error.js';

// The --login-* flags and the sealed cookie an attempt travels in.

const ISSUER = 'https://login.acme.example/realms/staff';
const serve = (args: string[], env: NodeJS.ProcessEnv = {}) => readConfig(['serve', ...args], env);

describe('sign-in provider flags', () => {
  it('are off without an issuer; with one, a public client named by the issuer host', () => {
    expect(serve([]).loginProvider).toBeNull();
    expect(serve(['--login-issuer', ISSUER, '--login-client-id', 'holdfast']).loginProvider).toEqual({
      issuer: ISSUER,
      clientId: 'holdfast',
      clientSecret: null,
      name: 'login.acme.example',
    });
  });

  it('take the secret only from the environment, and everything else from HOLDFAST_LOGIN_* too', () => {
    const env = {
      HOLDFAST_LOGIN_ISSUER: ISSUER,
      HOLDFAST_LOGIN_CLIENT_ID: 'holdfast',
      HOLDFAST_LOGIN_NAME: 'Acme SSO',
      HOLDFAST_LOGIN_CLIENT_SECRET: 's3cr3t-value',
    };
    expect(serve([], env).loginProvider).toEqual({
      issuer: ISSUER,
      clientId: 'holdfast',
      clientSecret: 's3cr3t-value',
      name: 'Acme SSO',
    });
    expect(() => serve(['--login-client-secret', 'x'])).toThrow(/unknown option --login-client-secret/);
  });

  it.each([
    [['--login-client-id', 'holdfast'], {}, /--login-client-id needs --login-issuer/],
    [['--login-name', 'Acme'], {}, /--login-name needs --login-issuer/],
    [
      [],
      { HOLDFAST_LOGIN_CLIENT_SECRET: 'x' },
      /HOLDFAST_LOGIN_CLIENT_SECRET is set but --login-issuer is not/,
    ],
    [['--login-issuer', ISSUER], {}, /--login-issuer needs --login-client-id/],
    [
      ['--login-issuer', 'http://idp.example', '--login-client-id', 'h'],
      {},
      /--login-issuer must be an https URL/,
    ],
    [
      ['--login-issuer', `${ISSUER}?x=1`, '--login-client-id', 'h'],
      {},
      /--login-issuer must be an https URL/,
    ],
    [['--login-issuer', 'not a url', '--login-client-id', 'h'], {}, /--login-issuer must be a URL/],
    [['--login-issuer', ISSUER, '--login-client-id', 'a b'], {}, /--login-client-id must be printable/],
    [
      ['--login-issuer', ISSUER, '--login-client-id', 'h', '--login-name', 'x'.repeat(61)],
      {},
      /--login-name must be/,
    ],
    [
      ['--login-issuer', ISSUER, '--login-client-id', 'h'],
      { HOLDFAST_LOGIN_CLIENT_SECRET: 'a b' },
      /must be printable/,
    ],
  ] as const)('refuse %j %j, naming the flag', (args, env, message) => {
    expect(() => serve([...args], { ...env })).toThrow(UsageError);
    expect(() => serve([...args], { ...env })).toThrow(message);
  });

  it('accept http only for a provider on this machine, which the operator must allow', () => {
    const args = ['--login-issuer', 'http://127.0.0.1:8080', '--login-client-id', 'h'];
    expect(() => serve(args)).toThrow(/--allow-private-upstreams/);
    const local = serve([...args, '--allow-private-upstreams']).loginProvider;
    expect(local?.name).toBe('127.0.0.1:8080');
  });
});

describe('the sealed attempt cookie', () => {
  const key = randomBytes(32);
  const attempt = {
    state: 's'.repeat(43),
    nonce: 'n'.repeat(43),
    verifier: 'v'.repeat(43),
    next: '/account',
    expiresAt: 2_000,
  };

  it('opens under its key before it expires, and hides what it holds', () => {
    const sealed = sealLoginState(key, attempt);
    expect(openLoginState(key, sealed, 1_000)).toEqual(attempt);
    expect(Buffer.from(sealed, 'base64url').toString('latin1')).not.toContain('/account');
    expect(sealLoginState(key, attempt)).not.toBe(sealed); // a fresh IV every time
  });

  it('does not open expired, under another key, changed in any byte, truncated, or not one at all', () => {
    const sealed = sealLoginState(key, attempt);
    expect(openLoginState(key, sealed, 2_000)).toBeNull();
    expect(openLoginState(randomBytes(32), sealed, 1_000)).toBeNull();
    const raw = Buffer.from(sealed, 'base64url');
    for (let i = 0; i < raw.length; i++) {
      const changed = Buffer.from(raw);
      changed[i]! ^= 1;
      expect(openLoginState(key, changed.toString('base64url'), 1_000)).toBeNull();
    }
    expect(openLoginState(key, sealed.slice(0, -4), 1_000)).toBeNull();
    for (const junk of [undefined, '', 'x', 'not base64!', 'A'.repeat(5000)])
      expect(openLoginState(key, junk, 1_000)).toBeNull();
  });
});
