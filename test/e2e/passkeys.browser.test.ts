import Database from 'better-sqlite3';
import type { Client } from '@modelcontextprotocol/client';
import type { Browser, BrowserContext, CDPSession, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { askForApproval } from '../support/approvals.js';
import { launchBrowser, releaseBrowser } from '../support/browser.js';
import { createOpenCalendar, futureHour } from '../support/fixtures.js';
import { connectHttp } from '../support/mcp-clients.js';
import { addPersonWithPassword, signIn } from '../support/person.js';
import type { RunningServer } from '../support/spawn-server.js';
import { runCli, spawnServer } from '../support/spawn-server.js';

// A person adds a passkey in a real Chromium (a virtual authenticator stands in for the
// fingerprint reader), signs in with it and approves. Then the agent, and a second person,
// try what they can with what they can see: none of it may sign anybody in.

let server: RunningServer;
let agent: Client;
let browser: Browser;
let context: BrowserContext;
let page: Page;
let cdp: CDPSession;
let room: string;
/** The site passkeys belong to: a name, since browsers refuse an IP address as a relying party. */
let site: string;

beforeAll(async () => {
  server = await spawnServer(['--no-seed']);
  site = `http://localhost:${server.port}`;
  agent = await connectHttp(server.url, 'modern');
  room = await createOpenCalendar(agent, 'Studio 9', { amount: '80.00', currency: 'EUR' });
  browser = await launchBrowser();
  context = await browser.newContext();
  page = await context.newPage();
  cdp = await context.newCDPSession(page);
  await cdp.send('WebAuthn.enable');
  await cdp.send('WebAuthn.addVirtualAuthenticator', {
    options: {
      protocol: 'ctap2',
      transport: 'internal',
      hasResidentKey: true,
      hasUserVerification: true,
      isUserVerified: true,
      automaticPresenceSimulation: true,
    },
  });
});
afterAll(async () => {
  await releaseBrowser(browser);
  await agent?.close();
  await server?.stop();
});

function query<T>(sql: string, ...params: unknown[]): T[] {
  const db = new Database(server.dbPath, { readonly: true });
  try {
    return db.prepare(sql).all(...params) as T[];
  } finally {
    db.close();
  }
}

const sessionCount = () => query<{ n: number }>('SELECT count(*) AS n FROM sessions')[0]!.n;

/** A fresh login page as a script sees it: its double-submit cookie and token. */
async function loginForm(origin = site) {
  const answer = await fetch(new URL('/login', origin));
  const cookie = answer.headers
    .getSetCookie()
    .map((c) => c.split(';')[0]!)
    .join('; ');
  const csrf = /name="csrf" value="([^"]+)"/.exec(await answer.text())![1]!;
  return { cookie, csrf };
}

const post = (url: string, fields: Record<string, string>, headers: Record<string, string> = {}) =>
  fetch(url, {
    method: 'POST',
    redirect: 'manual',
    headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
    body: new URLSearchParams(fields),
  });

let captured: { body: string; cookie: string } | undefined;

describe('passkeys: added by a signed-in person, then signing them in', () => {
  it('adds a passkey on /account after a password sign-in', async () => {
    await page.goto(`${site}/account`);
    expect(new URL(page.url()).pathname).toBe('/login');
    await page.fill('input[name=email]', server.agent.email);
    await page.fill('input[name=password]', server.agent.password);
    await page.click('form[action="/login"] button[type=submit]');
    await page.waitForURL(`${site}/account`);
    await page.fill('#passkey-name', 'test laptop');
    await page.click('#passkey-add');
    await page.waitForSelector('table#passkeys >> text=test laptop');
    const stored = query<{ person_id: string; rp_id: string; name: string }>('SELECT * FROM passkeys');
    expect(stored).toEqual([expect.objectContaining({ rp_id: 'localhost', name: 'test laptop' })]);
    // The page runs nothing but this site's own scripts.
    const csp = (await page.request.get(`${site}/account`)).headers()['content-security-policy'];
    expect(csp).toContain("script-src 'self'");
  });

  it('signs in with the passkey alone and approves; the decision names the passkey', async () => {
    await page.click('form[action="/logout"] button');
    await page.waitForSelector('#result');
    const {
      details: { approveUrl },
    } = await askForApproval(agent, room, futureHour(4), futureHour(4, 1), { customer: { name: 'Ada' } });
    const link = new URL(new URL(approveUrl).pathname, site).href;

    page.on('request', (request) => {
      if (request.method() === 'POST' && request.url().endsWith('/login/passkey'))
        void request.allHeaders().then((headers) => {
          captured = { body: request.postData() ?? '', cookie: headers.cookie ?? '' };
        });
    });
    await page.goto(link);
    expect(new URL(page.url()).pathname).toBe('/login');
    await page.click('#passkey-sign-in');
    await page.waitForURL(link);
    await page.click('button[value=approve]');
    await page.waitForSelector('#result');
    const [decision] = query<{ status: string; decided_by: string }>(
      'SELECT status, decided_by FROM approvals',
    );
    expect(decision!.status).toBe('APPROVED');
    expect(decision!.decided_by).toMatch(/^usr_\S+ \S+ \(passkey\)$/);
    const [used] = query<{ counter: number; last_used_at: number | null }>('SELECT * FROM passkeys');
    expect(used!.last_used_at).not.toBeNull();
    expect(captured?.body).toContain('response=');
  });
});

describe('nobody signs in with a passkey they do not hold', () => {
  it('replays, forgeries, wrong sites, foreign removals and a disabled person: 0 sessions, 0 removals', async () => {
    expect(captured).toBeDefined();
    const sessionsBefore = sessionCount();
    const replayed = new URLSearchParams(captured!.body);
    const answer = JSON.parse(replayed.get('response')!) as {
      response: { clientDataJSON: string; signature: string };
    };

    // A fresh challenge, then the old answer re-pointed at it: the signature no longer matches.
    const fresh = await loginForm();
    const options = (await (
      await post(`${site}/login/passkey/options`, { csrf: fresh.csrf }, { cookie: fresh.cookie })
    ).json()) as { challenge: string };
    const clientData = JSON.parse(
      Buffer.from(answer.response.clientDataJSON, 'base64url').toString(),
    ) as Record<string, unknown>;
    const repointed = {
      ...answer,
      response: {
        ...answer.response,
        clientDataJSON: Buffer.from(JSON.stringify({ ...clientData, challenge: options.challenge })).toString(
          'base64url',
        ),
      },
    };
    const unsigned = { ...answer, response: { ...answer.response, signature: '' } };
    const bearer = { authorization: `Bearer ${server.agent.token}` };

    const attempts: [string, Response][] = [
      [
        'the captured sign-in, replayed',
        await post(`${site}/login/passkey`, Object.fromEntries(replayed), { cookie: captured!.cookie }),
      ],
      [
        'the captured answer on a fresh challenge',
        await post(
          `${site}/login/passkey`,
          { csrf: fresh.csrf, response: JSON.stringify(repointed) },
          { cookie: fresh.cookie },
        ),
      ],
      [
        'an answer without a signature',
        await post(
          `${site}/login/passkey`,
          { csrf: fresh.csrf, response: JSON.stringify(unsigned) },
          { cookie: fresh.cookie },
        ),
      ],
      ['no login CSRF', await post(`${site}/login/passkey`, { response: JSON.stringify(answer) })],
      ['the bearer token for options', await post(`${site}/login/passkey/options`, { csrf: 'x' }, bearer)],
      [
        'at 127.0.0.1 (no relying party there)',
        await (async () => {
          const here = await loginForm(server.url);
          return post(
            new URL('/login/passkey', server.url).href,
            { csrf: here.csrf, response: JSON.stringify(answer) },
            { cookie: here.cookie },
          );
        })(),
      ],
      [
        'registration options with the bearer token',
        await post(`${site}/account/passkeys/options`, { csrf: 'x' }, bearer),
      ],
      [
        'registration with the bearer token',
        await post(`${site}/account/passkeys`, { response: '{}' }, bearer),
      ],
    ];
    // Refused means a 4xx and no session cookie; a 5xx would be a bug, counted as a success here.
    const succeeded = attempts.filter(
      ([, r]) =>
        r.status < 400 ||
        r.status >= 500 ||
        r.headers.getSetCookie().some((c) => /holdfast_session=hf_/.test(c)),
    );
    expect(
      succeeded.map(([name, r]) => `${name}: ${r.status}`),
      'attempts that signed somebody in',
    ).toEqual([]);
    expect(sessionCount()).toBe(sessionsBefore);

    // Another person of the tenant cannot remove (or list) the owner's passkey.
    const other = await addPersonWithPassword(server, { email: 'eve@local.example', role: 'approver' });
    const cookie = await signIn(site, other.email, other.password);
    const account = await (await fetch(`${site}/account`, { headers: { cookie } })).text();
    expect(account).not.toContain('test laptop');
    const removeCsrf = /action="\/account\/passkeys\/remove"[\s\S]*?name="csrf" value="([^"]+)"/.exec(
      account,
    )?.[1];
    const [ownerKey] = query<{ id: string }>('SELECT id FROM passkeys');
    const removal = await post(
      `${site}/account/passkeys/remove`,
      { csrf: removeCsrf ?? 'none', id: ownerKey!.id },
      { cookie },
    );
    expect(removal.status).toBeGreaterThanOrEqual(400);
    expect(query('SELECT id FROM passkeys')).toHaveLength(1);

    // A disabled person's passkey signs nobody in, even from their own browser.
    const disabled = await runCli(['users', 'disable', server.agent.email, '--db', server.dbPath]);
    expect(disabled.status, disabled.stderr).toBe(0);
    const sessionsNow = sessionCount();
    await page.goto(`${site}/login`);
    await page.click('#passkey-sign-in');
    await expect
      .poll(async () => page.textContent('#passkey-message'), { timeout: 10_000 })
      .toMatch(/did not sign you in/);
    expect(new URL(page.url()).pathname).toBe('/login');
    expect(sessionCount()).toBe(sessionsNow);
  });
});
