import type { Client } from '@modelcontextprotocol/client';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchBrowser, releaseBrowser } from '../support/browser.js';
import { auditConsolePage, signInToConsole } from '../support/console-browser.js';
import { connectHttp, ok } from '../support/mcp-clients.js';
import { addPersonWithPassword } from '../support/person.js';
import type { RunningServer } from '../support/spawn-server.js';
import { spawnServer } from '../support/spawn-server.js';

// The calendars section as an owner uses it, in Chromium, checked against what an agent sees
// through the official MCP client: a calendar made on the page is listed; editing its weekly
// hours on the page changes find_slots exactly as the new hours say; a closed date override
// takes that day out and special hours replace it; the page's preview is find_slots' answer.
// Tokyo has no daylight saving time, so the expected slots are plain arithmetic.

const ZONE = 'Asia/Tokyo';
const TOKYO_MS = 9 * 3_600_000;
const HOUR = 3_600_000;
const DAY = 24 * HOUR;

let server: RunningServer;
let agent: Client;
let browser: Browser;
let context: BrowserContext;
let page: Page;
let calendarId = '';

beforeAll(async () => {
  server = await spawnServer(['--no-seed']);
  agent = await connectHttp(server.url, 'modern');
  browser = await launchBrowser();
  context = await browser.newContext({ timezoneId: 'Europe/Berlin' });
  page = await context.newPage();
  await signInToConsole(page, server, '/console/calendars');
});
afterAll(async () => {
  await releaseBrowser(browser);
  await agent?.close();
  await server?.stop();
});

const go = (path: string) => page.goto(new URL(path, server.url).href);

interface Query {
  from: string;
  to: string;
  durationMinutes: number;
  stepMinutes: number;
}

/** The find_slots query the preview on the page says it shows. */
async function previewQuery(): Promise<Query> {
  const days = page.locator('#slot-days');
  return {
    from: (await days.getAttribute('data-from'))!,
    to: (await days.getAttribute('data-to'))!,
    durationMinutes: Number(await days.getAttribute('data-duration')),
    stepMinutes: Number(await days.getAttribute('data-step')),
  };
}

/** Every slot start find_slots offers an agent for the query, page after page. */
async function agentStarts(query: Query): Promise<number[]> {
  const starts: number[] = [];
  let cursor: string | undefined;
  do {
    const data = await ok<{ slots: { start: string }[]; nextCursor: string | null }>(agent, 'find_slots', {
      calendarIds: [calendarId],
      ...query,
      limit: 100,
      ...(cursor ? { cursor } : {}),
    });
    starts.push(...data.slots.map((s) => Date.parse(s.start)));
    cursor = data.nextCursor ?? undefined;
  } while (cursor);
  return starts;
}

/** The slot starts the page's preview shows. */
async function pageStarts(): Promise<number[]> {
  const stamps = await page
    .locator('#slot-days time[data-slot]')
    .evaluateAll((els) => els.map((el) => el.getAttribute('datetime')!));
  return stamps.map((s) => Date.parse(s));
}

type Week = Record<number, number[]>; // Tokyo weekday (0 = Sunday) -> hours whose 1-h slot is open

/** What 1-hour slots on the hour the hours allow from `from` to `to`, after `after`. */
function expectedStarts(query: Query, week: Week, after: number, closed: Record<string, number[]> = {}) {
  const starts: number[] = [];
  for (let midnight = Date.parse(query.from); midnight < Date.parse(query.to); midnight += DAY) {
    const local = new Date(midnight + TOKYO_MS);
    const date = local.toISOString().slice(0, 10);
    for (const h of closed[date] ?? week[local.getUTCDay()] ?? []) starts.push(midnight + h * HOUR);
  }
  return starts.filter((s) => s > after);
}

const range = (from: number, to: number) => Array.from({ length: to - from }, (_, i) => from + i);
const OFFICE: Week = { 1: range(9, 17), 2: range(9, 17), 3: range(9, 17), 4: range(9, 17), 5: range(9, 17) };

/** Slots starting in the next minute may be filtered on one side and not the other. */
const settled = (starts: number[], after: number) => starts.filter((s) => s > after);

/** find_slots offers what it offered before, apart from slots that have since started. */
async function expectOfferUnchanged(query: Query, before: number[]) {
  const cut = Date.now() + 60_000;
  expect(settled(await agentStarts(query), cut)).toEqual(settled(before, cut));
}

/** The local date in Tokyo `days` days from now, and its weekday. */
function tokyoDate(daysAhead: number) {
  const local = new Date(Date.now() + TOKYO_MS + daysAhead * DAY);
  return { date: local.toISOString().slice(0, 10), weekday: local.getUTCDay() };
}

/** The next date, 2 to 8 days ahead, on a Tokyo weekday. */
function nextDateOn(weekday: number) {
  for (let d = 2; d < 9; d++) if (tokyoDate(d).weekday === weekday) return tokyoDate(d).date;
  throw new Error('unreachable');
}

describe('the calendars section', () => {
  it('an owner creates a calendar on the page; the agent lists it and is offered exactly the preview’s slots', async () => {
    await go('/console/calendars');
    await page.waitForSelector('#no-calendars');
    await page.click('a:text("New calendar")');
    await page.waitForSelector('#cal-name');
    await page.fill('#cal-name', 'Harbour Studio');
    await page.fill('#cal-zone', ZONE);
    await page.fill('#cal-amount', '8000');
    await page.fill('#cal-currency', 'jpy');
    // Office hours are offered; they are kept as they are.
    expect(await page.inputValue('#week-mon-0-start')).toBe('09:00');
    expect(await page.inputValue('#week-sat-0-start')).toBe('');
    await auditConsolePage(page, 'calendar-new');
    await page.click('button:text("Create calendar")');
    await page.waitForURL(/\/console\/calendars\/cal_/);
    calendarId = new URL(page.url()).pathname.split('/').pop()!;
    expect(await page.textContent('#result')).toContain('Calendar created');

    const listed = await ok<{ calendars: Record<string, unknown>[] }>(agent, 'list_calendars', {});
    expect(listed.calendars).toEqual([
      expect.objectContaining({
        id: calendarId,
        name: 'Harbour Studio',
        timeZone: ZONE,
        price: { amount: '8000', currency: 'JPY' },
      }),
    ]);
    const query = await previewQuery();
    expect(query).toMatchObject({ durationMinutes: 60, stepMinutes: 60 });
    expect(Date.parse(query.to) - Date.parse(query.from)).toBe(14 * DAY);
    const after = Date.now() + 60_000;
    const offered = settled(await agentStarts(query), after);
    expect(offered).toEqual(expectedStarts(query, OFFICE, after));
    expect(settled(await pageStarts(), after)).toEqual(offered);
    expect(await page.locator('#week-words li').allTextContents()).toEqual([
      'Mon–Fri 09:00–17:00',
      'Sat–Sun closed',
    ]);

    await go('/console/calendars');
    const row = page.locator(`tr[data-calendar="${calendarId}"]`);
    expect(await row.textContent()).toContain('JPY 8000');
    expect(await row.textContent()).toContain('Mon–Fri 09:00–17:00');
    expect(await row.locator('td:last-child li').count()).toBe(3);
    await auditConsolePage(page, 'calendars');
  });

  it('editing the weekly hours on the page changes what find_slots offers, as the hours say', async () => {
    await go(`/console/calendars/${calendarId}`);
    const query = await previewQuery();
    const before = await agentStarts(query);
    await page.fill('#week-mon-0-start', '');
    await page.fill('#week-mon-0-end', '');
    await page.fill('#week-tue-0-end', '12:00');
    await page.fill('#week-tue-1-start', '13:00');
    await page.fill('#week-tue-1-end', '17:00');
    await page.fill('#week-sat-0-start', '10:00');
    await page.fill('#week-sat-0-end', '14:00');
    // A third range on Tuesday: one more row, without a script, and nothing typed is lost.
    await page.selectOption('#add-day', 'tue');
    await page.click('button:text("Add a row")');
    await page.waitForSelector('#week-tue-2-start');
    expect(await page.inputValue('#week-sat-0-start')).toBe('10:00');
    expect(await page.inputValue('#week-tue-1-start')).toBe('13:00');
    expect(await page.inputValue('#week-mon-0-start')).toBe('');
    await expectOfferUnchanged(query, before);
    await page.fill('#week-tue-2-start', '18:00');
    await page.fill('#week-tue-2-end', '20:00');
    await page.click('button:text("Save weekly hours")');
    await page.waitForSelector('#result:text("Weekly hours saved")');

    const after = Date.now() + 60_000;
    const now = settled(await agentStarts(query), after);
    const week: Week = {
      2: [9, 10, 11, 13, 14, 15, 16, 18, 19],
      3: range(9, 17),
      4: range(9, 17),
      5: range(9, 17),
      6: [10, 11, 12, 13],
    };
    expect(now).toEqual(expectedStarts(query, week, after));
    expect(now).not.toEqual(settled(before, after));
    expect(settled(await pageStarts(), after)).toEqual(now);
    expect(await page.locator('#week-words li').allTextContents()).toEqual([
      'Mon closed',
      'Tue 09:00–12:00, 13:00–17:00, 18:00–20:00',
      'Wed–Fri 09:00–17:00',
      'Sat 10:00–14:00',
      'Sun closed',
    ]);
  });

  it('a closed date takes that day from find_slots, special hours replace it, and removing it gives the day back', async () => {
    await go(`/console/calendars/${calendarId}`);
    const query = await previewQuery();
    const wednesday = nextDateOn(3);
    const thursday = nextDateOn(4);
    // Only days ahead are compared: nothing of them passes while the test runs.
    const after = Date.now() + DAY;
    const before = settled(await agentStarts(query), after);
    const onDate = (starts: number[], date: string) =>
      starts.filter((s) => new Date(s + TOKYO_MS).toISOString().startsWith(date));
    expect(onDate(before, wednesday)).toHaveLength(8);

    await page.fill('#ov-date', wednesday);
    await page.check('#ov-closed');
    await page.click('button:text("Add date override")');
    await page.waitForSelector('#result:text("Date override saved")');
    const closed = settled(await agentStarts(query), after);
    expect(onDate(closed, wednesday)).toEqual([]);
    expect(closed).toEqual(before.filter((s) => !onDate(before, wednesday).includes(s)));
    expect(await page.textContent(`li[data-date="${wednesday}"]`)).toMatch(/date override\s*closed/);
    expect(await page.textContent(`li[data-override="${wednesday}"]`)).toContain('closed');

    await page.fill('#ov-date', thursday);
    await page.check('#ov-hours');
    await page.fill('#ov-0-start', '10:00');
    await page.fill('#ov-0-end', '11:30');
    await page.click('button:text("Add date override")');
    await page.waitForSelector('#result:text("Date override saved")');
    const special = settled(await agentStarts(query), after);
    const thursdayAt10 = Date.parse(`${thursday}T10:00:00+09:00`);
    expect(onDate(special, thursday)).toEqual([thursdayAt10]);
    expect(settled(await pageStarts(), after)).toEqual(special);
    await auditConsolePage(page, 'calendar-detail');

    await page.click(`li[data-override="${wednesday}"] button`);
    await page.waitForSelector('#result:text("Date override removed")');
    expect(await page.locator(`li[data-override="${wednesday}"]`).count()).toBe(0);
    expect(onDate(await agentStarts(query), wednesday)).toEqual(onDate(before, wednesday));
  });

  it('a mistake comes back with what was typed and a message naming the field; nothing is half-applied', async () => {
    await go(`/console/calendars/${calendarId}`);
    const query = await previewQuery();
    const before = await agentStarts(query);
    const listedBefore = await ok(agent, 'list_calendars', {});
    await page.fill('#week-sun-0-start', '10:00');
    await page.fill('#week-sun-0-end', '12:00');
    await page.fill('#week-sat-0-start', '14:00');
    await page.fill('#week-sat-0-end', '10:00');
    const [answer] = await Promise.all([
      page.waitForResponse((r) => r.url().includes('/hours') && r.request().method() === 'POST'),
      page.click('button:text("Save weekly hours")'),
    ]);
    expect(answer.status()).toBe(400);
    expect(await page.textContent('#form-problem')).toBe(
      'Saturday, hours 1: end must be after start on the same day',
    );
    expect(await page.getAttribute('#week-sat-0-start', 'aria-invalid')).toBe('true');
    expect(await page.inputValue('#week-sat-0-start')).toBe('14:00');
    expect(await page.inputValue('#week-sun-0-start')).toBe('10:00');
    await auditConsolePage(page, 'calendar-refused');

    await page.fill('#cal-zone', 'Mars/Olympus_Mons');
    await page.fill('#cal-name', 'Renamed in vain');
    await page.click('button:text("Save details")');
    await page.waitForSelector('#form-problem');
    expect(await page.textContent('#form-problem')).toContain(
      'Time zone: "Mars/Olympus_Mons" is not an IANA time zone',
    );
    expect(await page.inputValue('#cal-name')).toBe('Renamed in vain');
    await expectOfferUnchanged(query, before);
    expect(await ok(agent, 'list_calendars', {})).toEqual(listedBefore);
  });

  it('renaming, repricing and describing on the page is what the agent lists and finds next', async () => {
    await go(`/console/calendars/${calendarId}`);
    await page.fill('#cal-name', 'Harbour Studio B');
    await page.fill('#cal-amount', '');
    await page.fill('#cal-currency', '');
    await page.fill('#cal-description', 'Photo studio with daylight and a backdrop');
    await page.fill('#cal-tags', 'photography, daylight, , Photography');
    await page.click('button:text("Save details")');
    await page.waitForSelector('#result:text("description and tags saved")');
    expect(await page.textContent('#calendar-name')).toBe('Harbour Studio B');
    expect(await page.inputValue('#cal-tags')).toBe('photography, daylight');
    const listed = await ok<{ calendars: Record<string, unknown>[] }>(agent, 'list_calendars', {});
    expect(listed.calendars[0]).toMatchObject({
      name: 'Harbour Studio B',
      timeZone: ZONE,
      price: null,
      description: 'Photo studio with daylight and a backdrop',
      tags: ['photography', 'daylight'],
    });
    const found = await ok<{ calendars: { id: string }[] }>(agent, 'list_calendars', {
      query: 'backdrop daylight',
    });
    expect(found.calendars.map((c) => c.id)).toEqual([calendarId]);
  });

  it('an approver sees the calendar, its hours and the preview, and no form to change them', async () => {
    const amy = await addPersonWithPassword(server, { email: 'amy@local.example', role: 'approver' });
    const theirs = await browser.newContext({ timezoneId: 'Europe/Berlin' });
    try {
      const look = await theirs.newPage();
      await signInToConsole(look, server, `/console/calendars/${calendarId}`, amy);
      await look.waitForSelector('#not-allowed');
      expect(await look.locator('form[method=post]').count()).toBe(1); // sign-out only
      expect(await look.textContent('#hours')).toContain('Saturday10:00–14:00');
      expect(await look.locator('#slot-days time[data-slot]').count()).toBeGreaterThan(0);
      await auditConsolePage(look, 'calendar-readonly');
      await look.goto(new URL('/console/calendars', server.url).href);
      expect(await look.locator('a:text("New calendar")').count()).toBe(0);
    } finally {
      await theirs.close();
    }
  });
});
