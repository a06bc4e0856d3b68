import { randomUUID } from 'node:crypto';
import type { Client } from '@modelcontextprotocol/client';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_BOOKING_RULES } from '../../src/domain/availability/booking-rules.js';
import { launchBrowser, releaseBrowser } from '../support/browser.js';
import { auditConsolePage, signInToConsole } from '../support/console-browser.js';
import { createOpenCalendar } from '../support/fixtures.js';
import { call, connectHttp, ok } from '../support/mcp-clients.js';
import type { RunningServer } from '../support/spawn-server.js';
import { spawnServer } from '../support/spawn-server.js';

// Booking rules as an owner sets them on a calendar's page, in Chromium, checked against what an
// agent gets through the official MCP client: the page sums the rules up in words, find_slots
// and the page's preview apply them, and hold_slot refuses a time inside the notice with
// OUTSIDE_BOOKING_RULES, overfills no seat, keeps the buffer and stops at the day's limit.
// The calendar is open all week in UTC, so the expected times are plain arithmetic.

const HOUR = 3_600_000;
const DAY = 24 * HOUR;

let server: RunningServer;
let agent: Client;
let browser: Browser;
let page: Page;
let calendarId = '';

beforeAll(async () => {
  server = await spawnServer(['--no-seed']);
  agent = await connectHttp(server.url, 'modern');
  calendarId = await createOpenCalendar(agent, 'Pottery class');
  browser = await launchBrowser();
  const context = await browser.newContext({ timezoneId: 'Europe/Berlin' });
  page = await context.newPage();
  await signInToConsole(page, server, `/console/calendars/${calendarId}`);
});
afterAll(async () => {
  await releaseBrowser(browser);
  await agent?.close();
  await server?.stop();
});

const go = (path: string) => page.goto(new URL(path, server.url).href);
const iso = (t: number) => new Date(t).toISOString();

/** UTC midnight three days from now: well past a day's notice while the test runs. */
const DAY3 = Math.floor(Date.now() / DAY) * DAY + 3 * DAY;

async function hold(start: number, minutes = 60) {
  return call<{ booking: { id: string } }>(agent, 'hold_slot', {
    calendarIds: [calendarId],
    start: iso(start),
    end: iso(start + minutes * 60_000),
    idempotencyKey: randomUUID(),
  });
}

async function agentRules() {
  const listed = await ok<{ calendars: { id: string; rules: Record<string, unknown> }[] }>(
    agent,
    'list_calendars',
    {},
  );
  return listed.calendars.find((c) => c.id === calendarId)!.rules;
}

/** The find_slots query the preview on the page says it shows, and every start an agent is offered for it. */
async function previewAndAgent(): Promise<{ shown: number[]; offered: number[] }> {
  const days = page.locator('#slot-days');
  const query = {
    from: (await days.getAttribute('data-from'))!,
    to: (await days.getAttribute('data-to'))!,
    durationMinutes: Number(await days.getAttribute('data-duration')),
    stepMinutes: Number(await days.getAttribute('data-step')),
  };
  const offered: number[] = [];
  let cursor: string | undefined;
  do {
    const data = await ok<{ slots: { start: string }[]; nextCursor: string | null }>(agent, 'find_slots', {
      calendarIds: [calendarId],
      ...query,
      limit: 100,
      ...(cursor ? { cursor } : {}),
    });
    offered.push(...data.slots.map((s) => Date.parse(s.start)));
    cursor = data.nextCursor ?? undefined;
  } while (cursor);
  const shown = await page
    .locator('#slot-days time[data-slot]')
    .evaluateAll((els) => els.map((el) => Date.parse(el.getAttribute('datetime')!)));
  return { shown, offered };
}

describe('booking rules in the console', () => {
  it('an owner sets buffers, notice, a per-day limit and 3 seats; the page says them in words and the agent reads them', async () => {
    expect(await page.textContent('#rules-words')).toBe('up to 365 days ahead · one booking at a time');
    expect(await page.inputValue('#rule-seats')).toBe('1');
    await page.fill('#rule-before', '5');
    await page.fill('#rule-after', '15');
    await page.fill('#rule-notice', '24');
    await page.selectOption('#rule-notice-unit', 'hours');
    await page.fill('#rule-day', '4');
    await page.fill('#rule-seats', '3');
    await page.click('button:text("Save booking rules")');
    await page.waitForSelector('#result:text("Booking rules saved")');

    expect(await page.textContent('#rules-words')).toBe(
      '5 min buffer before each booking · 15 min buffer after each booking · at least 24 h notice · ' +
        'up to 365 days ahead · at most 4 bookings a day · 3 seats',
    );
    // The form shows what is stored now, notice in the largest unit that says it exactly.
    expect(await page.inputValue('#rule-after')).toBe('15');
    expect(await page.inputValue('#rule-notice')).toBe('1');
    expect(await page.inputValue('#rule-notice-unit')).toBe('days');
    expect(await page.inputValue('#rule-day')).toBe('4');
    expect(await page.inputValue('#rule-week')).toBe('');
    expect(await agentRules()).toEqual({
      ...DEFAULT_BOOKING_RULES,
      bufferBeforeMinutes: 5,
      bufferAfterMinutes: 15,
      minimumNoticeMinutes: 24 * 60,
      maxBookingsPerDay: 4,
      capacity: 3,
    });
    await auditConsolePage(page, 'calendar-rules');
  });

  it('hold_slot refuses a time inside the notice with OUTSIDE_BOOKING_RULES; the preview starts a day out', async () => {
    const soon = Math.ceil((Date.now() + 2 * HOUR) / HOUR) * HOUR;
    const refused = await hold(soon);
    expect(refused.ok).toBe(false);
    expect(refused.error).toMatchObject({
      code: 'OUTSIDE_BOOKING_RULES',
      details: { calendarId, rule: 'minimumNotice', minimumNoticeMinutes: 24 * 60 },
    });
    await go(`/console/calendars/${calendarId}`);
    const { shown, offered } = await previewAndAgent();
    expect(shown.length).toBeGreaterThan(0);
    expect(shown).toEqual(offered);
    expect(Math.min(...shown)).toBeGreaterThanOrEqual(Date.now() + DAY - 5 * 60_000);
  });

  it('three seats take three holds at once, the buffer and the day’s limit hold, and the preview shows it', async () => {
    const ten = DAY3 + 10 * HOUR;
    for (let seat = 0; seat < 3; seat++) expect((await hold(ten)).ok, `seat ${seat + 1}`).toBe(true);
    expect((await hold(ten)).error?.code, 'a fourth seat').toBe('SLOT_UNAVAILABLE');
    // 15 min after and 5 min before: the next start is 20 minutes after the end.
    expect((await hold(ten + HOUR + 15 * 60_000)).error?.code, 'inside the buffers').toBe('SLOT_UNAVAILABLE');
    expect((await hold(ten + HOUR + 20 * 60_000)).ok, 'after the buffers').toBe(true);
    // Four bookings that day: the limit.
    const fifth = await hold(DAY3 + 15 * HOUR);
    expect(fifth.error).toMatchObject({
      code: 'OUTSIDE_BOOKING_RULES',
      details: { rule: 'maxBookingsPerDay' },
    });
    expect((await hold(DAY3 + DAY + 15 * HOUR)).ok, 'the next day').toBe(true);

    await go(`/console/calendars/${calendarId}`);
    const { shown, offered } = await previewAndAgent();
    expect(shown).toEqual(offered);
    const date = iso(DAY3).slice(0, 10);
    expect(shown.filter((s) => s >= DAY3 && s < DAY3 + DAY)).toEqual([]);
    expect(await page.textContent(`li[data-date="${date}"]`)).toContain('no free 1 h left');
    expect(shown.some((s) => s >= DAY3 + DAY && s < DAY3 + 2 * DAY)).toBe(true);
  });

  it('a bad field comes back named, with what was typed, and changes nothing', async () => {
    await go(`/console/calendars/${calendarId}`);
    const before = await agentRules();
    await page.fill('#rule-after', '30');
    await page.fill('#rule-day', '');
    await page.fill('#rule-seats', '0');
    const [answer] = await Promise.all([
      page.waitForResponse((r) => r.url().includes('/rules') && r.request().method() === 'POST'),
      page.click('button:text("Save booking rules")'),
    ]);
    expect(answer.status()).toBe(400);
    expect(await page.textContent('#form-problem')).toBe(
      'Seats: give a whole number from 1 to 1,000 (how many bookings may overlap), or leave it empty for 1',
    );
    expect(await page.getAttribute('#rule-seats', 'aria-invalid')).toBe('true');
    expect(await page.inputValue('#rule-seats')).toBe('0');
    expect(await page.inputValue('#rule-after')).toBe('30');
    expect(await page.inputValue('#rule-day')).toBe('');
    expect(await page.textContent('#rules-words')).toContain('15 min buffer after each booking');
    await auditConsolePage(page, 'calendar-rules-refused');
    expect(await agentRules()).toEqual(before);
  });
});
