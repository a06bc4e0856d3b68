import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startAgentAccess } from '../support/agent-access.js';
import { launchBrowser, releaseBrowser } from '../support/browser.js';
import { auditConsolePage, signInToConsole } from '../support/console-browser.js';
import { ok } from '../support/mcp-clients.js';

// The person's side of an agent-access operation, in Chromium at 390 and 1280 px: the page says
// in words that their approval does it at once, what happens to the time, the money and the
// customer, with every time in its zone; a run that fails says why and offers Try again / Cancel.

let setup: Awaited<ReturnType<typeof startAgentAccess>>;
let browser: Browser;

beforeAll(async () => {
  setup = await startAgentAccess();
  browser = await launchBrowser();
}, 60_000);
afterAll(async () => {
  await releaseBrowser(browser);
  await setup?.stop();
});

async function atBothWidths(page: Page, check: () => Promise<void>) {
  for (const width of [390, 1280]) {
    await page.setViewportSize({ width, height: 900 });
    await check();
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    expect(overflow, `overflows at ${width} px`).toBeLessThanOrEqual(0);
  }
}

describe('an agent-access operation on its page', () => {
  it('pending, failed (payment not cleared), tried again once paid: done', async () => {
    const booking = await setup.held(setup.paid);
    const pending = await setup.draft('confirm_booking', booking.id);
    const page = await (await browser.newContext()).newPage();
    await signInToConsole(page, setup.server, new URL(pending.confirmationUrl as string).pathname);
    await atBothWidths(page, async () => {
      await expect.poll(() => page.textContent('#operation-note')).toContain('your approval does it at once');
      const what = (await page.textContent('main'))!;
      expect(what).toContain('Camera body');
      expect(what).toContain('500.00 CNY');
      expect(what).toMatch(/\(UTC\)/);
    });
    await auditConsolePage(page, 'agent-access-operation-pending');

    await page.click('button[value=approve]');
    await page.waitForURL(/decided=failed/);
    await atBothWidths(page, async () => {
      expect(await page.textContent('#operation-failed')).toContain(
        'Approved, but it could not be done: PAYMENT_PENDING',
      );
      expect(await page.isVisible('#result')).toBe(false);
      expect(await page.isVisible('button[value=retry]')).toBe(true);
      expect(await page.isVisible('button[value=cancel]')).toBe(true);
    });
    await auditConsolePage(page, 'agent-access-operation-failed');

    setup.stub.paid(booking.id);
    await page.click('button[value=retry]');
    await page.waitForURL(/decided=done/);
    expect(await page.textContent('#result')).toContain('Approved and done. Books Camera body');
    expect(await page.isVisible('button[value=retry]')).toBe(false);
    const done = await ok(setup.agent, 'operation_get', { operationId: pending.operationId });
    expect(done).toMatchObject({ status: 'completed', booking: { status: 'CONFIRMED' } });
  }, 120_000);
});
