import type { LookupAddress } from 'node:dns';
import type { AddressInfo, Socket } from 'node:net';
import { createServer } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fetchFeedText } from '../../../src/adapters/feeds/guarded-fetch.js';
import type { Resolve } from '../../../src/adapters/net/outbound-guard.js';
import {
  guardedDispatcher,
  guardedLookup,
  isSpecialUseAddress,
  outboundFetch,
  refusedHost,
} from '../../../src/adapters/net/outbound-guard.js';
import { guardedPost } from '../../../src/adapters/webhooks/guarded-post.js';
import { discoverJwksUrl } from '../../../src/adapters/oauth/issuer-discovery.js';
import { externalTokenVerifier } from '../../../src/adapters/oauth/external-token-verifier.js';
import { loginRelyingParty } from '../../../src/adapters/oauth/login-relying-party.js';
import { HttpPayments } from '../../../src/adapters/payment/http-payments.js';
import { PaymentUnavailableError } from '../../../src/ports/payment-query.js';
import { generateKeyPair, SignJWT } from 'jose';

// The one outbound guard, against every spelling of "this host" and "a private network" a URL
// can carry, and against a name that resolves there: each is refused before a connection is
// opened, counted by a listener on the loopback address itself.

let listener: ReturnType<typeof createServer>;
let port: number;
let connections = 0;
const sockets = new Set<Socket>();

beforeAll(async () => {
  listener = createServer((socket) => {
    connections++;
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.destroy();
  });
  // Both families when the machine has IPv6; loopback IPv4 otherwise.
  await new Promise<void>((resolve) =>
    listener
      .once('error', () => listener.listen(0, '127.0.0.1', resolve))
      .listen({ port: 0, host: '::', ipv6Only: false }, resolve),
  );
  port = (listener.address() as AddressInfo).port;
});
afterAll(async () => {
  for (const socket of sockets) socket.destroy();
  await new Promise((resolve) => listener.close(resolve));
});

/** Every way a URL can name loopback, a private network or a special-use address. */
const refusedSpellings = (p: number): string[] => [
  // IPv4 loopback, every notation the URL standard reads as 127.0.0.1.
  `https://127.0.0.1:${p}/x`,
  `https://127.0.0.2:${p}/x`,
  `https://127.255.255.254:${p}/x`,
  `https://2130706433:${p}/x`,
  `https://0x7f000001:${p}/x`,
  `https://0x7f.0x0.0x0.0x1:${p}/x`,
  `https://0177.0.0.1:${p}/x`,
  `https://017700000001:${p}/x`,
  `https://127.1:${p}/x`,
  `https://127.0.1:${p}/x`,
  `https://0x7f.1:${p}/x`,
  `https://127.000.000.001:${p}/x`,
  // This host as "any address".
  `https://0.0.0.0:${p}/x`,
  `https://0:${p}/x`,
  `https://0x0:${p}/x`,
  // Private, shared and link-local IPv4, cloud metadata.
  'https://10.0.0.1/x',
  'https://10.255.255.255/x',
  'https://172.16.0.1/x',
  'https://172.31.255.255/x',
  'https://192.168.1.1/x',
  'https://100.64.0.1/x',
  'https://169.254.169.254/latest/meta-data',
  'https://0xa9fea9fe/latest/meta-data',
  'https://2852039166/latest/meta-data',
  'https://192.0.0.8/x',
  'https://198.18.0.1/x',
  'https://224.0.0.1/x',
  'https://240.0.0.1/x',
  'https://255.255.255.255/x',
  // IPv6 loopback and unspecified.
  `https://[::1]:${p}/x`,
  `https://[0:0:0:0:0:0:0:1]:${p}/x`,
  `https://[0000:0000:0000:0000:0000:0000:0000:0001]:${p}/x`,
  `https://[::]:${p}/x`,
  // IPv4-mapped, in dotted and hex notation, compressed and written out.
  `https://[::ffff:127.0.0.1]:${p}/x`,
  `https://[::ffff:7f00:1]:${p}/x`,
  `https://[0:0:0:0:0:ffff:127.0.0.1]:${p}/x`,
  `https://[0:0:0:0:0:ffff:7f00:0001]:${p}/x`,
  `https://[::FFFF:7F00:1]:${p}/x`,
  'https://[::ffff:10.0.0.1]/x',
  'https://[::ffff:a9fe:a9fe]/x',
  'https://[::ffff:192.168.0.1]/x',
  // IPv4-compatible (deprecated) and IPv4-translated.
  `https://[::127.0.0.1]:${p}/x`,
  `https://[::7f00:1]:${p}/x`,
  'https://[::10.0.0.1]/x',
  'https://[::ffff:0:127.0.0.1]/x',
  // NAT64 and 6to4 wrapping loopback or private IPv4.
  'https://[64:ff9b::127.0.0.1]/x',
  'https://[64:ff9b::7f00:1]/x',
  'https://[64:ff9b:1::a00:1]/x',
  'https://[2002:7f00:1::]/x',
  'https://[2002:a9fe:a9fe::1]/x',
  // Teredo, documentation, unique-local, link-local, site-local, multicast.
  'https://[2001::1]/x',
  'https://[2001:db8::1]/x',
  'https://[fc00::1]/x',
  'https://[fd12:3456::1]/x',
  'https://[fe80::1]/x',
  'https://[febf::1]/x',
  'https://[fec0::1]/x',
  'https://[ff02::1]/x',
  // Names of this host and of the local network, with and without the trailing dot.
  `https://localhost:${p}/x`,
  `https://LOCALHOST:${p}/x`,
  `https://localhost.:${p}/x`,
  `https://localhost..:${p}/x`,
  `https://api.localhost:${p}/x`,
  `https://a.b.localhost.:${p}/x`,
  'https://printer.local/x',
  'https://metadata.google.internal/computeMetadata/v1/',
  'https://router.home.arpa/x',
];

const publicSpellings = [
  'https://calendar.example.com/f.ics',
  'https://93.184.216.34/x',
  'https://1.1.1.1/x',
  'https://[2606:4700:4700::1111]/x',
  'https://[::ffff:8.8.8.8]/x',
  'https://localhost.example.com/x',
  'https://mylocalhost.com/x',
  'https://internal-tools.example.org/x',
];

describe('the outbound guard', () => {
  it(`refuses ${refusedSpellings(1).length} spellings of special-use hosts by how they are written`, () => {
    const missed = refusedSpellings(443).filter((url) => refusedHost(new URL(url)) === null);
    expect(missed).toEqual([]);
    expect(refusedSpellings(443).length).toBeGreaterThanOrEqual(60);
  });

  it('lets public hosts through', () => {
    expect(publicSpellings.filter((url) => refusedHost(new URL(url)) !== null)).toEqual([]);
  });

  it('reads zone ids and every IPv6 notation of an address alike', () => {
    for (const address of [
      'fe80::1%eth0',
      '[fe80::1%25eth0]',
      '::ffff:127.0.0.1',
      '::127.0.0.1',
      '0:0::1',
      'not-an-ip',
    ])
      expect({ address, special: isSpecialUseAddress(address) }).toEqual({ address, special: true });
    expect(isSpecialUseAddress('2606:4700:4700::1111')).toBe(false);
  });

  it('a name is checked by every address it resolves to; a mixed answer keeps only the public ones', async () => {
    const dns: Record<string, LookupAddress[]> = {
      'rebind.example': [{ address: '127.0.0.1', family: 4 }],
      'metadata.example': [{ address: '169.254.169.254', family: 4 }],
      'mapped.example': [{ address: '::ffff:7f00:1', family: 6 }],
      'mixed.example': [
        { address: '10.0.0.5', family: 4 },
        { address: '93.184.216.34', family: 4 },
      ],
    };
    const resolve: Resolve = (name, callback) => callback(null, dns[name] ?? []);
    const ask = (name: string) =>
      new Promise<string>((done) =>
        guardedLookup(resolve)(name, {}, (error, address) =>
          done(error ? `refused: ${error.name}` : String(address)),
        ),
      );
    expect(await ask('rebind.example')).toBe('refused: RefusedAddressError');
    expect(await ask('metadata.example')).toBe('refused: RefusedAddressError');
    expect(await ask('mapped.example')).toBe('refused: RefusedAddressError');
    expect(await ask('localhost')).toBe('refused: RefusedAddressError');
    expect(await ask('mixed.example')).toBe('93.184.216.34');
  });

  it('opens 0 connections for any refused destination: feeds, webhooks, and a name that resolves to loopback', async () => {
    const before = connections;
    for (const url of refusedSpellings(port)) {
      await expect(
        fetchFeedText(url, { maxBytes: 1000, timeoutMs: 2000, maxRedirects: 0, allowPrivate: false }),
      ).rejects.toThrow();
      await expect(
        guardedPost(new URL(url), {}, '{}', { allowPrivate: false, timeoutMs: 2000, maxResponseBytes: 100 }),
      ).rejects.toThrow();
    }
    // A public-looking name that resolves to this host: refused at the guard's lookup (the
    // error says so: not a DNS failure), before connecting.
    const rebind: Resolve = (_name, callback) => callback(null, [{ address: '127.0.0.1', family: 4 }]);
    const failed = await fetch(`https://rebind.example:${port}/x`, {
      dispatcher: guardedDispatcher(rebind),
    } as RequestInit).then(
      () => null,
      (error: { cause?: { name?: string } }) => error.cause?.name,
    );
    expect(failed).toBe('RefusedAddressError');
    expect(connections - before).toBe(0);

    // The control: allowed to, the same client does reach the listener, so the count above
    // would have seen a connection.
    await guardedPost(new URL(`http://127.0.0.1:${port}/x`), {}, '{}', {
      allowPrivate: true,
      timeoutMs: 2000,
      maxResponseBytes: 100,
    }).catch(() => undefined);
    expect(connections - before).toBe(1);
  });

  it('opens 0 connections for the upstreams too: issuer metadata, JWKS, the sign-in provider and the payment provider', async () => {
    const rebind: Resolve = (_name, callback) => callback(null, [{ address: '127.0.0.1', family: 4 }]);
    const guarded = outboundFetch({ allowPrivate: false, resolve: rebind });
    const before = connections;
    const targets = [
      `https://127.0.0.1:${port}`,
      `https://[::ffff:7f00:1]:${port}`,
      `https://idp.example:${port}`,
    ];
    for (const base of targets) {
      await expect(discoverJwksUrl(base, 2000, guarded)).rejects.toThrow(/no metadata/);
      const verifier = externalTokenVerifier({
        issuers: [{ issuer: 'https://idp.example', jwksUrl: `${base}/jwks` }],
        audiences: ['https://holdfast.example/mcp'],
        algorithms: ['RS256'],
        refetchCooldownMs: 0,
        fetch: guarded,
        now: () => Date.now(),
        onUnavailable: () => undefined,
      });
      const token = await signedToken('https://idp.example');
      expect(await verifier.verify(token, 'https://idp.example')).toMatchObject({
        ok: false,
        reason: 'keys unavailable',
      });
      const payments = new HttpPayments(base, guarded, 2000);
      await expect(payments.queryPayment('bk_1', { traceId: '0'.repeat(32) })).rejects.toThrow(
        PaymentUnavailableError,
      );
      const party = loginRelyingParty({
        issuer: base,
        clientId: 'holdfast',
        clientSecret: null,
        redirectUri: 'https://holdfast.example/login/oidc/callback',
        stateKey: Buffer.alloc(32),
        now: () => Date.now(),
        timeoutSeconds: 2,
        retryAfterMs: 0,
        fetch: guarded,
      });
      await expect(party.begin('/')).rejects.toThrow();
    }
    expect(connections - before).toBe(0);

    // The control: the operator's say-so reaches the listener with the same clients.
    await new HttpPayments(`http://127.0.0.1:${port}`, outboundFetch({ allowPrivate: true }), 2000)
      .queryPayment('bk_1', { traceId: '0'.repeat(32) })
      .catch(() => undefined);
    expect(connections - before).toBe(1);
  });
});

/** A well-formed RS256 token of that issuer, so the verifier goes on to fetch its keys. */
async function signedToken(issuer: string): Promise<string> {
  const { privateKey } = await generateKeyPair('RS256');
  return new SignJWT({ sub: 'someone' })
    .setProtectedHeader({ alg: 'RS256', kid: 'k1' })
    .setIssuer(issuer)
    .setAudience('https://holdfast.example/mcp')
    .setExpirationTime('5m')
    .sign(privateKey);
}
