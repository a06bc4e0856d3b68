import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchBrowser, releaseBrowser } from '../support/browser.js';
import { consoleCast, consoleHttp, csrfFor } from '../support/console-attack.js';
import { auditConsolePage, signInToConsole } from '../support/console-browser.js';
import type { RunningServer } from '../support/spawn-server.js';
import { runCli, spawnServer } from '../support/spawn-server.js';

// People and tenant limits as an owner uses them, in Chromium: invite someone and hand them
// the one-time link (they set a password and sign in with it), change a role, disable (their
// session ends) and enable, save limits. Then the same forms attacked by people who are not
// owners, another tenant, and forged posts: 0 may succeed.

let server: RunningServer;
let browser: Browser;
let page: Page;

const url = (path: string) => new URL(path, server.url).href;

beforeAll(async () => {
  server = await spawnServer(['--no-seed']);
  browser = await launchBrowser();
  page = await (await browser.newContext()).newPage();
  await signInToConsole(page, server, '/console/people');
});
afterAll(async () => {
  await releaseBrowser(browser);
  await server?.stop();
});

async function people(): Promise<{ email: string; role: string; disabled: boolean }[]> {
  const listed = await runCli(['users', 'list', '--tenant', 'local', '--db', server.dbPath, '--json']);
  expect(listed.status, listed.stderr).toBe(0);
  return (JSON.parse(listed.stdout) as { email: string; role: string; disabledAt: number | null }[]).map(
    (p) => ({
      email: p.email,
      role: p.role,
      disabled: p.disabledAt !== null,
    }),
  );
}

describe('the people section', () => {
  it('invites someone with a one-time link they use to set a password and sign in; roles change; disabling ends their session', async () => {
    await page.goto(url('/console/people'));
    await page.fill('#invite-email', 'rosa@local.example');
    await page.fill('#invite-name', 'Rosa');
    await page.check('#invite-role-approver');
    await page.click('form[action="/console/people"] button[type=submit]');
    const link = (await page.textContent('#setup-link'))!.trim();
    expect(link).toMatch(/\/setup\/hf_setup_/);
    await auditConsolePage(page, 'people');
    // Shown once: the page after it does not carry it.
    await page.goto(url('/console/people'));
    expect(await page.locator('#setup-link').count()).toBe(0);
    expect(await page.content()).not.toContain(new URL(link).pathname);

    // Rosa opens the link in her own browser, sets a password, and is signed in with it.
    const rosaContext = await browser.newContext();
    const rosa = await rosaContext.newPage();
    await rosa.goto(new URL(new URL(link).pathname, server.url).href);
    await rosa.fill('input[name=password]', 'rosa has a long password');
    await rosa.click('button[type=submit]');
    await rosa.waitForURL((u) => u.pathname === '/console/approvals');
    expect(await rosa.textContent('header')).toContain('rosa@local.example (approver)');
    // Signed out, the password she chose signs her in again.
    await rosa.click('header form.who button[type=submit]');
    await signInToConsole(rosa, server, '/console/approvals', {
      email: 'rosa@local.example',
      password: 'rosa has a long password',
    });
    expect(await rosa.textContent('header')).toContain('rosa@local.example (approver)');
    // An approver sees no People section.
    expect(await rosa.locator('nav.sections a[href="/console/people"]').count()).toBe(0);

    const row = page.locator('tr[data-person="rosa@local.example"]');
    await row.locator('select[name=role]').selectOption('viewer');
    await row.locator('form[action$="/role"] button').click();
    await page.waitForSelector('tr[data-person="rosa@local.example"] option[value=viewer][selected]', {
      state: 'attached',
    });
    expect((await people()).find((p) => p.email === 'rosa@local.example')!.role).toBe('viewer');

    await page.locator('tr[data-person="rosa@local.example"] form[action$="/disable"] button').click();
    await page.waitForSelector('tr[data-person="rosa@local.example"] .status.disabled');
    await rosa.goto(url('/console/approvals'));
    expect(new URL(rosa.url()).pathname).toBe('/login');
    await page.locator('tr[data-person="rosa@local.example"] form[action$="/enable"] button').click();
    await page.waitForSelector('tr[data-person="rosa@local.example"] .status.active');
    expect((await people()).find((p) => p.email === 'rosa@local.example')!.disabled).toBe(false);
  });

  it('saves the tenant’s limits and default policy (new tokens start with it), and refuses a limit out of range by name', async () => {
    await page.goto(url('/console/people'));
    await page.uncheck('#limit-activeHoldsPerPerson-none');
    await page.fill('#limit-activeHoldsPerPerson', '3');
    await page.check('#limit-callsPerMinute-none');
    await page.fill('#approval-window', '45');
    await page.selectOption('#default-policy', 'readonly');
    await page.click('form[action="/console/people/settings"] button[type=submit]');
    await page.waitForSelector('#result');
    expect(await page.textContent('#result')).toContain('Settings saved');
    const tenants = JSON.parse(
      (await runCli(['tenants', 'list', '--db', server.dbPath, '--json'])).stdout,
    ) as {
      id: string;
      limits: { activeHoldsPerPerson: number; callsPerMinute: number };
      defaultWritePolicy: string;
      approvalWindowMinutes: number;
    }[];
    expect(tenants.find((t) => t.id === 'local')).toMatchObject({
      limits: { activeHoldsPerPerson: 3, callsPerMinute: 1_000_000 },
      defaultWritePolicy: 'readonly',
      approvalWindowMinutes: 45,
    });
    // The token form preselects it, and the CLI uses it when --write-policy is not given.
    await page.goto(url('/console/connections'));
    expect(await page.isChecked('#policy-readonly')).toBe(true);
    const made = await runCli([
      'tokens',
      'create',
      server.agent.email,
      '--name',
      'cli',
      '--json',
      '--db',
      server.dbPath,
    ]);
    expect(made.status, made.stderr).toBe(0);
    expect(JSON.parse(made.stdout).writePolicy).toBe('readonly');
    await page.goto(url('/console/people'));
    // The browser's own checks are bypassed the way a script would.
    await page.uncheck('#limit-callsPerMinute-none');
    await page.evaluate(() => {
      const input = document.querySelector<HTMLInputElement>('#limit-callsPerMinute')!;
      input.removeAttribute('min');
      input.value = '0';
    });
    await page.click('form[action="/console/people/settings"] button[type=submit]');
    await page.waitForSelector('#result');
    expect(await page.textContent('#result')).toContain('callsPerMinute');
  });
});

describe('the people section, attacked', () => {
  it('non-owners, other tenants, forged posts and the last owner removing themselves: 0 succeed', async () => {
    const { owner, approver, foreigner } = await consoleCast(server);
    const { get, post } = consoleHttp(server);
    const ownerId = /data-person="owner@local.example"[\s\S]*?action="\/console\/people\/([^/]+)\/role"/.exec(
      await (await get('/console/people', { cookie: owner })).text(),
    )![1]!;
    const before = JSON.stringify(await people());
    let succeeded = 0;

    expect((await get('/console/people', { cookie: approver })).status).toBe(403);
    expect((await get('/console/people', { authorization: `Bearer ${server.agent.token}` })).status).toBe(
      303,
    );
    // Each holds a token valid for the people forms in their own session (an approver's page shows
    // none): only the role, tenant and last-owner rules can stop them.
    const approverCsrf = csrfFor(server, approver, 'console-people');
    const foreignCsrf = csrfFor(server, foreigner, 'console-people');
    const ownerCsrf = csrfFor(server, owner, 'console-people');
    const attempts: [string, string, Record<string, string>, string, number[]][] = [
      [
        'approver invites an owner',
        '/console/people',
        { email: 'x@local.example', role: 'owner' },
        approver,
        [403],
      ],
      [
        'approver promotes themselves',
        `/console/people/${ownerId}/role`,
        { role: 'viewer' },
        approver,
        [403],
      ],
      ['approver disables the owner', `/console/people/${ownerId}/disable`, {}, approver, [403]],
      ['approver raises limits', '/console/people/settings', { callsPerMinute: '1000000' }, approver, [403]],
      ['other tenant disables our owner', `/console/people/${ownerId}/disable`, {}, foreigner, [404]],
      ['other tenant takes a link for our owner', `/console/people/${ownerId}/link`, {}, foreigner, [404]],
      ['last owner demotes themselves', `/console/people/${ownerId}/role`, { role: 'viewer' }, owner, [409]],
      ['last owner disables themselves', `/console/people/${ownerId}/disable`, {}, owner, [409]],
      // A setup link sets a password: for someone who has one it would be a way to become them.
      [
        'an owner takes a link for someone with a password',
        `/console/people/${ownerId}/link`,
        {},
        owner,
        [409],
      ],
    ];
    for (const [what, path, fields, cookie, expected] of attempts) {
      const csrf = cookie === approver ? approverCsrf : cookie === foreigner ? foreignCsrf : ownerCsrf;
      for (const token of ['', 'forged', csrf]) {
        const answer = await post(path, { ...fields, ...(token ? { csrf: token } : {}) }, cookie);
        if (answer.status === 303 || answer.status === 200) succeeded++;
        expect(token === csrf ? expected : [403], `${what} (csrf ${token ? 'given' : 'none'})`).toContain(
          answer.status,
        );
        // With the form's own token, the CSRF check passes: what refuses is the rule.
        if (token === csrf) expect(await answer.text(), what).not.toContain('did not come from it');
      }
    }
    // The approver's attempt to mint a setup link for the owner (account takeover) shows no link.
    const takeover = await post(`/console/people/${ownerId}/link`, { csrf: approverCsrf }, approver);
    expect(takeover.status).toBe(403);
    expect(await takeover.text()).not.toContain('hf_setup_');
    expect(succeeded).toBe(0);
    expect(JSON.stringify(await people())).toBe(before);
  });
});
