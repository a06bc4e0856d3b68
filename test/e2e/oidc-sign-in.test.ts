import { randomUUID } from 'node:crypto';
import { request } from 'node:http';
import type { Client } from '@modelcontextprotocol/client';
import { askForApproval } from '../support/approvals.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createOpenCalendar, futureHour } from '../support/fixtures.js';
import { call, connectHttp } from '../support/mcp-clients.js';
import { Jar } from '../support/oauth-by-http.js';
import { throughIdp, TestIdp } from '../support/oidc-idp.js';
import { decideOnPage } from '../support/person.js';
import type { RunningServer } from '../support/spawn-server.js';
import { runCli, spawnServer, untilSealed } from '../support/spawn-server.js';

const CLIENT_ID = 'holdfast-pages';
const CLIENT_SECRET = 'confidential-client-secret-of-the-test-provider';
const STATE_COOKIE = 'holdfast_login_oidc';

const sessionCookie = (r: Response) =>
  r.headers
    .getSetCookie()
    .map((c) => c.split(';')[0]!)
    .find((c) => /^holdfast_session=.+/.test(c));

/** Leaves for the provider from Holdfast's /login/oidc, as the button does. */
async function begin(origin: string, next: string, jar = new Jar('')) {
  const left = await fetch(`${origin}/login/oidc?next=${encodeURIComponent(next)}`, {
    redirect: 'manual',
    headers: { cookie: jar.header() },
  });
  expect(left.status, await left.clone().text()).toBe(303);
  jar.take(left.headers.getSetCookie());
  return { jar, authorizationUrl: new URL(left.headers.get('location')!), left };
}

/** The browser arriving back at Holdfast's callback with what its jar holds. */
async function arrive(url: URL, jar: Jar) {
  const answer = await fetch(url, { redirect: 'manual', headers: { cookie: jar.header() } });
  jar.take(answer.headers.getSetCookie());
  return { answer, page: await answer.text() };
}

/** Whether a session cookie opens a page only a signed-in person sees. */
async function opensAccount(origin: string, cookie: string | undefined) {
  if (!cookie) return false;
  const account = await fetch(`${origin}/account`, { redirect: 'manual', headers: { cookie } });
  return account.status === 200;
}

describe('signing in to the pages through the organisation’s OpenID Connect provider', () => {
  let idp: TestIdp;
  let server: RunningServer;
  let origin: string;
  /** Every attack tried, and whether it got anyone a session. */
  const attacks: { name: string; signedIn: boolean }[] = [];
  const attack = (name: string, answer: Response, expected: number) => {
    attacks.push({ name, signedIn: sessionCookie(answer) !== undefined });
    expect(answer.status, name).toBe(expected);
  };

  beforeAll(async () => {
    idp = await TestIdp.start();
    server = await spawnServer(
      [
        '--login-issuer',
        idp.issuer,
        '--login-client-id',
        CLIENT_ID,
        '--login-name',
        'Acme SSO',
        '--allow-private-upstreams',
      ],
      { env: { HOLDFAST_LOGIN_CLIENT_SECRET: CLIENT_SECRET } },
    );
    origin = new URL(server.url).origin;
    await idp.configure([
      {
        client_id: CLIENT_ID,
        client_secret: CLIENT_SECRET,
        token_endpoint_auth_method: 'client_secret_post',
        redirect_uris: [`${origin}/login/oidc/callback`],
        grant_types: ['authorization_code'],
        response_types: ['code'],
      },
    ]);
    // The owner's address as the provider spells it: other case, same person.
    idp.accounts.set('owner', { email: server.agent.email.toUpperCase(), email_verified: true });
    idp.accounts.set('stranger', { email: 'stranger@elsewhere.example', email_verified: true });
    idp.accounts.set('unverified', { email: server.agent.email, email_verified: false });
  });
  afterAll(async () => {
    await server?.stop();
    await idp?.close();
  });

  it('shows "Sign in with Acme SSO" on /login, a plain link carrying next', async () => {
    const page = await (await fetch(`${origin}/login?next=%2Faccount`)).text();
    expect(page).toContain('Sign in with Acme SSO');
    expect(page).toContain('href="/login/oidc?next=%2Faccount"');
    // Started at localhost, the attempt first moves to the callback's own name, or its cookie would not come back.
    const elsewhere = await fetch(`http://localhost:${server.port}/login/oidc?next=%2Faccount`, {
      redirect: 'manual',
    });
    expect(elsewhere.status).toBe(303);
    expect(elsewhere.headers.get('location')).toBe(`${origin}/login/oidc?next=%2Faccount`);
    expect(elsewhere.headers.getSetCookie()).toEqual([]);
  });

  it('the owner signs in through the provider, opens /account, and approves a booking', async () => {
    const { jar, authorizationUrl, left } = await begin(origin, '/account');
    // Code flow with PKCE S256, state and nonce, for the registered redirect URI.
    expect(authorizationUrl.origin).toBe(idp.issuer);
    const params = authorizationUrl.searchParams;
    expect(params.get('response_type')).toBe('code');
    expect(params.get('client_id')).toBe(CLIENT_ID);
    expect(params.get('redirect_uri')).toBe(`${origin}/login/oidc/callback`);
    expect(params.get('scope')).toBe('openid email');
    expect(params.get('code_challenge_method')).toBe('S256');
    expect(params.get('code_challenge')).toMatch(/^[\w-]{43}$/);
    expect(params.get('state')).toMatch(/^[\w-]{20,}$/);
    expect(params.get('nonce')).toMatch(/^[\w-]{20,}$/);
    // The attempt's cookie: HttpOnly, Lax (it must come back on the provider's redirect), ten minutes.
    const stateCookie = left.headers.getSetCookie().find((c) => c.startsWith(`${STATE_COOKIE}=`))!;
    expect(stateCookie).toMatch(/HttpOnly/i);
    expect(stateCookie).toMatch(/SameSite=Lax/i);
    expect(stateCookie).toMatch(/Max-Age=600/i);
    // Sealed: neither the verifier, the state nor the next page can be read from it.
    expect(decodeURIComponent(stateCookie)).not.toContain(params.get('state')!);
    expect(decodeURIComponent(stateCookie)).not.toContain('/account');

    const callbackUrl = await throughIdp(authorizationUrl, origin, 'owner');
    expect(callbackUrl.pathname).toBe('/login/oidc/callback');
    const { answer, page } = await arrive(callbackUrl, jar);
    expect(answer.status, page).toBe(200);
    expect(answer.headers.get('refresh')).toBe('0; url=/account');
    expect(page).toContain(`Signed in as ${server.agent.email}`);
    const set = answer.headers.getSetCookie();
    const session = set.find((c) => c.startsWith('holdfast_session='))!;
    expect(session).toMatch(/HttpOnly/i);
    expect(session).toMatch(/SameSite=Strict/i);
    // The attempt is over: its cookie is cleared.
    expect(set.some((c) => new RegExp(`^${STATE_COOKIE}=;`).test(c))).toBe(true);
    // The ID token carried no email (oidc-provider's default): it came from userinfo for the same sub.
    expect(idp.hits).toContain('/me');

    const cookie = sessionCookie(answer)!;
    const account = await fetch(`${origin}/account`, { headers: { cookie } });
    const accountPage = (await account.text()).replace(/\s+/g, ' ');
    expect(account.status).toBe(200);
    expect(accountPage).toContain(server.agent.email);
    expect(accountPage).toContain('signed in through the identity provider');

    // A page that needs a signed-in approver: the approval page, and the booking confirms.
    const agent: Client = await connectHttp(server.url, 'modern');
    try {
      const room = await createOpenCalendar(agent, 'SSO room');
      const { booking, details } = await askForApproval(agent, room, futureHour(3, 1), futureHour(3, 2));
      const decided = await decideOnPage(details.approveUrl, cookie, 'approve');
      expect(decided.status, decided.result).toBe(200);
      const done = await call(agent, 'confirm_booking', {
        bookingId: booking.id,
        expectedVersion: 1,
        idempotencyKey: randomUUID(),
        approval: { approvalId: details.approvalId },
      });
      expect(done.ok, JSON.stringify(done.error)).toBe(true);
    } finally {
      await agent.close();
    }
  });

  it('a person added without a password signs in through the provider; once disabled, no longer', async () => {
    const added = await runCli([
      'users',
      'add',
      'ana@acme.example',
      '--role',
      'approver',
      '--db',
      server.dbPath,
    ]);
    expect(added.status, added.stderr).toBe(0);
    idp.accounts.set('ana', { email: 'ana@acme.example', email_verified: true });
    const first = await begin(origin, '/');
    const signed = await arrive(await throughIdp(first.authorizationUrl, origin, 'ana'), first.jar);
    expect(signed.answer.status, signed.page).toBe(200);
    expect(await opensAccount(origin, sessionCookie(signed.answer))).toBe(true);

    expect((await runCli(['users', 'disable', 'ana@acme.example', '--db', server.dbPath])).status).toBe(0);
    // Her old session is gone with her, and the provider cannot bring her back.
    expect(await opensAccount(origin, sessionCookie(signed.answer))).toBe(false);
    const again = await begin(origin, '/');
    const refused = await arrive(await throughIdp(again.authorizationUrl, origin, 'ana'), again.jar);
    attack('a disabled person through the provider', refused.answer, 403);
  });

  it('refuses, with one message that says nothing more, an unknown email and an unverified one', async () => {
    const pages: string[] = [];
    for (const account of ['stranger', 'unverified']) {
      const { jar, authorizationUrl } = await begin(origin, '/account');
      const { answer, page } = await arrive(await throughIdp(authorizationUrl, origin, account), jar);
      attack(`provider account "${account}"`, answer, 403);
      expect(page).not.toMatch(/stranger@|unverified|unknown|email_verified/i);
      pages.push(/<p>([^<]*)<\/p>/.exec(page)![1]!);
    }
    expect(pages[0]).toContain('This Acme SSO account cannot sign in to Holdfast');
    expect(pages[1]).toBe(pages[0]);
  });

  it('refuses a changed state, a replayed callback, a callback without its cookie or with another attempt’s', async () => {
    // Changed state: the cookie's attempt does not match what comes back.
    const a = await begin(origin, '/');
    const aBack = await throughIdp(a.authorizationUrl, origin, 'owner');
    const changed = new URL(aBack);
    changed.searchParams.set('state', `${aBack.searchParams.get('state')}x`);
    attack('changed state', (await arrive(changed, new Jar(a.jar.header()))).answer, 400);

    // The untouched callback once (it works), then again with the same cookie: the code is spent.
    const b = await begin(origin, '/');
    const bBack = await throughIdp(b.authorizationUrl, origin, 'owner');
    const kept = b.jar.header();
    expect((await arrive(bBack, b.jar)).answer.status).toBe(200);
    attack('replayed callback with its cookie', (await arrive(bBack, new Jar(kept))).answer, 400);

    // Another browser (no cookie) opening someone's callback: login CSRF or a stolen link.
    const c = await begin(origin, '/');
    const cBack = await throughIdp(c.authorizationUrl, origin, 'owner');
    attack('callback without the cookie', (await arrive(cBack, new Jar(''))).answer, 400);

    // The victim's own attempt cookie with the attacker's callback (code and state of another attempt).
    const victim = await begin(origin, '/');
    attack('another attempt’s callback', (await arrive(cBack, victim.jar)).answer, 400);

    // A cookie the browser made up, or changed by one character.
    const forged = new Jar(`${STATE_COOKIE}=${Buffer.alloc(120, 7).toString('base64url')}`);
    const d = await begin(origin, '/');
    const dBack = await throughIdp(d.authorizationUrl, origin, 'owner');
    attack('forged cookie', (await arrive(dBack, forged)).answer, 400);
    const sealed = /holdfast_login_oidc=([^;]+)/.exec(d.jar.header())![1]!;
    const flipped = `${sealed.slice(0, 30)}${sealed[30] === 'A' ? 'B' : 'A'}${sealed.slice(31)}`;
    attack('changed cookie', (await arrive(dBack, new Jar(`${STATE_COOKIE}=${flipped}`))).answer, 400);
  });

  it('refuses when the provider answers with an error, and says so plainly', async () => {
    const { jar, authorizationUrl } = await begin(origin, '/');
    const back = new URL(`${origin}/login/oidc/callback`);
    back.searchParams.set('error', 'access_denied');
    back.searchParams.set('state', authorizationUrl.searchParams.get('state')!);
    back.searchParams.set('iss', idp.issuer);
    const { answer, page } = await arrive(back, jar);
    attack('provider error answer', answer, 403);
    expect(page).toContain('Acme SSO did not sign you in.');
  });

  it('lands on this site only: next of https://evil.example, //evil.example or /\\evil.example ends at /', async () => {
    for (const next of ['https://evil.example/', '//evil.example/x', '/\\evil.example']) {
      const { jar, authorizationUrl } = await begin(origin, next);
      const { answer } = await arrive(await throughIdp(authorizationUrl, origin, 'owner'), jar);
      expect(answer.status).toBe(200);
      expect(answer.headers.get('refresh')).toBe('0; url=/');
      attacks.push({ name: `next ${next}`, signedIn: !/url=\/$/.test(answer.headers.get('refresh') ?? '') });
    }
  });

  it('a bearer token still opens no page', async () => {
    const headers = { authorization: `Bearer ${server.agent.token}` };
    const account = await fetch(`${origin}/account`, { redirect: 'manual', headers });
    attack('bearer token on /account', account, 303);
    expect(account.headers.get('location')).toMatch(/^\/login/);
    const login = await (await fetch(`${origin}/login`, { headers })).text();
    expect(login).not.toContain('Signed in as');
  });

  it('counts failed callbacks against the address: its password sign-ins then wait too', async () => {
    const port = new URL(origin).port;
    const statuses: number[] = [];
    for (let i = 0; i < 20; i++)
      statuses.push(await from('127.0.0.78', port, 'GET', '/login/oidc/callback?code=x&state=y', ''));
    expect(statuses.every((s) => s === 400)).toBe(true);
    const form = await fetch(`${origin}/login`);
    const csrf = /name="csrf" value="([^"]+)"/.exec(await form.text())![1]!;
    const cookie = form.headers
      .getSetCookie()
      .map((c) => c.split(';')[0])
      .join('; ');
    const body = new URLSearchParams({ csrf, email: server.agent.email, password: server.agent.password });
    expect(await from('127.0.0.78', port, 'POST', '/login', body.toString(), cookie)).toBe(429);
  });

  it('audits every sign-in through the provider and every refusal with its reason', async () => {
    await untilSealed(server.dbPath);
    const tail = await runCli(['audit', 'tail', '-n', '200', '--json', '--db', server.dbPath]);
    expect(tail.status, tail.stderr).toBe(0);
    const records = tail.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { tool: string; outcome: string; subject: string; preview: string })
      .filter((r) => r.tool === 'sign_in_oidc');
    expect(records.some((r) => r.outcome === 'ok' && r.subject === server.agent.personId)).toBe(true);
    const reasons = records.filter((r) => r.outcome === 'error').map((r) => r.preview);
    for (const reason of [
      'unknown_person',
      'email_unverified',
      'disabled_person',
      'state_mismatch',
      'no_state',
      'token_refused',
      'provider_error',
    ])
      expect(
        reasons.some((p) => p.includes(reason)),
        reason,
      ).toBe(true);
    // No email address of anyone is written into the trail in the clear.
    expect(tail.stdout).not.toContain('stranger@elsewhere.example');
  });

  it('no attack got anyone a session', () => {
    expect(attacks.length).toBeGreaterThanOrEqual(14);
    expect(attacks.filter((a) => a.signedIn)).toEqual([]);
  });
});

describe('a public client, and a provider that is down at first', () => {
  let idp: TestIdp;
  let server: RunningServer;
  let origin: string;

  beforeAll(async () => {
    // This provider puts the email into the ID token itself: no userinfo call.
    idp = await TestIdp.start({ conformIdTokenClaims: false });
    idp.down = true;
    server = await spawnServer([
      '--login-issuer',
      idp.issuer,
      '--login-client-id',
      'holdfast-public',
      '--allow-private-upstreams',
    ]);
    origin = new URL(server.url).origin;
    await idp.configure([
      {
        client_id: 'holdfast-public',
        token_endpoint_auth_method: 'none',
        redirect_uris: [`${origin}/login/oidc/callback`],
        grant_types: ['authorization_code'],
        response_types: ['code'],
      },
    ]);
    idp.accounts.set('owner', { email: server.agent.email, email_verified: true });
  });
  afterAll(async () => {
    await server?.stop();
    await idp?.close();
  });

  it('answers 503 with Retry-After while the provider is down, keeps serving, and recovers by itself', async () => {
    const down = await fetch(`${origin}/login/oidc?next=%2F`, { redirect: 'manual' });
    expect(down.status).toBe(503);
    expect(down.headers.get('retry-after')).toBe('30');
    const page = await down.text();
    expect(page).toContain('does not answer right now');
    expect((await fetch(`${origin}/healthz`)).status).toBe(200);
    // Without --login-name, the button names the issuer's host.
    expect(await (await fetch(`${origin}/login`)).text()).toContain(
      `Sign in with ${new URL(idp.issuer).host}`,
    );

    idp.down = false;
    const deadline = Date.now() + 20_000;
    let status = 503;
    while (status !== 303 && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 500));
      status = (await fetch(`${origin}/login/oidc`, { redirect: 'manual' })).status;
    }
    expect(status).toBe(303);
    expect(server.logs.join('')).toContain('identity provider unavailable for sign-in');
  });

  it('signs the owner in with PKCE alone (no secret), from the ID token’s email', async () => {
    const before = idp.hits.length;
    const { jar, authorizationUrl } = await begin(origin, '/account');
    const { answer, page } = await arrive(await throughIdp(authorizationUrl, origin, 'owner'), jar);
    expect(answer.status, page).toBe(200);
    expect(await opensAccount(origin, sessionCookie(answer))).toBe(true);
    expect(idp.hits.slice(before)).toContain('/token');
    expect(idp.hits.slice(before)).not.toContain('/me');
  });
});

/** A request from another loopback address than 127.0.0.1 (its failures count there). */
function from(localAddress: string, port: string, method: string, path: string, body: string, cookie = '') {
  return new Promise<number>((resolve, reject) => {
    const req = request(
      {
        host: '127.0.0.1',
        port: Number(port),
        localAddress,
        path,
        method,
        headers: { 'content-type': 'application/x-www-form-urlencoded', cookie },
      },
      (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode!));
      },
    );
    req.once('error', reject);
    req.end(body);
  });
}
