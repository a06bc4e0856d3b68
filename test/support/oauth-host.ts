import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { OAuthClientProvider } from '@modelcontextprotocol/client';

type Stored<K extends keyof OAuthClientProvider> = OAuthClientProvider[K] extends (...a: never[]) => infer R
  ? Awaited<R>
  : never;

/**
 * An agent host as the SDK's OAuth support sees it: it remembers its registration, tokens and
 * PKCE verifier in memory, and hands the authorization URL to whoever plays the person's
 * browser. The redirect lands on a real loopback HTTP server that keeps the code.
 */
export class TestOAuthHost implements OAuthClientProvider {
  authorizationUrl: URL | undefined;
  private information: Stored<'clientInformation'>;
  private stored: Stored<'tokens'>;
  private verifier = '';
  private constructor(
    readonly redirectUrl: string,
    readonly callbacks: URLSearchParams[],
    private readonly server: ReturnType<typeof createServer>,
    private readonly name: string,
    readonly clientMetadataUrl?: string,
  ) {}

  static async start(name = 'Test agent host', clientMetadataUrl?: string): Promise<TestOAuthHost> {
    const callbacks: URLSearchParams[] = [];
    const server = createServer((request, response) => {
      callbacks.push(new URL(request.url ?? '/', 'http://127.0.0.1').searchParams);
      response
        .writeHead(200, { 'content-type': 'text/html' })
        .end('<h1 id="done">You can close this tab.</h1>');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    return new TestOAuthHost(`http://127.0.0.1:${port}/callback`, callbacks, server, name, clientMetadataUrl);
  }

  get clientMetadata() {
    return {
      client_name: this.name,
      redirect_uris: [this.redirectUrl],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
    };
  }
  clientInformation() {
    return this.information;
  }
  saveClientInformation(info: Stored<'clientInformation'>) {
    this.information = info;
  }
  tokens() {
    return this.stored;
  }
  saveTokens(tokens: Stored<'tokens'>) {
    this.stored = tokens;
  }
  forgetTokens() {
    this.stored = undefined;
  }
  private discovery: unknown;
  saveDiscoveryState(state: unknown) {
    this.discovery = state;
  }
  discoveryState() {
    return this.discovery as never;
  }
  redirectToAuthorization(url: URL) {
    this.authorizationUrl = url;
  }
  saveCodeVerifier(verifier: string) {
    this.verifier = verifier;
  }
  codeVerifier() {
    return this.verifier;
  }
  close() {
    return new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}
