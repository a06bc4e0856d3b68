import { randomUUID } from 'node:crypto';
import Database from 'better-sqlite3';
import type { Client } from '@modelcontextprotocol/client';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { askForApproval } from '../support/approvals.js';
import { launchBrowser, releaseBrowser } from '../support/browser.js';
import { consoleCast, consoleHttp, csrfFor } from '../support/console-attack.js';
import { auditConsolePage, signInToConsole } from '../support/console-browser.js';
import { createOpenCalendar, futureHour } from '../support/fixtures.js';
import { connectHttp, ok } from '../support/mcp-clients.js';
import { signIn } from '../support/person.js';
import type { RunningServer } from '../support/spawn-server.js';
import { runCli, spawnServer } from '../support/spawn-server.js';

// The payment simulator's controls in the console, served with --dev only: an owner plays the
// customer paying a priced hold, and the agent's approved confirm then goes through. Without
// --dev there is no such page; a viewer, another tenant, an agent's bearer token and forged
// posts set nothing.

let server: RunningServer; // --dev
let plain: RunningServer; // the default
let agent: Client;
let browser: Browser;
let page: Page;
let room: string;

const url = (path: string, on: RunningServer = server) => new URL(path, on.url).href;

function simulated(): number {
  const db = new Database(server.dbPath, { readonly: true });
  try {
    return (db.prepare('SELECT count(*) AS n FROM simulated_payments').get() as { n: number }).n;
  } finally {
    db.close();
  }
}

beforeAll(async () => {
  [server, plain] = await Promise.all([spawnServer(['--no-seed', '--dev']), spawnServer(['--no-seed'])]);
  agent = await connectHttp(server.url, 'modern');
  room = await createOpenCalendar(agent, 'Studio 9', { amount: '500.00', currency: 'CNY' });
  browser = await launchBrowser();
  page = await (await browser.newContext()).newPage();
  await signInToConsole(page, server, '/console/payments');
});
afterAll(async () => {
  await releaseBrowser(browser);
  await agent?.close();
  await Promise.all([server?.stop(), plain?.stop()]);
});

describe('the payment simulator in the console (--dev)', () => {
  it('an owner pays a priced hold there, and the agent’s approved confirm goes through', async () => {
    const { booking, details } = await askForApproval(agent, room, futureHour(3), futureHour(3, 1));
    expect((await runCli(['approvals', 'approve', details.approvalId, '--db', server.dbPath])).status).toBe(
      0,
    );
    await page.goto(url('/console/payments'));
    const card = page.locator(`[data-booking="${booking.id}"]`);
    await card.waitFor();
    expect(await card.textContent()).toContain('500.00 CNY');
    expect(await card.locator('.status').textContent()).toBe('pending');
    await auditConsolePage(page, 'payments');
    await card.locator('button[value=PAID]').click();
    await page.waitForSelector('#result');
    expect(await page.textContent(`[data-booking="${booking.id}"] .status`)).toBe('paid');
    const confirmed = await ok<{ booking: { status: string } }>(agent, 'confirm_booking', {
      bookingId: booking.id,
      expectedVersion: 1,
      approval: { approvalId: details.approvalId },
      idempotencyKey: randomUUID(),
    });
    expect(confirmed.booking.status).toBe('CONFIRMED');
  });

  it('is not served without --dev (money to return is), and nobody but an owner or approver of the tenant sets a payment', async () => {
    const plainCookie = await signIn(new URL(plain.url).origin, plain.agent.email, plain.agent.password);
    const plainPayments = await fetch(url('/console/payments', plain), { headers: { cookie: plainCookie } });
    expect(plainPayments.status).toBe(200);
    const plainText = await plainPayments.text();
    expect(plainText).toContain('Money to return');
    expect(plainText).not.toContain('Development simulator');
    const csrfPlain = csrfFor(plain, plainCookie, 'console-payments');
    const simulatedWithoutDev = await fetch(url('/console/payments/bk_any', plain), {
      method: 'POST',
      redirect: 'manual',
      headers: {
        cookie: plainCookie,
        'content-type': 'application/x-www-form-urlencoded',
        origin: new URL(plain.url).origin,
      },
      body: new URLSearchParams({ status: 'PAID', csrf: csrfPlain }),
    });
    expect(simulatedWithoutDev.status).toBe(404);

    const { booking } = await ok<{ booking: { id: string } }>(agent, 'hold_slot', {
      calendarIds: [room],
      start: futureHour(4),
      end: futureHour(4, 1),
      idempotencyKey: randomUUID(),
    });
    const { owner, viewer, foreigner } = await consoleCast(server);
    const http = consoleHttp(server);
    // A viewer's page shows no payments form, and the other tenant's none for this booking: each
    // still holds a token valid for the form in their own session, so only the rules stop them.
    const token = (cookie: string) => csrfFor(server, cookie, 'console-payments');
    const before = simulated();
    let succeeded = 0;
    const attempts: [string, Record<string, string>, Record<string, string>, number[]][] = [
      ['bearer', { status: 'PAID' }, { authorization: `Bearer ${server.agent.token}` }, [303]],
      ['viewer with a valid form token', { status: 'PAID', csrf: token(viewer) }, { cookie: viewer }, [403]],
      [
        'other tenant with a valid form token',
        { status: 'PAID', csrf: token(foreigner) },
        { cookie: foreigner },
        [404],
      ],
      ['owner, no CSRF', { status: 'PAID' }, { cookie: owner }, [403]],
      ['owner, forged CSRF', { status: 'PAID', csrf: 'x' }, { cookie: owner }, [403]],
      ['owner, another session’s CSRF', { status: 'PAID', csrf: token(viewer) }, { cookie: owner }, [403]],
    ];
    for (const [who, fields, headers, expected] of attempts) {
      const answer = await http.post(`/console/payments/${booking.id}`, fields, undefined, headers);
      if (answer.status === 200) succeeded++;
      expect(expected, `${who}: ${answer.status}`).toContain(answer.status);
      // With the form's own token, the CSRF check passes: what refuses is the role or the tenant.
      if (who.endsWith('with a valid form token'))
        expect(await answer.text(), who).not.toContain('did not come from it');
    }
    expect(succeeded).toBe(0);
    expect(simulated()).toBe(before);
    expect((await http.get('/console/payments', { cookie: viewer })).status).toBe(403);
    // Nor through the older simulated checkout page, with that page's own valid form token.
    const checkout = await http.post(
      `/pay/${booking.id}`,
      { status: 'PAID', csrf: csrfFor(server, viewer, `pay:${booking.id}`) },
      viewer,
    );
    expect(checkout.status).toBe(403);
    expect(simulated()).toBe(before);

    // The rules, not a broken token: the owner with the form's token sets the payment.
    const paid = await http.post(
      `/console/payments/${booking.id}`,
      { status: 'PAID', csrf: token(owner) },
      owner,
    );
    expect(paid.status).toBe(303);
    expect(simulated()).toBe(before + 1);
  });
});
