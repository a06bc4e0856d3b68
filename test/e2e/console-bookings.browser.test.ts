import type { JsonWebKey } from 'node:crypto';
import { createPublicKey, randomUUID } from 'node:crypto';
import jwt from 'jsonwebtoken';
import type { Client } from '@modelcontextprotocol/client';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { askForApproval } from '../support/approvals.js';
import { launchBrowser, releaseBrowser } from '../support/browser.js';
import { auditConsolePage, signInToConsole } from '../support/console-browser.js';
import { futureHour, openAllWeek } from '../support/fixtures.js';
import { connectHttp, ok } from '../support/mcp-clients.js';
import type { RunningServer } from '../support/spawn-server.js';
import { runCli, spawnServer, untilSealed } from '../support/spawn-server.js';

// The bookings section as a person uses it, in Chromium: the agenda lists the tenant's
// bookings and filters them by customer and status, the week view puts each on its day, a
// booking's page tells its whole history from the audit trail, and cancelling or releasing
// there frees the time the agent sees in find_slots.

let server: RunningServer;
let agent: Client;
let browser: Browser;
let page: Page;
let room: string;
let grace: { id: string; start: string; end: string };
let ada: { id: string; start: string; end: string };

const url = (path: string) => new URL(path, server.url).href;
const text = async () => (await page.textContent('main'))!.replace(/\s+/g, ' ');

async function isFree(start: string, end: string): Promise<boolean> {
  const found = await ok<{ slots: { start: string }[] }>(agent, 'find_slots', {
    calendarIds: [room],
    from: start,
    to: end,
    durationMinutes: 60,
    limit: 5,
  });
  return found.slots.some((s) => Date.parse(s.start) === Date.parse(start));
}

beforeAll(async () => {
  server = await spawnServer(['--no-seed']);
  agent = await connectHttp(server.url, 'modern');
  room = (
    await ok<{ calendar: { id: string } }>(agent, 'create_calendar', {
      name: 'Jade Room',
      timeZone: 'Asia/Shanghai',
      availability: openAllWeek,
      idempotencyKey: randomUUID(),
    })
  ).calendar.id;
  // Grace's booking is confirmed (approved by the owner on the CLI); Ada's stays a hold.
  const asked = await askForApproval(agent, room, futureHour(3), futureHour(3, 1), {
    customer: { name: 'Grace Hopper', email: 'grace@example.com' },
    label: 'Quarterly review',
  });
  expect(
    (await runCli(['approvals', 'approve', asked.details.approvalId, '--db', server.dbPath])).status,
  ).toBe(0);
  await ok(agent, 'confirm_booking', {
    bookingId: asked.booking.id,
    expectedVersion: 1,
    approval: { approvalId: asked.details.approvalId },
    idempotencyKey: randomUUID(),
  });
  grace = { id: asked.booking.id, start: futureHour(3), end: futureHour(3, 1) };
  const held = await ok<{ booking: { id: string } }>(agent, 'hold_slot', {
    calendarIds: [room],
    start: futureHour(3, 3),
    end: futureHour(3, 4),
    customer: { name: 'Ada Lovelace', email: 'ada@example.com' },
    idempotencyKey: randomUUID(),
  });
  ada = { id: held.booking.id, start: futureHour(3, 3), end: futureHour(3, 4) };
  await untilSealed(server.dbPath);
  browser = await launchBrowser();
  const context = await browser.newContext({ timezoneId: 'Europe/Berlin' });
  page = await context.newPage();
  await signInToConsole(page, server, '/console/bookings');
});
afterAll(async () => {
  await releaseBrowser(browser);
  await agent?.close();
  await server?.stop();
});

describe('the bookings section', () => {
  it('the agenda lists the tenant’s bookings, filters by customer and status, and shows times in the calendar’s zone', async () => {
    await page.goto(url('/console/bookings'));
    await page.waitForSelector(`[data-booking="${grace.id}"]`);
    expect(await page.isVisible(`[data-booking="${ada.id}"]`)).toBe(true);
    // One day: "Fri 4 Dec 2026, 14:00–15:00 (Shanghai)"; across Shanghai's midnight both ends carry a date.
    const day = String.raw`(Mon|Tue|Wed|Thu|Fri|Sat|Sun) \d{1,2} \w{3} \d{4}, \d\d:\d\d`;
    expect(await page.textContent(`[data-booking="${grace.id}"]`)).toMatch(
      new RegExp(`${day}(–\\d\\d:\\d\\d| – ${day}) \\(Shanghai\\)`),
    );
    await auditConsolePage(page, 'bookings-agenda');

    await page.fill('#f-customer', 'GRACE');
    await page.click('form.filters button[type=submit]');
    await page.waitForSelector('#count');
    expect(await page.isVisible(`[data-booking="${grace.id}"]`)).toBe(true);
    expect(await page.locator(`[data-booking="${ada.id}"]`).count()).toBe(0);

    await page.fill('#f-customer', '');
    await page.selectOption('#f-status', 'HELD');
    await page.click('form.filters button[type=submit]');
    await page.waitForSelector('#count');
    expect(await page.locator('[data-booking]').count()).toBe(1);
    expect(await page.isVisible(`[data-booking="${ada.id}"]`)).toBe(true);

    // A date that does not exist is refused by name, and nothing is listed for it.
    const refused = await page.goto(url('/console/bookings?from=2026-02-30'));
    expect(refused!.status()).toBe(400);
    expect(await page.textContent('#filter-problem')).toContain('From');
  });

  it('the week view puts each booking on its day, at its local time', async () => {
    const day = new Intl.DateTimeFormat('en-CA', { timeZone: 'Asia/Shanghai' }).format(
      Date.parse(grace.start),
    );
    await page.goto(url(`/console/bookings/week?week=${day}`));
    const slot = page.locator(`ol.week li.slot[data-booking="${grace.id}"]`);
    await slot.waitFor();
    const local = new Intl.DateTimeFormat('en-GB', {
      timeZone: 'Asia/Shanghai',
      hour: '2-digit',
      minute: '2-digit',
      hourCycle: 'h23',
    }).format(Date.parse(grace.start));
    expect(await slot.textContent()).toContain(local);
    const weekday = new Intl.DateTimeFormat('en-GB', { timeZone: 'Asia/Shanghai', weekday: 'short' }).format(
      Date.parse(grace.start),
    );
    const heading = await slot.locator('xpath=ancestor::li[contains(@class,"day")]/h2').textContent();
    expect(heading).toContain(weekday);
    // The view names the zone it draws in, and switches to the viewer's own.
    expect(await page.textContent('#week-zone')).toContain("Times in Shanghai (the calendar's zone).");
    await auditConsolePage(page, 'bookings-week');
    const viewer = await page.evaluate(() => Intl.DateTimeFormat().resolvedOptions().timeZone);
    if (viewer !== 'Asia/Shanghai') {
      await page.click('#week-zone a');
      expect(await page.textContent('#week-zone')).toContain('(your time)');
      // The switch keeps the week's Monday; near a weekend the booking's day in the viewer's zone
      // may be in the week before (Sunday in Berlin, Monday in Shanghai): open that day's week.
      const myDay = new Intl.DateTimeFormat('en-CA', { timeZone: viewer }).format(Date.parse(grace.start));
      await page.goto(url(`/console/bookings/week?week=${myDay}&zone=mine`));
      const mine = new Intl.DateTimeFormat('en-GB', {
        timeZone: viewer,
        hour: '2-digit',
        minute: '2-digit',
        hourCycle: 'h23',
      }).format(Date.parse(grace.start));
      expect(await page.locator(`ol.week li.slot[data-booking="${grace.id}"]`).textContent()).toContain(mine);
    }
  });

  it('a booking’s page tells its history from the trail; cancelling there frees the time for the agent', async () => {
    await page.goto(url(`/console/bookings/${grace.id}`));
    await page.waitForSelector('#reference');
    const before = await text();
    expect(before).toContain('Grace Hopper');
    expect(before).toContain('grace@example.com');
    expect(before).toContain('Quarterly review');
    // The hold that made it, the refused confirm that asked for approval, the confirm that ran.
    const calls = await page.$$eval('tr[data-history]', (rows) =>
      rows.map((r) => r.getAttribute('data-history')),
    );
    expect(calls).toEqual(expect.arrayContaining(['hold_slot', 'confirm_booking']));
    expect(calls.filter((c) => c === 'confirm_booking')).toHaveLength(2);
    // Asking a person is a step of the story, not an error; the person's decision is in it, by name.
    expect(before).toContain('Asked a person to approve confirming it');
    expect(before).not.toContain('APPROVAL_REQUIRED');
    expect(calls).toContain('decision');
    // The signed receipt, in words with the calendar's zone, and as a file that verifies elsewhere.
    const receipt = (await page.textContent('#receipt-facts'))!.replace(/\s+/g, ' ');
    expect(receipt).toContain('Calendars: Jade Room');
    expect(receipt).toMatch(/Time: .*\(Shanghai\)/);
    expect(receipt).toContain('a person approved it');
    expect(receipt).toMatch(/Audit record: #\d+/);
    const file = await page.context().request.get(url(`/console/bookings/${grace.id}/receipt.jws`));
    expect(file.status()).toBe(200);
    expect(file.headers()['content-type']).toContain('application/jose');
    const keys = (await (await fetch(url('/receipts/jwks.json'))).json()) as { keys: JsonWebKey[] };
    const jws = (await file.text()).trim();
    const { header } = jwt.decode(jws, { complete: true })!;
    const pem = createPublicKey({
      key: keys.keys.find((k) => (k as { kid?: string }).kid === header.kid)!,
      format: 'jwk',
    }).export({ type: 'spki', format: 'pem' });
    expect((jwt.verify(jws, pem, { algorithms: ['ES256'] }) as { sub: string }).sub).toBe(grace.id);
    await auditConsolePage(page, 'booking-detail');

    expect(await isFree(grace.start, grace.end)).toBe(false);
    await page.click('button[value=cancel]');
    await page.waitForSelector('.status.cancelled');
    expect(await page.textContent('#result')).toContain('Cancelled');
    const seen = await ok<{ booking: { status: string } }>(agent, 'get_booking', { bookingId: grace.id });
    expect(seen.booking.status).toBe('CANCELLED');
    expect(await isFree(grace.start, grace.end)).toBe(true);
    await untilSealed(server.dbPath);
    await page.reload();
    const after = await page.$$eval('tr[data-history]', (rows) =>
      rows.map((r) => r.getAttribute('data-history')),
    );
    // In order: the person's cancel, then the agent's get_booking after it.
    expect(after.slice(-2)).toEqual(['console_booking', 'get_booking']);
    expect(await page.textContent('tr[data-history="console_booking"]')).toContain(server.agent.email);
  });

  it('releasing a hold in the console: the agent can no longer confirm it and the time is free', async () => {
    expect(await isFree(ada.start, ada.end)).toBe(false);
    await page.goto(url(`/console/bookings/${ada.id}`));
    await page.click('button[value=release]');
    await page.waitForSelector('.status.released');
    expect(await isFree(ada.start, ada.end)).toBe(true);
    const seen = await ok<{ booking: { status: string } }>(agent, 'get_booking', { bookingId: ada.id });
    expect(seen.booking.status).toBe('RELEASED');
  });

  it('the reconciliation queue says what it is for, and is empty here', async () => {
    await page.goto(url('/console/bookings/reconcile'));
    expect(await text()).toContain('paid afterwards');
    expect(await page.isVisible('#no-bookings')).toBe(true);
    await auditConsolePage(page, 'bookings-reconcile');
  });
});
