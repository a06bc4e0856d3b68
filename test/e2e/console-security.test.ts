import Database from 'better-sqlite3';
import type { Client } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { askForApproval } from '../support/approvals.js';
import type { ConsoleCast } from '../support/console-attack.js';
import { consoleCast, consoleHttp, csrfFor, expectStrictConsolePage } from '../support/console-attack.js';
import { createOpenCalendar, futureHour } from '../support/fixtures.js';
import { connectHttp } from '../support/mcp-clients.js';
import type { RunningServer } from '../support/spawn-server.js';
import { runCli, spawnServer } from '../support/spawn-server.js';

// The console attacked the way an agent would: it holds a bearer token and knows every URL,
// but has no person's session. And people reaching past their role or tenant. Every attempt
// is counted; 0 may succeed, and the database must show nothing changed.

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

async function askFor(hour: number) {
  const customer = { name: 'Alice Secret', email: 'alice.secret@example.com', phone: '+1 555 0100' };
  return (await askForApproval(agent, room, futureHour(4, hour), futureHour(4, hour + 1), { customer }))
    .details.approvalId;
}

/** The form's CSRF token as this person's page shows it. */
async function csrfOf(path: string, cookie: string, action: string) {
  const page = await (await http.get(path, { cookie })).text();
  const from = page.indexOf(`action="${action}"`);
  return /name="csrf" value="([^"]+)"/.exec(page.slice(from))?.[1] ?? '';
}

function state() {
  const db = new Database(server.dbPath, { readonly: true });
  try {
    return {
      decided: (
        db.prepare("SELECT count(*) AS n FROM approvals WHERE status <> 'PENDING'").get() as { n: number }
      ).n,
      tokens: (db.prepare('SELECT count(*) AS n FROM access_tokens').get() as { n: number }).n,
      revoked: (
        db.prepare('SELECT count(*) AS n FROM access_tokens WHERE revoked_at IS NOT NULL').get() as {
          n: number;
        }
      ).n,
    };
  } finally {
    db.close();
  }
}

const CONSOLE_PAGES = [
  '/console',
  '/console/approvals',
  '/console/approvals/queue',
  '/console/bookings',
  '/console/bookings/week',
  '/console/bookings/reconcile',
  '/console/calendars',
  '/console/calendars/new',
  '/console/connections',
  '/console/activity',
  '/console/people',
];

describe('the console, attacked', () => {
  it('a bearer token opens no page and changes nothing; every POST without the form’s CSRF token is 403', async () => {
    const approvalId = await askFor(0);
    const before = state();
    let succeeded = 0;
    const { owner } = cast;
    const { get, post } = http;
    const bearer = { authorization: `Bearer ${server.agent.token}` };
    for (const path of [...CONSOLE_PAGES, `/console/approvals/${approvalId}`]) {
      const answer = await get(path, bearer);
      if (answer.status === 200) succeeded++;
      expect(answer.status, path).toBe(303);
      expect(answer.headers.get('location'), path).toMatch(/^\/login\?next=/);
    }
    const tokenId = JSON.parse((await runCli(['tokens', 'list', '--db', server.dbPath, '--json'])).stdout)[0]
      .id as string;
    const posts: [string, Record<string, string>][] = [
      [`/console/approvals/${approvalId}`, { decision: 'approve' }],
      ['/console/tokens', { name: 'sneaky', scopes: 'sensitive', writePolicy: 'direct', days: '366' }],
      [`/console/tokens/${tokenId}/revoke`, {}],
      ['/console/connections/any/revoke', {}],
    ];
    for (const [path, fields] of posts) {
      for (const [who, headers] of [
        ['bearer', bearer],
        ['owner session, no CSRF', { cookie: owner }],
        ['owner session, forged CSRF', { cookie: owner, csrf: 'x' }],
      ] as const) {
        const answer = await post(
          path,
          { ...fields, ...('csrf' in headers ? { csrf: headers.csrf } : {}) },
          undefined,
          {
            ...('cookie' in headers ? { cookie: headers.cookie } : {}),
            ...('authorization' in headers ? { authorization: headers.authorization } : {}),
          },
        );
        if (answer.status < 400 && answer.status !== 303) succeeded++;
        if (answer.status === 303 && !answer.headers.get('location')?.startsWith('/login')) succeeded++;
        expect([303, 403], `${who} ${path}`).toContain(answer.status);
      }
    }
    expect(succeeded).toBe(0);
    expect(state()).toEqual(before);
    // Hostile paging and filter values answer a page (or a refusal), never a server error.
    for (const path of [
      '/console/calendars?page=1e20',
      '/console/calendars?page=461168601842738790',
      '/console/bookings?offset=1e309',
      '/console/bookings?offset=-5&from=9999-99-99',
      '/console/activity?before=1e400',
    ]) {
      const answer = await get(path, { cookie: owner });
      expect(answer.status, path).toBeLessThan(500);
    }
    // A success notice comes from what happened, not from the address.
    const pending = await askFor(10);
    const spoofed = await (
      await get(`/console/approvals/${pending}?decided=approved`, { cookie: owner })
    ).text();
    expect(spoofed).not.toContain('id="result"');
  });

  it('another tenant’s approval is not found; a viewer may look but not decide; another person’s token is not theirs', async () => {
    const approvalId = await askFor(2);
    const before = state();
    let succeeded = 0;
    const { owner, viewer, approver, foreigner } = cast;
    const { get, post } = http;
    // Each attacker holds a token valid for this very form in their own session: only the rules stop them.
    const token = (cookie: string) => csrfFor(server, cookie, `console-approval:${approvalId}`);
    // Another tenant's owner: nothing there, even with a CSRF token valid for their own session.
    expect((await get(`/console/approvals/${approvalId}`, { cookie: foreigner })).status).toBe(404);
    const queue = await (await get('/console/approvals/queue', { cookie: foreigner })).text();
    expect(queue).not.toContain(approvalId);
    const crossTenant = await post(
      `/console/approvals/${approvalId}`,
      { decision: 'approve', csrf: token(foreigner) },
      foreigner,
    );
    if (crossTenant.status === 303) succeeded++;
    expect(crossTenant.status).toBe(404);

    // A viewer: sees the approval, is told they may not decide, and cannot with a valid form token.
    const page = await (await get(`/console/approvals/${approvalId}`, { cookie: viewer })).text();
    expect(page).toContain('id="not-allowed"');
    expect(page).not.toContain('value="approve"');
    // Contact data masked for a viewer, as on the bookings pages (the owner sees it whole).
    expect(page).toContain('Alice Secret');
    expect(page).not.toContain('alice.secret@example.com');
    expect(page).not.toContain('555 0100');
    expect(await (await get('/console/approvals/queue', { cookie: viewer })).text()).not.toContain(
      'alice.secret',
    );
    expect(await (await get(`/console/approvals/${approvalId}`, { cookie: owner })).text()).toContain(
      'alice.secret@example.com',
    );
    const byViewer = await post(
      `/console/approvals/${approvalId}`,
      { decision: 'approve', csrf: token(viewer) },
      viewer,
    );
    if (byViewer.status === 303) succeeded++;
    expect(byViewer.status).toBe(403);
    // Refused by the role check, not by the token: the page says why.
    expect(await byViewer.text()).toContain('Only an owner or approver of this tenant may decide');

    // An approver revoking the owner's token: as unknown as a made-up id.
    const ownersToken = JSON.parse(
      (await runCli(['tokens', 'list', '--db', server.dbPath, '--json'])).stdout,
    )[0].id as string;
    const approverCsrf = await csrfOf('/console/connections', approver, '/console/tokens');
    const revoke = await post(`/console/tokens/${ownersToken}/revoke`, { csrf: approverCsrf }, approver);
    if (revoke.status === 303) succeeded++;
    expect(revoke.status).toBe(404);
    // Nor may they make a token beyond their role.
    const beyond = await post(
      '/console/tokens',
      { csrf: approverCsrf, name: 'too much', scopes: 'sensitive', writePolicy: 'direct', days: '30' },
      approver,
    );
    expect(beyond.status).toBe(400);
    expect(await beyond.text()).not.toContain('hf_pat_');
    expect(succeeded).toBe(0);
    expect(state()).toEqual(before);

    // The owner, with the form's token, can: the refusals above were the rules, not a broken form.
    const ownerCsrf = await csrfOf(
      `/console/approvals/${approvalId}`,
      owner,
      `/console/approvals/${approvalId}`,
    );
    // The owner's page carries the very token the attackers' were made like.
    expect(ownerCsrf).toBe(token(owner));
    const decided = await post(
      `/console/approvals/${approvalId}`,
      { decision: 'deny', csrf: ownerCsrf },
      owner,
    );
    expect(decided.status).toBe(303);
    expect(state().decided).toBe(before.decided + 1);
  });

  it('every console page has the strict CSP and no inline script or style', async () => {
    const approvalId = await askFor(4);
    const { booking } = await askForApproval(agent, room, futureHour(4, 6), futureHour(4, 7));
    const details = [
      `/console/approvals/${approvalId}`,
      `/console/bookings/${booking.id}`,
      `/console/calendars/${room}`,
    ];
    for (const path of [...CONSOLE_PAGES.slice(1), ...details]) {
      const answer = await http.get(path, { cookie: cast.owner });
      expect(answer.status, path).toBe(200);
      await expectStrictConsolePage(answer, path);
    }
  });
});
