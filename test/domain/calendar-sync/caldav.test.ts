import { describe, expect, it } from 'vitest';
import type { Booking } from '../../../src/domain/booking/booking.js';
import type { PushedEvent } from '../../../src/domain/calendar-sync/caldav.js';
import {
  bookingIdOfHref,
  decodedPath,
  overlapsOf,
  planPushes,
  sameEtag,
} from '../../../src/domain/calendar-sync/caldav.js';
import { heldBooking } from '../../support/booking-fixture.js';

const T = Date.parse('2030-03-01T09:00:00Z');
const confirmed = (id: string, fields: Partial<Booking> = {}) =>
  heldBooking(T, { id, status: 'CONFIRMED', expiresAt: null, version: 2, ...fields });
const pushed = (bookingId: string, version = 2): PushedEvent => ({
  bookingId,
  href: `/ana/work/holdfast-${bookingId}.ics`,
  version,
  etag: '"e1"',
  end: T + 7_200_000,
});

describe('what a sync writes to the collection', () => {
  it('creates events for new confirmed bookings and leaves written, unchanged ones alone', () => {
    const plan = planPushes([confirmed('bk_a'), confirmed('bk_b')], [pushed('bk_a')], new Map());
    expect(plan.create.map((b) => b.id)).toEqual(['bk_b']);
    expect(plan.update).toEqual([]);
    expect(plan.remove).toEqual([]);
  });

  it('rewrites a booking whose version moved on (changed, erased, or its event edited remotely)', () => {
    const plan = planPushes([confirmed('bk_a', { version: 3 })], [pushed('bk_a', 2)], new Map());
    expect(plan.update.map((u) => [u.booking.id, u.at.bookingId])).toEqual([['bk_a', 'bk_a']]);
  });

  it('a move takes over the event of the booking it replaced; nothing is removed', () => {
    const old = confirmed('bk_old', { status: 'CANCELLED' });
    const move = confirmed('bk_new', { replaces: 'bk_old' });
    const plan = planPushes([move], [pushed('bk_old')], new Map([['bk_old', old]]));
    expect(plan.create).toEqual([]);
    expect(plan.update.map((u) => [u.booking.id, u.at.href])).toEqual([
      ['bk_new', '/ana/work/holdfast-bk_old.ics'],
    ]);
    expect(plan.remove).toEqual([]);
  });

  it('removes the event of a cancelled booking, and of one that is gone; keeps one it could not look at', () => {
    const cancelled = confirmed('bk_c', { status: 'CANCELLED' });
    const plan = planPushes(
      [],
      [pushed('bk_c'), pushed('bk_gone'), pushed('bk_unknown')],
      new Map<string, Booking | null>([
        ['bk_c', cancelled],
        ['bk_gone', null],
      ]),
    );
    expect(plan.remove.map((p) => p.bookingId)).toEqual(['bk_c', 'bk_gone']);
  });
});

describe('events and addresses', () => {
  it('knows the events named after a booking, and only those', () => {
    expect(bookingIdOfHref('/ana/work/holdfast-bk_x1-Y.ics')).toBe('bk_x1-Y');
    expect(bookingIdOfHref('/ana/work/dentist.ics')).toBeNull();
    expect(bookingIdOfHref('/ana/work/holdfast-bk_x.ics.bak')).toBeNull();
    expect(bookingIdOfHref('/ana/work/not-holdfast-bk_x.ics')).toBeNull();
  });

  it('decodes an address once, and keeps one that cannot be decoded as it is', () => {
    expect(decodedPath('/ana/front%20desk/')).toBe('/ana/front desk/');
    expect(decodedPath('/ana/50%off.ics')).toBe('/ana/50%off.ics');
  });

  it('compares etags however a server quotes them', () => {
    expect(sameEtag('"abc"', 'abc')).toBe(true);
    expect(sameEtag('W/"abc"', '"abc"')).toBe(true);
    expect(sameEtag('"abc"', '"abd"')).toBe(false);
  });

  it('finds the events over confirmed bookings, not those beside them or over holds', () => {
    const booking = confirmed('bk_a');
    const held = heldBooking(T, { id: 'bk_h', start: T + 9 * 3_600_000, end: T + 10 * 3_600_000 });
    const event = (href: string, start: number, end: number) => ({
      href,
      summary: () => `title of ${href}`,
      pieces: [{ start, end }],
    });
    const found = overlapsOf(
      [booking, held],
      [
        event('/over.ics', booking.start + 1_800_000, booking.end + 1_800_000),
        event('/beside.ics', booking.end, booking.end + 3_600_000),
        event('/on-hold.ics', held.start, held.end),
      ],
      'cdv_1',
    );
    expect(found).toEqual([
      {
        bookingId: 'bk_a',
        connectionId: 'cdv_1',
        href: '/over.ics',
        summary: 'title of /over.ics',
        start: booking.start + 1_800_000,
        end: booking.end + 1_800_000,
      },
    ]);
  });
});
