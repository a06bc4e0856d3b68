import { spawn } from 'node:child_process';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { createServer, request } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { caldavEvents } from '../../src/adapters/caldav/index.js';
import { tsdavClient } from '../../src/adapters/caldav/tsdav-client.js';
import { WebhookSecretBox } from '../../src/adapters/webhooks/index.js';
import { CALDAV_SECRET_PURPOSE } from '../../src/main/runtime/caldav-kit.js';
import type { Runtime } from '../../src/main/runtime/compose.js';
import type { CaldavKit } from '../../src/ports/caldav.js';
import { freePort } from './net.js';

/** Debian's Radicale, run with the system Python (the PATH's python3 may be another one). */
const PYTHON = '/usr/bin/python3';
export const RADICALE_USER = 'ana';
export const RADICALE_PASSWORD = 'correct horse battery staple';

const basic = `Basic ${Buffer.from(`${RADICALE_USER}:${RADICALE_PASSWORD}`).toString('base64')}`;

async function until(ready: () => Promise<boolean>, what: string, timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await ready().catch(() => false))) {
    if (Date.now() > deadline) throw new Error(`${what} did not start`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** What the proxy does with one request: pass it on (and count it), or answer itself. */
/** swallow: the request reaches Radicale (an event is written) but its answer never comes back. */
export type ProxyMode = 'pass' | 'down' | 'garbage' | 'stall' | 'swallow';

/**
 * A real CalDAV server (Radicale, owner-only rights, one user) on a free loopback port, behind a
 * proxy the test controls: it counts requests by method and path, and can play a server that is
 * down, answers garbage, or never answers.
 */
export async function startRadicale() {
  const dir = mkdtempSync(join(tmpdir(), 'holdfast-radicale-'));
  const port = await freePort();
  writeFileSync(join(dir, 'users'), `${RADICALE_USER}:${RADICALE_PASSWORD}\n`);
  writeFileSync(
    join(dir, 'config'),
    [
      '[server]',
      `hosts = 127.0.0.1:${port}`,
      '[auth]',
      'type = htpasswd',
      `htpasswd_filename = ${join(dir, 'users')}`,
      'htpasswd_encryption = plain',
      'delay = 0',
      '[rights]',
      'type = owner_only',
      '[storage]',
      `filesystem_folder = ${join(dir, 'collections')}`,
      '[web]',
      'type = none',
      '[logging]',
      'level = warning',
    ].join('\n'),
  );
  const child = spawn(PYTHON, ['-m', 'radicale', '--config', join(dir, 'config')], {
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  const logs: string[] = [];
  child.stderr!.on('data', (chunk: Buffer) => logs.push(chunk.toString()));
  const origin = `http://127.0.0.1:${port}`;
  try {
    await until(
      async () => (await fetch(`${origin}/`, { method: 'OPTIONS' })).ok,
      `Radicale (${logs.join('')})`,
    );
  } catch (error) {
    child.kill('SIGKILL');
    throw error;
  }

  let mode: ProxyMode = 'pass';
  const counts = new Map<string, number>();
  const stalled: ServerResponse[] = [];
  let onRequest: ((method: string, path: string) => void) | null = null;
  /** When set, the proxy plays an OAuth resource server: only these bearer tokens (live until) get in. */
  let bearers: Map<string, number> | null = null;
  const proxy = createServer((req: IncomingMessage, res: ServerResponse) => {
    const key = `${req.method} ${req.url}`;
    counts.set(key, (counts.get(key) ?? 0) + 1);
    onRequest?.(req.method ?? '', req.url ?? '');
    if (mode === 'down') return void res.socket?.destroy();
    if (mode === 'stall') return void stalled.push(res);
    const swallow = mode === 'swallow';
    if (mode === 'garbage') {
      res.writeHead(207, { 'content-type': 'application/xml' });
      return void res.end('<<<this is not <xml> &at all; ]]>');
    }
    const headers = { ...req.headers };
    if (bearers) {
      const token = /^Bearer (.+)$/.exec(req.headers.authorization ?? '')?.[1];
      if (!token || !((bearers.get(token) ?? 0) > Date.now())) {
        req.resume();
        res.writeHead(401, { 'www-authenticate': 'Bearer' });
        return void res.end();
      }
      headers.authorization = basic;
    }
    const upstream = request(
      { host: '127.0.0.1', port, method: req.method, path: req.url, headers },
      (answer) => {
        if (swallow) return void (answer.resume(), stalled.push(res));
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    upstream.on('error', () => res.socket?.destroy());
    req.pipe(upstream);
  });
  await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
  const proxied = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`;

  /** Straight to Radicale (the person's phone), not through the proxy. */
  const dav = (path: string, method: string, body?: string, headers: Record<string, string> = {}) =>
    fetch(`${origin}${path.replace(/ /g, '%20')}`, {
      method,
      body,
      headers: { authorization: basic, 'content-type': 'text/calendar; charset=utf-8', ...headers },
    });

  return {
    /** A collection's URL as Holdfast is given it (through the proxy). */
    collectionUrl: (name: string) => `${proxied}/${RADICALE_USER}/${name}/`,
    origin,
    counts,
    setMode(next: ProxyMode) {
      mode = next;
      if (next !== 'stall' && next !== 'swallow') for (const res of stalled.splice(0)) res.socket?.destroy();
    },
    /** Sign-in by OAuth bearer tokens only (Google's way): these, while they live. */
    acceptBearers(tokens: Map<string, number> | null) {
      bearers = tokens;
    },
    onRequest(listener: ((method: string, path: string) => void) | null) {
      onRequest = listener;
    },
    async makeCalendar(name: string) {
      const made = await dav(
        `/${RADICALE_USER}/${name}/`,
        'MKCALENDAR',
        `<?xml version="1.0"?><C:mkcalendar xmlns:D="DAV:" xmlns:C="urn:ietf:params:xml:ns:caldav"><D:set><D:prop><D:displayname>${name}</D:displayname></D:prop></D:set></C:mkcalendar>`,
        { 'content-type': 'application/xml' },
      );
      if (made.status !== 201) throw new Error(`MKCALENDAR ${name}: ${made.status}`);
    },
    /** The person adds or edits an event on their phone. */
    async putEvent(calendar: string, name: string, ics: string) {
      const put = await dav(`/${RADICALE_USER}/${calendar}/${name}`, 'PUT', ics);
      if (put.status !== 201 && put.status !== 204) throw new Error(`PUT ${name}: ${put.status}`);
    },
    async deleteEvent(calendar: string, name: string) {
      const deleted = await dav(`/${RADICALE_USER}/${calendar}/${name}`, 'DELETE');
      if (!deleted.ok) throw new Error(`DELETE ${name}: ${deleted.status}`);
    },
    async getEvent(calendar: string, name: string): Promise<string | null> {
      const got = await dav(`/${RADICALE_USER}/${calendar}/${name}`, 'GET');
      // Unfolded: a long line may be split anywhere.
      return got.status === 404 ? null : (await got.text()).replace(/\r\n[ \t]/g, '');
    },
    /** Every event's name in the collection (a depth-1 PROPFIND). */
    async eventNames(calendar: string): Promise<string[]> {
      const listed = await dav(
        `/${RADICALE_USER}/${calendar}/`,
        'PROPFIND',
        '<?xml version="1.0"?><D:propfind xmlns:D="DAV:"><D:prop><D:getetag/></D:prop></D:propfind>',
        { depth: '1', 'content-type': 'application/xml' },
      );
      const text = await listed.text();
      return [...text.matchAll(/<(?:\w+:)?href>([^<]+\.ics)<\/(?:\w+:)?href>/gi)].map((m) =>
        decodeURIComponent(m[1]!).split('/').pop()!,
      );
    },
    async stop() {
      for (const res of stalled.splice(0)) res.socket?.destroy();
      proxy.closeAllConnections();
      await new Promise((resolve) => proxy.close(resolve));
      child.kill('SIGTERM');
      await new Promise((resolve) => (child.exitCode !== null ? resolve(null) : child.once('exit', resolve)));
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

export type Radicale = Awaited<ReturnType<typeof startRadicale>>;

/** A one-event iCalendar text. */
export function eventIcs(uid: string, start: string, end: string, summary: string, extra = ''): string {
  return [
    'BEGIN:VCALENDAR',
    'VERSION:2.0',
    'PRODID:-//holdfast tests//EN',
    'BEGIN:VEVENT',
    `UID:${uid}`,
    'DTSTAMP:20300101T000000Z',
    `DTSTART:${start}`,
    `DTEND:${end}`,
    `SUMMARY:${summary}`,
    ...(extra ? [extra] : []),
    'END:VEVENT',
    'END:VCALENDAR',
    '',
  ].join('\r\n');
}

/** The sync's kit as the server builds it, with loopback allowed and a short timeout (a stalled server fails fast). */
export async function testCaldavKit(runtime: Runtime, timeoutMs: number): Promise<CaldavKit> {
  return {
    client: tsdavClient({ allowPrivate: true, timeoutMs }),
    events: await caldavEvents(),
    secrets: new WebhookSecretBox(runtime.auditKey.derive(CALDAV_SECRET_PURPOSE)),
  };
}
