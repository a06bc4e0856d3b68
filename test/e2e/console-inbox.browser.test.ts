import type { Client } from '@modelcontextprotocol/client';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchBrowser, releaseBrowser } from '../support/browser.js';
import { auditConsolePage, signInToConsole } from '../support/console-browser.js';
import { createOpenCalendar, futureHour } from '../support/fixtures.js';
import { connectHttp, ok } from '../support/mcp-clients.js';
import type { RunningServer } from '../support/spawn-server.js';
import { ingestSecretFor, spawnServer } from '../support/spawn-server.js';

// From mail to a confirmed booking: hostile booking mail arrives by REST, an operations agent
// submits a reservation through the contract tool, and a person in Chromium reads the mail
// (sanitized: nothing of its script runs, nothing external loads), confirms the task, approves
// the hold it made, completes it and finds the booking confirmed — as the agent then sees too.

let server: RunningServer;
let agent: Client;
let browser: Browser;
let page: Page;
let room: string;
const external: string[] = [];
let alerts = 0;

async function contract(name: string, args: Record<string, unknown>) {
  const result = await agent.callTool({ name, arguments: args });
  return result.structuredContent as { success: boolean; data: Record<string, any>; error: unknown };
}

beforeAll(async () => {
  server = await spawnServer(['--no-seed', '--profile', 'hotel-ops']);
  agent = await connectHttp(server.url, 'modern');
  room = await createOpenCalendar(agent, 'Harbour room');
  const secret = await ingestSecretFor(server.dbPath);
  const posted = await fetch(new URL('/api/inbox/messages', server.url), {
    method: 'POST',
    headers: { authorization: `Bearer ${secret}`, 'content-type': 'application/json' },
    body: JSON.stringify({
      external_message_id: 'ab-7781',
      message_id: '<ab-7781@partner.example>',
      subject: 'Reservation request: Ms Rivera, one night',
      from: 'Partner Travel <res@partner.example>',
      received_at: new Date().toISOString(),
      text_body: 'Please book the harbour room for Ms Rivera. Our ref CNF-88120.',
      html_body:
        '<p>Please book the <b>harbour room</b> for Ms Rivera.</p><img src="https://tracker.example/open.gif" onerror="alert(1)">' +
        '<script>alert(2)</script><a href="javascript:alert(3)">Our ref CNF-88120</a>' +
        '<table background="https://tracker.example/bg.png"><tr><td style="background:url(https://tracker.example/c)">1 night</td></tr></table>',
    }),
  });
  expect(posted.status).toBe(201);
  const start = futureHour(3, 14);
  const submitted = await contract('th_hotel_submit_task_results', {
    source_message: {
      source_message_id: 'ab-7781',
      subject: 'Reservation request: Ms Rivera, one night',
      from: 'res@partner.example',
      cc: [],
      received_at: null,
      source_channel: 'Email',
    },
    message_events: [
      {
        event_id: 'E1',
        event_type: 'reservation.create',
        summary: 'Harbour room for Ms Rivera',
        case_keys: { confirmation_number: 'CNF-88120' },
        booking: {
          calendar_id: room,
          start,
          end: new Date(Date.parse(start) + 3_600_000).toISOString(),
          customer: { name: 'Elena Rivera', email: 'elena@example.com' },
          label: 'Partner Travel',
        },
      },
    ],
    case_candidates: [],
    extraction_warnings: [],
    unhandled_current_intents: [],
  });
  expect(submitted.success, JSON.stringify(submitted.error)).toBe(true);
  browser = await launchBrowser();
  const context = await browser.newContext();
  page = await context.newPage();
  page.on('request', (r) => {
    if (new URL(r.url()).origin !== new URL(server.url).origin) external.push(r.url());
  });
  page.on('dialog', (d) => {
    alerts++;
    void d.dismiss();
  });
  await signInToConsole(page, server, '/console/inbox');
}, 60_000);

afterAll(async () => {
  await releaseBrowser(browser);
  await agent?.close();
  await server?.stop();
});

describe('the inbox in the console', () => {
  it('shows the mail sanitized beside its task; confirm, approve, complete: the booking is confirmed', async () => {
    await page.click('a:text("Reservation request: Ms Rivera, one night")');
    await page.waitForSelector('#tasks');
    const body = page.locator('.mail-body');
    expect(await body.textContent()).toContain('harbour room');
    expect(await body.locator('script, img, [onerror], [href], [style], [background]').count()).toBe(0);
    await auditConsolePage(page, 'inbox-conversation');
    expect(alerts).toBe(0);
    expect(external).toEqual([]);

    const task = page.locator('li[data-task]');
    expect(await task.getAttribute('data-status')).toBe('PENDING_CONFIRMATION');
    expect(await task.textContent()).toContain('CNF-88120');
    await page.click('button:text("Confirm")');
    // The hold waits for an approval of exactly this booking, decided on the approval page.
    await page.waitForURL(/\/console\/approvals\//);
    expect(await page.textContent('main')).toContain('Harbour room');
    // One decision, one click: approving completes the task, and the person is back at the mail.
    await page.click('button[value=approve]');
    await page.waitForURL(/\/console\/inbox\//);
    await page.waitForSelector('#result:text("Booking confirmed")');
    expect(await page.locator('li[data-task]').getAttribute('data-status')).toBe('CONFIRMED');
    await page.click('a:text("the booking")');
    await page.waitForSelector('.status.confirmed');

    // The agent finds it by its confirmation number, confirmed.
    const found = await contract('th_hotel_query_case_context', { confirmation_number: 'CNF-88120' });
    expect(found.data.matched_order_records).toHaveLength(1);
    expect(found.data.matched_order_records[0]).toMatchObject({
      status: 'CONFIRMED',
      confirmation_number: 'CNF-88120',
    });
    expect(found.data.target_object_validation).toMatchObject({ can_create: false, can_cancel: true });
    // The console acted as the signed-in owner, the person this agent's token acts for: it sees the booking too.
    const listed = await ok<{ bookings: { status: string; label: string | null }[] }>(
      agent,
      'list_bookings',
      {
        limit: 10,
      },
    );
    expect(listed.bookings.filter((b) => b.status === 'CONFIRMED').map((b) => b.label)).toEqual([
      'Partner Travel',
    ]);
    expect(alerts).toBe(0);
    expect(external).toEqual([]);
  });

  it('people give a booking business keys on its page; a confirmation number names one booking only', async () => {
    expect(await page.inputValue('#key-confirmationNumber')).toBe('CNF-88120');
    await page.fill('#key-groupCode', 'RIVERA-FAM');
    await page.click('button:text("Save keys")');
    await page.waitForSelector('#result:text("Business keys saved")');
    const group = await contract('th_hotel_query_case_context', { group_code: 'RIVERA-FAM' });
    expect(group.data.matched_order_records).toHaveLength(1);
    expect(group.data.matched_groups[0]).toMatchObject({ object_id: 'GROUP:RIVERA-FAM' });

    // A second booking may not take the first one's confirmation number.
    const { booking } = await ok<{ booking: { id: string } }>(agent, 'hold_slot', {
      calendarIds: [room],
      start: futureHour(6, 9),
      end: futureHour(6, 10),
      idempotencyKey: crypto.randomUUID(),
    });
    await page.goto(new URL(`/console/bookings/${booking.id}`, server.url).href);
    await page.fill('#key-confirmationNumber', 'CNF-88120');
    await page.click('button:text("Save keys")');
    await page.waitForSelector('#result');
    expect(await page.textContent('#result')).toContain(
      'confirmationNumber: CNF-88120 belongs to another booking',
    );
    const still = await contract('th_hotel_query_case_context', { confirmation_number: 'CNF-88120' });
    expect(still.data.matched_order_records).toHaveLength(1);
    expect(still.data.matched_order_records[0].order_id).not.toBe(booking.id);
  });
});
