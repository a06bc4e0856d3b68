import { randomUUID } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Client } from '@modelcontextprotocol/client';
import { AxeBuilder } from '@axe-core/playwright';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchBrowser, releaseBrowser } from '../support/browser.js';
import { signInToConsole } from '../support/console-browser.js';
import { createOpenCalendar, futureHour } from '../support/fixtures.js';
import { layoutFaults } from '../support/layout-check.js';
import { call, connectHttp, ok } from '../support/mcp-clients.js';
import { signIn } from '../support/person.js';
import type { RunningServer } from '../support/spawn-server.js';
import { runCli, spawnServer } from '../support/spawn-server.js';

// The pages a person decides on, read on a 320 px phone up to a 1280 px desktop, with the names
// people really give things: 200 characters, right-to-left, emoji. Nothing scrolls sideways and
// no word is split across lines.

const WIDTHS = [320, 390, 768, 1280];
/** Each page is photographed at a phone's and a desktop's width: `npm run screenshots` keeps them in docs/. */
const SHOT_WIDTHS = new Set([390, 1280]);
const FOR_DOCS = process.env.HOLDFAST_SCREENSHOTS !== undefined;
const SHOTS = process.env.HOLDFAST_SCREENSHOTS ?? join(process.cwd(), '.artifacts', 'screenshots');
/** The pages docs/ keeps: those a person decides on. The suite photographs every page into .artifacts. */
const DOC_PAGES = new Set([
  'approvals',
  'approval',
  'approval-five-calendars',
  'approval-decided',
  'booking',
  'bookings',
  'payments',
]);
const slug = (name: string) =>
  name
    .split(',')[0]!
    .replace(/[^a-z0-9]+/gi, '-')
    .toLowerCase();
const LONG_NAME = `Grande salle de conférence du troisième étage ${'avec vue sur le fleuve '.repeat(7)}`
  .slice(0, 200)
  .trim();
const NAMES = [LONG_NAME, 'غرفة الاجتماعات الكبرى', 'Studio 🎙️ Podcast 🎧', 'Jade Room', 'Salle B'];

let server: RunningServer;
let agent: Client;
let browser: Browser;
let context: BrowserContext;
/** Name, address, and the screenshot's file name where the name alone would not tell them apart. */
const pages: [string, string, string?][] = [];

beforeAll(async () => {
  server = await spawnServer(['--no-seed', '--dev']);
  agent = await connectHttp(server.url, 'modern');
  const rooms: string[] = [];
  for (const name of NAMES)
    rooms.push(await createOpenCalendar(agent, name, { amount: '120.50', currency: 'EUR' }));
  const customer = {
    name: 'Maximiliane Konstanze von Hohenzollern-Sigmaringen 🌷',
    email: 'max.hohenzollern@example.com',
    notes: 'Arrives late; needs a step-free entrance and a quiet corner near the window, please.',
  };
  const ask = async (calendarIds: string[], hour: number) => {
    const { booking } = await ok(agent, 'hold_slot', {
      calendarIds,
      start: futureHour(3, hour),
      end: futureHour(3, hour + 1),
      customer,
      label: 'Quarterly board review — please prepare the projector 📽️',
      idempotencyKey: randomUUID(),
    });
    const asked = await call(agent, 'confirm_booking', {
      bookingId: booking.id,
      expectedVersion: 1,
      idempotencyKey: randomUUID(),
    });
    return { booking, approvalId: (asked.error!.details as { approvalId: string }).approvalId };
  };
  const one = await ask([rooms[0]!], 1);
  const five = await ask(rooms, 3);
  const rtl = await ask([rooms[1]!], 5);
  await runCli(['approvals', 'approve', rtl.approvalId, '--db', server.dbPath]);
  pages.push(
    ['approvals', '/console/approvals'],
    ['approval, one calendar with a 200-character name', `/console/approvals/${one.approvalId}`, 'approval'],
    ['approval, five calendars', `/console/approvals/${five.approvalId}`, 'approval-five-calendars'],
    ['approval, decided, right-to-left calendar', `/console/approvals/${rtl.approvalId}`, 'approval-decided'],
    ['bookings', '/console/bookings'],
    ['booking', `/console/bookings/${five.booking.id}`],
    ['calendars', '/console/calendars'],
    ['calendar', `/console/calendars/${rooms[0]}`],
    ['connections', '/console/connections'],
    ['activity', '/console/activity'],
    ['people', '/console/people'],
    ['payments', '/console/payments'],
    ['not found', '/console/no-such-page'],
  );
  browser = await launchBrowser();
  context = await browser.newContext();
  const page = await context.newPage();
  await signInToConsole(page, server);
  await page.close();
  // The owner is signed in elsewhere too: the account page lists that session with its button.
  await signIn(new URL(server.url).origin, server.agent.email, server.agent.password);
});
afterAll(async () => {
  await context?.close();
  await releaseBrowser(browser);
  await agent?.close();
  await server?.stop();
});

/** Every axe rule broken on the page, whatever its impact. */
async function axeViolations(page: Page, name: string): Promise<string[]> {
  const results = await new AxeBuilder({ page }).analyze();
  return results.violations.map(
    (v) => `${name}: ${v.id} (${v.impact}): ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`,
  );
}

describe('every page a person decides on, at 320, 390, 768 and 1280 px, with hostile names', () => {
  it('has no accessibility violation of any impact (axe), the account page included', async () => {
    const page = await context.newPage();
    const violations: string[] = [];
    try {
      for (const [name, path] of [...pages, ['account', '/account'] as [string, string]]) {
        await page.goto(new URL(path, server.url).href);
        violations.push(...(await axeViolations(page, name)));
      }
    } finally {
      await page.close();
    }
    expect(violations).toEqual([]);
  }, 180_000); // every page through axe in one browser: ~30 s alone, more on a busy machine

  it('never scrolls sideways and never breaks a word', async () => {
    const page = await context.newPage();
    const faults: string[] = [];
    mkdirSync(SHOTS, { recursive: true });
    try {
      for (const [name, path, shot] of [...pages, ['account', '/account'] as [string, string]]) {
        await page.goto(new URL(path, server.url).href);
        for (const width of WIDTHS) {
          await page.setViewportSize({ width, height: 900 });
          const file = shot ?? slug(name);
          if (SHOT_WIDTHS.has(width) && (!FOR_DOCS || DOC_PAGES.has(file)))
            await page.screenshot({
              path: join(SHOTS, `${file}-${width}.png`),
              fullPage: true,
            });
          for (const fault of await layoutFaults(page))
            faults.push(`${name} at ${width} px: ${fault.kind}: ${fault.where}`);
        }
      }
    } finally {
      await page.close();
    }
    expect(faults).toEqual([]);
  });

  it('a German browser in Los Angeles reads its own time in English beside the calendar’s; the account page sets another zone', async () => {
    const german = await browser.newContext({ locale: 'de-DE', timezoneId: 'America/Los_Angeles' });
    const page = await german.newPage();
    try {
      await signInToConsole(page, server);
      const approval = new URL(pages.find(([name]) => name.startsWith('approval, one'))![1], server.url).href;
      await page.goto(approval); // the console's script tells the server the browser's zone
      await page.goto(approval);
      const yours = (await page.locator('.viewer-time').first().textContent())!;
      // English words, start and end (the end's day repeated when it differs), the zone named.
      expect(yours).toMatch(
        /^(Mon|Tue|Wed|Thu|Fri|Sat|Sun) \d{1,2} [A-Z][a-z]{2} \d{4}, \d\d:\d\d.*\d\d:\d\d \(Los Angeles\), your time$/,
      );
      expect(await page.textContent('main')).not.toMatch(/Dez\.|GMT-8|\d{4}-\d\d-\d\dT/);
      await page.goto(new URL('/account', server.url).href);
      await page.fill('#time-zone', 'Asia/Tokyo');
      await page.click('form[action="/account/time-zone"] button[type=submit]');
      await page.waitForURL(/\/account$/);
      expect(await page.textContent('main')).toContain('Asia/Tokyo (your setting)');
      await page.goto(approval);
      expect(await page.locator('.viewer-time').first().textContent()).toMatch(/\(Tokyo\), your time$/);
      await page.goto(new URL('/account', server.url).href);
      await page.fill('#time-zone', 'Mars/Olympus_Mons');
      await page.click('form[action="/account/time-zone"] button[type=submit]');
      expect(await page.textContent('#result')).toContain('timeZone');
      await page.goto(new URL('/account', server.url).href);
      await page.fill('#time-zone', '');
      await page.click('form[action="/account/time-zone"] button[type=submit]');
      await page.waitForURL(/\/account$/);
      expect(await page.textContent('main')).toContain('America/Los_Angeles (your browser');
    } finally {
      await german.close();
    }
  });

  it('an unknown console address answers the console’s own page, 404, not raw JSON', async () => {
    const page = await context.newPage();
    try {
      const answer = await page.goto(new URL('/console/no-such-page/at/all', server.url).href);
      expect(answer!.status()).toBe(404);
      expect(answer!.headers()['content-type']).toMatch(/^text\/html/);
      expect(await page.textContent('h1')).toBe('Not found');
      expect(await page.locator('nav a[href="/console/approvals"]').count()).toBeGreaterThan(0);
    } finally {
      await page.close();
    }
  });

  it('the sign-in and setup pages too, signed out: same layout, no violation, nothing sideways', async () => {
    const added = await runCli([
      'users',
      'add',
      'noor.al-rashid@example.com',
      '--role',
      'approver',
      '--db',
      server.dbPath,
      '--json',
    ]);
    const setup = new URL(JSON.parse(added.stdout).setupUrl as string).pathname;
    const fresh = await browser.newContext();
    const page = await fresh.newPage();
    const faults: string[] = [];
    try {
      for (const [name, path] of [
        ['sign-in', '/login'],
        ['setup', setup],
      ] as const) {
        const answer = await page.goto(new URL(path, server.url).href);
        expect(answer!.headers()['content-security-policy']).not.toContain('unsafe-inline');
        expect(await page.locator('main').count()).toBe(1);
        expect(await axeViolations(page, name)).toEqual([]);
        for (const width of WIDTHS) {
          await page.setViewportSize({ width, height: 900 });
          if (SHOT_WIDTHS.has(width))
            await page.screenshot({ path: join(SHOTS, `${name}-${width}.png`), fullPage: true });
          for (const fault of await layoutFaults(page))
            faults.push(`${name} at ${width} px: ${fault.kind}: ${fault.where}`);
        }
      }
    } finally {
      await fresh.close();
    }
    expect(faults).toEqual([]);
  });
});
