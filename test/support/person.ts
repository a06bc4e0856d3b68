import { expect } from 'vitest';
import { runCli } from './spawn-server.js';

/** Cookie pairs (`name=value`) from a response's Set-Cookie headers. */
function cookiesOf(response: Response): string[] {
  return response.headers.getSetCookie().map((c) => c.split(';')[0]!);
}

/**
 * A person signs in on the page, as a browser would: load the form (its login CSRF cookie and
 * field), post email and password. Returns the session cookie to send with later requests.
 */
export async function signIn(origin: string, email: string, password: string): Promise<string> {
  const form = await fetch(new URL('/login', origin));
  const csrf = /name="csrf" value="([^"]+)"/.exec(await form.text())?.[1];
  const posted = await fetch(new URL('/login', origin), {
    method: 'POST',
    redirect: 'manual',
    headers: {
      'content-type': 'application/x-www-form-urlencoded',
      origin: new URL(origin).origin,
      cookie: cookiesOf(form).join('; '),
    },
    body: new URLSearchParams({ csrf: csrf ?? '', email, password, next: '/' }),
  });
  expect(posted.status, await posted.clone().text()).toBe(303);
  const session = cookiesOf(posted).find((c) => /^(__Host-)?holdfast_session=/.test(c));
  expect(session).toBeDefined();
  return session!;
}

/** The CSRF token of a console approval page's decision form (not of its sign-out form). */
export function approvalCsrf(page: string): string | undefined {
  return /action="\/console\/approvals\/[^"]+"[\s\S]*?name="csrf" value="([^"]+)"/.exec(page)?.[1];
}

/**
 * A signed-in person opens an approval link (the console's page of it), takes the form's CSRF
 * token and presses a button; the answer is the page the decision leads to.
 */
export async function decideOnPage(
  approveUrl: string,
  cookie: string,
  decision: 'approve' | 'deny' = 'approve',
): Promise<{ page: string; status: number; result: string }> {
  const page = await (await fetch(approveUrl, { headers: { cookie } })).text();
  const csrf = approvalCsrf(page);
  expect(csrf, page.slice(0, 400)).toBeDefined();
  const answer = await fetch(approveUrl, {
    method: 'POST',
    headers: {
      'content-type': 'application/x-www-form-urlencoded',
      origin: new URL(approveUrl).origin,
      cookie,
    },
    body: new URLSearchParams({ csrf: csrf!, decision }),
  });
  return { page, status: answer.status, result: await answer.text() };
}

/**
 * A person added the way an operator does it (`holdfast users add`), who then sets their
 * password through the one-time link the command printed, on the running server.
 */
export async function addPersonWithPassword(
  server: { url: string; dbPath: string },
  spec: { email: string; role: 'owner' | 'approver' | 'viewer'; tenant?: string; password?: string },
): Promise<{ email: string; password: string }> {
  const password = spec.password ?? 'a long enough test password';
  const added = await runCli([
    'users',
    'add',
    spec.email,
    '--role',
    spec.role,
    '--tenant',
    spec.tenant ?? 'local',
    '--db',
    server.dbPath,
    '--json',
  ]);
  expect(added.status, added.stderr).toBe(0);
  const { setupUrl } = JSON.parse(added.stdout) as { setupUrl: string };
  const link = new URL(new URL(setupUrl).pathname, server.url);
  const set = await fetch(link, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', origin: link.origin },
    body: new URLSearchParams({ password }),
  });
  expect(set.status, await set.clone().text()).toBe(200);
  return { email: spec.email, password };
}
