import { randomUUID } from 'node:crypto';
import type { Client } from '@modelcontextprotocol/client';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { askForApproval } from '../support/approvals.js';
import { auditConsolePage, signInToConsole } from '../support/console-browser.js';
import { launchBrowser, releaseBrowser } from '../support/browser.js';
import { futureHour, openAllWeek } from '../support/fixtures.js';
import { call, connectHttp, ok } from '../support/mcp-clients.js';
import { bearerToolCall, bearerToolsList } from '../support/net.js';
import type { RunningServer } from '../support/spawn-server.js';
import { spawnServer } from '../support/spawn-server.js';

// The console as a person uses it, in Chromium: an agent's request appears in the open queue
// without a reload, the detail says in words what will happen, approving lets the agent's
// retry confirm and denying makes it APPROVAL_DENIED; a token made on the connections page
// is shown once, works on /mcp and stops when revoked. Every page passes axe (no serious or
// critical violation) and is photographed at desktop and 360 px, where nothing overflows.

let server: RunningServer;
let agent: Client;
let browser: Browser;
let context: BrowserContext;
let page: Page;
let room: string;
const seen: string[] = [];

beforeAll(async () => {
  server = await spawnServer(['--no-seed']);
  agent = await connectHttp(server.url, 'modern');
  const made = await ok<{ calendar: { id: string } }>(agent, 'create_calendar', {
    name: 'Jade Room',
    timeZone: 'Asia/Shanghai',
    availability: openAllWeek,
    idempotencyKey: randomUUID(),
  });
  room = made.calendar.id;
  browser = await launchBrowser();
  context = await browser.newContext({ timezoneId: 'Europe/Berlin' });
  page = await context.newPage();
  await signInToConsole(page, server);
  await page.waitForSelector('h1:text("Approvals")');
});
afterAll(async () => {
  await releaseBrowser(browser);
  await agent?.close();
  await server?.stop();
});

async function askFor(hourOffset: number) {
  const { booking, details } = await askForApproval(
    agent,
    room,
    futureHour(3, hourOffset),
    futureHour(3, hourOffset + 1),
    {
      customer: { name: 'Grace Hopper', email: 'grace@example.com' },
      label: 'Quarterly review',
    },
  );
  return { booking, approvalId: details.approvalId };
}

/** axe and screenshots of the page as it is now, remembered for the every-page check. */
async function audit(name: string) {
  await auditConsolePage(page, name);
  seen.push(name);
}

describe('the console', () => {
  it('an agent’s request appears in the open queue without reload; approving lets the agent’s retry confirm', async () => {
    await page.goto(new URL('/console/approvals', server.url).href);
    await page.waitForSelector('#nothing-waiting');
    const { booking, approvalId } = await askFor(0);
    // No reload: the queue polls.
    await page.waitForSelector(`[data-approval="${approvalId}"]`, { timeout: 10_000 });
    expect(await page.textContent(`[data-approval="${approvalId}"]`)).toMatch(/Jade Room/);
    await audit('approvals-queue');

    await page.click(`[data-approval="${approvalId}"] a`);
    await page.waitForSelector('#reference');
    const text = (await page.textContent('main'))!.replace(/\s+/g, ' ');
    // Human-first: weekday, date, local time range in the calendar's zone, duration, the customer as fields.
    expect(text).toMatch(
      /(Mon|Tue|Wed|Thu|Fri|Sat|Sun) \d{1,2} \w{3} \d{4}, \d\d:\d\d(–| – \w{3} \d{1,2} \w{3} \d{4}, )\d\d:\d\d \(Shanghai\)/,
    );
    // The viewer's own zone (the browser's, told by the console's script), written by the server.
    expect(text).toMatch(/\d\d:\d\d \(Berlin\), your time/);
    expect(text).toContain('1 h');
    expect(text).toContain('Grace Hopper');
    expect(text).toContain('grace@example.com');
    expect(text).toContain('Quarterly review');
    expect(text).toMatch(/Expires ?in \d+ min/);
    await audit('approval-detail');

    await page.click('button[value=approve]');
    await page.waitForSelector('.status.approved');
    const confirmed = await ok(agent, 'confirm_booking', {
      bookingId: booking.id,
      expectedVersion: 1,
      approval: { approvalId },
      idempotencyKey: randomUUID(),
    });
    expect(confirmed.booking.status).toBe('CONFIRMED');
  });

  it('denying in the console: the agent’s confirm is APPROVAL_DENIED', async () => {
    const { booking, approvalId } = await askFor(2);
    await page.goto(new URL(`/console/approvals/${approvalId}`, server.url).href);
    await page.click('button[value=deny]');
    await page.waitForSelector('.status.denied');
    const retried = await call(agent, 'confirm_booking', {
      bookingId: booking.id,
      expectedVersion: 1,
      approval: { approvalId },
      idempotencyKey: randomUUID(),
    });
    expect(retried.error!.code).toBe('APPROVAL_DENIED');
  });

  it('a token made on the connections page is shown once, works on /mcp, and stops when revoked', async () => {
    await page.goto(new URL('/console/connections', server.url).href);
    await audit('connections');
    // How to connect a host: the address, and per host a snippet with a placeholder for the token.
    const mcp = new URL('/mcp', server.url);
    expect(await page.textContent('#mcp-url')).toBe(mcp.href);
    const cursorConfig = async () => JSON.parse((await page.textContent('#connect-token-cursor'))!);
    expect((await cursorConfig()).mcpServers.holdfast).toEqual({
      url: mcp.href,
      headers: { Authorization: 'Bearer YOUR_TOKEN' },
    });
    expect(await page.locator('#connect details.connect').count()).toBeGreaterThanOrEqual(5);
    // read comes with every token: its box is ticked and cannot be unticked.
    expect(await page.isChecked('#scope-read')).toBe(true);
    expect(await page.isDisabled('#scope-read')).toBe(true);
    await page.fill('#token-name', 'Console-made agent');
    await page.click('form[action="/console/tokens"] button[type=submit]');
    await page.waitForSelector('#new-token');
    const secret = (await page.textContent('#new-token'))!.trim();
    expect(secret).toMatch(/^hf_pat_/);
    await audit('token-created');
    // Shown once, the new token is also in the snippets: pasted as it stands, it works.
    expect((await cursorConfig()).mcpServers.holdfast.headers.Authorization).toBe(`Bearer ${secret}`);
    expect(await page.textContent('#connect-token-claude-code')).toContain(`Authorization: Bearer ${secret}`);
    expect((await bearerToolsList(mcp, secret)).status).toBe(200);

    await page.goto(new URL('/console/connections', server.url).href);
    expect(await page.content()).not.toContain(secret);
    // Narrowed on the page to read only: its next hold is refused with a step-up challenge.
    const hold = {
      calendarIds: [room],
      start: futureHour(5),
      end: futureHour(5, 1),
      idempotencyKey: randomUUID(),
    };
    expect((await bearerToolCall(mcp, secret, 'hold_slot', hold)).status).toBe(200);
    const row = page.locator('tr:has-text("Console-made agent")');
    await row.locator('details.access summary').click();
    await row.locator('input[value=draft]').uncheck();
    await row.locator('input[value=write]').uncheck();
    await row.locator('details.access button[type=submit]').click();
    await page.waitForSelector('tr:has-text("Console-made agent"):has-text("read · draft")');
    const refused = await bearerToolCall(mcp, secret, 'hold_slot', { ...hold, idempotencyKey: randomUUID() });
    expect(refused.status).toBe(403);
    expect(refused.headers.get('www-authenticate')).toContain('insufficient_scope');
    await page.click('button[aria-label="Revoke token Console-made agent"]');
    await page.waitForSelector('tr:has-text("Console-made agent") .status.revoked');
    expect((await bearerToolsList(mcp, secret)).status).toBe(401);
    expect(seen).toEqual(['approvals-queue', 'approval-detail', 'connections', 'token-created']);
  });
});
