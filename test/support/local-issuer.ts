import { randomUUID } from 'node:crypto';
import type { Server } from 'node:http';
import { createServer } from 'node:http';
import type { CryptoKey, JWK, JWTPayload } from 'jose';
import { exportJWK, generateKeyPair, SignJWT } from 'jose';

export interface IssuerKey {
  readonly kid: string;
  readonly alg: string;
  readonly privateKey: CryptoKey;
  readonly publicJwk: JWK;
}

export async function newKey(alg = 'RS256', kid = `k-${randomUUID().slice(0, 8)}`): Promise<IssuerKey> {
  const { privateKey, publicKey } = await generateKeyPair(alg, { extractable: true });
  return { kid, alg, privateKey, publicJwk: { ...(await exportJWK(publicKey)), kid, alg, use: 'sig' } };
}

/**
 * An identity provider on 127.0.0.1 as far as a resource server sees one: an OpenID discovery
 * document and a JWKS over HTTP, and access tokens signed with its current key. It counts the
 * requests it answers, can rotate its key, and can go down and come back on the same port.
 */
export class LocalIssuer {
  key!: IssuerKey;
  /** Keys the JWKS publishes (the current one, and any kept beside it). */
  published: IssuerKey[] = [];
  readonly hits = { discovery: 0, jwks: 0 };
  private server: Server | null = null;
  private port = 0;

  private constructor(
    /** Where its metadata is: OpenID discovery, or only RFC 8414's path. */
    private readonly metadataAt: 'openid-configuration' | 'oauth-authorization-server',
    /** What its metadata says its issuer is, when not its own URL (a misconfiguration). */
    private readonly claimsIssuer: string | null,
  ) {}

  static async start(
    alg = 'RS256',
    options: {
      metadataAt?: 'openid-configuration' | 'oauth-authorization-server';
      claimsIssuer?: string;
    } = {},
  ): Promise<LocalIssuer> {
    const issuer = new LocalIssuer(
      options.metadataAt ?? 'openid-configuration',
      options.claimsIssuer ?? null,
    );
    issuer.key = await newKey(alg);
    issuer.published = [issuer.key];
    await issuer.listen(0);
    return issuer;
  }

  get issuer(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  async listen(port: number): Promise<void> {
    const server = createServer((request, response) => {
      const json = (body: unknown) => {
        response.writeHead(200, { 'content-type': 'application/json' });
        response.end(JSON.stringify(body));
      };
      if (request.url === `/.well-known/${this.metadataAt}`) {
        this.hits.discovery++;
        return json({
          issuer: this.claimsIssuer ?? this.issuer,
          jwks_uri: `${this.issuer}/jwks`,
          authorization_endpoint: `${this.issuer}/authorize`,
          token_endpoint: `${this.issuer}/token`,
        });
      }
      if (request.url === '/jwks') {
        this.hits.jwks++;
        return json({ keys: this.published.map((k) => k.publicJwk) });
      }
      response.writeHead(404).end();
    });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, '127.0.0.1', resolve);
    });
    this.server = server;
    this.port = (server.address() as { port: number }).port;
  }

  /** Stops answering (the port stays this issuer's name). */
  async stop(): Promise<void> {
    const server = this.server;
    this.server = null;
    if (!server) return;
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }

  /** A new signing key replaces the old one in the JWKS, as an IdP's rotation does. */
  async rotate(): Promise<IssuerKey> {
    this.key = await newKey(this.key.alg);
    this.published = [this.key];
    return this.key;
  }

  /** An access token: these claims over sensible defaults (iss, iat, exp in 5 minutes, jti). */
  sign(
    claims: JWTPayload & Record<string, unknown>,
    options: { key?: IssuerKey; kid?: string } = {},
  ): Promise<string> {
    const key = options.key ?? this.key;
    const now = Math.floor(Date.now() / 1000);
    return new SignJWT({ iss: this.issuer, iat: now, exp: now + 300, jti: randomUUID(), ...claims })
      .setProtectedHeader({ alg: key.alg, kid: options.kid ?? key.kid, typ: 'at+jwt' })
      .sign(key.privateKey);
  }
}
