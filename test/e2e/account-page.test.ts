import { createHash } from 'node:crypto';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { consoleHttp, csrfFor } from '../support/console-attack.js';
import { bearerToolsList } from '../support/net.js';
import { addPersonWithPassword, signIn } from '../support/person.js';
import type { RunningServer } from '../support/spawn-server.js';
import { runCli, spawnServer } from '../support/spawn-server.js';

// The account page lists the person's own sessions and agent tokens; "Sign out there" and "Sign
// out everywhere else" end only the person's own other sessions, and only from the page's form.

let server: RunningServer;
let origin: string;
let http: ReturnType<typeof consoleHttp>;
beforeAll(async () => {
  server = await spawnServer(['--no-seed']);
  origin = new URL(server.url).origin;
  http = consoleHttp(server);
});
afterAll(() => server?.stop());

/**
 * A person with a password, added the way an operator does it. Setting the password signed them
 * in (a browser this test does not keep): that session is ended, so each test counts its own.
 */
async function person(email: string) {
  const added = await addPersonWithPassword(server, { email, role: 'approver' });
  const db = new Database(server.dbPath);
  try {
    db.prepare('DELETE FROM sessions WHERE person_id = (SELECT id FROM people WHERE email = ?)').run(email);
  } finally {
    db.close();
  }
  return added;
}
const signedIn = (p: { email: string; password: string }) => signIn(origin, p.email, p.password);

/** The /account page as this cookie's browser sees it; null when the cookie is nobody (sent to sign in). */
async function account(cookie: string): Promise<string | null> {
  const answer = await http.get('/account', { cookie });
  if (answer.status === 303) return null;
  expect(answer.status).toBe(200);
  return answer.text();
}
const works = async (cookie: string) => (await account(cookie)) !== null;

const secretOf = (cookie: string) => decodeURIComponent(cookie.slice(cookie.indexOf('=') + 1));
const digestOf = (cookie: string) => createHash('sha256').update(secretOf(cookie)).digest('hex');
/** The rows of the sessions table. */
const sessionRows = (page: string) =>
  /<table id="sessions">[\s\S]*?<tbody>([\s\S]*?)<\/tbody>/.exec(page)![1]!.match(/<tr[\s>]/g) ?? [];
/** The handles the page's "Sign out there" forms carry. */
const handles = (page: string) =>
  [...page.matchAll(/action="\/account\/sessions\/end"[\s\S]*?name="session" value="([^"]+)"/g)].map(
    (m) => m[1]!,
  );
const sessionsCsrf = (page: string) =>
  /action="\/account\/sessions\/end(?:-others)?"[\s\S]*?name="csrf" value="([^"]+)"/.exec(page)![1]!;

describe('the account page: your sessions', () => {
  it('lists each live session of the person, this one marked, how and when it began; never another person’s, never a secret', async () => {
    const ana = await person('ana.sessions@local.example');
    const bo = await person('bo.sessions@local.example');
    const here = await signedIn(ana);
    const there = await signedIn(ana);
    const bos = await signedIn(bo);
    const page = (await account(here))!;
    expect(sessionRows(page)).toHaveLength(2);
    expect(page.match(/this session/g)).toHaveLength(1);
    expect(handles(page)).toHaveLength(1);
    expect(page).toContain('Sign out everywhere else');
    const text = page.replace(/<[^>]+>/g, ' ').replace(/\s+/g, ' ');
    expect(text).toContain('Your sessions');
    expect(text).toMatch(/Password \w{3} \d{1,2} \w{3} \d{4}, \d\d:\d\d \(UTC\)/);
    expect(page).toMatch(/<time datetime="\d{4}-\d\d-\d\dT[\d:.]+Z">/);
    // Nothing in the page could sign anyone in, or name a session to the store.
    for (const cookie of [here, there, bos]) {
      expect(page).not.toContain(secretOf(cookie));
      expect(page).not.toContain(digestOf(cookie));
    }
    expect(handles(page)).toEqual([digestOf(there).slice(0, 16)]);
    // Bo's page lists Bo's one session: this one, no button.
    const bosPage = (await account(bos))!;
    expect(sessionRows(bosPage)).toHaveLength(1);
    expect(handles(bosPage)).toEqual([]);
    expect(bosPage).toContain('You are signed in nowhere else.');
  });

  it('"Sign out there" ends the other session: its cookie is nobody afterwards, this one still works', async () => {
    const ana = await person('ana.there@local.example');
    const here = await signedIn(ana);
    const there = await signedIn(ana);
    const page = (await account(here))!;
    const ended = await http.post(
      '/account/sessions/end',
      { csrf: sessionsCsrf(page), session: handles(page)[0]! },
      here,
    );
    expect(ended.status).toBe(303);
    expect(ended.headers.get('location')).toBe('/account');
    expect(await works(there)).toBe(false);
    const after = (await account(here))!;
    expect(sessionRows(after)).toHaveLength(1);
    expect(after).toContain('this session');
    expect(after).toContain('You are signed in nowhere else.');
    // The same form again: that session is gone.
    const again = await http.post(
      '/account/sessions/end',
      { csrf: sessionsCsrf(page), session: handles(page)[0]! },
      here,
    );
    expect(again.status).toBe(404);
    const audit = await runCli(['audit', 'tail', '-n', '30', '--json', '--db', server.dbPath]);
    const entries = audit.stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { tool: string; outcome: string });
    expect(entries.filter((e) => e.tool === 'session_end').map((e) => e.outcome)).toEqual(['ok', 'error']);
  });

  it('"Sign out everywhere else" ends every other session of the person, and no one else’s', async () => {
    const ana = await person('ana.everywhere@local.example');
    const bo = await person('bo.everywhere@local.example');
    const here = await signedIn(ana);
    const others = [await signedIn(ana), await signedIn(ana)];
    const bos = await signedIn(bo);
    const page = (await account(here))!;
    expect(sessionRows(page)).toHaveLength(3);
    const ended = await http.post('/account/sessions/end-others', { csrf: sessionsCsrf(page) }, here);
    expect(ended.status).toBe(303);
    expect(ended.headers.get('location')).toBe('/account');
    for (const cookie of others) expect(await works(cookie)).toBe(false);
    expect(await works(here)).toBe(true);
    expect(await works(bos)).toBe(true);
    expect(sessionRows((await account(here))!)).toHaveLength(1);
  });

  it('attacks: another person’s session, a forged or missing or borrowed CSRF token, no session — none succeeds', async () => {
    const ana = await person('ana.attacker@local.example');
    const bo = await person('bo.victim@local.example');
    const anas = await signedIn(ana);
    const anasOther = await signedIn(ana);
    const bos = await signedIn(bo);
    const bosOther = await signedIn(bo);
    const anaCsrf = csrfFor(server, anas, 'account-sessions');
    const boCsrf = csrfFor(server, bos, 'account-sessions');
    expect(sessionsCsrf((await account(anas))!)).toBe(anaCsrf);
    const bosHandle = handles((await account(bos))!)[0]!;
    expect(bosHandle).toBe(digestOf(bosOther).slice(0, 16));
    const anasHandle = digestOf(anasOther).slice(0, 16);

    const attempts: [string, Promise<Response>, number][] = [
      // Ana, with her own valid token, names Bo's session: by the handle Bo's page shows, by its digest.
      ["Bo's handle", http.post('/account/sessions/end', { csrf: anaCsrf, session: bosHandle }, anas), 404],
      [
        "Bo's session digest",
        http.post('/account/sessions/end', { csrf: anaCsrf, session: digestOf(bosOther) }, anas),
        404,
      ],
      [
        "Bo's cookie secret",
        http.post('/account/sessions/end', { csrf: anaCsrf, session: secretOf(bosOther) }, anas),
        404,
      ],
      // Her own other session, without the page's token.
      [
        'forged CSRF',
        http.post('/account/sessions/end', { csrf: 'x'.repeat(43), session: anasHandle }, anas),
        403,
      ],
      ['missing CSRF', http.post('/account/sessions/end', { session: anasHandle }, anas), 403],
      [
        "Bo's CSRF token",
        http.post('/account/sessions/end', { csrf: boCsrf, session: anasHandle }, anas),
        403,
      ],
      [
        'forged CSRF, everywhere else',
        http.post('/account/sessions/end-others', { csrf: 'forged' }, anas),
        403,
      ],
      ['missing CSRF, everywhere else', http.post('/account/sessions/end-others', {}, anas), 403],
      // Nobody signed in, with Bo's own token and handle.
      ['no session', http.post('/account/sessions/end', { csrf: boCsrf, session: bosHandle }), 403],
      ['no session, everywhere else', http.post('/account/sessions/end-others', { csrf: boCsrf }), 403],
    ];
    let succeeded = 0;
    for (const [name, answer, expected] of attempts) {
      const status = (await answer).status;
      expect(status, name).toBe(expected);
      if (status < 400) succeeded++;
    }
    for (const cookie of [bos, bosOther, anasOther]) if (!(await works(cookie))) succeeded++;
    expect(succeeded).toBe(0);

    // Ana signing out everywhere else, with her own token, leaves Bo signed in everywhere.
    const own = await http.post('/account/sessions/end-others', { csrf: anaCsrf }, anas);
    expect(own.status).toBe(303);
    expect(await works(anasOther)).toBe(false);
    expect(await works(bos)).toBe(true);
    expect(await works(bosOther)).toBe(true);
  });
});

describe('the account page: your agent tokens', () => {
  it('lists the person’s own live tokens by name with what they may do, not another person’s, and links to Connections', async () => {
    const bo = await person('bo.tokens@local.example');
    const create = async (email: string, name: string, scopes: string) => {
      const made = await runCli([
        'tokens',
        'create',
        email,
        '--name',
        name,
        '--scopes',
        scopes,
        '--db',
        server.dbPath,
        '--json',
      ]);
      expect(made.status, made.stderr).toBe(0);
      return JSON.parse(made.stdout) as { id: string };
    };
    await create(server.agent.email, 'Owner laptop agent', 'read,draft');
    const revoked = await create(server.agent.email, 'Owner old agent', 'read');
    expect((await runCli(['tokens', 'revoke', revoked.id, '--db', server.dbPath])).status).toBe(0);
    await create(bo.email, 'Bo phone agent', 'read');

    const owners = (await account(await signIn(origin, server.agent.email, server.agent.password)))!;
    const tokens = /<table id="tokens">[\s\S]*?<\/table>/.exec(owners)![0];
    expect(tokens).toContain('Owner laptop agent');
    expect(tokens).toContain('test agent'); // the one every test server's owner has
    expect(tokens).toContain('Hold time and ask you to approve bookings');
    expect(tokens).not.toContain('Owner old agent');
    expect(owners).not.toContain('Bo phone agent');
    expect(owners).toContain(
      '<a href="/console/connections" id="connections-link">Manage on the Connections page</a>',
    );

    const bos = (await account(await signedIn(bo)))!;
    expect(bos).toContain('Bo phone agent');
    expect(bos).not.toContain('Owner laptop agent');
    expect(bos).not.toContain('test agent');
  });
});

describe('the account page: your password', () => {
  /** What the login form answers for these credentials: 303 signed in, anything else not. */
  async function loginStatus(email: string, password: string): Promise<number> {
    const form = await fetch(new URL('/login', origin));
    const csrf = /name="csrf" value="([^"]+)"/.exec(await form.text())?.[1] ?? '';
    const cookies = form.headers.getSetCookie().map((c) => c.split(';')[0]!);
    const posted = await fetch(new URL('/login', origin), {
      method: 'POST',
      redirect: 'manual',
      headers: { 'content-type': 'application/x-www-form-urlencoded', origin, cookie: cookies.join('; ') },
      body: new URLSearchParams({ csrf, email, password, next: '/' }),
    });
    return posted.status;
  }
  const tokenFor = async (email: string) => {
    const made = await runCli([
      'tokens',
      'create',
      email,
      '--scopes',
      'read',
      '--json',
      '--db',
      server.dbPath,
    ]);
    expect(made.status, made.stderr).toBe(0);
    return (JSON.parse(made.stdout) as { token: string }).token;
  };
  const agentAnswers = async (token: string) =>
    (await bearerToolsList(new URL('/mcp', origin), token)).status;
  const NEW = 'a brand new passphrase for ana';

  it('changes it with the current one: the old no longer signs in, the new does; every other session and the agents’ tokens end, this session stays', async () => {
    const ana = await person('ana.password@local.example');
    const here = await signedIn(ana);
    const there = await signedIn(ana);
    const token = await tokenFor(ana.email);
    expect(await agentAnswers(token)).toBe(200);
    const page = (await account(here))!;
    expect(page).toContain('Your password');
    expect(page).toContain('your agent tokens and connected apps (1 token now) lose access too');
    const changed = await http.post(
      '/account/password',
      {
        csrf: csrfFor(server, here, 'account-password'),
        current: ana.password,
        next: NEW,
        repeated: NEW,
        endConnections: 'yes',
      },
      here,
    );
    expect(changed.status).toBe(303);
    expect(changed.headers.get('location')).toBe('/account?password=changed');
    expect(await works(here)).toBe(true);
    expect(await works(there)).toBe(false);
    expect(await agentAnswers(token)).toBe(401);
    expect(await loginStatus(ana.email, ana.password)).not.toBe(303);
    expect(await loginStatus(ana.email, NEW)).toBe(303);
    const after = await http.get('/account?password=changed', { cookie: here });
    expect(await after.text()).toContain('Your password is changed. Your other sessions ended.');
  });

  it('unticked, the agents’ tokens keep working; other sessions still end', async () => {
    const bo = await person('bo.password@local.example');
    const here = await signedIn(bo);
    const there = await signedIn(bo);
    const token = await tokenFor(bo.email);
    const changed = await http.post(
      '/account/password',
      { csrf: csrfFor(server, here, 'account-password'), current: bo.password, next: NEW, repeated: NEW },
      here,
    );
    expect(changed.status).toBe(303);
    expect(await agentAnswers(token)).toBe(200);
    expect(await works(there)).toBe(false);
    expect(await loginStatus(bo.email, NEW)).toBe(303);
  });

  it('attacks: a wrong current password, two new ones that differ, a short one, no CSRF, another form’s CSRF, an agent’s token, no session — 0 change it, and nothing else ends', async () => {
    const cy = await person('cy.password@local.example');
    const here = await signedIn(cy);
    const there = await signedIn(cy);
    const token = await tokenFor(cy.email);
    const csrf = csrfFor(server, here, 'account-password');
    const fields = { csrf, current: cy.password, next: NEW, repeated: NEW, endConnections: 'yes' };
    const attempts: [
      string,
      Record<string, string>,
      string | undefined,
      Record<string, string>,
      RegExp | null,
    ][] = [
      [
        'wrong current',
        { ...fields, current: 'not the password at all' },
        here,
        {},
        /Not changed: current: that is not your current password/,
      ],
      [
        'differ',
        { ...fields, repeated: `${NEW}!` },
        here,
        {},
        /Not changed: repeated: the two new passwords differ/,
      ],
      [
        'short',
        { ...fields, next: 'short', repeated: 'short' },
        here,
        {},
        /Not changed: password: 12 to 256 characters/,
      ],
      ['no csrf', { ...fields, csrf: '' }, here, {}, null],
      ['another form’s csrf', { ...fields, csrf: csrfFor(server, here, 'account-sessions') }, here, {}, null],
      ['agent token', fields, undefined, { authorization: `Bearer ${token}` }, null],
      ['no session', fields, undefined, {}, null],
    ];
    let changed = 0;
    for (const [name, body, cookie, headers, message] of attempts) {
      const answer = await http.post('/account/password', body, cookie, headers);
      if (answer.status === 303) changed++;
      expect(answer.status, name).toBeGreaterThanOrEqual(400);
      if (message) expect(await answer.text(), name).toMatch(message);
    }
    expect(changed).toBe(0);
    expect(await loginStatus(cy.email, cy.password)).toBe(303);
    expect(await works(there)).toBe(true);
    expect(await agentAnswers(token)).toBe(200);
  });
});
