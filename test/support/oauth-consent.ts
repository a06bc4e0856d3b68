import type { Page } from 'playwright-core';

export interface ConsentSeen {
  /** The client as the consent page names it. */
  readonly client: string | null;
  readonly redirect: string | null;
  /** The scopes listed, whitespace collapsed. */
  readonly scopes: string;
  /** The scope boxes on the page, and those ticked before the person touched anything. */
  readonly offered: string[];
  readonly ticked: string[];
}

/**
 * The person's side of an authorization request, in the browser: open the authorization URL,
 * sign in on /login if asked, read the consent page, choose a write policy, allow, and wait
 * until the browser has landed on the client's redirect URI (the host then has its code).
 */
export async function personAllows(
  page: Page,
  authorizationUrl: string | URL,
  person: { readonly email: string; readonly password: string },
  policy: string,
): Promise<{ consent: ConsentSeen; landedOn: URL }> {
  const url = new URL(authorizationUrl);
  const redirect = url.searchParams.get('redirect_uri');
  if (!redirect) throw new Error(`no redirect_uri in ${url.href}`);
  await page.goto(url.href);
  if (new URL(page.url()).pathname === '/login') {
    await page.fill('input[name=email]', person.email);
    await page.fill('input[name=password]', person.password);
    await page.click('form[action="/login"] button[type=submit]');
  }
  await page.waitForSelector('#client-name');
  const offered: string[] = [];
  const ticked: string[] = [];
  for (const box of await page.locator('input[name=scope]').all()) {
    const value = (await box.getAttribute('value')) ?? '';
    offered.push(value);
    if (await box.isChecked()) ticked.push(value);
  }
  const consent = {
    client: await page.textContent('#client-name'),
    redirect: await page.textContent('#redirect-host'),
    scopes: (await page.textContent('#scopes'))!.replace(/\s+/g, ' '),
    offered,
    ticked,
  };
  await page.check(`input[name=writePolicy][value=${policy}]`);
  await page.click('button[value=allow]');
  await page.waitForURL((landed) => landed.href.startsWith(redirect), { waitUntil: 'load' });
  return { consent, landedOn: new URL(page.url()) };
}
