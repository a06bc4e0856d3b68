import { randomBytes, randomUUID } from 'node:crypto';
import Database from 'better-sqlite3';
import type { Client } from '@modelcontextprotocol/client';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { askForApproval } from '../support/approvals.js';
import { launchBrowser, releaseBrowser } from '../support/browser.js';
import { createOpenCalendar, futureHour } from '../support/fixtures.js';
import { call, connectHttp, ok } from '../support/mcp-clients.js';
import { addPersonWithPassword, approvalCsrf, decideOnPage, signIn } from '../support/person.js';
import type { RunningServer } from '../support/spawn-server.js';
import { spawnServer } from '../support/spawn-server.js';

// The agent is the adversary: it holds a valid token and the approveUrl it was handed, and
// tries every way an HTTP client can to approve or pay by itself. It must never succeed.

let server: RunningServer; // --dev: the simulated payment form is on
let plain: RunningServer; // the default: no payment form at all
let agent: Client;
let browser: Browser;
let room: string;
let viewer: { email: string; password: string };
let foreigner: { email: string; password: string };

beforeAll(async () => {
  [server, plain] = await Promise.all([spawnServer(['--no-seed', '--dev']), spawnServer(['--no-seed'])]);
  agent = await connectHttp(server.url, 'modern');
  room = await createOpenCalendar(agent, 'Studio 3', { amount: '120.50', currency: 'EUR' });
  viewer = await addPersonWithPassword(server, { email: 'vic@local.example', role: 'viewer' });
  foreigner = await addPersonWithPassword(server, {
    email: 'ann@other.example',
    role: 'approver',
    tenant: 'other',
  });
  browser = await launchBrowser();
});
afterAll(async () => {
  await releaseBrowser(browser);
  await agent?.close();
  await Promise.all([server?.stop(), plain?.stop()]);
});

const askFor = (hourOffset: number) =>
  askForApproval(agent, room, futureHour(3, hourOffset), futureHour(3, hourOffset + 1), {
    customer: { name: 'Grace Hopper' },
  });

const form = (fields: Record<string, string>, headers: Record<string, string> = {}) => ({
  method: 'POST',
  redirect: 'manual' as const,
  headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
  body: new URLSearchParams(fields),
});

/** What the database says happened: decided approvals and simulated payments. */
function decided(dbPath: string) {
  const db = new Database(dbPath, { readonly: true });
  try {
    const approvals = db.prepare("SELECT count(*) AS n FROM approvals WHERE status <> 'PENDING'").get() as {
      n: number;
    };
    const payments = db.prepare('SELECT count(*) AS n FROM simulated_payments').get() as { n: number };
    return { approvals: approvals.n, payments: payments.n };
  } finally {
    db.close();
  }
}

describe('only a signed-in person approves or pays: an agent with a token and approveUrl tries', () => {
  it('every way in, and approves 0 times and pays 0 times', async () => {
    const { booking, details } = await askFor(1);
    const url = details.approveUrl;
    const origin = new URL(url).origin;
    const bearer = { authorization: `Bearer ${server.agent.token}` };
    const approve = { decision: 'approve' };
    const before = decided(server.dbPath);

    // A viewer's page gives the attacker a real CSRF token of some session, a signed-out
    // session is a stolen cookie gone stale, another tenant's approver a cookie of the wrong tenant.
    const viewerCookie = await signIn(origin, viewer.email, viewer.password);
    const viewerPage = await (await fetch(url, { headers: { cookie: viewerCookie } })).text();
    const viewerCsrf = /name="csrf" value="([^"]+)"/.exec(viewerPage)?.[1] ?? 'none';
    const stale = await signIn(origin, server.agent.email, server.agent.password);
    const staleCsrf = approvalCsrf(await (await fetch(url, { headers: { cookie: stale } })).text())!;
    expect(staleCsrf).toBeDefined();
    const logoutCsrf = /action="\/logout"[\s\S]*?name="csrf" value="([^"]+)"/.exec(
      await (await fetch(url, { headers: { cookie: stale } })).text(),
    )![1]!;
    expect(
      (await fetch(new URL('/logout', origin), form({ csrf: logoutCsrf }, { cookie: stale }))).status,
    ).toBe(200);
    const foreignCookie = await signIn(origin, foreigner.email, foreigner.password);
    const forged = `holdfast_session=hf_session_${randomBytes(32).toString('base64url')}`;

    const attempts: [string, Response][] = [
      ['GET, no credentials', await fetch(url, { redirect: 'manual' })],
      ['POST, no credentials', await fetch(url, form(approve))],
      ['GET with the bearer token', await fetch(url, { redirect: 'manual', headers: bearer })],
      ['POST with the bearer token', await fetch(url, form(approve, bearer))],
      [
        'POST with the bearer token and the viewer CSRF',
        await fetch(url, form({ ...approve, csrf: viewerCsrf }, bearer)),
      ],
      [
        'POST with a forged cookie',
        await fetch(url, form({ ...approve, csrf: viewerCsrf }, { cookie: forged })),
      ],
      [
        'POST with a signed-out (stolen) cookie',
        await fetch(url, form({ ...approve, csrf: staleCsrf }, { cookie: stale })),
      ],
      [
        'POST with the page CSRF token, no cookie',
        await fetch(url, form({ ...approve, csrf: staleCsrf }, { origin })),
      ],
      [
        'POST as a viewer',
        await fetch(url, form({ ...approve, csrf: viewerCsrf }, { cookie: viewerCookie })),
      ],
      ['GET as another tenant', await fetch(url, { redirect: 'manual', headers: { cookie: foreignCookie } })],
      [
        'POST as another tenant',
        await fetch(url, form({ ...approve, csrf: viewerCsrf }, { cookie: foreignCookie })),
      ],
      [
        'replayed decision of the stale session',
        await fetch(url, form({ ...approve, csrf: staleCsrf }, bearer)),
      ],
      [
        'pay (default server), GET',
        await fetch(new URL(`/pay/${booking.id}`, plain.url), { redirect: 'manual' }),
      ],
      [
        'pay (default server), POST',
        await fetch(new URL(`/pay/${booking.id}`, plain.url), form({ status: 'PAID' }, bearer)),
      ],
      [
        'pay (--dev), GET, no session',
        await fetch(new URL(`/pay/${booking.id}`, origin), { redirect: 'manual' }),
      ],
      [
        'pay (--dev), POST, no session',
        await fetch(new URL(`/pay/${booking.id}`, origin), form({ status: 'PAID' })),
      ],
      [
        'pay (--dev), POST with the bearer token',
        await fetch(new URL(`/pay/${booking.id}`, origin), form({ status: 'PAID' }, bearer)),
      ],
      [
        'pay (--dev), POST with a forged cookie',
        await fetch(
          new URL(`/pay/${booking.id}`, origin),
          form({ status: 'PAID', csrf: viewerCsrf }, { cookie: forged }),
        ),
      ],
      [
        'pay (--dev), POST as another tenant',
        await fetch(
          new URL(`/pay/${booking.id}`, origin),
          form({ status: 'PAID' }, { cookie: foreignCookie }),
        ),
      ],
    ];
    // A decision that went through answers 303 to the approval's page; a refusal is 4xx or 303 to sign in.
    const succeeded = attempts.filter(
      ([, r]) => r.status === 200 || (r.status === 303 && !r.headers.get('location')?.startsWith('/login')),
    );
    const pagesShown = attempts.filter(([name, r]) => name.startsWith('GET') && r.status === 200);
    expect(
      pagesShown.map(([n]) => n),
      'no page shown to an attacker',
    ).toEqual([]);
    // Every POST was refused or sent to sign in; nothing changed in the database.
    for (const [name, response] of attempts)
      expect([303, 403, 404, 409], `${name}: ${response.status}`).toContain(response.status);
    expect(succeeded.map(([n]) => n)).toEqual([]);
    const after = decided(server.dbPath);
    expect(after.approvals - before.approvals, 'approvals by the agent').toBe(0);
    expect(after.payments - before.payments, 'payments set by the agent').toBe(0);
    const still = await call(agent, 'get_approval', { approvalId: details.approvalId });
    expect(still.error!.code).toBe('APPROVAL_PENDING');
  });

  it('a signed-in approver approves in Chromium, pays on the dev form, and the agent retry confirms', async () => {
    const { booking, details } = await askFor(3);
    const page = await browser.newPage();
    // The link sends a stranger to sign in first, then back to the approval.
    await page.goto(details.approveUrl);
    expect(new URL(page.url()).pathname).toBe('/login');
    await page.fill('input[name=email]', server.agent.email);
    await page.fill('input[name=password]', server.agent.password);
    await page.click('button[type=submit]');
    await page.waitForURL(details.approveUrl);
    // The link lands in the console's page of the approval: the intent in words, start and end
    // in the calendar's zone, named; no ISO string is shown.
    const text = await page.textContent('body');
    for (const expected of ['Studio 3', '120.50 EUR', booking.reference, 'Grace Hopper'])
      expect(text).toContain(expected);
    expect(await page.textContent(`time[datetime="${booking.start}"]`)).toMatch(
      /^\w{3} .*\d\d:\d\d.*\d\d:\d\d \(UTC\)$/,
    );
    expect(text).not.toContain(booking.start);
    await page.screenshot({ path: 'test-results/approval-page.png', fullPage: true });
    await page.click('button[value=approve]');
    await expect(page.textContent('#result')).resolves.toContain('Approved');

    await page.goto(new URL(`/pay/${booking.id}`, server.url).href);
    await page.click('button[value=PAID]');
    await expect(page.textContent('#result')).resolves.toContain('PAID');

    const confirmed = await ok(agent, 'confirm_booking', {
      bookingId: booking.id,
      expectedVersion: 1,
      approval: { approvalId: details.approvalId },
      idempotencyKey: randomUUID(),
    });
    expect(confirmed.booking.status).toBe('CONFIRMED');
    // The decision names the person and how they signed in.
    const db = new Database(server.dbPath, { readonly: true });
    const row = db.prepare('SELECT decided_by FROM approvals WHERE id = ?').get(details.approvalId) as {
      decided_by: string;
    };
    db.close();
    expect(row.decided_by).toBe(`${server.agent.personId} ${server.agent.email} (password)`);

    // The link was for one decision only: it now shows the approval spent by the confirm, with nothing to press.
    await page.goto(details.approveUrl);
    expect(await page.textContent('h1')).toContain('used');
    expect(await page.locator('button[value=approve], button[value=deny]').count()).toBe(0);
    await page.close();
  });

  it('cannot be framed and is not cached', async () => {
    const { details } = await askFor(5);
    const cookie = await signIn(new URL(server.url).origin, server.agent.email, server.agent.password);
    const response = await fetch(details.approveUrl, { headers: { cookie } });
    expect(response.status).toBe(200);
    expect(response.headers.get('x-frame-options')).toBe('DENY');
    expect(response.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
    expect(response.headers.get('cache-control')).toBe('no-store');
  });

  it('refuses a signed-in POST without the session CSRF token, or from another site', async () => {
    const { details } = await askFor(7);
    const cookie = await signIn(new URL(server.url).origin, server.agent.email, server.agent.password);
    const noToken = await fetch(details.approveUrl, form({ decision: 'approve' }, { cookie }));
    expect(noToken.status).toBe(403);
    const crossSite = await fetch(
      details.approveUrl,
      form({ decision: 'approve', csrf: 'x' }, { cookie, origin: 'https://evil.example' }),
    );
    expect(crossSite.status).toBe(403);
    const { status } = await decideOnPage(details.approveUrl, cookie, 'deny');
    expect(status).toBe(200);
    const after = await call(agent, 'get_approval', { approvalId: details.approvalId });
    expect(after.error!.code).toBe('APPROVAL_DENIED');
  });
});
