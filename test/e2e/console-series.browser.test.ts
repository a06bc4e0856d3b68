import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import { launchBrowser, releaseBrowser } from '../support/browser.js';
import { auditConsolePage, signInToConsole } from '../support/console-browser.js';
import { createOpenCalendar, futureHour } from '../support/fixtures.js';
import { call, connectHttp, ok } from '../support/mcp-clients.js';
import type { RunningServer } from '../support/spawn-server.js';
import { spawnServer } from '../support/spawn-server.js';

// A series as the person sees it in Chromium: the approval lists every date and says what
// approving does to the time, the money and the customer; after it, each booking of the series
// shows all its dates. Checked at 1280 and 360 px with axe.

let server: RunningServer;
let browser: Browser;

beforeAll(async () => {
  server = await spawnServer(['--no-seed']);
  browser = await launchBrowser();
});
afterAll(async () => {
  await releaseBrowser(browser);
  await server?.stop();
});

describe('a recurring series in the console', () => {
  it('the approval lists every date; each booking of the series lists them after', async () => {
    const agent = await connectHttp(server.url, 'modern');
    const room = await createOpenCalendar(agent, 'Therapy Room', { amount: '40.00', currency: 'EUR' });
    const held = await ok<{ seriesId: string; occurrences: { id: string; version: number }[] }>(
      agent,
      'hold_series',
      {
        calendarIds: [room],
        start: futureHour(3),
        end: futureHour(3, 1),
        repeat: { frequency: 'daily', interval: 2, count: 3 },
        customer: { name: 'Ana Lima' },
        idempotencyKey: randomUUID(),
      },
    );
    const lead = held.occurrences[0]!;
    const asked = await call(agent, 'confirm_booking', {
      bookingId: lead.id,
      expectedVersion: lead.version,
      idempotencyKey: randomUUID(),
    });
    expect(asked.error?.code).toBe('APPROVAL_REQUIRED');
    const approvalId = asked.error!.details.approvalId as string;

    const page = await (await browser.newContext()).newPage();
    await signInToConsole(page, server, `/console/approvals/${approvalId}`);
    expect(await page.textContent('h1')).toContain('Confirm series');
    expect(await page.locator('#occurrences li').count()).toBe(3);
    const words = (await page.textContent('main'))!;
    expect(words).toContain('3 dates, from');
    expect(words).toContain('120.00 EUR');
    expect(words).toContain('Ana Lima');
    expect(words).toMatch(/\(UTC\)/);
    expect(words).toContain('nobody else can take those times');
    expect(words).toContain('Ana Lima gets 3 confirmed bookings once the payment clears');
    // A series always goes to a person: no standing rule is offered from it.
    expect(await page.locator('#always-allow').count()).toBe(0);
    await auditConsolePage(page, 'series-approval');

    await page.click('button[value=approve]');
    await page.waitForSelector('#result');
    await page.goto(new URL(`/console/bookings/${held.occurrences[1]!.id}`, server.url).href);
    expect(await page.locator('#series-dates li').count()).toBe(3);
    expect(await page.textContent('#series')).toContain('One of 3 dates of a series');
    expect(await page.textContent('#series-dates')).toContain('(this one)');
    await auditConsolePage(page, 'series-booking');
    await agent.close();
  }, 90_000);
});
