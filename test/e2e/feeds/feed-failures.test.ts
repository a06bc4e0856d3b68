import type { ServerResponse } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { icsBusyReader } from '../../../src/adapters/feeds/index.js';
import type { RefreshOutcome } from '../../../src/app/feeds/subscriptions.js';
import { listSubscriptions, refreshSubscription, subscribe } from '../../../src/app/feeds/subscriptions.js';
import { feedOrigin, feedsServer } from '../../support/feeds-harness.js';

// Every way a feed can go wrong fails safely: the last good busy time stays, the error and its
// time are recorded on the subscription, and nothing throws out of the refresh.

const NOW = Date.parse('2030-02-25T00:00:00Z');
const GOOD = `BEGIN:VCALENDAR
VERSION:2.0
PRODID:-//feeds test//EN
BEGIN:VEVENT
UID:one@feeds.test
DTSTAMP:20300101T000000Z
DTSTART:20300301T150000Z
DTEND:20300301T160000Z
END:VEVENT
END:VCALENDAR
`;
const CAP = 256 * 1024;

type Mode = 'good' | 'huge' | 'slow' | 'garbage' | 'reset' | 'error' | 'redirect-loop';
let mode: Mode = 'good';
const stalled: ServerResponse[] = [];
let h: Awaited<ReturnType<typeof feedsServer>>;
let origin: Awaited<ReturnType<typeof feedOrigin>>;
let calendarId: string;
let subscriptionId: string;
// Small limits so each failure happens at once: the cap and the timeout are the reader's options.
const reader = icsBusyReader({ allowPrivate: true, maxBytes: CAP, timeoutMs: 400 });

beforeAll(async () => {
  h = await feedsServer(NOW);
  origin = await feedOrigin((req, res) => {
    if (mode === 'good') return void res.end(GOOD);
    if (mode === 'garbage') return void res.end('<html>not a calendar</html>');
    if (mode === 'error') return void res.writeHead(503).end();
    if (mode === 'reset') return void req.socket.destroy();
    if (mode === 'redirect-loop') return void res.writeHead(302, { location: '/again' }).end();
    if (mode === 'slow') return void stalled.push(res); // headers never come
    // huge: streams past the cap with no length announced, and would go on for ever.
    res.writeHead(200, { 'content-type': 'text/calendar' });
    const chunk = Buffer.alloc(64 * 1024, 'X');
    const pump = () => {
      while (res.write(chunk)) if (res.destroyed) return;
      res.once('drain', pump);
    };
    res.on('error', () => undefined);
    pump();
  });
  calendarId = await h.calendar('Desk', 'UTC');
  const subscription = await subscribe(h.deps, reader, h.tenantId, calendarId, `${origin.url}/busy.ics`);
  subscriptionId = subscription.id;
  expect(await refresh()).toMatchObject({ ok: true, busy: 1 });
});
afterAll(async () => {
  for (const res of stalled) res.destroy();
  await origin?.close();
  await h?.close();
});

const refresh = (using = reader): Promise<RefreshOutcome> =>
  refreshSubscription(h.deps, using, 'test', h.tenantId, subscriptionId);

async function storedBusy() {
  const busy = await h.deps.store.read((tx) =>
    tx.bookings.busyIntervals(h.tenantId, [calendarId], { start: NOW, end: NOW + 30 * 86_400_000 }, NOW),
  );
  // External busy time takes every seat lane (lane: null); the instants are what is compared.
  return (busy.get(calendarId) ?? []).map(({ start, end }) => ({ start, end }));
}

const cases: [Mode, RegExp][] = [
  ['huge', /larger than 262144 bytes/],
  ['slow', /no complete answer within 0.4 s/],
  ['garbage', /not an iCalendar file/],
  ['reset', /unreachable/],
  ['error', /HTTP 503/],
  ['redirect-loop', /more than 3 redirects/],
];

describe('a feed that fails', () => {
  it.each(cases)('%s: keeps the last good busy time and records the error', async (failing, message) => {
    const before = await storedBusy();
    expect(before).toEqual([
      { start: Date.parse('2030-03-01T15:00:00Z'), end: Date.parse('2030-03-01T16:00:00Z') },
    ]);
    h.clock.advance(60_000);
    mode = failing;
    const outcome = await refresh();
    mode = 'good';
    expect(outcome.ok).toBe(false);
    expect(outcome.ok ? '' : outcome.error).toMatch(message);
    expect(await storedBusy()).toEqual(before);
    const [shown] = await listSubscriptions(h.deps, h.tenantId);
    expect(shown?.lastError).toMatch(message);
    expect(shown?.lastErrorAt).toBe(h.clock.now());
    expect(shown?.busyCount).toBe(1);
    expect(shown?.lastOkAt).toBe(NOW);
  });

  it('an unreachable address: reported, nothing stored, nothing thrown', async () => {
    const closed = await feedOrigin(() => undefined);
    await closed.close();
    const other = await subscribe(h.deps, reader, h.tenantId, calendarId, `${closed.url}/gone.ics`);
    const outcome = await refreshSubscription(h.deps, reader, 'test', h.tenantId, other.id);
    expect(outcome).toMatchObject({
      ok: false,
      error: expect.stringMatching(/unreachable \(ECONNREFUSED\)/),
    });
    const shown = (await listSubscriptions(h.deps, h.tenantId)).find((s) => s.id === other.id);
    expect(shown).toMatchObject({
      busyCount: 0,
      lastOkAt: null,
      lastError: expect.stringMatching(/unreachable/),
    });
  });

  it('a private address without --allow-private-feeds: refused at subscribe and at refresh, busy time kept', async () => {
    const guarded = icsBusyReader({ maxBytes: CAP, timeoutMs: 400 });
    expect(guarded.check(`${origin.url}/busy.ics`)).toMatch(/only https/);
    expect(guarded.check(`https://127.0.0.1:${origin.port}/busy.ics`)).toMatch(/private, loopback/);
    expect(guarded.check('https://[::1]/busy.ics')).toMatch(/private, loopback/);
    expect(guarded.check('https://169.254.169.254/latest/meta-data')).toMatch(/private, loopback/);
    expect(guarded.check('https://10.0.0.8/busy.ics')).toMatch(/private, loopback/);
    await expect(
      subscribe(h.deps, guarded, h.tenantId, calendarId, `https://192.168.1.10/busy.ics`),
    ).rejects.toMatchObject({ code: 'INVALID_ARGUMENTS' });
    // A subscription made while the flag was on, refreshed by a server started without it.
    h.clock.advance(60_000);
    const outcome = await refresh(guarded);
    expect(outcome).toMatchObject({ ok: false, error: expect.stringMatching(/only https/) });
    expect(await storedBusy()).toHaveLength(1);
  });

  it('a good refresh afterwards clears the error', async () => {
    h.clock.advance(60_000);
    expect(await refresh()).toMatchObject({ ok: true, busy: 1 });
    const [shown] = await listSubscriptions(h.deps, h.tenantId);
    expect(shown).toMatchObject({ lastError: null, lastErrorAt: null, lastOkAt: h.clock.now() });
  });
});
