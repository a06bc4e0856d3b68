import { randomUUID } from 'node:crypto';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchBrowser, releaseBrowser } from '../../support/browser.js';
import { auditConsolePage, signInToConsole } from '../../support/console-browser.js';
import { futureHour } from '../../support/fixtures.js';
import { anotherPersonsAgent } from '../../support/another-agent.js';
import { connectHttp, ok } from '../../support/mcp-clients.js';
import type { Radicale } from '../../support/radicale.js';
import { eventIcs, RADICALE_PASSWORD, RADICALE_USER, startRadicale } from '../../support/radicale.js';
import type { RunningServer } from '../../support/spawn-server.js';
import { runCli, spawnServer } from '../../support/spawn-server.js';

// An event added on the person's phone over a confirmed booking, seen in Chromium on the
// booking's console page: what clashes (the event's title), when (in the calendar's zone), and
// what happens now in words (the booking stands, the customer was not told). The agent sees the
// times only, not the title from the person's own calendar; another person's agent, a bearer token
// on the page and any tool for it: 0 successes. Phone and desktop widths, axe.

let server: RunningServer;
let radicale: Radicale;
let browser: Browser;
let page: Page;

const ics = (iso: string) => iso.replace(/[-:]|\.\d+/g, '');

beforeAll(async () => {
  radicale = await startRadicale();
  await radicale.makeCalendar('clinic');
  server = await spawnServer(['--no-seed', '--allow-private-feeds'], { writePolicy: 'direct' });
  browser = await launchBrowser();
  page = await (await browser.newContext({ timezoneId: 'Europe/Berlin' })).newPage();
  await signInToConsole(page, server, '/console/bookings');
}, 60_000);
afterAll(async () => {
  await releaseBrowser(browser);
  await server?.stop();
  await radicale?.stop();
});

describe('a clash in the connected calendar, on the booking page', () => {
  it('names the event, its time in the calendar’s zone, and what it means; the agent gets the times only', async () => {
    const agent = await connectHttp(server.url, 'modern');
    const { calendar } = await ok<{ calendar: { id: string } }>(agent, 'create_calendar', {
      name: 'Dr. Okafor — consultations, east wing, second floor',
      timeZone: 'America/New_York',
      availability: {
        weekly: Object.fromEntries(
          ['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'].map((d) => [
            d,
            [{ start: '00:00', end: '24:00' }],
          ]),
        ),
        overrides: [],
      },
      idempotencyKey: randomUUID(),
    });
    const { booking } = await ok<{ booking: { id: string; version: number } }>(agent, 'hold_slot', {
      calendarIds: [calendar.id],
      start: futureHour(3),
      end: futureHour(3, 1),
      customer: { name: 'Chidi Anagonye', email: 'chidi@example.com' },
      idempotencyKey: randomUUID(),
    });
    await ok(agent, 'confirm_booking', {
      bookingId: booking.id,
      expectedVersion: booking.version,
      idempotencyKey: randomUUID(),
    });
    process.env.HOLDFAST_CALDAV_PASSWORD = RADICALE_PASSWORD;
    const connected = await runCli([
      'caldav',
      'connect',
      calendar.id,
      radicale.collectionUrl('clinic'),
      '--username',
      RADICALE_USER,
      '--allow-private-feeds',
      '--json',
      '--db',
      server.dbPath,
    ]).finally(() => delete process.env.HOLDFAST_CALDAV_PASSWORD);
    expect(connected.stderr).toBe('');
    const { id } = JSON.parse(connected.stdout) as { id: string };
    // The person adds a lunch over the booking's second half, on their phone.
    const lunchStart = new Date(Date.parse(futureHour(3)) + 30 * 60_000).toISOString();
    await radicale.putEvent(
      'clinic',
      'lunch.ics',
      eventIcs('lunch@clinic.test', ics(lunchStart), ics(futureHour(3, 1)), 'Lunch with the auditors'),
    );
    const synced = await runCli([
      'caldav',
      'sync',
      id,
      '--allow-private-feeds',
      '--json',
      '--db',
      server.dbPath,
    ]);
    expect(JSON.parse(synced.stdout)).toMatchObject({ ok: true, overlaps: 1 });

    await page.goto(new URL(`/console/bookings/${booking.id}`, server.url).href);
    await page.waitForSelector('#calendar-overlaps');
    const words = (await page.textContent('#calendar-overlaps'))!.replace(/\s+/g, ' ');
    expect(words).toContain('Clashes in the connected calendar');
    expect(words).toContain('Lunch with the auditors');
    expect(words).toContain('The booking still stands and the customer has not been told');
    expect(words).toMatch(/New York|EST|EDT|GMT-[45]/);
    await auditConsolePage(page, 'booking-caldav-overlap');

    const seen = await ok<{ booking: { calendarOverlaps?: object[] } }>(agent, 'get_booking', {
      bookingId: booking.id,
    });
    expect(seen.booking.calendarOverlaps).toEqual([
      { start: lunchStart.replace('.000Z', 'Z'), end: futureHour(3, 1).replace('.000Z', 'Z') },
    ]);
    expect(JSON.stringify(seen)).not.toContain('auditors');

    // Attacks, as agents would: another person's agent reads the booking; the agent's bearer token
    // opens the console's page; a tool that connects, syncs or disconnects a calendar. 0 succeed.
    const { client: mallory } = await anotherPersonsAgent(server.url, ['--db', server.dbPath]);
    let successes = 0;
    const other = await mallory.callTool({ name: 'get_booking', arguments: { bookingId: booking.id } });
    if (!other.isError || JSON.stringify(other).includes('auditors')) successes++;
    const bearerPage = await fetch(new URL(`/console/bookings/${booking.id}`, server.url), {
      headers: { authorization: `Bearer ${server.agent.token}` },
      redirect: 'manual',
    });
    if (bearerPage.status === 200 || (await bearerPage.text()).includes('auditors')) successes++;
    const tools = (await agent.listTools()).tools.map((t) => t.name);
    successes += tools.filter((name) => /caldav|sync|connect_calendar|disconnect/.test(name)).length;
    expect(successes).toBe(0);
    await mallory.close();
    await agent.close();
  });
});
