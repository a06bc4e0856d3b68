import { randomUUID } from 'node:crypto';
import Database from 'better-sqlite3';
import type { Client } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { consoleCast, consoleHttp, csrfFor, expectStrictConsolePage } from '../support/console-attack.js';
import { createOpenCalendar } from '../support/fixtures.js';
import { connectHttp } from '../support/mcp-clients.js';
import type { RunningServer } from '../support/spawn-server.js';
import { spawnServer, untilSealed } from '../support/spawn-server.js';

// The booking-rules form attacked: posted by a bearer token with no session; by the owner's own
// session without the form's CSRF token, with a forged one, with another form's, without a form
// key; by a viewer and an approver holding a valid token of their own session (so only the role
// check can stop them); at another tenant's calendar. Every attempt is counted, none may succeed,
// and the calendars table (rules, version and all) must be as it was.

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

/** A form's hidden fields, valid for this person: CSRF token and a fresh key. */
const formFields = (cookie: string, purpose: string) => ({
  csrf: csrfFor(server, cookie, purpose),
  key: randomUUID(),
});

beforeAll(async () => {
  server = await spawnServer(['--no-seed']);
  agent = await connectHttp(server.url, 'modern');
  room = await createOpenCalendar(agent, 'Studio');
  ({ owner, viewer, approver, foreigner } = await consoleCast(server));
  ({ get, post } = consoleHttp(server));
  const made = await post(
    '/console/calendars/new',
    {
      ...formFields(foreigner, 'console-calendar:new'),
      name: 'Their room',
      timeZone: 'UTC',
      'mon-start': '09:00',
      'mon-end': '17:00',
    },
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

/** Rules as the form posts them: 3 seats, a day's notice, a buffer, a limit. */
const RULES = {
  bufferBefore: '',
  bufferAfter: '15',
  notice: '1',
  noticeUnit: 'days',
  horizon: '90',
  step: '',
  lengths: '',
  perDay: '2',
  perWeek: '',
  perCustomerDay: '',
  perCustomerWeek: '',
  seats: '3',
};

const rulesPath = (calendarId: string) => `/console/calendars/${calendarId}/rules`;

function calendars() {
  const db = new Database(server.dbPath, { readonly: true });
  try {
    return db.prepare('SELECT * FROM calendars ORDER BY tenant_id, id').all() as {
      id: string;
      version: number;
      booking_rules: string | null;
    }[];
  } finally {
    db.close();
  }
}
const roomRow = () => calendars().find((c) => c.id === room)!;

function auditOf(email: string) {
  const db = new Database(server.dbPath, { readonly: true });
  try {
    return db
      .prepare(
        `SELECT tool, outcome, error_code FROM audit_log
         WHERE tool = 'console_calendar_rules' AND subject = (SELECT id FROM people WHERE email = ?) ORDER BY seq`,
      )
      .all(email) as { tool: string; outcome: string; error_code: string | null }[];
  } finally {
    db.close();
  }
}

describe('the booking-rules form, attacked', () => {
  it('no POST without the form’s own CSRF token and key changes the rules', async () => {
    const before = calendars();
    let succeeded = 0;
    const csrf = (purpose: string) => csrfFor(server, owner, purpose);
    const key = randomUUID();
    const attempts: [string, Promise<Response>][] = [
      [
        'bearer',
        post(rulesPath(room), { ...RULES, key }, undefined, {
          authorization: `Bearer ${server.agent.token}`,
        }),
      ],
      ['no CSRF', post(rulesPath(room), { ...RULES, key }, owner)],
      ['forged CSRF', post(rulesPath(room), { ...RULES, key, csrf: 'x'.repeat(43) }, owner)],
      [
        'the new-calendar form’s CSRF',
        post(rulesPath(room), { ...RULES, key, csrf: csrf('console-calendar:new') }, owner),
      ],
      [
        'another calendar’s CSRF',
        post(rulesPath(room), { ...RULES, key, csrf: csrf(`console-calendar:${foreignRoom}:rules`) }, owner),
      ],
      ['no key', post(rulesPath(room), { ...RULES, csrf: csrf(`console-calendar:${room}:rules`) }, owner)],
      [
        'a key that is no form’s',
        post(rulesPath(room), { ...RULES, key: 'k1', csrf: csrf(`console-calendar:${room}:rules`) }, owner),
      ],
    ];
    for (const [who, pending] of attempts) {
      const answer = await pending;
      const toLogin = answer.status === 303 && answer.headers.get('location')!.startsWith('/login');
      if (answer.status < 400 && !toLogin) succeeded++;
      expect(who === 'bearer' ? toLogin : answer.status === 403, `${who}: ${answer.status}`).toBe(true);
    }
    expect(succeeded).toBe(0);
    expect(calendars()).toEqual(before);
    await untilSealed(server.dbPath);
    expect(auditOf(server.agent.email)).toEqual(
      Array.from({ length: attempts.length - 1 }, () => ({
        tool: 'console_calendar_rules',
        outcome: 'error',
        error_code: 'FORBIDDEN',
      })),
    );
  });

  it('a viewer and an approver see the rules in words and no form; their valid-token posts are refused', async () => {
    const before = calendars();
    let succeeded = 0;
    for (const [role, cookie] of [
      ['viewer', viewer],
      ['approver', approver],
    ] as const) {
      const html = await (await get(`/console/calendars/${room}`, { cookie })).text();
      expect(html, role).toContain('id="rules-words"');
      expect(html, role).not.toContain('/rules#rules');
      expect(html, role).not.toContain('id="rule-seats"');
      const answer = await post(
        rulesPath(room),
        { ...formFields(cookie, `console-calendar:${room}:rules`), ...RULES },
        cookie,
      );
      if (answer.status === 303) succeeded++;
      expect(answer.status, role).toBe(403);
      expect(await answer.text(), role).toContain('Only an owner');
      // Bad input changes nothing either, and gets no further.
      const bad = await post(
        rulesPath(room),
        { ...formFields(cookie, `console-calendar:${room}:rules`), ...RULES, seats: '0' },
        cookie,
      );
      if (bad.status === 303) succeeded++;
      expect(bad.status, `${role}, bad input`).toBeGreaterThanOrEqual(400);
    }
    expect(succeeded).toBe(0);
    expect(calendars()).toEqual(before);
    await untilSealed(server.dbPath);
    for (const email of ['vic@local.example', 'amy@local.example']) {
      const refusals = auditOf(email);
      expect(refusals.length, email).toBeGreaterThanOrEqual(1);
      expect(
        refusals.every((r) => r.outcome === 'error'),
        email,
      ).toBe(true);
      expect(refusals[0], email).toMatchObject({ error_code: 'FORBIDDEN' });
    }
  });

  it('another tenant’s calendar is not found, either way round', async () => {
    const before = calendars();
    let succeeded = 0;
    const mine = await post(
      rulesPath(foreignRoom),
      { ...formFields(owner, `console-calendar:${foreignRoom}:rules`), ...RULES },
      owner,
    );
    if (mine.status === 303) succeeded++;
    expect(mine.status).toBe(404);
    expect(await mine.text()).not.toContain('Their room');
    const theirs = await post(
      rulesPath(room),
      { ...formFields(foreigner, `console-calendar:${room}:rules`), ...RULES },
      foreigner,
    );
    if (theirs.status === 303) succeeded++;
    expect(theirs.status).toBe(404);
    expect(succeeded).toBe(0);
    expect(calendars()).toEqual(before);
  });

  it('the owner’s own form is taken, once per key; a bad field is refused and changes nothing', async () => {
    const start = roomRow();
    expect(start.booking_rules).toBeNull();
    const fields = { ...formFields(owner, `console-calendar:${room}:rules`), ...RULES };
    const first = await post(rulesPath(room), fields, owner);
    const again = await post(rulesPath(room), fields, owner);
    expect([first.status, again.status]).toEqual([303, 303]);
    expect(first.headers.get('location')).toBe(`/console/calendars/${room}?saved=rules#result`);
    const saved = roomRow();
    expect(saved.version).toBe(start.version + 1);
    expect(JSON.parse(saved.booking_rules!)).toMatchObject({
      bufferAfterMinutes: 15,
      minimumNoticeMinutes: 1440,
      maximumHorizonDays: 90,
      maxBookingsPerDay: 2,
      capacity: 3,
    });

    const bad = await post(
      rulesPath(room),
      { ...formFields(owner, `console-calendar:${room}:rules`), ...RULES, seats: '2', horizon: 'soon' },
      owner,
    );
    expect(bad.status).toBe(400);
    await expectStrictConsolePage(bad, 'refused rules form');
    expect(roomRow()).toEqual(saved);
    await untilSealed(server.dbPath);
    expect(auditOf(server.agent.email).slice(-2)).toEqual([
      { tool: 'console_calendar_rules', outcome: 'ok', error_code: null },
      { tool: 'console_calendar_rules', outcome: 'error', error_code: 'INVALID_ARGUMENTS' },
    ]);
  });

  it('the calendar page with the rules form has the strict CSP and no inline script or style', async () => {
    const answer = await get(`/console/calendars/${room}`, { cookie: owner });
    expect(answer.status).toBe(200);
    await expectStrictConsolePage(answer, 'calendar page');
  });
});
