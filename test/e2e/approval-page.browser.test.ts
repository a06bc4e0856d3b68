import { randomUUID } from 'node:crypto';
import type { Client } from '@modelcontextprotocol/client';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createOpenCalendar, futureHour } from '../support/fixtures.js';
import { call, connectHttp, ok } from '../support/mcp-clients.js';
import type { RunningServer } from '../support/spawn-server.js';
import { runCli, spawnServer } from '../support/spawn-server.js';
import { launchBrowser } from '../support/browser.js';

let server: RunningServer;
let agent: Client;
let browser: Browser;
let room: string;

beforeAll(async () => {
  server = await spawnServer(['--no-seed']); // HTTP default policy: draft, a person decides on the page
  agent = await connectHttp(server.url, 'modern');
  room = await createOpenCalendar(agent, 'Studio 3', { amount: '120.50', currency: 'EUR' });
  browser = await launchBrowser();
});
afterAll(async () => {
  await browser?.close();
  await agent.close();
  await server.stop();
});

async function askForApproval(hourOffset: number) {
  const { booking } = await ok(agent, 'hold_slot', {
    calendarIds: [room],
    start: futureHour(3, hourOffset),
    end: futureHour(3, hourOffset + 1),
    customer: { name: 'Grace Hopper' },
    idempotencyKey: randomUUID(),
  });
  const asked = await call(agent, 'confirm_booking', {
    bookingId: booking.id,
    expectedVersion: 1,
    idempotencyKey: randomUUID(),
  });
  expect(asked.error!.code).toBe('APPROVAL_REQUIRED');
  return { booking, details: asked.error!.details as { approvalId: string; approveUrl: string } };
}

describe('the approval page in headless Chromium', () => {
  it('shows the exact intent, approves with a click, and the agent retry confirms', async () => {
    const { booking, details } = await askForApproval(1);
    const page = await browser.newPage();
    await page.goto(details.approveUrl);
    const text = await page.textContent('body');
    expect(text).toContain('Studio 3');
    expect(text).toContain('120.50 EUR');
    expect(text).toContain(booking.reference);
    expect(text).toContain(booking.start);
    expect(text).toContain('Grace Hopper');
    await page.screenshot({ path: 'test-results/approval-page.png', fullPage: true });
    await page.click('button.approve');
    await expect(page.textContent('#result')).resolves.toContain('Approved');

    runCli(['payments', 'set', booking.id, 'PAID', '--db', server.dbPath]);
    const confirmed = await ok(agent, 'confirm_booking', {
      bookingId: booking.id,
      expectedVersion: 1,
      approval: { approvalId: details.approvalId },
      idempotencyKey: randomUUID(),
    });
    expect(confirmed.booking.status).toBe('CONFIRMED');

    // The link was for one decision only.
    await page.goto(details.approveUrl);
    expect(await page.textContent('h1')).toContain('unknown or was already used');
    await page.close();
  });

  it('cannot be framed and is not cached', async () => {
    const { details } = await askForApproval(3);
    const response = await fetch(details.approveUrl);
    expect(response.headers.get('x-frame-options')).toBe('DENY');
    expect(response.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
    expect(response.headers.get('cache-control')).toBe('no-store');
  });

  it('refuses a cross-site POST without the CSRF token, and the approval stays pending', async () => {
    const { details } = await askForApproval(5);
    const forged = await fetch(details.approveUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ decision: 'approve' }),
    });
    expect(forged.status).toBe(403);
    const crossSite = await fetch(details.approveUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', origin: 'https://evil.example' },
      body: new URLSearchParams({ decision: 'approve', csrf: 'x' }),
    });
    expect(crossSite.status).toBe(403);
    const still = await call(agent, 'get_approval', { approvalId: details.approvalId });
    expect(still.error!.code).toBe('APPROVAL_PENDING');
  });
});
