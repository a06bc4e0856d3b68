import { randomUUID } from 'node:crypto';
import Database from 'better-sqlite3';
import type { Client } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createOpenCalendar, futureHour } from '../support/fixtures.js';
import { connectHttp, ok } from '../support/mcp-clients.js';
import type { ConsoleCast } from '../support/console-attack.js';
import { consoleCast, consoleHttp, csrfFor } from '../support/console-attack.js';
import type { RunningServer } from '../support/spawn-server.js';
import { spawnServer } from '../support/spawn-server.js';

// Ending bookings from the console, attacked: an agent with its bearer token, a viewer with a
// valid form token of their own, another tenant's owner, a forged or missing CSRF token, and a
// stale version. Every attempt is counted; 0 may succeed, and the bookings must be untouched.

let server: RunningServer;
let agent: Client;
let room: string;
let cast: ConsoleCast;
let http: ReturnType<typeof consoleHttp>;

beforeAll(async () => {
  server = await spawnServer(['--no-seed']);
  agent = await connectHttp(server.url, 'modern');
  room = await createOpenCalendar(agent, 'Studio');
  cast = await consoleCast(server);
  http = consoleHttp(server);
});
afterAll(async () => {
  await agent?.close();
  await server?.stop();
});

function statuses(): Record<string, string> {
  const db = new Database(server.dbPath, { readonly: true });
  try {
    const rows = db.prepare('SELECT id, status, version FROM bookings').all() as {
      id: string;
      status: string;
      version: number;
    }[];
    return Object.fromEntries(rows.map((r) => [r.id, `${r.status}@${r.version}`]));
  } finally {
    db.close();
  }
}

async function hold(hour: number): Promise<string> {
  const { booking } = await ok<{ booking: { id: string } }>(agent, 'hold_slot', {
    calendarIds: [room],
    start: futureHour(5, hour),
    end: futureHour(5, hour + 1),
    customer: { name: 'Zed', email: 'zed@example.com', phone: '+49 30 123456' },
    idempotencyKey: randomUUID(),
  });
  return booking.id;
}

describe('ending bookings in the console, attacked', () => {
  it('no bearer token, missing or forged CSRF, viewer, other tenant or stale version ends a booking', async () => {
    const id = await hold(0);
    const before = statuses();
    let succeeded = 0;
    const release = { action: 'release', version: '1' };
    const { owner, viewer, approver, foreigner } = cast;
    // Each attacker holds a token valid for this very form in their own session: only the rules stop them.
    const token = (cookie: string) => csrfFor(server, cookie, `console-booking:${id}`);
    const attempts: [string, Record<string, string>, Record<string, string>, number[]][] = [
      ['bearer', release, { authorization: `Bearer ${server.agent.token}` }, [303]],
      ['owner, no CSRF', release, { cookie: owner }, [403]],
      ['owner, forged CSRF', { ...release, csrf: 'x' }, { cookie: owner }, [403]],
      [
        'owner, another form’s CSRF',
        { ...release, csrf: csrfFor(server, owner, 'console-booking:bk_other') },
        { cookie: owner },
        [403],
      ],
      ['owner, another session’s CSRF', { ...release, csrf: token(approver) }, { cookie: owner }, [403]],
      ['viewer with a valid form token', { ...release, csrf: token(viewer) }, { cookie: viewer }, [403]],
      [
        'other tenant with a valid form token',
        { ...release, csrf: token(foreigner) },
        { cookie: foreigner },
        [404],
      ],
      [
        'owner, stale version',
        { action: 'release', version: '7', csrf: token(owner) },
        { cookie: owner },
        [409],
      ],
      [
        'owner, unknown action',
        { action: 'confirm', version: '1', csrf: token(owner) },
        { cookie: owner },
        [403],
      ],
    ];
    for (const [who, fields, headers, expected] of attempts) {
      const answer = await http.post(`/console/bookings/${id}`, fields, undefined, headers);
      if (answer.status === 303 && !answer.headers.get('location')?.startsWith('/login')) succeeded++;
      expect(expected, `${who}: ${answer.status}`).toContain(answer.status);
    }
    expect(succeeded).toBe(0);
    expect(statuses()).toEqual(before);

    // The rules, not a broken form: the owner with the form's token releases it.
    const released = await http.post(`/console/bookings/${id}`, { ...release, csrf: token(owner) }, owner);
    expect(released.status).toBe(303);
    expect(statuses()[id]).toBe('RELEASED@2');
  });

  it('another tenant’s booking is not found; a bearer token opens no bookings page; a viewer sees contact data masked', async () => {
    const id = await hold(2);
    const { owner, viewer, foreigner } = cast;
    const { get } = http;
    expect((await get(`/console/bookings/${id}`, { cookie: foreigner })).status).toBe(404);
    const foreignList = await (await get('/console/bookings?from=', { cookie: foreigner })).text();
    expect(foreignList).not.toContain(id);
    for (const path of [
      '/console/bookings',
      '/console/bookings/week',
      '/console/bookings/reconcile',
      `/console/bookings/${id}`,
    ]) {
      const answer = await get(path, { authorization: `Bearer ${server.agent.token}` });
      expect(answer.status, path).toBe(303);
      expect(answer.headers.get('location'), path).toMatch(/^\/login\?next=/);
    }
    const asViewer = await (await get(`/console/bookings/${id}`, { cookie: viewer })).text();
    expect(asViewer).toContain('Zed');
    expect(asViewer).not.toContain('zed@example.com');
    expect(asViewer).not.toContain('123456');
    expect(asViewer).toContain('id="not-allowed"');
    expect(asViewer).not.toContain('value="release"');
    const asOwner = await (await get(`/console/bookings/${id}`, { cookie: owner })).text();
    expect(asOwner).toContain('zed@example.com');
    // A masked email cannot be found out through the customer search: it looks at names only.
    const byEmail = (cookie: string) => get('/console/bookings?from=&customer=zed%40example', { cookie });
    expect(await (await byEmail(viewer)).text()).not.toContain(id);
    expect(await (await byEmail(owner)).text()).toContain(id);
    // A success notice comes from what happened, not from the address.
    expect(await (await get(`/console/bookings/${id}?done=cancel`, { cookie: owner })).text()).not.toContain(
      'id="result"',
    );
  });
});
