import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import { launchBrowser, releaseBrowser } from '../support/browser.js';
import { auditConsolePage, signInToConsole } from '../support/console-browser.js';
import { createOpenCalendar, futureHour } from '../support/fixtures.js';
import { call, connectHttp, ok } from '../support/mcp-clients.js';
import type { RunningServer } from '../support/spawn-server.js';
import { spawnServer } from '../support/spawn-server.js';

// A series and a change set as the person sees them in Chromium: the approval lists every date
// (every change, old → new) and says what approving does to the time, the money and the
// customer; after it, each booking of the series shows all its dates. Checked at 1280 and 360 px
// with axe.

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
    // A long name: every date line and the consequence must still fit a phone.
    const room = await createOpenCalendar(
      agent,
      'Physiotherapie-Gemeinschaftspraxis am Kurfürstendamm — Behandlungsraum 3 (Erdgeschoss, barrierefrei)',
      { amount: '40.00', currency: 'EUR' },
    );
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
    expect(words).toContain(
      'the bookings are confirmed only once the payment provider reports 120.00 EUR paid',
    );
    // A series always goes to a person: no standing rule is offered from it.
    expect(await page.locator('#always-allow').count()).toBe(0);
    await auditConsolePage(page, 'series-approval');

    await page.click('button[value=approve]');
    await page.waitForSelector('#result');
    expect(await page.textContent('#result')).toMatch(/^Approved\./);
    await page.goto(new URL(`/console/bookings/${held.occurrences[1]!.id}`, server.url).href);
    expect(await page.locator('#series-dates li').count()).toBe(3);
    expect(await page.textContent('#series')).toContain('One of 3 dates of a series');
    expect(await page.textContent('#series-dates')).toContain('(this one)');
    await auditConsolePage(page, 'series-booking');
    await agent.close();
  }, 90_000);

  it('a change set’s approval lists each change old → new and the money, then commits it', async () => {
    const agent = await connectHttp(server.url, 'modern');
    const vogel = await createOpenCalendar(agent, 'Dr. Lena Vogel');
    const held = await Promise.all(
      [0, 1].map((h) =>
        ok<{ booking: { id: string; version: number } }>(agent, 'hold_slot', {
          calendarIds: [vogel],
          start: futureHour(6, h),
          end: futureHour(6, h + 1),
          customer: { name: h === 0 ? 'Ana Lima' : 'Ben Okafor' },
          idempotencyKey: randomUUID(),
        }),
      ),
    );
    const page = await (await browser.newContext()).newPage();
    await signInToConsole(page, server, '/console/approvals');
    // The two bookings are confirmed first, each approved by the person.
    const confirmed: { id: string; version: number }[] = [];
    for (const { booking } of held) {
      const asked = await call(agent, 'confirm_booking', {
        bookingId: booking.id,
        expectedVersion: booking.version,
        idempotencyKey: randomUUID(),
      });
      await page.goto(
        new URL(`/console/approvals/${asked.error!.details.approvalId as string}`, server.url).href,
      );
      await page.click('button[value=approve]');
      await page.waitForSelector('#result');
      const done = await ok<{ booking: { id: string; version: number } }>(agent, 'confirm_booking', {
        bookingId: booking.id,
        expectedVersion: booking.version,
        approval: { approvalId: asked.error!.details.approvalId as string },
        idempotencyKey: randomUUID(),
      });
      confirmed.push(done.booking);
    }
    const [ana, ben] = confirmed;
    const set = await ok<{ changeSetId: string; version: number }>(agent, 'propose_changes', {
      changes: [
        {
          kind: 'move',
          bookingId: ana!.id,
          expectedVersion: ana!.version,
          start: futureHour(6, 1),
          end: futureHour(6, 2),
        },
        {
          kind: 'move',
          bookingId: ben!.id,
          expectedVersion: ben!.version,
          start: futureHour(6, 0),
          end: futureHour(6, 1),
        },
      ],
      idempotencyKey: randomUUID(),
    });
    const commit = (approvalId?: string) =>
      call<{ status: string }>(agent, 'confirm_changes', {
        changeSetId: set.changeSetId,
        expectedVersion: set.version,
        idempotencyKey: randomUUID(),
        ...(approvalId ? { approval: { approvalId } } : {}),
      });
    const asked = await commit();
    expect(asked.error?.code).toBe('APPROVAL_REQUIRED');
    const approvalId = asked.error!.details.approvalId as string;
    await page.goto(new URL(`/console/approvals/${approvalId}`, server.url).href);
    expect(await page.textContent('h1')).toContain('Confirm changes');
    const lines = await page.locator('#changes li').allTextContents();
    expect(lines).toHaveLength(2);
    expect(lines[0]).toMatch(
      /^Move Ana Lima's booking HF-\S+ from .+\(UTC\) \(Dr\. Lena Vogel\) to .+\(UTC\)/,
    );
    expect(lines[1]).toMatch(/^Move Ben Okafor's booking/);
    const words = (await page.textContent('main'))!;
    expect(words).toContain('Makes 2 changes at once, all or none');
    expect(words).toContain('Nothing new is charged. Moved bookings keep their payment.');
    expect(await page.locator('#always-allow').count()).toBe(0);
    await auditConsolePage(page, 'change-set-approval');
    await page.click('button[value=approve]');
    await page.waitForSelector('#result');
    expect(await page.textContent('#result')).toMatch(/^Approved\./);
    const done = await commit(approvalId);
    expect(done.ok, JSON.stringify(done.error)).toBe(true);
    expect(done.data!.status).toBe('CONFIRMED');
    await agent.close();
  }, 90_000);
});
