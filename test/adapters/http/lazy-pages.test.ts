import { describe, expect, it } from 'vitest';
import type { PageApp } from '../../../src/adapters/http/index.js';
import { createHttpApp, serverNames } from '../../../src/adapters/http/index.js';
import { silentLogger } from '../../../src/adapters/log/index.js';

/** An app whose pages load through `loadPages`, counting the loads; `fail` makes the next load throw. */
function appWithLazyPages() {
  const state = { loads: 0, fail: false };
  const app = createHttpApp({
    names: serverNames(3000),
    logger: silentLogger,
    version: 'test',
    health: async () => true,
    mountBeforeForms: (hono) => hono.get('/feeds/x.ics', (c) => c.text('BEGIN:VCALENDAR')),
    loadPages: async () => {
      state.loads++;
      await new Promise((resolve) => setTimeout(resolve, 20));
      if (state.fail) throw new Error('the page code failed to load');
      return (pages: PageApp) => {
        pages.get('/login', (c) => c.html('<form>sign in</form>'));
        pages.post('/login', async (c) => c.text(`posted ${(await c.req.parseBody()).email}`));
      };
    },
  });
  const request = (path: string, init: RequestInit = {}) =>
    app.fetch(
      new Request(`http://127.0.0.1:3000${path}`, {
        ...init,
        headers: { host: '127.0.0.1:3000', ...(init.headers as Record<string, string>) },
      }),
    );
  return { state, request };
}

describe('pages load on the first request for one (serve answers /mcp without their code)', () => {
  it('health, feeds and unknown methods never load them; the first page request loads them once', async () => {
    const { state, request } = appWithLazyPages();
    expect((await request('/healthz')).status).toBe(200);
    expect(await (await request('/feeds/x.ics')).text()).toBe('BEGIN:VCALENDAR');
    expect(state.loads).toBe(0);
    const first = await Promise.all([request('/login'), request('/login'), request('/nowhere')]);
    expect(first.map((r) => r.status)).toEqual([200, 200, 404]);
    expect(await first[0]!.text()).toContain('sign in');
    expect(await first[2]!.json()).toEqual({ error: 'not_found' });
    expect(state.loads).toBe(1);
  });

  it('a page behind lazy loading keeps the guards: a foreign Host is refused, a JSON post to a form is 415', async () => {
    const { state, request } = appWithLazyPages();
    const foreign = await request('/login', { headers: { host: 'evil.example' } });
    expect(foreign.status).toBe(403);
    const json = await request('/login', {
      method: 'POST',
      headers: { 'content-type': 'application/json', origin: 'http://127.0.0.1:3000' },
      body: JSON.stringify({ email: 'a@example.com' }),
    });
    expect(json.status).toBe(415);
    const form = await request('/login', {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', origin: 'http://127.0.0.1:3000' },
      body: 'email=a%40example.com',
    });
    expect(await form.text()).toBe('posted a@example.com');
    expect(state.loads).toBe(1);
  });

  it('a failed load answers 500 without its message, and the next request tries again', async () => {
    const { state, request } = appWithLazyPages();
    state.fail = true;
    const failed = await request('/login');
    expect(failed.status).toBe(500);
    expect(await failed.text()).not.toContain('failed to load');
    state.fail = false;
    expect((await request('/login')).status).toBe(200);
    expect(state.loads).toBe(2);
  });
});
