import { randomUUID } from 'node:crypto';
import type { Client } from '@modelcontextprotocol/client';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchBrowser, releaseBrowser } from '../support/browser.js';
import { consoleCast, consoleHttp, csrfFor } from '../support/console-attack.js';
import { auditConsolePage, signInToConsole } from '../support/console-browser.js';
import { createOpenCalendar, futureHour } from '../support/fixtures.js';
import { connectHttp, ok } from '../support/mcp-clients.js';
import type { RunningServer } from '../support/spawn-server.js';
import { runCli, spawnServer, untilSealed } from '../support/spawn-server.js';

// Erasing a customer from the console, in Chromium: the owner reads in words what erasing does
// (whose details, which bookings, what stays) and erases; the page and the agent then see the
// customer erased, and the trail records who did it. The same form attacked by a viewer, an
// approver, another tenant's owner (each with a valid form token of their own session) and by an
// agent's bearer token: 0 may erase anything. No tool erases either.

let server: RunningServer;
let browser: Browser;
let page: Page;
let agent: Client;
let room: string;

const url = (path: string) => new URL(path, server.url).href;

async function hold(day: number, customer: Record<string, string>): Promise<string> {
  const { booking } = await ok<{ booking: { id: string } }>(agent, 'hold_slot', {
    calendarIds: [room],
    start: futureHour(day),
    end: futureHour(day, 1),
    customer,
    idempotencyKey: randomUUID(),
  });
  return booking.id;
}

const erasedFlag = async (id: string) =>
  (await ok<{ booking: { customerErased?: boolean } }>(agent, 'get_booking', { bookingId: id })).booking
    .customerErased === true;

beforeAll(async () => {
  server = await spawnServer(['--no-seed']);
  agent = await connectHttp(server.url, 'modern');
  // A long calendar name and a long customer name must still fit a phone's width.
  room = await createOpenCalendar(agent, `Jade Room ${'of the east wing, second floor, '.repeat(3).trim()}`);
  browser = await launchBrowser();
  page = await (await browser.newContext({ timezoneId: 'Europe/Berlin' })).newPage();
  await signInToConsole(page, server, '/console/bookings');
});
afterAll(async () => {
  await releaseBrowser(browser);
  await agent?.close();
  await server?.stop();
});

describe("erasing a customer's details in the console", () => {
  it('nobody but an owner erases, whatever they send: 0 successes', async () => {
    const target = await hold(3, { name: 'Grace Hopper', email: 'grace@example.com' });
    const http = consoleHttp(server);
    const cast = await consoleCast(server);
    const path = `/console/bookings/${target}/erase-customer`;
    const attempts = [
      // Signed in, each with a valid form token of their own session: the role decides.
      () =>
        http.post(
          path,
          { csrf: csrfFor(server, cast.viewer, `console-booking:${target}`), confirm: 'erase' },
          cast.viewer,
        ),
      () =>
        http.post(
          path,
          { csrf: csrfFor(server, cast.approver, `console-booking:${target}`), confirm: 'erase' },
          cast.approver,
        ),
      () =>
        http.post(
          path,
          { csrf: csrfFor(server, cast.foreigner, `console-booking:${target}`), confirm: 'erase' },
          cast.foreigner,
        ),
      // The owner's session without the form's token, or with another booking's.
      () => http.post(path, { confirm: 'erase' }, cast.owner),
      () =>
        http.post(
          path,
          { csrf: csrfFor(server, cast.owner, 'console-booking:bk_other'), confirm: 'erase' },
          cast.owner,
        ),
      // An agent's bearer token is no session.
      () =>
        http.post(path, { confirm: 'erase' }, undefined, { authorization: `Bearer ${server.agent.token}` }),
    ];
    let successes = 0;
    for (const attempt of attempts) {
      const answer = await attempt();
      if (await erasedFlag(target)) successes++;
      // Refused, or sent to sign in: never to the booking's page with the erasure done.
      expect(answer.headers.get('location') ?? '').not.toContain('done=erased');
    }
    // No tool of the agent's erases: the catalog has none.
    const tools = (await agent.listTools()).tools.map((t) => t.name);
    expect(tools.filter((name) => /erase|forget|delete_customer/.test(name))).toEqual([]);
    expect(successes).toBe(0);
    expect(
      (await ok<{ booking: { customer: { name: string } } }>(agent, 'get_booking', { bookingId: target }))
        .booking.customer.name,
    ).toBe('Grace Hopper');
  });

  it('the owner reads what erasing does, erases, and the page, the agent and the trail agree', async () => {
    const first = await hold(4, {
      name: 'Augusta Ada King-Noel, Countess of Lovelace',
      email: 'ada@example.com',
      phone: '+44 20 7946 0000',
    });
    const second = await hold(5, {
      name: 'Augusta Ada King-Noel, Countess of Lovelace',
      email: 'ADA@example.com',
    });
    const other = await hold(6, { name: 'Alan Turing', email: 'alan@example.com' });
    await page.goto(url(`/console/bookings/${first}`));
    await page.waitForSelector('#erase-customer');
    const words = (await page.textContent('#erase-customer'))!.replace(/\s+/g, ' ');
    expect(words).toContain("Augusta Ada King-Noel, Countess of Lovelace's details");
    expect(words).toContain('every booking that names ada@example.com');
    expect(words).toContain('The bookings, their times, money and history stay');
    expect(words).toContain('cannot be undone');
    await auditConsolePage(page, 'booking-erase-customer');

    await page.click('#erase-customer button[value=erase]');
    await page.waitForSelector('#customer-erased');
    expect(await page.textContent('#result')).toContain('erased');
    expect(await page.$('#erase-customer')).toBeNull();
    await auditConsolePage(page, 'booking-customer-erased');
    expect(await erasedFlag(first)).toBe(true);
    expect(await erasedFlag(second)).toBe(true);
    expect(await erasedFlag(other)).toBe(false);

    await untilSealed(server.dbPath);
    const tail = await runCli(['audit', 'tail', '--json', '-n', '50', '--db', server.dbPath]);
    const erasures = tail.stdout
      .split('\n')
      .filter((line) => line.trim())
      .map((line) => JSON.parse(line) as { tool: string; outcome: string })
      .filter((r) => r.tool === 'console_erase_customer');
    expect(erasures.filter((r) => r.outcome === 'ok')).toHaveLength(1);
    expect((await runCli(['audit', 'verify', '--db', server.dbPath])).status).toBe(0);
  });
});
