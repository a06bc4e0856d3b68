import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, generateKeyPair } from 'jose';
import type { ClientMetadata } from 'oidc-provider';
import Provider from 'oidc-provider';
import { expect } from 'vitest';
import { follow, Jar } from './oauth-by-http.js';

/** What the provider knows of a person: the claims its `email` scope releases. */
export interface IdpAccount {
  readonly email: string;
  readonly email_verified: boolean;
}

/**
 * An organisation's OpenID Connect provider on 127.0.0.1: oidc-provider with a static client,
 * its development sign-in form (the login is the account id, any password), and accounts a test
 * adds. It listens before it knows its clients (Holdfast's redirect URI has Holdfast's port),
 * counts the paths it answers, and can play dead (503 to everything).
 */
export class TestIdp {
  readonly accounts = new Map<string, IdpAccount>();
  readonly hits: string[] = [];
  /** Answers 503 to everything, discovery included, while true. */
  down = false;
  private provider: Provider | null = null;

  private constructor(
    private readonly server: Server,
    /** false: email in the ID token itself; true (oidc-provider's default): only from userinfo. */
    private readonly conformIdTokenClaims: boolean,
    /** The name in its issuer: `localhost` makes it another site than Holdfast at 127.0.0.1. */
    private readonly host: string,
  ) {}

  static async start(
    options: { conformIdTokenClaims?: boolean; host?: '127.0.0.1' | 'localhost' } = {},
  ): Promise<TestIdp> {
    const server = createServer();
    const idp = new TestIdp(server, options.conformIdTokenClaims ?? true, options.host ?? '127.0.0.1');
    server.on('request', (req: IncomingMessage, res: ServerResponse) => idp.answer(req, res));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return idp;
  }

  get issuer(): string {
    return `http://${this.host}:${(this.server.address() as AddressInfo).port}`;
  }

  /** Registers the clients (Holdfast's, with its redirect URI); until then every request is 503. */
  async configure(clients: ClientMetadata[]): Promise<void> {
    const { privateKey } = await generateKeyPair('RS256', { extractable: true });
    this.provider = new Provider(this.issuer, {
      clients,
      jwks: {
        keys: [{ ...(await exportJWK(privateKey)), kid: 'test-idp', alg: 'RS256', use: 'sig' }] as never,
      },
      cookies: { keys: ['test idp cookie key, long enough'] },
      scopes: ['openid', 'email'],
      claims: { openid: ['sub'], email: ['email', 'email_verified'] },
      conformIdTokenClaims: this.conformIdTokenClaims,
      pkce: { required: () => true },
      features: { devInteractions: { enabled: true } },
      findAccount: (_ctx, sub) => {
        const account = this.accounts.get(sub);
        return account ? { accountId: sub, claims: () => ({ sub, ...account }) } : undefined;
      },
    });
  }

  private answer(req: IncomingMessage, res: ServerResponse) {
    this.hits.push(new URL(req.url ?? '/', this.issuer).pathname);
    if (this.down || !this.provider) {
      res.writeHead(503, { 'content-type': 'text/plain' }).end('down');
      return;
    }
    void this.provider.callback()(req, res);
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise((resolve) => this.server.close(resolve));
  }
}

/** The development form's action and the fields it posts. */
function formOf(page: string): string {
  const action = /<form[^>]*action="([^"]+)"/.exec(page)?.[1];
  expect(action, page.slice(0, 500)).toBeDefined();
  return action!.replace(/&amp;/g, '&');
}

/**
 * A person at the provider, driven by HTTP as a browser would be: from Holdfast's redirect,
 * through the provider's sign-in form (as `account`) and consent, until the provider sends the
 * browser back to Holdfast. Returns where it sends it (the callback URL, not yet opened).
 */
export async function throughIdp(
  authorizationUrl: URL,
  holdfastOrigin: string,
  account: string,
  idpJar = new Jar(''),
) {
  const post = (url: URL, fields: Record<string, string>) =>
    follow(url, idpJar, holdfastOrigin, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams(fields),
    });
  let step = await follow(authorizationUrl, idpJar, holdfastOrigin);
  for (let i = 0; i < 4 && !step.url.href.startsWith(holdfastOrigin); i++) {
    const page = await step.answer.text();
    expect(step.answer.status, page.slice(0, 500)).toBe(200);
    const action = new URL(formOf(page), step.url);
    step = page.includes('name="login"')
      ? await post(action, { prompt: 'login', login: account, password: 'any' })
      : await post(action, { prompt: 'consent' });
  }
  expect(step.url.href.startsWith(holdfastOrigin), step.url.href).toBe(true);
  return step.url;
}
