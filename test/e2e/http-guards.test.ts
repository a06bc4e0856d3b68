import { spawn } from 'node:child_process';
import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signIn } from '../support/person.js';
import type { RunningServer } from '../support/spawn-server.js';
import { CLI, spawnServer, tempDbPath } from '../support/spawn-server.js';

let server: RunningServer;
beforeAll(async () => {
  server = await spawnServer(['--no-seed', '--dev']);
});
afterAll(() => server.stop());

const initialize = {
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
};
const json = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
/** A well-formed request of an agent with a token: only the guard under test may refuse it. */
const withToken = (s: RunningServer = server) => ({ ...json, authorization: `Bearer ${s.agent.token}` });

/** One POST on its own connection: fetch() cannot forge Host, and a 413 closes the socket early. */
function rawPost(port: number, extraHeaders: Record<string, string>, body: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: '127.0.0.1',
        port,
        path: '/mcp',
        method: 'POST',
        agent: false,
        headers: { ...withToken(), ...extraHeaders },
      },
      (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      },
    );
    req.on('error', (error: NodeJS.ErrnoException) =>
      error.code === 'EPIPE' || error.code === 'ECONNRESET' ? undefined : reject(error),
    );
    req.end(body);
  });
}

describe('HTTP safety defaults of the real server', () => {
  it('answers a well-formed POST with a token; without one, 401 naming the Bearer scheme', async () => {
    const res = await fetch(server.url, {
      method: 'POST',
      headers: withToken(),
      body: JSON.stringify(initialize),
    });
    expect(res.status).toBe(200);
    const anonymous = await fetch(server.url, {
      method: 'POST',
      headers: json,
      body: JSON.stringify(initialize),
    });
    expect(anonymous.status).toBe(401);
    expect(anonymous.headers.get('www-authenticate')).toMatch(/^Bearer/);
  });

  it('refuses a foreign Host header with 403 (DNS rebinding)', async () => {
    expect(await rawPost(server.port, { host: 'evil.example:80' }, JSON.stringify(initialize))).toBe(403);
    expect(await rawPost(server.port, { host: `localhost:${server.port}` }, JSON.stringify(initialize))).toBe(
      200,
    );
  });

  it('refuses a foreign Origin with 403', async () => {
    const res = await fetch(server.url, {
      method: 'POST',
      headers: { ...withToken(), origin: 'https://evil.example' },
      body: JSON.stringify(initialize),
    });
    expect(res.status).toBe(403);
  });

  it('takes the port as part of Host and Origin: another local server is another origin', async () => {
    const other = server.port === 8080 ? 8081 : 8080;
    const body = JSON.stringify(initialize);
    const post = (origin: string) => rawPost(server.port, { origin }, body);
    for (const origin of [
      `http://localhost:${other}`,
      `http://127.0.0.1:${other}`,
      'http://localhost',
      `https://localhost:${server.port}`,
      'null',
    ]) {
      expect(await post(origin), origin).toBe(403);
    }
    expect(await post(`http://localhost:${server.port}`)).toBe(200);
    expect(await post(`http://127.0.0.1:${server.port}`)).toBe(200);
    expect(await post(`http://[::1]:${server.port}`)).toBe(200);
    expect(await rawPost(server.port, { host: `localhost:${other}` }, body)).toBe(403);
    expect(await rawPost(server.port, { host: 'localhost' }, body)).toBe(403);
    expect(await rawPost(server.port, { host: `127.0.0.1:${server.port}` }, body)).toBe(200);
  });

  it('sends no-store, a CSP and no framing on the development payment page', async () => {
    const cookie = await signIn(new URL(server.url).origin, server.agent.email, server.agent.password);
    const res = await fetch(server.url.replace('/mcp', '/pay/bk_unknown'), { headers: { cookie } });
    expect(res.status).toBe(404);
    expect(res.headers.get('cache-control')).toBe('no-store');
    expect(res.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
    expect(res.headers.get('content-security-policy')).toContain("default-src 'none'");
  });

  it('answers GET and DELETE on /mcp with 405', async () => {
    expect((await fetch(server.url)).status).toBe(405);
    expect((await fetch(server.url, { method: 'DELETE' })).status).toBe(405);
  });

  it('refuses non-JSON with 415 and oversized bodies with 413', async () => {
    const text = await fetch(server.url, {
      method: 'POST',
      headers: { ...withToken(), 'content-type': 'text/plain' },
      body: 'hi',
    });
    expect(text.status).toBe(415);
    const huge = JSON.stringify({ ...initialize, padding: 'x'.repeat(300 * 1024) });
    expect(await rawPost(server.port, {}, huge)).toBe(413);
  });

  it('serves health and a JSON 404 elsewhere', async () => {
    const health = await fetch(server.url.replace('/mcp', '/healthz'));
    expect(await health.json()).toMatchObject({ status: 'ok' });
    expect((await fetch(server.url.replace('/mcp', '/readyz'))).status).toBe(200);
    expect((await fetch(server.url.replace('/mcp', '/nope'))).status).toBe(404);
  });

  it('refuses to start on a non-loopback address without authentication', async () => {
    const db = tempDbPath();
    const child = spawn(process.execPath, [
      CLI,
      'serve',
      '--host',
      '0.0.0.0',
      '--port',
      '0',
      '--db',
      db.path,
    ]);
    let stderr = '';
    child.stderr.on('data', (chunk) => (stderr += chunk));
    const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
    db.cleanup();
    expect(code).not.toBe(0);
    expect(stderr).toContain('Refusing to bind 0.0.0.0');
    expect(stderr).not.toContain('    at ');
  });
});

describe('--legacy reject', () => {
  it('serves 2026-07-28 only and refuses a 2025 initialize', async () => {
    const strict = await spawnServer(['--no-seed', '--legacy', 'reject']);
    try {
      const res = await fetch(strict.url, {
        method: 'POST',
        headers: withToken(strict),
        body: JSON.stringify(initialize),
      });
      const text = await res.text();
      expect(text).toMatch(/2026-07-28/);
      expect(text).toMatch(/error/i);
    } finally {
      await strict.stop();
    }
  });
});
