import { randomUUID } from 'node:crypto';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectCaldav, listCaldav } from '../../../src/app/calendar-sync/caldav-connections.js';
import { syncCaldavNow } from '../../../src/app/calendar-sync/caldav-sync.js';
import { DomainError } from '../../../src/domain/errors.js';
import type { CaldavKit } from '../../../src/ports/caldav.js';
import { feedsServer } from '../../support/feeds-harness.js';
import { NEW_YORK_VTIMEZONE } from '../../support/ics.js';
import { call, ok } from '../../support/mcp-clients.js';
import type { Radicale } from '../../support/radicale.js';
import {
  eventIcs,
  RADICALE_PASSWORD,
  RADICALE_USER,
  startRadicale,
  testCaldavKit,
} from '../../support/radicale.js';

// Two-way sync with a real CalDAV server (Radicale) through the official client, on SQLite, the
// clock in the test's hand: recurring events across DST become exact busy time; later syncs bring
// only what changed (sync-collection); an event edited or deleted on the person's phone moves or
// frees the time; confirmed bookings are written there, moved and removed with them, with no
// contact details unless the owner shares them; an event added over a booking is an overlap;
// a server that is down, answers garbage or never answers fails the sync, keeps the last good
// busy time, and never holds up a hold.

/** A weekly meeting at 10:00 New York across the 2030 change (10 March), one date excluded, one moved. */
const WEEKLY = `BEGIN:VCALENDAR
VERSION:2.0
PRODID:-//caldav test//EN
${NEW_YORK_VTIMEZONE}
BEGIN:VEVENT
UID:weekly@caldav.test
DTSTAMP:20300101T000000Z
DTSTART;TZID=America/New_York:20300301T100000
DTEND;TZID=America/New_York:20300301T110000
RRULE:FREQ=WEEKLY;COUNT=6
EXDATE;TZID=America/New_York:20300315T100000
SUMMARY:Weekly sync
END:VEVENT
BEGIN:VEVENT
UID:weekly@caldav.test
DTSTAMP:20300101T000000Z
RECURRENCE-ID;TZID=America/New_York:20300322T100000
DTSTART;TZID=America/New_York:20300322T140000
DTEND;TZID=America/New_York:20300322T153000
SUMMARY:Weekly sync (moved)
END:VEVENT
END:VCALENDAR
`.replace(/\n/g, '\r\n');

const NOW = Date.parse('2030-02-25T00:00:00Z');
const iso = (t: string) => Date.parse(t);
/** 10:00 New York is 15:00Z before the change and 14:00Z after; 15 March excluded; 22 March moved to 14:00 EDT. */
const WEEKLY_BUSY = [
  [iso('2030-03-01T15:00:00Z'), iso('2030-03-01T16:00:00Z')],
  [iso('2030-03-08T15:00:00Z'), iso('2030-03-08T16:00:00Z')],
  [iso('2030-03-22T18:00:00Z'), iso('2030-03-22T19:30:00Z')],
  [iso('2030-03-29T14:00:00Z'), iso('2030-03-29T15:00:00Z')],
  [iso('2030-04-05T14:00:00Z'), iso('2030-04-05T15:00:00Z')],
];
const DENTIST = [iso('2030-03-04T17:00:00Z'), iso('2030-03-04T18:00:00Z')];

let h: Awaited<ReturnType<typeof feedsServer>>;
let radicale: Radicale;
let kit: CaldavKit;
let calendarId: string;
let connectionId: string;

const busyRows = (sourceId: string) => {
  const db = new Database(h.db.path, { readonly: true });
  try {
    return db
      .prepare('SELECT start_at, end_at FROM external_busy WHERE subscription_id = ? ORDER BY start_at')
      .all(sourceId)
      .map((r) => {
        const row = r as { start_at: number; end_at: number };
        return [row.start_at, row.end_at];
      });
  } finally {
    db.close();
  }
};

const sync = async (id = connectionId) => {
  const outcome = await syncCaldavNow(h.deps, kit, 'test', h.tenantId, id);
  return outcome;
};
const synced = async (id = connectionId) => {
  const outcome = await sync(id);
  if (!outcome.ok) throw new Error(`sync failed: ${outcome.error}`);
  return outcome;
};

const hold = (start: number, end: number, customer?: object) =>
  call(h.client, 'hold_slot', {
    calendarIds: [calendarId],
    start: new Date(start).toISOString(),
    end: new Date(end).toISOString(),
    idempotencyKey: randomUUID(),
    ...(customer ? { customer } : {}),
  });

async function confirmed(start: number, end: number, customer?: object) {
  const held = await hold(start, end, customer);
  expect(held.error).toBeUndefined();
  const booking = (held.data as { booking: { id: string; version: number; reference: string } }).booking;
  const done = await ok<{ booking: { id: string; version: number; reference: string; status: string } }>(
    h.client,
    'confirm_booking',
    { bookingId: booking.id, expectedVersion: booking.version, idempotencyKey: randomUUID() },
  );
  expect(done.booking.status).toBe('CONFIRMED');
  return done.booking;
}

const own = async (collection = 'work') =>
  (await radicale.eventNames(collection)).filter((name) => name.startsWith('holdfast-'));

beforeAll(async () => {
  radicale = await startRadicale();
  await radicale.makeCalendar('work');
  await radicale.makeCalendar('shared');
  await radicale.putEvent('work', 'weekly.ics', WEEKLY);
  await radicale.putEvent(
    'work',
    'dentist.ics',
    eventIcs('dentist@caldav.test', '20300304T170000Z', '20300304T180000Z', 'Dentist'),
  );
  await radicale.putEvent(
    'work',
    'free.ics',
    eventIcs('free@caldav.test', '20300305T170000Z', '20300305T180000Z', 'Focus', 'TRANSP:TRANSPARENT'),
  );
  h = await feedsServer(NOW);
  calendarId = await h.calendar('Advisor', 'America/New_York');
  kit = await testCaldavKit(h.runtime, 1500);
}, 60_000);
afterAll(async () => {
  await h?.close();
  await radicale?.stop();
});

describe('two-way CalDAV sync with Radicale', () => {
  it('refuses a wrong password and an address that is not a calendar, naming the url; stores the password sealed', async () => {
    const connect = (url: string, password: string) =>
      connectCaldav(h.deps, kit, h.tenantId, {
        calendarId,
        collectionUrl: url,
        username: RADICALE_USER,
        password,
        shareContact: false,
      });
    for (const [url, password, words] of [
      [radicale.collectionUrl('work'), 'wrong', /401/],
      [radicale.collectionUrl('work').replace('/work/', '/'), RADICALE_PASSWORD, /not a calendar/],
      ['ftp://example.com/cal/', RADICALE_PASSWORD, /http/],
    ] as const) {
      const refused = await connect(url, password).then(
        () => null,
        (e: unknown) => e,
      );
      expect(refused).toBeInstanceOf(DomainError);
      expect((refused as DomainError).code).toBe('INVALID_ARGUMENTS');
      expect((refused as DomainError).details).toEqual({ field: 'url' });
      expect((refused as DomainError).message).toMatch(words);
    }
    expect(await listCaldav(h.deps, h.tenantId)).toEqual([]);
    const connection = await connect(radicale.collectionUrl('work'), RADICALE_PASSWORD);
    connectionId = connection.id;
    expect(connection.displayName).toBe('work');
    const db = new Database(h.db.path, { readonly: true });
    try {
      const raw = JSON.stringify(db.prepare('SELECT * FROM caldav_connections').all());
      expect(raw).not.toContain(RADICALE_PASSWORD);
      expect(raw).toContain(RADICALE_USER);
    } finally {
      db.close();
    }
  });

  it('turns the events into exact busy time: a weekly series across DST, its exception and override; free time stays free', async () => {
    const outcome = await synced();
    expect(outcome).toMatchObject({ pulled: 3, removed: 0, written: 0, overlaps: 0, unreadable: 0 });
    expect(busyRows(connectionId)).toEqual(
      [...WEEKLY_BUSY.slice(0, 2), DENTIST, ...WEEKLY_BUSY.slice(2)].sort((a, b) => a[0]! - b[0]!),
    );
    // The engine refuses holds over it and takes the hour beside it.
    expect((await hold(iso('2030-03-29T14:00:00Z'), iso('2030-03-29T15:00:00Z'))).error?.code).toBe(
      'SLOT_UNAVAILABLE',
    );
    expect((await hold(iso('2030-03-15T15:00:00Z'), iso('2030-03-15T16:00:00Z'))).error).toBeUndefined();
  });

  it('later syncs bring only what changed; an event moved or deleted on the phone moves or frees the time', async () => {
    const reportsBefore = [...radicale.counts]
      .filter(([k]) => k.startsWith('REPORT'))
      .reduce((n, [, c]) => n + c, 0);
    expect(await synced()).toMatchObject({ pulled: 0, removed: 0 });
    const reports = [...radicale.counts]
      .filter(([k]) => k.startsWith('REPORT'))
      .reduce((n, [, c]) => n + c, 0);
    // One sync-collection REPORT, and no download.
    expect(reports - reportsBefore).toBe(1);

    await radicale.putEvent(
      'work',
      'dentist.ics',
      eventIcs('dentist@caldav.test', '20300306T170000Z', '20300306T180000Z', 'Dentist (moved)'),
    );
    expect(await synced()).toMatchObject({ pulled: 1, removed: 0 });
    const rows = busyRows(connectionId);
    expect(rows).toContainEqual([iso('2030-03-06T17:00:00Z'), iso('2030-03-06T18:00:00Z')]);
    expect(rows).not.toContainEqual(DENTIST);

    await radicale.deleteEvent('work', 'dentist.ics');
    expect(await synced()).toMatchObject({ pulled: 0, removed: 1 });
    expect(busyRows(connectionId)).toEqual(WEEKLY_BUSY);
  });

  it('writes a confirmed booking as an event (no contact details), moves it with the booking, removes it when cancelled', async () => {
    const booking = await confirmed(iso('2030-03-12T15:00:00Z'), iso('2030-03-12T16:00:00Z'), {
      name: 'Grace Hopper',
      email: 'grace@example.com',
      phone: '+1 555 0100',
    });
    expect(await synced()).toMatchObject({ written: 1, pulled: 0 });
    const name = `holdfast-${booking.id}.ics`;
    expect(await own()).toEqual([name]);
    const event = (await radicale.getEvent('work', name))!;
    expect(event).toContain('DTSTART:20300312T150000Z');
    expect(event).toContain(booking.reference);
    expect(event).not.toMatch(/grace|Hopper|555/i);
    // Its own event is not read back as busy time.
    expect(busyRows(connectionId)).toEqual(WEEKLY_BUSY);
    expect(await synced()).toMatchObject({ written: 0, pulled: 0 });

    const { booking: move } = await ok<{ booking: { id: string; version: number } }>(
      h.client,
      'reschedule_booking',
      {
        bookingId: booking.id,
        start: '2030-03-13T15:00:00Z',
        end: '2030-03-13T16:00:00Z',
        idempotencyKey: randomUUID(),
      },
    );
    await ok(h.client, 'confirm_booking', {
      bookingId: move.id,
      expectedVersion: move.version,
      idempotencyKey: randomUUID(),
    });
    expect(await synced()).toMatchObject({ written: 1, deleted: 0 });
    // The same event (its name and UID), at the new time.
    expect(await own()).toEqual([name]);
    const moved = (await radicale.getEvent('work', name))!;
    expect(moved).toContain('DTSTART:20300313T150000Z');
    expect(moved.match(/^UID:.*$/m)![0]).toBe(event.match(/^UID:.*$/m)![0]);

    const current = await ok<{ booking: { version: number } }>(h.client, 'get_booking', {
      bookingId: move.id,
    });
    await ok(h.client, 'cancel_booking', {
      bookingId: move.id,
      expectedVersion: current.booking.version,
      idempotencyKey: randomUUID(),
    });
    expect(await synced()).toMatchObject({ written: 0, deleted: 1 });
    expect(await own()).toEqual([]);
  });

  it('puts back its event when deleted on the phone, and writes over it when edited there', async () => {
    const booking = await confirmed(iso('2030-03-19T15:00:00Z'), iso('2030-03-19T16:00:00Z'));
    await synced();
    const name = `holdfast-${booking.id}.ics`;
    await radicale.deleteEvent('work', name);
    expect(await synced()).toMatchObject({ written: 1 });
    expect(await own()).toContain(name);
    // Edited on the phone: same event (UID), another time.
    const mine = (await radicale.getEvent('work', name))!
      .replace('DTSTART:20300319T150000Z', 'DTSTART:20300319T200000Z')
      .replace('DTEND:20300319T160000Z', 'DTEND:20300319T210000Z');
    await radicale.putEvent('work', name, mine);
    expect(await radicale.getEvent('work', name)).toContain('DTSTART:20300319T200000Z');
    expect(await synced()).toMatchObject({ written: 1 });
    expect(await radicale.getEvent('work', name)).toContain('DTSTART:20300319T150000Z');
  });

  it('reports an event added over a confirmed booking as an overlap, to the agent and in the list', async () => {
    const booking = await confirmed(iso('2030-03-20T15:00:00Z'), iso('2030-03-20T16:00:00Z'));
    await radicale.putEvent(
      'work',
      'lunch.ics',
      eventIcs('lunch@caldav.test', '20300320T153000Z', '20300320T163000Z', 'Lunch with Bob'),
    );
    expect(await synced()).toMatchObject({ pulled: 1, overlaps: 1 });
    const seen = await ok<{ booking: { calendarOverlaps?: { start: string; end: string }[] } }>(
      h.client,
      'get_booking',
      {
        bookingId: booking.id,
      },
    );
    expect(seen.booking.calendarOverlaps).toEqual([
      { start: '2030-03-20T15:30:00Z', end: '2030-03-20T16:30:00Z' },
    ]);
    expect((await listCaldav(h.deps, h.tenantId)).find((c) => c.id === connectionId)).toMatchObject({
      overlaps: 1,
      lastError: null,
    });
    await radicale.deleteEvent('work', 'lunch.ics');
    expect(await synced()).toMatchObject({ removed: 1, overlaps: 0 });
    const after = await ok<{ booking: { calendarOverlaps?: unknown } }>(h.client, 'get_booking', {
      bookingId: booking.id,
    });
    expect(after.booking.calendarOverlaps).toBeUndefined();
  });

  it('another calendar’s Holdfast event in the same collection is busy time here; a collection whose name needs encoding keeps one event per booking', async () => {
    // Another Holdfast (or another calendar of this one) wrote a booking into the person's calendar.
    await radicale.putEvent(
      'work',
      'holdfast-bk_elsewhere01.ics',
      eventIcs('elsewhere@other.holdfast', '20300327T150000Z', '20300327T160000Z', 'Booked elsewhere'),
    );
    await synced();
    expect(busyRows(connectionId)).toContainEqual([iso('2030-03-27T15:00:00Z'), iso('2030-03-27T16:00:00Z')]);
    await radicale.deleteEvent('work', 'holdfast-bk_elsewhere01.ics');
    await synced();

    await radicale.makeCalendar('front desk');
    const spaced = await connectCaldav(h.deps, kit, h.tenantId, {
      calendarId,
      collectionUrl: radicale.collectionUrl('front%20desk'),
      username: RADICALE_USER,
      password: RADICALE_PASSWORD,
      shareContact: false,
    });
    const booking = await confirmed(iso('2030-03-28T15:00:00Z'), iso('2030-03-28T16:00:00Z'));
    const first = await synced(spaced.id);
    expect(first.written).toBe((await own('front desk')).length);
    expect(await own('front desk')).toContain(`holdfast-${booking.id}.ics`);
    const name = `holdfast-${booking.id}.ics`;
    // Its own events are recognised under the encoded address: nothing written again, nothing busy.
    expect(await synced(spaced.id)).toMatchObject({ written: 0, busy: 0 });
    await radicale.deleteEvent('front desk', name);
    expect(await synced(spaced.id)).toMatchObject({ written: 1 });
    expect((await own('front desk')).filter((n) => n === name)).toEqual([name]);
  });

  it('with the owner’s consent, the events carry the customer’s name, e-mail and phone', async () => {
    const shared = await connectCaldav(h.deps, kit, h.tenantId, {
      calendarId,
      collectionUrl: radicale.collectionUrl('shared'),
      username: RADICALE_USER,
      password: RADICALE_PASSWORD,
      shareContact: true,
    });
    const booking = await confirmed(iso('2030-03-21T15:00:00Z'), iso('2030-03-21T16:00:00Z'), {
      name: 'Ada Lovelace',
      email: 'ada@example.com',
    });
    await synced(shared.id);
    const event = (await radicale.getEvent('shared', `holdfast-${booking.id}.ics`))!;
    expect(event).toContain('Ada Lovelace');
    expect(event).toContain('ada@example.com');
  });

  it('a server down, answering garbage or never answering fails the sync, keeps the busy time, and holds go on meanwhile', async () => {
    const before = busyRows(connectionId);
    for (const [mode, words] of [
      ['down', /unreachable|not CalDAV/],
      ['garbage', /not CalDAV|sync token/],
    ] as const) {
      radicale.setMode(mode);
      const outcome = await sync();
      expect(outcome.ok).toBe(false);
      expect(outcome.ok ? '' : outcome.error).toMatch(words);
      expect(busyRows(connectionId)).toEqual(before);
      expect((await listCaldav(h.deps, h.tenantId)).find((c) => c.id === connectionId)!.lastError).toMatch(
        words,
      );
    }
    radicale.setMode('stall');
    const started = Date.now();
    const slow = sync();
    // A hold on the very calendar is answered while the sync waits on the server.
    const held = await hold(iso('2030-03-26T15:00:00Z'), iso('2030-03-26T16:00:00Z'));
    expect(held.error).toBeUndefined();
    const heldAfter = Date.now() - started;
    const outcome = await slow;
    expect(outcome.ok ? '' : outcome.error).toMatch(/no complete answer within 1.5 s/);
    expect(heldAfter).toBeLessThan(Date.now() - started);
    expect(busyRows(connectionId)).toEqual(before);
    radicale.setMode('pass');
    expect((await synced()).ok).toBe(true);
    expect((await listCaldav(h.deps, h.tenantId)).find((c) => c.id === connectionId)!.lastError).toBeNull();
  });
});
