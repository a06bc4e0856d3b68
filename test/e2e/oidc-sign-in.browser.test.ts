import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchBrowser, releaseBrowser } from '../support/browser.js';
import { TestIdp } from '../support/oidc-idp.js';
import type { RunningServer } from '../support/spawn-server.js';
import { spawnServer } from '../support/spawn-server.js';

// In a real browser, with the provider on another site (localhost) than Holdfast (127.0.0.1):
// the attempt's SameSite=Lax cookie must come back on the provider's cross-site redirect, and
// the SameSite=Strict session must be there on the page the person lands on.

let idp: TestIdp;
let server: RunningServer;
let origin: string;
let browser: Browser;

beforeAll(async () => {
  idp = await TestIdp.start({ host: 'localhost' });
  server = await spawnServer([
    '--login-issuer',
    idp.issuer,
    '--login-client-id',
    'holdfast-browser',
    '--allow-private-upstreams',
  ]);
  origin = new URL(server.url).origin;
  await idp.configure([
    {
      client_id: 'holdfast-browser',
      token_endpoint_auth_method: 'none',
      redirect_uris: [`${origin}/login/oidc/callback`],
      grant_types: ['authorization_code'],
      response_types: ['code'],
    },
  ]);
  idp.accounts.set('owner', { email: server.agent.email, email_verified: true });
  browser = await launchBrowser();
});
afterAll(async () => {
  await releaseBrowser(browser);
  await server?.stop();
  await idp?.close();
});

describe('signing in through the provider in Chromium, across sites', () => {
  it('from the /login button to the account page, signed in, with no script run by Holdfast', async () => {
    const context = await browser.newContext();
    const page = await context.newPage();
    const violations: string[] = [];
    page.on('console', (m) => {
      if (/Content.Security.Policy|Refused to/i.test(m.text())) violations.push(m.text());
    });
    try {
      await page.goto(`${origin}/login?next=%2Faccount`);
      await page.click('#provider-sign-in');
      await page.waitForURL((url) => url.origin === idp.issuer, { timeout: 10_000 });
      await page.fill('input[name="login"]', 'owner');
      await page.fill('input[name="password"]', 'any');
      await page.click('button[type="submit"]');
      await page.waitForSelector('button:has-text("Continue")');
      await page.click('button:has-text("Continue")');
      await page.waitForURL(`${origin}/account`, { timeout: 10_000 });
      const text = (await page.textContent('body'))!.replace(/\s+/g, ' ');
      expect(text).toContain(`Signed in as ${server.agent.email}`);
      expect(text).toContain('signed in through the identity provider');
      const cookies = await context.cookies(origin);
      expect(cookies.find((c) => c.name === 'holdfast_session')?.sameSite).toBe('Strict');
      expect(cookies.some((c) => c.name === 'holdfast_login_oidc')).toBe(false);
      expect(violations.filter((v) => v.includes(origin))).toEqual([]);
    } finally {
      await context.close();
    }
  });
});
