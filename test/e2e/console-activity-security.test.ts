import type { Client } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { consoleCast, consoleHttp } from '../support/console-attack.js';
import { parseCsv } from '../support/csv.js';
import { createOpenCalendar, futureHour } from '../support/fixtures.js';
import { connectHttp, ok } from '../support/mcp-clients.js';
import { addPersonWithPassword, signIn } from '../support/person.js';
import type { RunningServer } from '../support/spawn-server.js';
import { runCli, spawnServer, untilSealed } from '../support/spawn-server.js';

// The Activity section attacked: a viewer and an approver reaching for others' entries, another
// tenant's owner reaching for this tenant's, an agent with a bearer token reaching for any of
// it, and a person whose email is a spreadsheet formula, exported. Every answer is read whole.

let server: RunningServer;
let agent: Client;
let viewerAgent: Client;
let room = '';
let get: ReturnType<typeof consoleHttp>['get'];
const cookies = { owner: '', viewer: '', approver: '', foreigner: '', formula: '' };
// consoleCast's people, and one more added here.
const emails = {
  viewer: 'vic@local.example',
  approver: 'amy@local.example',
  foreigner: 'ann@other.example',
  // A valid address a spreadsheet would run as a formula, with a comma and quotes besides.
  formula: '=hyperlink("http://evil.example","x")@local.example',
};

beforeAll(async () => {
  server = await spawnServer(['--no-seed']);
  ({ get } = consoleHttp(server));
  agent = await connectHttp(server.url, 'modern');
  room = await createOpenCalendar(agent, 'Owner room');
  await ok(agent, 'list_calendars', {});
  // A call whose preview names the calendar: something `mentions` finds.
  await ok(agent, 'find_slots', {
    calendarIds: [room],
    from: futureHour(1),
    to: futureHour(1, 4),
    durationMinutes: 30,
    limit: 5,
  });
  Object.assign(cookies, await consoleCast(server));
  const x = await addPersonWithPassword(server, { email: emails.formula, role: 'viewer' });
  cookies.formula = await signIn(new URL(server.url).origin, x.email, x.password);
  // The viewer's own agent: its calls are the viewer's entries.
  const made = await runCli([
    'tokens',
    'create',
    emails.viewer,
    '--scopes',
    'read',
    '--db',
    server.dbPath,
    '--json',
  ]);
  expect(made.status, made.stderr).toBe(0);
  viewerAgent = await connectHttp(server.url, 'modern', {
    token: (JSON.parse(made.stdout) as { token: string }).token,
  });
  await ok(viewerAgent, 'list_calendars', {});
  await untilSealed(server.dbPath);
}, 120_000);
afterAll(async () => {
  await viewerAgent?.close();
  await agent?.close();
  await server?.stop();
});

interface Exported {
  records: { seq: number; subject: string; person: string | null; tool: string; preview: unknown }[];
  truncated: boolean;
}
const exportJson = async (cookie: string, query = '') =>
  (await (await get(`/console/activity/export.json${query}`, { cookie })).json()) as Exported;

/** The subjects and tools of a page's table rows. */
async function pageRows(cookie: string, query = '') {
  const answer = await get(`/console/activity${query}`, { cookie });
  const html = await answer.text();
  const rows = [...html.matchAll(/<tr data-seq="(\d+)">([\s\S]*?)<\/tr>/g)].map((m) => ({
    seq: Number(m[1]),
    person: /data-label="Person">(?:<span[^>]*>)?([^<]*)/.exec(m[2]!)?.[1] ?? '',
    tool: /<code class="tool">([^<]*)</.exec(m[2]!)?.[1] ?? '',
  }));
  return { status: answer.status, html, rows };
}

describe('the activity section, attacked', () => {
  it('a viewer and an approver see only their own entries, whatever they filter for, on the page and in both exports', async () => {
    const owners = await exportJson(cookies.owner);
    const ownerId = owners.records.find((r) => r.person === server.agent.email)!.subject;
    expect(owners.records.some((r) => r.tool === 'create_calendar')).toBe(true);
    for (const who of ['viewer', 'approver'] as const) {
      const { rows, html } = await pageRows(cookies[who]);
      expect(rows.length, who).toBeGreaterThan(0);
      expect(new Set(rows.map((r) => r.person)), who).toEqual(new Set([emails[who]]));
      expect(html, who).not.toContain(server.agent.email);
      expect(html, who).not.toContain('create_calendar');
      // No person to choose, and asking for the owner's entries by hand finds nothing.
      expect(html, who).not.toContain('id="f-person"');
      expect((await pageRows(cookies[who], `?person=${ownerId}`)).rows, who).toEqual([]);
      const json = await exportJson(cookies[who]);
      expect(new Set(json.records.map((r) => r.person)), who).toEqual(new Set([emails[who]]));
      expect((await exportJson(cookies[who], `?person=${ownerId}`)).records, who).toEqual([]);
      const csv = parseCsv(
        await (await get('/console/activity/export.csv', { cookie: cookies[who] })).text(),
      );
      const person = csv[0]!.indexOf('person');
      expect(new Set(csv.slice(1).map((line) => line[person])), who).toEqual(new Set([emails[who]]));
    }
    // The viewer's agent's call is theirs to see.
    expect((await pageRows(cookies.viewer, '?tool=list_calendars')).rows).toHaveLength(1);
  });

  it('another tenant’s owner never sees this tenant’s entries, by filter, by mention or by export', async () => {
    const owners = await exportJson(cookies.owner);
    const ownerId = owners.records.find((r) => r.person === server.agent.email)!.subject;
    // The owner finds the calendar's calls by its id; the other tenant's owner must not.
    expect((await pageRows(cookies.owner, `?mentions=${room}`)).rows.map((r) => r.tool)).toContain(
      'find_slots',
    );
    const ours = new Set(owners.records.map((r) => r.seq));
    const theirs = await pageRows(cookies.foreigner);
    // Their tenant has its own trail (the CLI adding them); none of it is ours.
    expect(theirs.rows.length).toBeGreaterThan(0);
    expect(theirs.rows.filter((r) => ours.has(r.seq))).toEqual([]);
    expect(theirs.html).not.toMatch(/create_calendar|list_calendars|find_slots/);
    expect(theirs.html).not.toContain(server.agent.email);
    // Their own sign-in is in their own tenant's trail, and not in ours.
    expect(theirs.rows.map((r) => r.tool)).toContain('sign_in');
    expect(owners.records.filter((r) => r.tool === 'sign_in' && r.person === emails.foreigner)).toEqual([]);
    // A person of another tenant is not someone they may filter by.
    const named = await pageRows(cookies.foreigner, `?person=${ownerId}`);
    expect(named.status).toBe(400);
    expect(named.html).toContain('Person: no one like that in your tenant.');
    expect(named.rows).toEqual([]);
    for (const query of ['?tool=create_calendar', '?kind=write', '?tool=find_slots', `?mentions=${room}`])
      expect((await pageRows(cookies.foreigner, query)).rows, query).toEqual([]);
    const json = await exportJson(cookies.foreigner);
    expect(json.records.length).toBeGreaterThan(0);
    expect(json.records.filter((r) => ours.has(r.seq))).toEqual([]);
    expect(JSON.stringify(json)).not.toContain(server.agent.email);
    const csv = await (await get('/console/activity/export.csv', { cookie: cookies.foreigner })).text();
    expect(csv).not.toContain(server.agent.email);
    expect(csv).not.toContain('create_calendar');
  });

  it('a bearer token gets no page and no export: a redirect to sign in, with nothing in it', async () => {
    const bearer = { authorization: `Bearer ${server.agent.token}` };
    for (const path of [
      '/console/activity',
      '/console/activity?tool=create_calendar',
      '/console/activity/export.csv',
      '/console/activity/export.json',
    ]) {
      const answer = await get(path, bearer);
      expect(answer.status, path).toBe(303);
      expect(answer.headers.get('location'), path).toMatch(/^\/login\?next=/);
      const body = await answer.text();
      expect(body, path).not.toMatch(/create_calendar|seq|owner@/);
    }
  });

  it('the CSV carries no formula: a cell a spreadsheet would run gets an apostrophe first, quotes and commas intact', async () => {
    const answer = await get('/console/activity/export.csv', { cookie: cookies.owner });
    expect(answer.status).toBe(200);
    expect(answer.headers.get('content-type')).toMatch(/^text\/csv/);
    expect(answer.headers.get('content-disposition')).toMatch(
      /^attachment; filename="holdfast-activity-[^"]+\.csv"$/,
    );
    expect(answer.headers.get('cache-control')).toBe('no-store');
    expect(answer.headers.get('x-content-type-options')).toBe('nosniff');
    expect(answer.headers.get('content-security-policy')).toContain("default-src 'none'");
    const text = await answer.text();
    const csv = parseCsv(text);
    const width = csv[0]!.length;
    expect(csv.every((line) => line.length === width)).toBe(true);
    const person = csv[0]!.indexOf('person');
    // The formula person signed in: their row is there, defused.
    const theirs = csv.filter((line) => line[person]!.includes('hyperlink'));
    expect(theirs.length).toBeGreaterThan(0);
    for (const line of theirs) expect(line[person]).toBe(`'${emails.formula}`);
    for (const line of csv) for (const cell of line) expect(cell).not.toMatch(/^[=+\-@\t\r]/);
    // And the JSON keeps the address as it is: it is data there, not a cell.
    const json = await exportJson(cookies.owner);
    expect(json.records.some((r) => r.person === emails.formula)).toBe(true);
  });

  it('exports are headed like every console answer; the page has the strict CSP and no inline script or style', async () => {
    const json = await get('/console/activity/export.json', { cookie: cookies.owner });
    expect(json.headers.get('content-type')).toMatch(/^application\/json/);
    expect(json.headers.get('content-disposition')).toMatch(
      /^attachment; filename="holdfast-activity-[^"]+\.json"$/,
    );
    expect(json.headers.get('cache-control')).toBe('no-store');
    expect(json.headers.get('x-content-type-options')).toBe('nosniff');
    const page = await get('/console/activity', { cookie: cookies.owner });
    expect(page.headers.get('content-security-policy')).not.toContain('unsafe-inline');
    expect(page.headers.get('cache-control')).toBe('no-store');
    const html = await page.text();
    for (const tag of html.match(/<script\b[^>]*>/g) ?? []) expect(tag).toMatch(/\bsrc="\/assets\//);
    expect(html).not.toMatch(/\son[a-z]+\s*=/i);
    expect(html).not.toMatch(/\sstyle\s*=/i);
    // The formula person's address is shown as text, escaped.
    expect(html).not.toContain('"http://evil.example"');
    // A bad filter: 400, the strict headers, no stack.
    const bad = await get('/console/activity/export.csv?from=not-a-date', { cookie: cookies.owner });
    expect(bad.status).toBe(400);
    expect(bad.headers.get('content-disposition')).toBeNull();
    expect(bad.headers.get('cache-control')).toBe('no-store');
    expect(await bad.text()).toContain('From: “not-a-date” is not a date or time');
  });
});
