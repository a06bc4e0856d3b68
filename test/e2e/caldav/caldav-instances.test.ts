import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Client } from '@modelcontextprotocol/client';
import { describe, expect, it } from 'vitest';
import { createOpenCalendar, futureHour } from '../../support/fixtures.js';
import { connectHttp, ok } from '../../support/mcp-clients.js';
import { eventIcs, RADICALE_PASSWORD, RADICALE_USER, startRadicale } from '../../support/radicale.js';
import type { Radicale } from '../../support/radicale.js';
import { runCli } from '../../support/spawn-server.js';
import type { Backend } from '../../reliability/harness.js';
import { startBackend } from '../../reliability/harness.js';

// The sync as `serve` runs it, against Radicale: two instances on one PostgreSQL write each
// booking once (leases: one instance syncs a collection at a time), and an instance killed with
// -9 while its write was in flight leaves nothing half-done: the next instance finishes it, with
// no duplicate event.

async function until<T>(what: string, probe: () => Promise<T | null>, timeoutMs = 45_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const seen = await probe();
    if (seen !== null) return seen;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

async function confirmHour(agent: Client, calendarId: string, day: number): Promise<string> {
  const { booking } = await ok<{ booking: { id: string; version: number } }>(agent, 'hold_slot', {
    calendarIds: [calendarId],
    start: futureHour(day),
    end: futureHour(day, 1),
    idempotencyKey: randomUUID(),
  });
  await ok(agent, 'confirm_booking', {
    bookingId: booking.id,
    expectedVersion: booking.version,
    idempotencyKey: randomUUID(),
  });
  return booking.id;
}

async function connect(backend: Backend, radicale: Radicale, calendarId: string, collection: string) {
  // The command reads the password from the environment (runCli runs it in this process).
  process.env.HOLDFAST_CALDAV_PASSWORD = RADICALE_PASSWORD;
  const connected = await runCli([
    'caldav',
    'connect',
    calendarId,
    radicale.collectionUrl(collection),
    '--username',
    RADICALE_USER,
    '--every',
    '15s',
    '--allow-private-feeds',
    '--json',
    ...backend.databaseArgs,
  ]).finally(() => delete process.env.HOLDFAST_CALDAV_PASSWORD);
  expect(connected.stderr).toBe('');
  return (JSON.parse(connected.stdout) as { id: string }).id;
}

const ownEvents = async (radicale: Radicale, collection: string) =>
  (await radicale.eventNames(collection)).filter((n) => n.startsWith('holdfast-')).sort();

const expected = (ids: readonly string[]) => ids.map((id) => `holdfast-${id}.ics`).sort();

describe('CalDAV sync in serve', () => {
  it('two instances on PostgreSQL write each confirmed booking once, and take the collection’s events as busy time', async () => {
    const radicale = await startRadicale();
    const backend = await startBackend('postgres', { serverArgs: ['--allow-private-feeds'] });
    try {
      await radicale.makeCalendar('team');
      await radicale.putEvent(
        'team',
        'offsite.ics',
        eventIcs(
          'offsite@caldav.test',
          futureHour(6).replace(/[-:]|\.\d+/g, ''),
          futureHour(6, 2).replace(/[-:]|\.\d+/g, ''),
          'Offsite',
        ),
      );
      const agent = await connectHttp(backend.urls()[0]!, 'modern');
      const studio = await createOpenCalendar(agent, 'Studio');
      const ids = [
        await confirmHour(agent, studio, 3),
        await confirmHour(agent, studio, 4),
        await confirmHour(agent, studio, 5),
      ];
      let inFlight = 0;
      let mostInFlight = 0;
      radicale.onRequest(() => {
        inFlight += 1;
        mostInFlight = Math.max(mostInFlight, inFlight);
        setTimeout(() => (inFlight -= 1), 50);
      });
      const connection = await connect(backend, radicale, studio, 'team');
      await until('the three events', async () =>
        (await ownEvents(radicale, 'team')).length === 3 ? true : null,
      );
      expect(await ownEvents(radicale, 'team')).toEqual(expected(ids));
      // A second round of syncs (every 15 s) changes nothing: still one write per booking.
      const lastOk = async () =>
        Number(
          (
            (
              await backend.sql('SELECT last_ok_at FROM caldav_connections WHERE id = $1', [connection])
            )[0] as {
              last_ok_at: string;
            }
          ).last_ok_at,
        );
      const first = await lastOk();
      await until('a second sync', async () => ((await lastOk()) > first ? true : null));
      const puts = [...radicale.counts].filter(([k]) => k.startsWith('PUT '));
      expect(puts.map(([k]) => k.split('/').pop()).sort()).toEqual(expected(ids));
      expect(puts.every(([, n]) => n === 1)).toBe(true);
      const logs = backend.servers.map((s) => s.logs.join(''));
      const written = logs.map((l) =>
        [...l.matchAll(/"written":(\d+)/g)].reduce((n, m) => n + Number(m[1]), 0),
      );
      expect(written[0]! + written[1]!).toBe(3);
      // The offsite, two hours on day 6, is busy on both instances.
      for (const url of backend.urls()) {
        const other = await connectHttp(url, 'modern');
        const refused = await other.callTool({
          name: 'hold_slot',
          arguments: {
            calendarIds: [studio],
            start: futureHour(6),
            end: futureHour(6, 1),
            idempotencyKey: randomUUID(),
          },
        });
        expect(JSON.stringify(refused.structuredContent)).toContain('SLOT_UNAVAILABLE');
        await other.close();
      }
      expect(mostInFlight).toBeGreaterThan(0);
      await agent.close();
    } finally {
      await backend.stop();
      await radicale.stop();
    }
  }, 120_000);

  it('an instance killed with -9 while writing leaves no half-done sync: the restarted one finishes it, one event per booking', async () => {
    const radicale = await startRadicale();
    const clockDir = mkdtempSync(join(tmpdir(), 'holdfast-clock-'));
    const clock = join(clockDir, 'offset');
    writeFileSync(clock, '0');
    const backend = await startBackend('sqlite', {
      serverArgs: ['--allow-private-feeds'],
      env: { HOLDFAST_DEV_CLOCK: clock },
    });
    try {
      await radicale.makeCalendar('desk');
      const agent = await connectHttp(backend.urls()[0]!, 'modern');
      const desk = await createOpenCalendar(agent, 'Desk');
      const ids = [
        await confirmHour(agent, desk, 3),
        await confirmHour(agent, desk, 4),
        await confirmHour(agent, desk, 5),
      ];
      await agent.close();
      // The first write reaches Radicale, but its answer never comes back: the server is killed then.
      const firstPut = new Promise<void>((resolve) =>
        radicale.onRequest((method) => {
          if (method !== 'PUT') return;
          radicale.setMode('swallow');
          resolve();
        }),
      );
      await connect(backend, radicale, desk, 'desk');
      await firstPut;
      await until('the swallowed write to land', async () =>
        (await ownEvents(radicale, 'desk')).length === 1 ? true : null,
      );
      radicale.onRequest(null);
      // Past the dead instance's lease (3 minutes) on the next one's clock.
      writeFileSync(clock, String(4 * 60_000));
      await backend.crashAndRestart(0);
      radicale.setMode('pass');
      await until('the three events', async () =>
        (await ownEvents(radicale, 'desk')).length === 3 ? true : null,
      );
      expect(await ownEvents(radicale, 'desk')).toEqual(expected(ids));
      const rows = (await backend.sql('SELECT booking_id FROM caldav_pushed ORDER BY booking_id')) as {
        booking_id: string;
      }[];
      expect(rows.map((r) => r.booking_id)).toEqual([...ids].sort());
      const listed = await runCli(['caldav', 'list', '--json', ...backend.databaseArgs]);
      expect(JSON.parse(listed.stdout)[0]).toMatchObject({ lastError: null });
    } finally {
      await backend.stop();
      await radicale.stop();
      rmSync(clockDir, { recursive: true, force: true });
    }
  }, 120_000);
});
