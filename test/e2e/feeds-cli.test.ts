import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectHttp } from '../support/mcp-clients.js';
import { createOpenCalendar } from '../support/fixtures.js';
import type { RunningServer } from '../support/spawn-server.js';
import { spawnCli, spawnServer, tempDbPath } from '../support/spawn-server.js';

// The feed commands of docs/scheduling.md, run as written against a spawned server's database.

const day = Math.floor(Date.now() / 86_400_000) * 86_400_000 + 3 * 86_400_000;
const stamp = (t: number) =>
  new Date(t)
    .toISOString()
    .replace(/[-:]/g, '')
    .replace(/\.\d{3}/, '');
const busyFile = `BEGIN:VCALENDAR
VERSION:2.0
PRODID:-//test//EN
BEGIN:VEVENT
UID:dentist@example
DTSTAMP:${stamp(day)}
DTSTART:${stamp(day + 10 * 3_600_000)}
DTEND:${stamp(day + 11 * 3_600_000)}
SUMMARY:Dentist
END:VEVENT
END:VCALENDAR
`;

let server: RunningServer;
let db: { path: string; cleanup: () => void };
let dir: string;
let calendarId: string;
const cli = (...args: string[]) => spawnCli(['feeds', ...args, '--db', db.path]);

beforeAll(async () => {
  db = tempDbPath();
  dir = mkdtempSync(join(tmpdir(), 'holdfast-feeds-'));
  server = await spawnServer(['--db', db.path, '--no-seed'], { dbPath: db.path });
  const client = await connectHttp(server.url, 'modern');
  calendarId = await createOpenCalendar(client, 'Feed room');
  await client.close();
}, 60_000);
afterAll(async () => {
  await server?.stop();
  db?.cleanup();
  rmSync(dir, { recursive: true, force: true });
});

describe('holdfast feeds', () => {
  it('create prints an address once that serves the calendar; list shows it; revoke ends it', async () => {
    const created = await cli('create', calendarId, '--public-url', new URL(server.url).origin);
    expect(created.status, created.stderr).toBe(0);
    const address = /https?:\/\/\S+\/feeds\/hf_feed_[A-Za-z0-9_-]+\.ics/.exec(created.stdout)?.[0];
    expect(address).toBeDefined();
    const served = await fetch(address!);
    expect(served.status).toBe(200);
    expect(served.headers.get('content-type')).toContain('text/calendar');
    expect(await served.text()).toContain('BEGIN:VCALENDAR');
    const listed = await cli('list');
    expect(listed.status).toBe(0);
    const id = /feed_[A-Za-z0-9_-]+/.exec(listed.stdout)?.[0];
    expect(listed.stdout).toContain(calendarId);
    expect(listed.stdout).not.toContain('hf_feed_');
    expect((await cli('revoke', id!)).status).toBe(0);
    expect((await fetch(address!)).status).toBe(404);
  });

  it('refuses, when subscribing, every spelling of this host or a local network; stores 0', async () => {
    let stored = 0;
    for (const url of [
      'https://[::ffff:127.0.0.1]:9/f.ics',
      'https://[::ffff:7f00:1]:9/f.ics',
      'https://[::127.0.0.1]:9/f.ics',
      'https://localhost:9/f.ics',
      'https://localhost.:9/f.ics',
      'https://cal.localhost/f.ics',
      'https://2130706433/f.ics',
      'https://169.254.169.254/f.ics',
    ]) {
      const answer = await cli('subscribe', calendarId, url);
      expect(answer.status, url).not.toBe(0);
      expect(answer.stderr, url).toMatch(/private, loopback, link-local or special-use/);
      if (answer.status === 0) stored++;
    }
    expect(stored).toBe(0);
    expect((await cli('subscriptions')).stdout).not.toMatch(/127|localhost|169\.254|ffff/);
  });

  it('subscribe a file, refresh it, see it in subscriptions, and unsubscribe', async () => {
    const file = join(dir, 'busy.ics');
    writeFileSync(file, busyFile);
    const subscribed = await cli('subscribe', calendarId, file, '--every', '30m');
    expect(subscribed.status, subscribed.stderr).toBe(0);
    const id =
      /sub_[A-Za-z0-9_-]+/.exec(subscribed.stdout)?.[0] ??
      /sub_[A-Za-z0-9_-]+/.exec((await cli('subscriptions')).stdout)?.[0];
    expect(id).toBeDefined();
    const refreshed = await cli('refresh', id!);
    expect(refreshed.status, refreshed.stderr).toBe(0);
    const listed = await cli('subscriptions', '--json');
    expect(listed.status).toBe(0);
    const [subscription] = JSON.parse(listed.stdout) as { id: string; lastError: string | null }[];
    expect(subscription).toMatchObject({ id, lastError: null });
    expect((await cli('unsubscribe', id!)).status).toBe(0);
    expect(JSON.parse((await cli('subscriptions', '--json')).stdout)).toEqual([]);
  });
});
