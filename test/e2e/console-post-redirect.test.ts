import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ConsoleCast } from '../support/console-attack.js';
import { consoleCast, consoleHttp, csrfFor } from '../support/console-attack.js';
import type { RunningServer } from '../support/spawn-server.js';
import { spawnServer } from '../support/spawn-server.js';

// Post/Redirect/Get: every console form that succeeds answers 303 to a page, so reloading what
// the person sees sends nothing again. What a result must show once (a setup link, a new
// token's secret) rides to that page in a one-time cookie and is gone on the next load.

let server: RunningServer;
let cast: ConsoleCast;
beforeAll(async () => {
  server = await spawnServer(['--no-seed']);
  cast = await consoleCast(server);
});
afterAll(async () => {
  await server?.stop();
});

/** The `name=value` pairs a response sets, ready to send back. */
const cookiesOf = (answer: Response) =>
  answer.headers
    .getSetCookie()
    .map((line) => line.split(';')[0]!)
    .filter((pair) => !pair.endsWith('='));

describe('console forms redirect after they succeed', () => {
  it('invite, settings, a new token: 303 to a GET page; a one-time result shows once', async () => {
    const { owner } = cast;
    const { get, post } = consoleHttp(server);
    const people = csrfFor(server, owner, 'console-people');
    const connections = csrfFor(server, owner, 'console-connections');

    const invited = await post(
      '/console/people',
      { csrf: people, email: 'prg@local.example', role: 'viewer', displayName: 'Pat' },
      owner,
    );
    expect(invited.status, await invited.clone().text()).toBe(303);
    expect(invited.headers.get('location')).toBe('/console/people#result');
    const flash = cookiesOf(invited);
    expect(flash).toHaveLength(1);
    const withFlash = [owner, ...flash].join('; ');
    const shown = await get('/console/people', { cookie: withFlash });
    const page = await shown.text();
    expect(page).toMatch(/\/setup\/hf_setup_/);
    expect(page).toContain('prg@local.example');
    // The page that showed it clears it: the cookie comes back empty.
    expect(shown.headers.getSetCookie().join('\n')).toMatch(/holdfast_flash_setup-link=;/);

    const saved = await post(
      '/console/people/settings',
      {
        csrf: people,
        callsPerMinute: '100',
        activeHoldsPerPerson: '5',
        activeHoldsPerConnection: '5',
        openApprovalsPerPerson: '5',
        heldCalendarHoursPerPerson: '24',
        defaultWritePolicy: 'draft',
        approvalWindowMinutes: '30',
      },
      owner,
    );
    expect(saved.status, await saved.clone().text()).toBe(303);
    expect(saved.headers.get('location')).toBe('/console/people?saved=1#result');
    expect(await (await get('/console/people?saved=1', { cookie: owner })).text()).toContain(
      'Settings saved.',
    );

    const made = await post(
      '/console/tokens',
      { csrf: connections, name: 'prg token', scopes: 'read', writePolicy: 'readonly', days: '7' },
      owner,
    );
    expect(made.status, await made.clone().text()).toBe(303);
    const secretPage = await (
      await get('/console/connections', { cookie: [owner, ...cookiesOf(made)].join('; ') })
    ).text();
    expect(secretPage).toContain('Token “prg token” made');
    expect(secretPage).toMatch(/hf_pat_[\w-]+/);
    // Without the one-time cookie (a reload after it was read), no secret is shown.
    expect(await (await get('/console/connections', { cookie: owner })).text()).not.toContain('made</h2>');
  });

  it('a one-time result cannot be planted: a flash cookie not sealed by this session is ignored', async () => {
    const { owner, approver } = cast;
    const { get, post } = consoleHttp(server);
    const made = await post(
      '/console/tokens',
      {
        csrf: csrfFor(server, approver, 'console-connections'),
        name: 'amy token',
        scopes: 'read',
        writePolicy: 'readonly',
        days: '7',
      },
      approver,
    );
    expect(made.status).toBe(303);
    const sealed = cookiesOf(made);
    // Amy's sealed result carried to the owner's session, and one made up: neither is shown.
    const forged = `holdfast_flash_new-token=${Buffer.from(
      JSON.stringify({ token: { name: 'Planted' }, secret: 'hf_pat_planted' }),
    ).toString('base64url')}.x`;
    let shown = 0;
    for (const planted of [...sealed, forged]) {
      const page = await (await get('/console/connections', { cookie: `${owner}; ${planted}` })).text();
      if (page.includes('made</h2>')) shown++;
    }
    expect(shown).toBe(0);
    // Amy herself sees hers.
    const own = await (
      await get('/console/connections', { cookie: [approver, ...sealed].join('; ') })
    ).text();
    expect(own).toContain('Token “amy token” made');
  });
});
