// Headless Chromium playing the person in an OAuth flow: the browser the tests choose
// (scripts/chromium.mjs) and the steps of test/support/oauth-consent.ts, in plain JS so that a
// driver process can use them without a TypeScript loader.
import { chromium } from 'playwright-core';
import { CHROMIUM_FLAGS, chooseBrowser } from '../chromium.mjs';

export async function launchBrowser() {
  const choice = await chooseBrowser();
  return chromium.launch({
    executablePath: choice.executablePath,
    args: [...CHROMIUM_FLAGS],
    env: { ...process.env, ...choice.env },
  });
}

/**
 * The person's side of an authorization request: open it, sign in, allow with the draft write
 * policy, and wait until the browser lands on the client's redirect URI.
 */
export async function personAllows(browser, authorizationUrl, person) {
  const url = new URL(authorizationUrl);
  const redirect = url.searchParams.get('redirect_uri');
  if (!redirect) throw new Error(`no redirect_uri in ${url.href}`);
  const page = await browser.newPage();
  try {
    await page.goto(url.href);
    if (new URL(page.url()).pathname === '/login') {
      await page.fill('input[name=email]', person.email);
      await page.fill('input[name=password]', person.password);
      await page.click('form[action="/login"] button[type=submit]');
    }
    await page.waitForSelector('#client-name');
    await page.check('input[name=writePolicy][value=draft]');
    await page.click('button[value=allow]');
    await page.waitForURL((landed) => landed.href.startsWith(redirect), { waitUntil: 'load' });
    return new URL(page.url());
  } finally {
    await page.close();
  }
}
