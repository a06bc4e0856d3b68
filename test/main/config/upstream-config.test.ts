import { describe, expect, it } from 'vitest';
import { readConfig } from '../../../src/main/config/config.js';
import { UsageError } from '../../../src/main/config/usage-error.js';

// Identity and payment providers the operator names pass the outbound guard at start-up, as
// feeds and webhooks do where they are added; a private one needs the operator's say-so.

const PUBLIC = 'https://idp.example/realms/acme';
const read = (args: string[], env: Record<string, string> = {}) => readConfig(['serve', ...args], env);

const PRIVATE_HOSTS = [
  'http://127.0.0.1:8080',
  'http://localhost:9000',
  'https://10.0.0.7',
  'https://[::ffff:127.0.0.1]',
  'https://169.254.169.254',
  'https://sso.internal',
  'https://0x7f000001',
];

describe('upstreams on this host or a private network', () => {
  it.each(PRIVATE_HOSTS)(
    '%s is refused as --auth-issuer, --login-issuer and the payment provider',
    (host) => {
      const cases: [string[], Record<string, string>, RegExp][] = [
        [['--auth-issuer', host], {}, /^--auth-issuer /],
        [['--auth-issuer', PUBLIC, '--auth-jwks-url', `${host}/keys`], {}, /^--auth-jwks-url /],
        [['--login-issuer', host, '--login-client-id', 'holdfast'], {}, /^--login-issuer /],
        [[], { PAYMENT_QUERY_BASE_URL: host }, /^HOLDFAST_PAYMENT_QUERY_BASE_URL /],
      ];
      for (const [args, env, flag] of cases) {
        // http is refused for a non-loopback issuer anyway; the guard's refusal is what this checks.
        if (host.startsWith('http:') && !/127\.0\.0\.1|localhost/.test(host) && args.length > 0) continue;
        let error: unknown = null;
        try {
          read(args, env);
        } catch (thrown) {
          error = thrown;
        }
        expect(error, `${args.join(' ')} ${JSON.stringify(env)}`).toBeInstanceOf(UsageError);
        expect((error as Error).message).toMatch(flag);
        expect((error as Error).message).toContain('--allow-private-upstreams');
        // The operator's say-so, as a flag or in the environment, lets it start.
        expect(() => read([...args, '--allow-private-upstreams'], env)).not.toThrow();
        expect(() => read(args, { ...env, HOLDFAST_ALLOW_PRIVATE_UPSTREAMS: '1' })).not.toThrow();
      }
    },
  );

  it('public providers start without the flag, and help still answers with a private one named', () => {
    expect(read(['--auth-issuer', PUBLIC]).externalAuth!.issuers).toHaveLength(1);
    expect(read([], { PAYMENT_QUERY_BASE_URL: 'https://pay.example' }).payments).toBe('http');
    expect(readConfig(['--help', '--auth-issuer', 'http://127.0.0.1:1'], {}).command).toBe('help');
  });
});
