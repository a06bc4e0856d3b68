import { createHash, createHmac } from 'node:crypto';
import Database from 'better-sqlite3';
import { expect } from 'vitest';
import { addPersonWithPassword, signIn } from './person.js';
import type { RunningServer } from './spawn-server.js';

/** Session cookies of everyone a console attack needs: the owner, a viewer, an approver, another tenant's owner. */
export interface ConsoleCast {
  readonly owner: string;
  readonly viewer: string;
  readonly approver: string;
  readonly foreigner: string;
}

/** Adds a viewer and an approver to the server's tenant and an owner of tenant `other`, and signs all in. */
export async function consoleCast(server: RunningServer): Promise<ConsoleCast> {
  const origin = new URL(server.url).origin;
  const v = await addPersonWithPassword(server, { email: 'vic@local.example', role: 'viewer' });
  const a = await addPersonWithPassword(server, { email: 'amy@local.example', role: 'approver' });
  const f = await addPersonWithPassword(server, {
    email: 'ann@other.example',
    role: 'owner',
    tenant: 'other',
  });
  return {
    owner: await signIn(origin, server.agent.email, server.agent.password),
    viewer: await signIn(origin, v.email, v.password),
    approver: await signIn(origin, a.email, a.password),
    foreigner: await signIn(origin, f.email, f.password),
  };
}

/** Plain HTTP against the server, redirects not followed: what a script (or an agent) sends. */
export function consoleHttp(server: RunningServer) {
  const url = (path: string) => new URL(path, server.url).href;
  return {
    url,
    get: (path: string, headers: Record<string, string> = {}) =>
      fetch(url(path), { redirect: 'manual', headers }),
    post: (
      path: string,
      fields: Record<string, string>,
      cookie?: string,
      headers: Record<string, string> = {},
    ) =>
      fetch(url(path), {
        method: 'POST',
        redirect: 'manual',
        headers: {
          'content-type': 'application/x-www-form-urlencoded',
          origin: new URL(server.url).origin,
          ...(cookie ? { cookie } : {}),
          ...headers,
        },
        body: new URLSearchParams(fields),
      }),
  };
}

/**
 * A CSRF token as the server signs it for this session and form purpose: what the person's own
 * page would carry if it showed them the form. Read from the database, so a form the page
 * leaves out for a role is no protection an attack test relies on: only the role check is.
 */
export function csrfFor(server: RunningServer, cookie: string, purpose: string): string {
  const secret = decodeURIComponent(cookie.slice(cookie.indexOf('=') + 1));
  const db = new Database(server.dbPath, { readonly: true });
  try {
    const row = db
      .prepare('SELECT csrf_secret FROM sessions WHERE id_hash = ?')
      .get(createHash('sha256').update(secret).digest('hex')) as { csrf_secret: string } | undefined;
    expect(row, 'the session is in the database').toBeDefined();
    return createHmac('sha256', row!.csrf_secret).update(purpose).digest('base64url');
  } finally {
    db.close();
  }
}

/**
 * A console answer as the safety defaults require: the strict CSP (this site's own script and
 * style only, no framing), no caching, and HTML with no inline script, style or event handler.
 */
export async function expectStrictConsolePage(answer: Response, path: string): Promise<void> {
  const csp = answer.headers.get('content-security-policy') ?? '';
  expect(csp, path).toContain("script-src 'self'");
  expect(csp, path).toContain("style-src 'self'");
  expect(csp, path).toContain("frame-ancestors 'none'");
  expect(csp, path).not.toContain('unsafe-inline');
  expect(answer.headers.get('cache-control'), path).toBe('no-store');
  const html = await answer.text();
  for (const tag of html.match(/<script\b[^>]*>/g) ?? []) expect(tag, path).toMatch(/\bsrc="\/assets\//);
  expect(html, path).not.toMatch(/<script\b[^>]*>\s*[^<\s]/);
  expect(html, path).not.toMatch(/\son[a-z]+\s*=/i);
  expect(html, path).not.toMatch(/\sstyle\s*=/i);
  expect(html, path).not.toMatch(/<style\b/i);
  expect(html, path).not.toContain('javascript:');
}
