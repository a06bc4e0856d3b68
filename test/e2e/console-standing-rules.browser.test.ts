import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Client } from '@modelcontextprotocol/client';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchBrowser, releaseBrowser } from '../support/browser.js';
import { consoleCast, consoleHttp, csrfFor } from '../support/console-attack.js';
import { auditConsolePage, signInToConsole } from '../support/console-browser.js';
import { createOpenCalendar, futureHour } from '../support/fixtures.js';
import type { Envelope } from '../support/mcp-clients.js';
import { call, connectHttp, ok } from '../support/mcp-clients.js';
import { signIn } from '../support/person.js';
import type { RunningServer } from '../support/spawn-server.js';
import { runCli, spawnServer } from '../support/spawn-server.js';

// Standing approvals as a person manages them in Chromium: "Always allow bookings like this" on
// an approval drafts a rule scoped from that booking; granted, the agent's next booking like it
// is confirmed at once; changed, the old rule stops; revoked, a person decides again; a sign-in
// older than ten minutes must be renewed before granting. Then the same forms attacked by other
// people, another tenant, an agent's token and forged or stale posts: 0 may succeed.

const MINUTE = 60_000;
const dir = mkdtempSync(join(tmpdir(), 'holdfast-console-rules-'));
const clock = join(dir, 'clock');
let server: RunningServer;
let browser: Browser;
let page: Page;
let agent: Client;
let physio: string;
/** The approval the owner's agent asked for in the first test: another person must not draft from it. */
let ownerApproval = '';

const url = (path: string) => new URL(path, server.url).href;

interface Held {
  id: string;
  version: number;
}

async function hold(daysAhead: number, hour: number): Promise<Held> {
  const { booking } = await ok<{ booking: Held }>(agent, 'hold_slot', {
    calendarIds: [physio],
    start: futureHour(daysAhead, hour),
    end: futureHour(daysAhead, hour + 1),
    customer: { name: 'Ana Lima' },
    idempotencyKey: randomUUID(),
  });
  return booking;
}

/** The person pays at the booking's payment link (the development form), then the agent confirms again. */
async function confirmPaid(booking: Held): Promise<Envelope> {
  const first = await confirm(booking);
  if (first.error?.code !== 'PAYMENT_PENDING') return first;
  const link = first.error.details.paymentUrl as string;
  const cookie = await signIn(new URL(server.url).origin, server.agent.email, server.agent.password);
  const form = await (await fetch(link, { headers: { cookie } })).text();
  const csrf = /name="csrf" value="([^"]+)"/.exec(form)![1]!;
  const paid = await fetch(link, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', cookie },
    body: new URLSearchParams({ csrf, status: 'PAID' }),
  });
  expect(paid.status).toBe(200);
  return confirm(booking);
}

const confirm = (booking: Held): Promise<Envelope> =>
  call(agent, 'confirm_booking', {
    bookingId: booking.id,
    expectedVersion: booking.version,
    idempotencyKey: randomUUID(),
  });

async function rules(): Promise<{ id: string; person: string; revokedAt: string | null }[]> {
  const listed = await runCli(['standing-rules', 'list', '--json', '--db', server.dbPath], {
    env: { ...process.env, HOLDFAST_DEV_CLOCK: clock },
  });
  expect(listed.status, listed.stderr).toBe(0);
  return JSON.parse(listed.stdout) as { id: string; person: string; revokedAt: string | null }[];
}

beforeAll(async () => {
  writeFileSync(clock, '0');
  // The CLI (adding people, listing rules) reads the same clock as the server.
  process.env.HOLDFAST_DEV_CLOCK = clock;
  server = await spawnServer(['--no-seed', '--dev', '--dev-clock', clock]);
  agent = await connectHttp(server.url, 'modern');
  physio = await createOpenCalendar(agent, 'Dr. Lena Vogel', { amount: '60.00', currency: 'EUR' });
  // A long name in the form's calendar list: the page must still fit a phone.
  await createOpenCalendar(
    agent,
    'Physiotherapie-Gemeinschaftspraxis am Kurfürstendamm — Behandlungsraum 3 (Erdgeschoss, barrierefrei)',
  );
  browser = await launchBrowser();
  page = await (await browser.newContext()).newPage();
  await signInToConsole(page, server, '/console/approvals');
});
afterAll(async () => {
  await agent?.close();
  await releaseBrowser(browser);
  await server?.stop();
  delete process.env.HOLDFAST_DEV_CLOCK;
  rmSync(dir, { recursive: true, force: true });
});

describe('standing approvals in the console', () => {
  it('drafts a rule from an approval, grants it, changes it, revokes it; a stale sign-in must be renewed', async () => {
    const asked = await confirm(await hold(3, 0));
    expect(asked.error?.code).toBe('APPROVAL_REQUIRED');
    const approvalId = asked.error!.details.approvalId as string;
    ownerApproval = approvalId;

    await page.goto(url(`/console/approvals/${approvalId}`));
    await page.click('#always-allow a');
    await page.waitForSelector('#rule-form');
    expect(await page.textContent('#drafted')).toContain('its action, calendars, price, weekday and hours');
    // Drafted from the booking: its action, its calendar by name, its price, its weekday and hours.
    expect(await page.isChecked('#action-confirm')).toBe(true);
    expect(await page.isChecked('#action-cancel')).toBe(false);
    expect(await page.isChecked('#calendar-scope-these')).toBe(true);
    expect(await page.isChecked(`input[name=calendars][data-name="Dr. Lena Vogel"]`)).toBe(true);
    expect(await page.inputValue('#max-per-booking')).toBe('60.00');
    expect(await page.inputValue('#currency')).toBe('EUR');
    const start = new Date(futureHour(3, 0));
    const weekday = ((start.getUTCDay() + 6) % 7) + 1;
    expect(await page.isChecked(`#weekday-${weekday}`)).toBe(true);
    expect(await page.locator('input[name=weekdays]:checked').count()).toBe(1);
    const hh = String(start.getUTCHours()).padStart(2, '0');
    expect(await page.inputValue('#hours-from')).toBe(`${hh}:00`);
    expect(await page.inputValue('#zone')).toBe('UTC');
    expect(await page.textContent('#rule-form')).toContain('What this means');
    await auditConsolePage(page, 'standing-rule-draft');

    // Three a day by default; the person narrows it to two and grants it.
    expect(await page.inputValue('#bookings-per-day')).toBe('3');
    await page.fill('#bookings-per-day', '2');
    await page.click('#grant');
    await page.waitForSelector('#rules');
    expect(await page.textContent('#result')).toContain('Granted');
    const card = page.locator('li[data-state=standing]');
    expect(await card.count()).toBe(1);
    const words = (await card.textContent())!;
    expect(words).toContain('Calendars: Dr. Lena Vogel');
    expect(words).toContain('at most 60.00 EUR a booking');
    expect(words).toContain('at most 2 a day');
    expect(words).toMatch(/Stands until .*UTC/);
    expect(words).toContain('console (password)');
    await auditConsolePage(page, 'standing-rules');

    // The next booking like it, a week on, is confirmed at once.
    const next = await confirmPaid(await hold(10, 0));
    expect(next.ok, JSON.stringify(next.error)).toBe(true);
    expect((next.data as { booking: { status: string } }).booking.status).toBe('CONFIRMED');

    // Changed: one a day. The old rule is revoked in the same write.
    await page.click('li[data-state=standing] a.button');
    await page.waitForSelector('#rule-form');
    expect(await page.inputValue('#bookings-per-day')).toBe('2');
    await page.fill('#bookings-per-day', '1');
    await page.click('#grant');
    await page.waitForSelector('#rules');
    expect(await page.locator('li[data-state=standing]').count()).toBe(1);
    expect(await page.locator('li[data-state=revoked]').count()).toBe(1);
    expect(await page.textContent('li[data-state=standing]')).toContain('at most 1 a day');
    // The new rule's one a day is spent by the booking above (the same day on the rule's clock).
    expect((await confirm(await hold(17, 0))).error?.code).toBe('APPROVAL_REQUIRED');

    // Revoked: a person decides again.
    await page.click('li[data-state=standing] button.danger');
    await page.waitForSelector('#result');
    expect(await page.textContent('#result')).toContain('Revoked');
    expect(await page.locator('li[data-state=standing]').count()).toBe(0);
    writeFileSync(clock, String(24 * 60 * MINUTE));
    expect((await confirm(await hold(24, 0))).error?.code).toBe('APPROVAL_REQUIRED');

    // Eleven minutes after signing in (on the server's clock), granting asks for a sign-in again.
    writeFileSync(clock, String(24 * 60 * MINUTE + 11 * MINUTE));
    await signInToConsole(page, server, '/login?next=/console/standing-rules');
    writeFileSync(clock, String(24 * 60 * MINUTE + 22 * MINUTE));
    await page.goto(url('/console/standing-rules/new'));
    expect(await page.locator('#rule-form').count()).toBe(0);
    expect(await page.textContent('#sign-in-again')).toContain('Sign in again');
    await page.click('#sign-in-again a');
    await page.fill('input[name=email]', server.agent.email);
    await page.fill('input[name=password]', server.agent.password);
    await page.click('form[action="/login"] button[type=submit]');
    await page.waitForSelector('#rule-form');
    expect(new URL(page.url()).pathname).toBe('/console/standing-rules/new');
  }, 120_000);

  it('refuses every attempt to grant, widen, draft from or revoke a rule by anyone else: 0 successes', async () => {
    // Two days on the server's clock, whatever the first test left: everyone signs in now.
    const t0 = 2 * 24 * 60 * MINUTE;
    writeFileSync(clock, String(t0));
    const http = consoleHttp(server);
    const cast = await consoleCast(server);
    const granted = await runCli(
      ['standing-rules', 'grant', server.agent.email, '--json', '--db', server.dbPath],
      { env: { ...process.env, HOLDFAST_DEV_CLOCK: clock } },
    );
    expect(granted.status, granted.stderr).toBe(0);
    const ownerRule = (JSON.parse(granted.stdout) as { id: string }).id;
    const before = await rules();
    const fields = (cookie: string, extra: Record<string, string> = {}) => ({
      csrf: csrfFor(server, cookie, 'console-standing-rules'),
      actions: 'confirm',
      calendarScope: 'any',
      weekdays: '1',
      zone: 'UTC',
      days: '90',
      ...extra,
    });
    let successes = 0;
    const attempts: [string, Promise<Response>][] = [
      // A viewer decides nothing, so grants nothing, even with a valid form token.
      ['viewer grants', http.post('/console/standing-rules', fields(cast.viewer), cast.viewer)],
      // An approver "changes" the owner's rule into their own: the old rule is not theirs.
      [
        'approver replaces the owner’s rule',
        http.post('/console/standing-rules', fields(cast.approver, { replaces: ownerRule }), cast.approver),
      ],
      [
        'approver revokes the owner’s rule',
        http.post(
          `/console/standing-rules/${ownerRule}/revoke`,
          { csrf: csrfFor(server, cast.approver, 'console-standing-rules') },
          cast.approver,
        ),
      ],
      [
        'another tenant revokes it',
        http.post(
          `/console/standing-rules/${ownerRule}/revoke`,
          { csrf: csrfFor(server, cast.foreigner, 'console-standing-rules') },
          cast.foreigner,
        ),
      ],
      // No session at all: the agent's own bearer token, and a forged form token.
      [
        'agent token grants',
        http.post('/console/standing-rules', { actions: 'confirm', days: '90' }, undefined, {
          authorization: `Bearer ${server.agent.token}`,
        }),
      ],
      [
        'forged form token',
        http.post('/console/standing-rules', { ...fields(cast.approver), csrf: 'forged' }, cast.approver),
      ],
      [
        'approver changes the owner’s rule',
        http.get(`/console/standing-rules/new?change=${ownerRule}`, { cookie: cast.approver }),
      ],
      [
        'approver drafts from the owner’s approval',
        http.get(`/console/standing-rules/new?from=${ownerApproval}`, { cookie: cast.approver }),
      ],
      [
        'another tenant drafts from it',
        http.get(`/console/standing-rules/new?from=${ownerApproval}`, { cookie: cast.foreigner }),
      ],
    ];
    for (const [name, attempt] of attempts) {
      const answer = await attempt;
      if (answer.status < 400 && answer.status !== 303) successes += 1;
      if (answer.status === 303 && !answer.headers.get('location')?.startsWith('/login')) successes += 1;
      expect(answer.status, name).not.toBe(200);
    }
    // The approver's connection-scoped grant naming the owner's token is refused.
    const tokens = JSON.parse((await runCli(['tokens', 'list', '--json', '--db', server.dbPath])).stdout) as {
      id: string;
      person: string;
    }[];
    const borrowed = await http.post(
      '/console/standing-rules',
      fields(cast.approver, { connection: tokens[0]!.id }),
      cast.approver,
    );
    if (borrowed.status === 303) successes += 1;
    expect(await borrowed.text()).toContain('connection: one of your own agent connections');

    // A session signed in more than ten minutes ago cannot grant, whatever it posts.
    writeFileSync(clock, String(t0 + 15 * MINUTE));
    const stale = await http.post('/console/standing-rules', fields(cast.approver), cast.approver);
    if (stale.status === 303) successes += 1;
    expect(stale.status).toBe(403);
    expect(await stale.text()).toContain('Sign in again');

    const after = await rules();
    expect(after.map((r) => [r.id, r.revokedAt])).toEqual(before.map((r) => [r.id, r.revokedAt]));
    expect(successes).toBe(0);
  }, 60_000);
});
