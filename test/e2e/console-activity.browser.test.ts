import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { Client } from '@modelcontextprotocol/client';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchBrowser, releaseBrowser } from '../support/browser.js';
import { auditConsolePage, signInToConsole } from '../support/console-browser.js';
import { createOpenCalendar, futureHour } from '../support/fixtures.js';
import { call, connectHttp, ok } from '../support/mcp-clients.js';
import type { RunningServer } from '../support/spawn-server.js';
import { spawnServer, untilSealed } from '../support/spawn-server.js';
import { parseCsv } from '../support/csv.js';

// The Activity section as a person uses it, in Chromium: an agent's calls are in the trail;
// filtering by tool and by outcome shows exactly those rows; Older/Newer walk the pages; the
// CSV and JSON downloads hold the rows the filter matches; a wrong filter is a 400 naming the
// field; the chain shows as verified. axe finds nothing serious, nothing overflows at 360 px.

let server: RunningServer;
let agent: Client;
let browser: Browser;
let page: Page;
let bookingId = '';
const LISTS = 55;

beforeAll(async () => {
  server = await spawnServer(['--no-seed']);
  agent = await connectHttp(server.url, 'modern');
  const room = await createOpenCalendar(agent, 'Studio');
  const slot = { calendarIds: [room], start: futureHour(2), end: futureHour(2, 1) };
  const held = await ok(agent, 'hold_slot', { ...slot, idempotencyKey: randomUUID() });
  bookingId = held.booking.id;
  const clash = await call(agent, 'hold_slot', { ...slot, idempotencyKey: randomUUID() });
  expect(clash.error?.code).toBe('SLOT_UNAVAILABLE');
  await ok(agent, 'get_booking', { bookingId });
  // More than a page of one tool, for Older and Newer.
  for (let i = 0; i < LISTS; i++) await ok(agent, 'list_calendars', {});
  await untilSealed(server.dbPath);
  browser = await launchBrowser();
  const context = await browser.newContext({ acceptDownloads: true });
  page = await context.newPage();
  await signInToConsole(page, server, '/console/activity');
  await page.waitForSelector('h1:text("Activity")');
}, 120_000);
afterAll(async () => {
  await releaseBrowser(browser);
  await agent?.close();
  await server?.stop();
});

interface ShownRow {
  seq: number;
  tool: string;
  outcome: string;
  error: string;
  person: string;
}

/** The table's rows as a person reads them. */
async function rows(): Promise<ShownRow[]> {
  if (await page.$('#no-records')) return [];
  return page.$$eval('#activity tbody tr', (trs) =>
    trs.map((tr) => {
      const cell = (label: string) =>
        (tr.querySelector(`td[data-label="${label}"]`)?.textContent ?? '').replace(/\s+/g, ' ').trim();
      return {
        seq: Number(tr.getAttribute('data-seq')),
        tool: tr.querySelector('code.tool')?.textContent ?? '',
        outcome: cell('Outcome'),
        error: (tr.querySelector('td[data-label="Error"]')?.firstChild?.textContent ?? '').trim(),
        person: cell('Person'),
      };
    }),
  );
}

async function download(selector: string): Promise<string> {
  const [file] = await Promise.all([page.waitForEvent('download'), page.click(selector)]);
  expect(file.suggestedFilename()).toMatch(/^holdfast-activity-.*\.(csv|json)$/);
  return readFileSync((await file.path())!, 'utf8');
}

describe('the activity section', () => {
  it('lists the agent’s calls newest first, with the chain verified, and passes axe at 1280 and 360 px', async () => {
    await page.goto(new URL('/console/activity', server.url).href);
    const shown = await rows();
    expect(shown).toHaveLength(50);
    expect(shown.map((r) => r.seq)).toEqual([...shown.map((r) => r.seq)].sort((a, b) => b - a));
    expect(shown.every((r) => r.person === server.agent.email)).toBe(true);
    expect(await page.textContent('#chain h2')).toContain('verified');
    expect(await page.textContent('#chain')).toMatch(/records 1 to \d+/);
    // An owner gets the checkpoint line to keep elsewhere.
    const checkpoint = JSON.parse((await page.textContent('#checkpoint'))!) as Record<string, unknown>;
    expect(checkpoint).toMatchObject({ type: 'holdfast-audit-checkpoint' });
    await page.click('#activity tbody tr:first-child details summary');
    await auditConsolePage(page, 'activity');
  });

  it('filters by tool: exactly that tool’s calls, paged Older and Newer without overlap', async () => {
    await page.goto(new URL('/console/activity', server.url).href);
    await page.fill('#f-tool', 'list_calendars');
    await page.click('form[role=search] button[type=submit]');
    await page.waitForURL(/tool=list_calendars/);
    const first = await rows();
    expect(first).toHaveLength(50);
    expect(new Set(first.map((r) => r.tool))).toEqual(new Set(['list_calendars']));
    expect(await page.$('#newer')).toBeNull();
    await page.click('#older');
    await page.waitForURL(/before=/);
    const second = await rows();
    expect(second).toHaveLength(LISTS - 50);
    expect(new Set(second.map((r) => r.tool))).toEqual(new Set(['list_calendars']));
    expect(Math.max(...second.map((r) => r.seq))).toBeLessThan(Math.min(...first.map((r) => r.seq)));
    expect(await page.$('#older')).toBeNull();
    // The filter is kept across pages, and Newer comes back to the first page.
    expect(await page.inputValue('#f-tool')).toBe('list_calendars');
    await page.click('#newer');
    await page.waitForURL(/after=/);
    expect((await rows()).map((r) => r.seq)).toEqual(first.map((r) => r.seq));
  });

  it('filters by outcome, and the CSV and JSON downloads hold exactly the rows shown', async () => {
    await page.goto(new URL('/console/activity', server.url).href);
    await page.selectOption('#f-outcome', 'error');
    await page.click('form[role=search] button[type=submit]');
    await page.waitForURL(/outcome=error/);
    const shown = await rows();
    expect(shown.length).toBeGreaterThanOrEqual(1);
    expect(shown.every((r) => r.outcome === 'error' && r.error !== 'none')).toBe(true);
    expect(shown.find((r) => r.tool === 'hold_slot')?.error).toBe('SLOT_UNAVAILABLE');

    const csv = parseCsv(await download('#export-csv'));
    expect(csv[0]).toEqual(
      expect.arrayContaining(['seq', 'time_utc', 'person', 'tool', 'outcome', 'error_code']),
    );
    const column = (name: string) => csv[0]!.indexOf(name);
    const lines = csv.slice(1);
    expect(lines.map((l) => Number(l[column('seq')]))).toEqual(shown.map((r) => r.seq));
    expect(lines.every((l) => l[column('outcome')] === 'error')).toBe(true);
    expect(lines.map((l) => l[column('tool')])).toEqual(shown.map((r) => r.tool));

    const json = JSON.parse(await download('#export-json')) as {
      filter: Record<string, unknown>;
      truncated: boolean;
      records: { seq: number; outcome: string; errorCode: string; person: string; preview: unknown }[];
    };
    expect(json.filter).toEqual({ outcome: 'error' });
    expect(json.truncated).toBe(false);
    expect(json.records.map((r) => r.seq)).toEqual(shown.map((r) => r.seq));
    expect(json.records.every((r) => r.outcome === 'error' && r.person === server.agent.email)).toBe(true);
    expect(typeof json.records[0]!.preview).toBe('object');
  });

  it('mentions: a booking’s id finds the calls that name it, and nothing else', async () => {
    await page.goto(new URL(`/console/activity?mentions=${bookingId}`, server.url).href);
    const shown = await rows();
    expect(shown.map((r) => r.tool).sort()).toEqual(['get_booking', 'hold_slot']);
  });

  it('a wrong filter is a 400 that names the field, keeps the form, and shows no stack', async () => {
    for (const [query, field, words] of [
      ['from=2030-01-02&to=2030-01-01', 'to', /To: must be later than From/],
      ['tool=hold_slot&kind=everything', 'kind', /Kind: choose one of read, write, approval, admin/],
      ['error=not%20a%20code', 'error', /Error code:/],
      ['before=-3', null, /Page:/],
      ['from=yesterday', 'from', /From: .*not a date or time/],
    ] as const) {
      const answer = await page.goto(new URL(`/console/activity?${query}`, server.url).href);
      expect(answer!.status(), query).toBe(400);
      expect(await page.textContent('#filter-error'), query).toMatch(words);
      if (field) expect(await page.getAttribute(`#f-${field}`, 'aria-invalid'), query).toBe('true');
      // The form keeps what was asked, so one field can be fixed.
      if (query.startsWith('tool=')) expect(await page.inputValue('#f-tool')).toBe('hold_slot');
      expect(await page.$('#activity'), query).toBeNull();
      const html = await page.content();
      expect(html, query).not.toMatch(/at .*\.js:\d+|Error:|TypeError/);
    }
    await auditConsolePage(page, 'activity-invalid');
  });
});
