import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, connectHttp } from '../support/mcp-clients.js';
import { signIn } from '../support/person.js';
import type { RunningServer } from '../support/spawn-server.js';
import { spawnServer } from '../support/spawn-server.js';

let server: RunningServer;
let origin: string;
beforeAll(async () => {
  server = await spawnServer(['--no-seed']);
  origin = new URL(server.url).origin;
});
afterAll(() => server?.stop());

const cookiePairs = (r: Response) => r.headers.getSetCookie().map((c) => c.split(';')[0]!);

async function loginForm(at = origin) {
  const page = await fetch(new URL('/login', at));
  return { csrf: /name="csrf" value="([^"]+)"/.exec(await page.text())![1]!, cookies: cookiePairs(page) };
}

async function postLogin(email: string, password: string, extraCookie?: string) {
  const form = await loginForm();
  return fetch(new URL('/login', origin), {
    method: 'POST',
    redirect: 'manual',
    headers: {
      'content-type': 'application/x-www-form-urlencoded',
      cookie: [...form.cookies, ...(extraCookie ? [extraCookie] : [])].join('; '),
    },
    body: new URLSearchParams({ csrf: form.csrf, email, password, next: '/approvals/x' }),
  });
}

describe('signing in on the human pages', () => {
  it('sets an HttpOnly, SameSite=Strict session cookie, a new one at every sign-in (a planted one is not kept)', async () => {
    const planted = 'holdfast_session=hf_session_planted-by-an-attacker';
    const first = await postLogin(server.agent.email, server.agent.password, planted);
    expect(first.status).toBe(303);
    expect(first.headers.get('location')).toBe('/approvals/x');
    const set = first.headers.getSetCookie().find((c) => c.startsWith('holdfast_session='))!;
    expect(set).toMatch(/HttpOnly/i);
    expect(set).toMatch(/SameSite=Strict/i);
    expect(set).toMatch(/Path=\//i);
    expect(set).not.toMatch(/Secure/i); // plain http on loopback: a Secure cookie would never come back
    const second = await postLogin(server.agent.email, server.agent.password);
    const [a, b] = [cookiePairs(first), cookiePairs(second)].map((l) =>
      l.find((c) => c.startsWith('holdfast_session=')),
    );
    expect(a).not.toBe(planted);
    expect(a).not.toBe(b);
  });

  it('refuses a POST without its CSRF token: sign-in and sign-out', async () => {
    const noToken = await fetch(new URL('/login', origin), {
      method: 'POST',
      redirect: 'manual',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ email: server.agent.email, password: server.agent.password }),
    });
    expect(noToken.status).toBe(403);
    expect(cookiePairs(noToken).some((c) => c.startsWith('holdfast_session='))).toBe(false);
    const cookie = await signIn(origin, server.agent.email, server.agent.password);
    const logout = await fetch(new URL('/logout', origin), {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', cookie },
      body: new URLSearchParams({}),
    });
    expect(logout.status).toBe(403);
  });

  it('signing out ends the session: its cookie is nobody afterwards', async () => {
    const cookie = await signIn(origin, server.agent.email, server.agent.password);
    const signedIn = await (await fetch(new URL('/login', origin), { headers: { cookie } })).text();
    expect(signedIn).toContain(`Signed in as ${server.agent.email}`);
    const csrf = /action="\/logout"[\s\S]*?name="csrf" value="([^"]+)"/.exec(signedIn)![1]!;
    const out = await fetch(new URL('/logout', origin), {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', cookie },
      body: new URLSearchParams({ csrf }),
    });
    expect(out.status).toBe(200);
    const after = await (await fetch(new URL('/login', origin), { headers: { cookie } })).text();
    expect(after).not.toContain('Signed in as');
    // The same token again, with the dead cookie: refused.
    const replay = await fetch(new URL('/logout', origin), {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', cookie },
      body: new URLSearchParams({ csrf }),
    });
    expect(replay.status).toBe(403);
  });

  it('counts failures per source address: an agent failing from 127.0.0.77 does not lock out 127.0.0.1', async () => {
    const page = await fetch(new URL('/login', origin));
    const cookie = cookiePairs(page).join('; ');
    const csrf = /name="csrf" value="([^"]+)"/.exec(await page.text())![1]!;
    const statuses: number[] = [];
    for (let i = 0; i < 21; i++) {
      const answer = await postFrom('127.0.0.77', new URL(origin).port, cookie, {
        csrf,
        email: `nobody${i}@local.example`,
        password: 'wrong guess, long enough',
      });
      statuses.push(answer);
    }
    expect(statuses.slice(0, 20).every((s) => s === 403)).toBe(true);
    expect(statuses[20]).toBe(429);
    // The person on the other address signs in as usual.
    expect((await postLogin(server.agent.email, server.agent.password)).status).toBe(303);
  });

  it('limits guessing: 429 with Retry-After, and then even the right password waits', async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 6; i++)
      statuses.push((await postLogin(server.agent.email, `wrong guess ${i}`)).status);
    expect(statuses).toEqual([403, 403, 403, 403, 403, 429]);
    const right = await postLogin(server.agent.email, server.agent.password);
    expect(right.status).toBe(429);
    expect(Number(right.headers.get('retry-after'))).toBeGreaterThan(0);
  });
});

describe('the forms take small urlencoded bodies only', () => {
  it('refuses multipart (415) and oversized bodies (413) on every form route, before any parsing', async () => {
    for (const path of ['/login', '/logout', '/setup/hf_setup_x', '/approvals/x', '/pay/bk_x']) {
      const multipart = await fetch(new URL(path, origin), {
        method: 'POST',
        headers: { 'content-type': 'multipart/form-data; boundary=zzz' },
        body: 'garbage',
      });
      expect(multipart.status, path).toBe(415);
      const huge = await fetch(new URL(path, origin), {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: `email=${'a'.repeat(64 * 1024)}`,
      });
      expect(huge.status, path).toBe(413);
    }
  });
});

/** POST /login from another loopback source address; resolves with the status. */
function postFrom(localAddress: string, port: string, cookie: string, fields: Record<string, string>) {
  return new Promise<number>((resolve, reject) => {
    const req = request(
      {
        host: '127.0.0.1',
        port: Number(port),
        localAddress,
        path: '/login',
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded', cookie },
      },
      (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode!));
      },
    );
    req.once('error', reject);
    req.end(new URLSearchParams(fields).toString());
  });
}

/** A request naming another Host than the address it goes to, as a proxy in front would send it. */
function viaProxy(
  port: number,
  path: string,
  host: string,
  options: { method?: string; body?: string; cookie?: string } = {},
) {
  return new Promise<{
    status: number;
    headers: Record<string, string | string[] | undefined>;
    body: string;
  }>((resolve, reject) => {
    const req = request(
      {
        host: '127.0.0.1',
        port,
        path,
        method: options.method ?? 'GET',
        headers: {
          host,
          'x-forwarded-proto': 'https',
          ...(options.body ? { 'content-type': 'application/x-www-form-urlencoded' } : {}),
          ...(options.cookie ? { cookie: options.cookie } : {}),
        },
      },
      (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (body += chunk));
        res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body }));
      },
    );
    req.once('error', reject);
    req.end(options.body);
  });
}

describe('leaving loopback', () => {
  const https = ['--public-url', 'https://holdfast.example', '--trust-proxy'];

  it('refuses plain HTTP off loopback, or a TLS claim without --trust-proxy, with the reason', async () => {
    for (const args of [
      ['--host', '0.0.0.0'],
      ['--host', '0.0.0.0', '--public-url', 'http://holdfast.example', '--trust-proxy'],
      ['--host', '0.0.0.0', '--public-url', 'https://holdfast.example'],
    ]) {
      const refused = await spawnServer(args).then(
        async (s) => (await s.stop(), 'served'),
        (e: Error) => e.message,
      );
      expect(refused).toContain('Refusing to bind 0.0.0.0');
      expect(refused).toContain('--public-url https://');
      expect(refused).toContain('--trust-proxy');
    }
  });

  it('refuses when nobody can sign in yet, even behind TLS', async () => {
    const refused = await spawnServer(['--host', '0.0.0.0', ...https], { provision: false }).then(
      async (s) => (await s.stop(), 'served'),
      (e: Error) => e.message,
    );
    expect(refused).toContain('nobody can sign in yet');
  });

  it('serves behind a TLS proxy with people: tokens on /mcp, __Host- Secure session cookies on the pages', async () => {
    const open = await spawnServer(['--host', '0.0.0.0', ...https, '--no-seed']);
    try {
      const port = open.port;
      const agent = await connectHttp(`http://127.0.0.1:${port}/mcp`, 'modern', { token: open.agent.token });
      expect((await call(agent, 'list_calendars', { limit: 5 })).ok).toBe(true);
      await agent.close();
      const form = await viaProxy(port, '/login', 'holdfast.example');
      expect(form.status).toBe(200);
      const csrf = /name="csrf" value="([^"]+)"/.exec(form.body)![1]!;
      const loginCookie = (form.headers['set-cookie'] as string[]).map((c) => c.split(';')[0]).join('; ');
      const posted = await viaProxy(port, '/login', 'holdfast.example', {
        method: 'POST',
        cookie: loginCookie,
        body: new URLSearchParams({
          csrf,
          email: open.agent.email,
          password: open.agent.password,
        }).toString(),
      });
      expect(posted.status).toBe(303);
      const session = (posted.headers['set-cookie'] as string[]).find((c) =>
        c.startsWith('__Host-holdfast_session='),
      );
      expect(session).toMatch(/Secure/i);
      expect(session).toMatch(/HttpOnly/i);
      expect(session).toMatch(/Path=\//i);
      expect(session).not.toMatch(/Domain=/i);
    } finally {
      await open.stop();
    }
  });
});

describe('the first owner of a fresh install', () => {
  it('comes from the one-time link serve prints; no password exists before; the link works once', async () => {
    const fresh = await spawnServer(['--no-seed'], { provision: false });
    try {
      const linkIn = () =>
        /Open this link[^\n]*\n\s+(http:\/\/\S+\/setup\/hf_setup_\S+)/.exec(fresh.logs.join(''));
      // Printed just after the server starts listening.
      for (let i = 0; i < 100 && !linkIn(); i++) await new Promise((r) => setTimeout(r, 50));
      const printed = linkIn();
      expect(printed, fresh.logs.join('')).not.toBeNull();
      const link = printed![1]!;
      expect((await fetch(link)).status).toBe(200);
      const created = await fetch(link, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({
          email: 'first@owner.example',
          name: 'First',
          password: 'a very long password',
        }),
      });
      expect(created.status).toBe(200);
      expect((await fetch(link)).status).toBe(404);
      const again = await fetch(link, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ email: 'second@owner.example', password: 'a very long password' }),
      });
      expect(again.status).toBe(404);
      await signIn(new URL(fresh.url).origin, 'first@owner.example', 'a very long password');
    } finally {
      await fresh.stop();
    }
  });
});
