import { Client, StreamableHTTPClientTransport, UnauthorizedError } from '@modelcontextprotocol/client';
import { expect } from 'vitest';
import type { TestOAuthHost } from './oauth-host.js';
import { signIn } from './person.js';

/** A cookie jar of name=value pairs, paths ignored (every cookie here is the server's own). */
export class Jar {
  private readonly cookies = new Map<string, string>();
  constructor(initial: string) {
    this.take([initial]);
  }
  take(pairs: readonly string[]) {
    for (const pair of pairs) {
      const [name, value = ''] = pair.split(';')[0]!.split(/=(.*)/s);
      if (value === '') this.cookies.delete(name!);
      else this.cookies.set(name!, value);
    }
  }
  header() {
    return [...this.cookies].map(([n, v]) => `${n}=${v}`).join('; ');
  }
}

/** Follows redirects by hand, carrying cookies, until one leaves for `stopAt` or a page answers. */
export async function follow(url: URL, jar: Jar, stopAt: string, init: RequestInit = {}) {
  let answer = await fetch(url, {
    ...init,
    redirect: 'manual',
    headers: { ...init.headers, cookie: jar.header() },
  });
  for (let hops = 0; hops < 10; hops++) {
    jar.take(answer.headers.getSetCookie());
    const location = answer.headers.get('location');
    if (answer.status < 300 || answer.status >= 400 || !location) return { answer, url };
    url = new URL(location, url);
    if (url.href.startsWith(stopAt)) return { answer, url };
    answer = await fetch(url, { redirect: 'manual', headers: { cookie: jar.header() } });
  }
  throw new Error('too many redirects');
}

/**
 * The person's side of an authorization without a browser: sign in, open the authorization
 * URL, tick the scopes, choose the policy, allow. Returns the code the host's redirect got.
 */
export async function consentByHttp(
  server: { url: string; agent: { email: string; password: string } },
  authorizationUrl: URL,
  redirectUri: string,
  choice: { policy: string; scopes?: readonly string[] },
): Promise<{ code: string; iss: string | undefined }> {
  const jar = new Jar(await signIn(server.url, server.agent.email, server.agent.password));
  const consent = await follow(authorizationUrl, jar, redirectUri);
  const page = await consent.answer.text();
  expect(consent.url.pathname, page.slice(0, 300)).toMatch(/^\/oauth\/interaction\//);
  const csrf = /action="\/oauth\/interaction\/[^"]+"[\s\S]*?name="csrf" value="([^"]+)"/.exec(page)?.[1];
  const offered = [...page.matchAll(/name="scope"\s+value="([^"]+)"\s*(checked)?/g)];
  const scopes = choice.scopes ?? offered.filter((m) => m[2]).map((m) => m[1]!);
  const form = new URLSearchParams({ csrf: csrf ?? '', writePolicy: choice.policy, decision: 'allow' });
  for (const s of scopes) form.append('scope', s);
  const done = await follow(consent.url, jar, redirectUri, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', origin: consent.url.origin },
    body: form,
  });
  expect(done.url.href.startsWith(redirectUri), `${done.answer.status} ${done.url.href}`).toBe(true);
  const code = done.url.searchParams.get('code');
  expect(code, done.url.href).toBeTruthy();
  return { code: code!, iss: done.url.searchParams.get('iss') ?? undefined };
}

/** A host connects through OAuth, the person consenting by HTTP; returns the connected client. */
export async function connectByHttp(
  server: { url: string; agent: { email: string; password: string } },
  host: TestOAuthHost,
  choice: { policy: string; scopes?: readonly string[] } = { policy: 'draft' },
): Promise<Client> {
  const mcp = new URL('/mcp', server.url);
  const first = new StreamableHTTPClientTransport(mcp, { authProvider: host });
  const refused = await new Client({ name: 'remote-host', version: '1.0.0' }).connect(first).then(
    () => null,
    (error: unknown) => error,
  );
  if (refused) {
    expect(refused).toBeInstanceOf(UnauthorizedError);
    const { code, iss } = await consentByHttp(server, host.authorizationUrl!, host.redirectUrl, choice);
    await first.finishAuth(code, iss);
  }
  const client = new Client({ name: 'remote-host', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(mcp, { authProvider: host }));
  return client;
}
