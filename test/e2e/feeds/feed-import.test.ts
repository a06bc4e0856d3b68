import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { icsBusyReader } from '../../../src/adapters/feeds/index.js';
import { refreshSubscription, subscribe } from '../../../src/app/feeds/subscriptions.js';
import { feedOrigin, feedsServer } from '../../support/feeds-harness.js';
import { NEW_YORK_VTIMEZONE } from '../../support/ics.js';
import { call, ok } from '../../support/mcp-clients.js';

// A weekly meeting in America/New_York across the 2030 DST change (Sunday 10 March), one date
// excluded (EXDATE), one moved (RECURRENCE-ID), an all-day event, a free and a cancelled event:
// exactly the right instants become busy, find_slots leaves them out and hold_slot is refused.

const ICS = `BEGIN:VCALENDAR
VERSION:2.0
PRODID:-//feeds test//EN
${NEW_YORK_VTIMEZONE}
BEGIN:VEVENT
UID:weekly@feeds.test
DTSTAMP:20300101T000000Z
DTSTART;TZID=America/New_York:20300301T100000
DTEND;TZID=America/New_York:20300301T110000
RRULE:FREQ=WEEKLY;COUNT=6
EXDATE;TZID=America/New_York:20300315T100000
SUMMARY:Weekly sync
END:VEVENT
BEGIN:VEVENT
UID:weekly@feeds.test
DTSTAMP:20300101T000000Z
RECURRENCE-ID;TZID=America/New_York:20300322T100000
DTSTART;TZID=America/New_York:20300322T140000
DTEND;TZID=America/New_York:20300322T153000
SUMMARY:Weekly sync (moved)
END:VEVENT
BEGIN:VEVENT
UID:holiday@feeds.test
DTSTAMP:20300101T000000Z
DTSTART;VALUE=DATE:20300310
DTEND;VALUE=DATE:20300311
SUMMARY:Day off
END:VEVENT
BEGIN:VEVENT
UID:free@feeds.test
DTSTAMP:20300101T000000Z
DTSTART:20300304T120000Z
DTEND:20300304T130000Z
TRANSP:TRANSPARENT
SUMMARY:Focus (free)
END:VEVENT
BEGIN:VEVENT
UID:cancelled@feeds.test
DTSTAMP:20300101T000000Z
DTSTART:20300305T120000Z
DTEND:20300305T130000Z
STATUS:CANCELLED
SUMMARY:Called off
END:VEVENT
END:VCALENDAR
`;

const NOW = Date.parse('2030-02-25T00:00:00Z');
const iso = (t: string) => Date.parse(t);
/** Every busy instant, by hand: 10:00 New York is 15:00Z before the change and 14:00Z after. */
const EXPECTED = [
  { start: iso('2030-03-01T15:00:00Z'), end: iso('2030-03-01T16:00:00Z') },
  { start: iso('2030-03-08T15:00:00Z'), end: iso('2030-03-08T16:00:00Z') },
  // The day off: New York midnight to midnight, a 23-hour day.
  { start: iso('2030-03-10T05:00:00Z'), end: iso('2030-03-11T04:00:00Z') },
  // 15 March excluded; 22 March moved to 14:00-15:30 EDT.
  { start: iso('2030-03-22T18:00:00Z'), end: iso('2030-03-22T19:30:00Z') },
  { start: iso('2030-03-29T14:00:00Z'), end: iso('2030-03-29T15:00:00Z') },
  { start: iso('2030-04-05T14:00:00Z'), end: iso('2030-04-05T15:00:00Z') },
];

let h: Awaited<ReturnType<typeof feedsServer>>;
let origin: Awaited<ReturnType<typeof feedOrigin>>;
let calendarId: string;

beforeAll(async () => {
  h = await feedsServer(NOW);
  origin = await feedOrigin((_req, res) => {
    res.writeHead(200, { 'content-type': 'text/calendar' });
    res.end(ICS);
  });
  // The all-day event takes its zone from the calendar; the timed ones name theirs.
  calendarId = await h.calendar('Advisor', 'America/New_York');
  const reader = icsBusyReader({ allowPrivate: true });
  const subscription = await subscribe(h.deps, reader, h.tenantId, calendarId, `${origin.url}/busy.ics`);
  const outcome = await refreshSubscription(h.deps, reader, 'test', h.tenantId, subscription.id);
  expect(outcome).toEqual({ id: subscription.id, ok: true, busy: EXPECTED.length });
});
afterAll(async () => {
  await origin?.close();
  await h?.close();
});

const hold = (start: number, end: number) =>
  call(h.client, 'hold_slot', {
    calendarIds: [calendarId],
    start: new Date(start).toISOString(),
    end: new Date(end).toISOString(),
    idempotencyKey: randomUUID(),
  });

describe('external busy time from an .ics with recurrences across DST', () => {
  it('stores exactly the expanded busy instants', async () => {
    const busy = await h.deps.store.read((tx) =>
      tx.bookings.busyIntervals(
        h.tenantId,
        [calendarId],
        { start: NOW, end: iso('2030-05-01T00:00:00Z') },
        NOW,
      ),
    );
    const stored = (busy.get(calendarId) ?? []).map(({ start, end, lane }) => {
      expect(lane).toBeNull(); // external busy time takes every seat lane
      return { start, end };
    });
    expect(stored.sort((a, b) => a.start - b.start)).toEqual(EXPECTED);
  });

  it('find_slots leaves out exactly the busy hours', async () => {
    const data = await ok<{ slots: { start: string }[] }>(h.client, 'find_slots', {
      calendarIds: [calendarId],
      from: '2030-03-01T00:00:00Z',
      to: '2030-04-06T00:00:00Z',
      durationMinutes: 60,
      stepMinutes: 60,
      limit: 100,
    });
    // Page through every hourly start and compare with the hours the expected busy time leaves free.
    const starts = new Set<number>();
    let cursor: string | undefined;
    let page = data;
    for (;;) {
      for (const s of page.slots) starts.add(Date.parse(s.start));
      cursor = (page as { nextCursor?: string | null }).nextCursor ?? undefined;
      if (!cursor) break;
      page = await ok(h.client, 'find_slots', {
        calendarIds: [calendarId],
        from: '2030-03-01T00:00:00Z',
        to: '2030-04-06T00:00:00Z',
        durationMinutes: 60,
        stepMinutes: 60,
        limit: 100,
        cursor,
      });
    }
    const expected: number[] = [];
    for (let t = iso('2030-03-01T00:00:00Z'); t + 3_600_000 <= iso('2030-04-06T00:00:00Z'); t += 3_600_000)
      if (!EXPECTED.some((b) => b.start < t + 3_600_000 && t < b.end)) expected.push(t);
    // Hour starts on New York's wall clock: after the change they fall on the same UTC hours.
    expect([...starts].sort((a, b) => a - b)).toEqual(expected);
  });

  it('hold_slot is refused over busy time and allowed where the series was excluded or moved away', async () => {
    const refused = [
      [iso('2030-03-29T14:00:00Z'), iso('2030-03-29T15:00:00Z')], // 10:00 EDT, after the change
      [iso('2030-03-08T15:30:00Z'), iso('2030-03-08T16:30:00Z')], // overlapping 10:00 EST
      [iso('2030-03-22T18:00:00Z'), iso('2030-03-22T18:30:00Z')], // the moved occurrence
      [iso('2030-03-11T03:00:00Z'), iso('2030-03-11T04:00:00Z')], // 23:00 EDT on the day off
    ];
    for (const [start, end] of refused) {
      const answer = await hold(start!, end!);
      expect(answer.ok, new Date(start!).toISOString()).toBe(false);
      expect(answer.error?.code).toBe('SLOT_UNAVAILABLE');
    }
    const allowed = [
      [iso('2030-03-15T15:00:00Z'), iso('2030-03-15T16:00:00Z')], // EXDATE
      [iso('2030-03-22T14:00:00Z'), iso('2030-03-22T15:00:00Z')], // where 22 March used to be
      [iso('2030-03-29T15:00:00Z'), iso('2030-03-29T16:00:00Z')], // 15:00Z is free after the change
      [iso('2030-03-04T12:00:00Z'), iso('2030-03-04T13:00:00Z')], // TRANSP:TRANSPARENT
      [iso('2030-03-05T12:00:00Z'), iso('2030-03-05T13:00:00Z')], // STATUS:CANCELLED
      [iso('2030-03-11T04:00:00Z'), iso('2030-03-11T05:00:00Z')], // midnight EDT after the day off
    ];
    for (const [start, end] of allowed) {
      const answer = await hold(start!, end!);
      expect(answer.ok, `${new Date(start!).toISOString()}: ${JSON.stringify(answer.error)}`).toBe(true);
    }
  });
});
