import { randomUUID } from 'node:crypto';
import type { Client } from '@modelcontextprotocol/client';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { askForApproval } from '../support/approvals.js';
import { launchBrowser, releaseBrowser } from '../support/browser.js';
import { createOpenCalendar, futureHour } from '../support/fixtures.js';
import { call, connectHttp, ok } from '../support/mcp-clients.js';
import type { RunningServer } from '../support/spawn-server.js';
import { runCli, spawnServer, untilSealed } from '../support/spawn-server.js';

// An agent cancels a paid booking. The person who decides reads, on a phone, that the customer
// paid and that approving makes the money owed back; the refund then waits under Payments until
// a person marks it returned — and the agent cannot mark it for them.

let server: RunningServer;
let agent: Client;
let browser: Browser;

beforeAll(async () => {
  server = await spawnServer(['--no-seed']);
  agent = await connectHttp(server.url, 'modern');
  browser = await launchBrowser();
});
afterAll(async () => {
  await releaseBrowser(browser);
  await agent?.close();
  await server?.stop();
});

const db = () => ['--db', server.dbPath];

describe('cancelling a paid booking, read and settled by a person on a 390 px phone', () => {
  it('says 500.00 CNY is owed back before Approve, lists it under Payments, and records it returned', async () => {
    const room = await createOpenCalendar(agent, 'Jade Room', { amount: '500.00', currency: 'CNY' });
    const asked = await askForApproval(agent, room, futureHour(3), futureHour(3, 1), {
      customer: { name: 'Mei Chen', email: 'mei@example.com' },
    });
    expect((await runCli(['approvals', 'approve', asked.details.approvalId, ...db()])).status).toBe(0);
    expect((await runCli(['payments', 'set', asked.booking.id, 'PAID', ...db()])).status).toBe(0);
    const { booking: confirmed } = await ok(agent, 'confirm_booking', {
      bookingId: asked.booking.id,
      expectedVersion: 1,
      approval: { approvalId: asked.details.approvalId },
      idempotencyKey: randomUUID(),
    });
    expect(confirmed.status).toBe('CONFIRMED');

    // The agent asks to cancel: the approval it is handed says what happens to the money.
    const cancel = (approvalId?: string) =>
      call(agent, 'cancel_booking', {
        bookingId: confirmed.id,
        expectedVersion: confirmed.version,
        idempotencyKey: randomUUID(),
        ...(approvalId ? { approval: { approvalId } } : {}),
      });
    const required = await cancel();
    expect(required.error!.code).toBe('APPROVAL_REQUIRED');
    const details = required.error!.details as {
      approvalId: string;
      approveUrl: string;
      summary: { consequence: { money: string } };
    };
    expect(details.summary.consequence.money).toBe(
      'Mei Chen paid 500.00 CNY: approving makes 500.00 CNY owed back to Mei Chen.',
    );

    // The operator's command line says the same thing, with the asker by name.
    const shown = await runCli(['approvals', 'show', details.approvalId, ...db()]);
    expect(shown.status, shown.stderr).toBe(0);
    expect(shown.stdout).toContain('If approved:\n  Cancels Mei Chen');
    expect(shown.stdout).toContain(
      '  Mei Chen paid 500.00 CNY: approving makes 500.00 CNY owed back to Mei Chen.',
    );
    expect(shown.stdout).toMatch(/Asked by\s+test agent — token of \S+, /);
    expect(shown.stdout).not.toMatch(/Asked by.*(usr_|tok_)/);

    const context = await browser.newContext({ viewport: { width: 390, height: 844 } });
    const page = await context.newPage();
    try {
      await page.goto(details.approveUrl);
      await page.fill('input[name=email]', server.agent.email);
      await page.fill('input[name=password]', server.agent.password);
      await page.click('button[type=submit]');
      await page.waitForURL(details.approveUrl);
      expect(await page.textContent('#consequence-money')).toBe(
        'Mei Chen paid 500.00 CNY: approving makes 500.00 CNY owed back to Mei Chen.',
      );
      expect(await page.textContent('#consequence-time')).toMatch(
        /^Cancels Mei Chen's booking on .* \(UTC\) \(Jade Room\); the time becomes free for others\.$/,
      );
      // What will happen comes before who asks, and nothing on the phone scrolls sideways.
      const order = await page.evaluate(() => {
        const what = document.getElementById('what')!;
        const who = document.getElementById('who')!;
        return what.compareDocumentPosition(who) & Node.DOCUMENT_POSITION_FOLLOWING;
      });
      expect(order).toBeTruthy();
      expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
      await page.screenshot({ path: 'test-results/refund-approval-390.png', fullPage: true });
      // Who asks, by name: the token's name and whose it is; ids only in the details.
      expect(await page.textContent('#asker')).toMatch(/^test agent — token of \S+$/);
      await page.click('button[value=approve]');
      expect(await page.textContent('#result')).toContain('owed back to Mei Chen');
      expect(await page.textContent('#decider')).toMatch(/^\S+ \(owner\), with a password$/);
    } finally {
      await context.close();
    }

    const cancelled = await cancel(details.approvalId);
    expect(cancelled.ok).toBe(true);
    const { booking } = await ok(agent, 'get_booking', { bookingId: confirmed.id });
    expect(booking.status).toBe('CANCELLED');
    expect(booking.payment.refund).toMatchObject({ status: 'DUE', amount: '500.00', currency: 'CNY' });

    // The operator's list of money to settle names it.
    const listed = await runCli(['reconciliation', ...db()]);
    expect(listed.stdout).toContain(`return 500.00 CNY (holdfast payments refund|refunded ${confirmed.id})`);

    // The agent tries to mark the money returned by itself, every way an HTTP client can: 0 successes.
    const origin = new URL(server.url).origin;
    const attempts = await Promise.all(
      (
        [
          { authorization: `Bearer ${server.agent.token}` },
          {},
          { cookie: 'holdfast_session=forged' },
        ] as Record<string, string>[]
      ).map((headers) =>
        fetch(new URL(`/console/payments/${confirmed.id}/refund`, origin), {
          method: 'POST',
          redirect: 'manual',
          headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
          body: new URLSearchParams({ way: 'by-hand' }),
        }),
      ),
    );
    for (const answer of attempts) {
      expect(answer.status).toBe(303);
      expect(answer.headers.get('location')).toMatch(/^\/login/);
    }
    const still = await ok(agent, 'get_booking', { bookingId: confirmed.id });
    expect(still.booking.payment.refund.status, 'refunds marked by the agent').toBe('DUE');

    // A person marks it returned under Payments; reloading the page sends nothing again.
    const desk = await browser.newContext({ viewport: { width: 390, height: 844 } });
    const settle = await desk.newPage();
    try {
      await settle.goto(new URL('/console/payments', origin).href);
      await settle.fill('input[name=email]', server.agent.email);
      await settle.fill('input[name=password]', server.agent.password);
      await settle.click('button[type=submit]');
      await settle.waitForURL(/\/console\/payments$/);
      const item = settle.locator(`#to-return li[data-booking="${confirmed.id}"]`);
      expect(await item.textContent()).toContain('500.00 CNY owed back to Mei Chen');
      await item.locator('button[value=by-hand]').click();
      await settle.waitForURL(/returned=/);
      expect(await settle.textContent('#result')).toContain('Recorded: the money is returned.');
      expect(await settle.locator('#nothing-to-return').count()).toBe(1);
      await untilSealed(server.dbPath); // the calls' records join the trail a moment after each call
      await settle.goto(new URL(`/console/bookings/${confirmed.id}`, origin).href);
      // The booking's story, in order and with names: the decisions, the payment, the refund.
      const story = await settle.$$eval('tr[data-history]', (rows) =>
        rows.map((r) => r.children[1]!.textContent!.trim()),
      );
      const at = (pattern: RegExp) => story.findIndex((line) => pattern.test(line));
      const steps = [
        /^Asked a person to approve confirming it$/,
        /^Approved confirming it — an operator, on the command line$/,
        /^Paid 500\.00 CNY$/,
        /^Asked a person to approve cancelling it$/,
        /^Approved cancelling it — \S+ \(owner\), with a password$/,
        /^500\.00 CNY owed back to Mei Chen$/,
        /^500\.00 CNY returned to Mei Chen, recorded by /,
      ].map(at);
      expect(
        steps.every((i) => i >= 0),
        story.join('\n'),
      ).toBe(true);
      expect([...steps].sort((a, b) => a - b)).toEqual(steps);
      expect(await settle.textContent('#refund')).toMatch(
        new RegExp(`^500\\.00 CNY returned .* \\(UTC\\) by .*${server.agent.email.replace('.', '\\.')}`),
      );
    } finally {
      await desk.close();
    }

    const twice = await runCli(['payments', 'refunded', confirmed.id, ...db()]);
    expect(twice.status).not.toBe(0);
    expect(twice.stderr).toContain('already returned');
    const after = await ok(agent, 'get_booking', { bookingId: confirmed.id });
    expect(after.booking.payment.refund).toMatchObject({ status: 'RETURNED' });
  });
});
