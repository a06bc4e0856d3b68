import { randomUUID } from 'node:crypto';
import Database from 'better-sqlite3';
import type { Client } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { consoleCast, consoleHttp, csrfFor, expectStrictConsolePage } from '../support/console-attack.js';
import { createOpenCalendar } from '../support/fixtures.js';
import { connectHttp } from '../support/mcp-clients.js';
import type { RunningServer } from '../support/spawn-server.js';
import { spawnServer, untilSealed } from '../support/spawn-server.js';

// The calendars section attacked: an agent with a bearer token and every URL but no session;
// forms posted without their CSRF token; viewers and approvers who hold a perfectly valid
// token of their own session (so only the role check can stop them); another tenant's owner.
// Every attempt is counted, none may succeed, and the calendars table must be as it was.

let server: RunningServer;
let agent: Client;
let room = '';
let foreignRoom = '';
let owner = '';
let viewer = '';
let approver = '';
let foreigner = '';
let get: ReturnType<typeof consoleHttp>['get'];
let post: ReturnType<typeof consoleHttp>['post'];

beforeAll(async () => {
  server = await spawnServer(['--no-seed']);
  agent = await connectHttp(server.url, 'modern');
  room = await createOpenCalendar(agent, 'Studio');
  ({ owner, viewer, approver, foreigner } = await consoleCast(server));
  ({ get, post } = consoleHttp(server));
  // The other tenant's owner makes a calendar of their own, on their page.
  const made = await post(
    '/console/calendars/new',
    { ...formFields(foreigner, 'console-calendar:new'), ...NEW },
    foreigner,
  );
  expect(made.status).toBe(303);
  foreignRoom = made.headers.get('location')!.split('/').pop()!.split('?')[0]!;
  expect(foreignRoom).toMatch(/^cal_/);
});
afterAll(async () => {
  await agent?.close();
  await server?.stop();
});

/** The form a calendar address takes: each of a calendar page's forms has a token of its own. */
const FORM_OF: [RegExp, string][] = [
  [/\/hours$/, 'hours'],
  [/\/overrides$/, 'override'],
  [/\/rules$/, 'rules'],
  [/\/cal_[^/]+$/, 'details'],
];
const purposeOf = (path: string) => {
  if (path.endsWith('/new')) return 'console-calendar:new';
  const calendarId = /\/console\/calendars\/(cal_[^/]+)/.exec(path)![1]!;
  return `console-calendar:${calendarId}:${FORM_OF.find(([re]) => re.test(path))![1]}`;
};
/**
 * The CSRF token another form of the same page carries, as the owner's page shows it: the
 * rules form's for the hours form, the hours form's for every other.
 */
async function siblingToken(path: string, cookie: string): Promise<string> {
  const page = /\/console\/calendars\/cal_[^/]+/.exec(path)![0];
  const html = await (await fetch(new URL(page, server.url), { headers: { cookie } })).text();
  const sibling = path.endsWith('/hours') ? '/rules' : '/hours';
  const form = new RegExp(`action="${page}${sibling}[^"]*"[\\s\\S]*?name="csrf" value="([^"]+)"`).exec(html);
  expect(form, `the ${sibling} form on ${page}`).not.toBeNull();
  return form![1]!;
}

/** A form's hidden fields, valid for this person: CSRF token and a fresh key. */
const formFields = (cookie: string, purpose: string) => ({
  csrf: csrfFor(server, cookie, purpose),
  key: randomUUID(),
});

const NEW = {
  name: 'Sneaky room',
  timeZone: 'UTC',
  amount: '',
  currency: '',
  'mon-start': '09:00',
  'mon-end': '17:00',
};
const WEEK = { 'sun-start': '00:00', 'sun-end': '24:00' };

/** Every change a calendar page offers, as a form would post it. */
const changes = (calendarId: string): [string, Record<string, string>][] => [
  [
    `/console/calendars/${calendarId}`,
    { name: 'Renamed', timeZone: 'Asia/Tokyo', amount: '1', currency: 'EUR' },
  ],
  [`/console/calendars/${calendarId}/hours`, WEEK],
  [`/console/calendars/${calendarId}/overrides`, { date: '2031-01-01', kind: 'closed' }],
  [`/console/calendars/${calendarId}/overrides`, { remove: '2031-01-01' }],
];

/** The console's calendar actions in the audit trail, as this person's. */
function auditOf(email: string) {
  const db = new Database(server.dbPath, { readonly: true });
  try {
    return db
      .prepare(
        `SELECT tool, outcome, error_code FROM audit_log
         WHERE tool LIKE 'console_calendar%' AND subject = (SELECT id FROM people WHERE email = ?) ORDER BY seq`,
      )
      .all(email) as { tool: string; outcome: string; error_code: string | null }[];
  } finally {
    db.close();
  }
}

function calendars() {
  const db = new Database(server.dbPath, { readonly: true });
  try {
    return db.prepare('SELECT * FROM calendars ORDER BY tenant_id, id').all();
  } finally {
    db.close();
  }
}

describe('the calendars console, attacked', () => {
  it('a bearer token opens no page; no POST without the form’s CSRF token changes anything', async () => {
    const before = calendars();
    let succeeded = 0;
    const bearer = { authorization: `Bearer ${server.agent.token}` };
    for (const path of ['/console/calendars', '/console/calendars/new', `/console/calendars/${room}`]) {
      const answer = await get(path, bearer);
      if (answer.status === 200) succeeded++;
      expect(answer.status, path).toBe(303);
      expect(answer.headers.get('location'), path).toMatch(/^\/login\?next=/);
    }
    const posts: [string, Record<string, string>][] = [['/console/calendars/new', NEW], ...changes(room)];
    for (const [path, fields] of posts) {
      const key = randomUUID();
      const attempts: [string, Promise<Response>][] = [
        ['bearer', post(path, { ...fields, key }, undefined, bearer)],
        ['no CSRF', post(path, { ...fields, key }, owner)],
        ['forged CSRF', post(path, { ...fields, key, csrf: 'x'.repeat(43) }, owner)],
        // A token is for one form: the new-calendar form's does not change an existing calendar, and back.
        [
          'another form’s CSRF',
          post(
            path,
            {
              ...fields,
              key,
              csrf: csrfFor(
                server,
                owner,
                path.endsWith('/new') ? `console-calendar:${room}:details` : 'console-calendar:new',
              ),
            },
            owner,
          ),
        ],
        // Nor does one of a calendar page's forms take another's (the rules form the hours form's).
        ...(path.endsWith('/new')
          ? []
          : ([
              [
                'a sibling form’s CSRF',
                post(path, { ...fields, key, csrf: await siblingToken(path, owner) }, owner),
              ],
            ] as [string, Promise<Response>][])),
        // The form's token but no key of its own: not the form either.
        [
          'no key',
          post(
            path,
            {
              ...fields,
              csrf: csrfFor(server, owner, purposeOf(path)),
            },
            owner,
          ),
        ],
      ];
      for (const [who, pending] of attempts) {
        const answer = await pending;
        const toLogin = answer.status === 303 && answer.headers.get('location')!.startsWith('/login');
        if (answer.status < 400 && !toLogin) succeeded++;
        expect(who === 'bearer' ? toLogin : answer.status === 403, `${who} ${path}: ${answer.status}`).toBe(
          true,
        );
      }
    }
    expect(succeeded).toBe(0);
    expect(calendars()).toEqual(before);
  });

  it('viewers and approvers look but cannot change, even with a valid token of their own session', async () => {
    const before = calendars();
    let succeeded = 0;
    for (const [role, cookie] of [
      ['viewer', viewer],
      ['approver', approver],
    ] as const) {
      const page = await (await get(`/console/calendars/${room}`, { cookie })).text();
      expect(page, role).toContain('id="not-allowed"');
      expect(page.match(/method="post"/g), `${role}: sign-out is the one form that posts`).toHaveLength(1);
      expect(page, role).toContain('data-slot');
      const list = await (await get('/console/calendars', { cookie })).text();
      expect(list, role).toContain('Studio');
      expect(list, role).not.toContain('href="/console/calendars/new"');
      expect((await get('/console/calendars/new', { cookie })).status, role).toBe(403);

      const created = await post(
        '/console/calendars/new',
        { ...formFields(cookie, 'console-calendar:new'), ...NEW },
        cookie,
      );
      if (created.status === 303) succeeded++;
      expect(created.status, `${role} creates`).toBe(403);
      for (const [path, fields] of changes(room)) {
        const answer = await post(path, { ...formFields(cookie, purposeOf(path)), ...fields }, cookie);
        if (answer.status === 303) succeeded++;
        expect(answer.status, `${role} ${path}`).toBe(403);
        expect(await answer.text(), `${role} ${path}`).toContain('Only an owner');
      }
    }
    expect(succeeded).toBe(0);
    expect(calendars()).toEqual(before);

    // Each refusal is in the audit trail as the person's, with its reason.
    await untilSealed(server.dbPath);
    const refusals = auditOf('vic@local.example');
    expect(refusals).toHaveLength(5);
    expect(new Set(refusals.map((r) => `${r.outcome} ${r.error_code}`))).toEqual(
      new Set(['error FORBIDDEN']),
    );
    expect(refusals.map((r) => r.tool)).toContain('console_calendar_hours');

    // The owner's tokens, made the same way, are taken: the refusals above were the role.
    for (const [path, fields] of changes(room).slice(0, 3)) {
      const answer = await post(path, { ...formFields(owner, purposeOf(path)), ...fields }, owner);
      expect(answer.status, path).toBe(303);
    }
    const [studio] = calendars().filter((c) => (c as { id: string }).id === room) as {
      name: string;
      version: number;
    }[];
    expect(studio).toMatchObject({ name: 'Renamed', version: 4 });
    await untilSealed(server.dbPath);
    expect(auditOf(server.agent.email).slice(-3)).toEqual([
      { tool: 'console_calendar_details', outcome: 'ok', error_code: null },
      { tool: 'console_calendar_hours', outcome: 'ok', error_code: null },
      { tool: 'console_calendar_override_set', outcome: 'ok', error_code: null },
    ]);
  });

  it('another tenant’s calendar is not found, to look at or to change', async () => {
    const before = calendars();
    let succeeded = 0;
    const answer = await get(`/console/calendars/${foreignRoom}`, { cookie: owner });
    expect(answer.status).toBe(404);
    expect(await answer.text()).not.toContain('Sneaky room');
    expect(await (await get('/console/calendars', { cookie: owner })).text()).not.toContain(foreignRoom);
    for (const [path, fields] of changes(foreignRoom)) {
      const tried = await post(path, { ...formFields(owner, purposeOf(path)), ...fields }, owner);
      if (tried.status === 303) succeeded++;
      expect(tried.status, path).toBe(404);
    }
    // And the other way round: their owner cannot reach this tenant's calendar.
    expect((await get(`/console/calendars/${room}`, { cookie: foreigner })).status).toBe(404);
    const theirs = await post(
      `/console/calendars/${room}/hours`,
      { ...formFields(foreigner, `console-calendar:${room}:hours`), ...WEEK },
      foreigner,
    );
    if (theirs.status === 303) succeeded++;
    expect(theirs.status).toBe(404);
    expect(succeeded).toBe(0);
    expect(calendars()).toEqual(before);
  });

  it('a form posted twice makes one change', async () => {
    const count = () => calendars().length;
    const before = count();
    const fields = { ...formFields(owner, 'console-calendar:new'), ...NEW, name: 'Twice' };
    const [a, b] = [
      await post('/console/calendars/new', fields, owner),
      await post('/console/calendars/new', fields, owner),
    ];
    expect([a.status, b.status]).toEqual([303, 303]);
    expect(b.headers.get('location')).toBe(a.headers.get('location'));
    expect(count()).toBe(before + 1);

    const version = () =>
      (calendars().find((c) => (c as { id: string }).id === room) as { version: number }).version;
    const start = version();
    const hours = {
      ...formFields(owner, `console-calendar:${room}:hours`),
      'mon-start': '08:00',
      'mon-end': '12:00',
    };
    expect((await post(`/console/calendars/${room}/hours`, hours, owner)).status).toBe(303);
    expect((await post(`/console/calendars/${room}/hours`, hours, owner)).status).toBe(303);
    expect(version()).toBe(start + 1);
  });

  it('every calendar page has the strict CSP and no inline script or style', async () => {
    for (const path of ['/console/calendars', '/console/calendars/new', `/console/calendars/${room}`]) {
      const answer = await get(path, { cookie: owner });
      expect(answer.status, path).toBe(200);
      await expectStrictConsolePage(answer, path);
    }
    // Refusals and "not found" answers carry the same headers.
    const refused = await post(`/console/calendars/${room}/hours`, WEEK, owner);
    expect(refused.status).toBe(403);
    expect(refused.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
  });
});
