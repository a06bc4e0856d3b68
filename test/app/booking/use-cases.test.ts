import { randomUUID } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { releaseHold } from '../../../src/app/booking/release-hold.js';
import { gatedBookingChange } from '../../../src/app/booking/gated-booking.js';
import { findSlots } from '../../../src/app/booking/find-slots.js';
import { holdSlot } from '../../../src/app/booking/hold-slot.js';
import { getBooking } from '../../../src/app/booking/read-bookings.js';
import { sweep } from '../../../src/app/booking/sweep.js';
import { setBookingRules } from '../../../src/app/calendars/calendars.js';
import { formatInstant } from '../../../src/domain/time/instant.js';
import { appHarness, operator } from '../../support/app-harness.js';
import { refusal } from '../../support/refusal.js';

// Monday 2030-01-07 08:00 UTC; Berlin is UTC+1 in January.
const T0 = Date.UTC(2030, 0, 7, 8);
const weekdays = (start: string, end: string) => {
  const w = [{ start, end }];
  return { weekly: { mon: w, tue: w, wed: w, thu: w, fri: w }, overrides: [] };
};

let h: Awaited<ReturnType<typeof appHarness>>;
let berlin: string;
beforeEach(async () => {
  h = await appHarness(T0);
  berlin = await h.calendar('Berlin desk', 'Europe/Berlin', weekdays('09:00', '17:00'));
});
afterEach(() => h.close());

const at = (iso: string) => iso;
const confirm = (input: { bookingId: string; expectedVersion: number; idempotencyKey: string }) =>
  gatedBookingChange(h.deps, operator, 'confirm_booking', input, { traceId: 'test' });
const holdAt = (start: string, end: string, key = randomUUID(), calendarIds = [berlin]) =>
  holdSlot(h.deps, operator, { calendarIds, start, end, idempotencyKey: key });

describe('hold_slot use case', () => {
  it('holds for the configured TTL and refuses time outside the calendar hours', async () => {
    const { value } = await holdAt('2030-01-07T09:00:00Z', '2030-01-07T10:00:00Z');
    expect(value.booking.expiresAt).toBe(T0 + 5 * 60_000);
    const early = await refusal(holdAt('2030-01-08T07:30:00Z', '2030-01-08T08:30:00Z'));
    expect(early.code).toBe('OUTSIDE_AVAILABILITY');
    const weekend = await refusal(holdAt('2030-01-12T09:00:00Z', '2030-01-12T10:00:00Z'));
    expect(weekend.code).toBe('OUTSIDE_AVAILABILITY');
    // Closed hours come with the nearest open times of the same length, in the calendar's zone.
    const offered = (early.details as { alternatives: { start: number; end: number; timeZone: string }[] })
      .alternatives;
    expect(offered.length).toBeGreaterThan(0);
    for (const alt of offered) {
      expect(alt.end - alt.start).toBe(3_600_000);
      expect(alt.timeZone).toBe('Europe/Berlin');
      const hour = new Date(alt.start).getUTCHours() + 1; // Berlin is UTC+1 in January
      expect(hour >= 9 && hour + 1 <= 17).toBe(true);
    }
    // The hour right after the refused early one opens at 09:00 Berlin (08:00 UTC) the same day.
    expect(offered.map((a) => a.start)).toContain(Date.parse('2030-01-08T08:00:00Z'));
  });

  it('a calendar with counter-offers off (offerAlternatives: false) refuses with no alternatives', async () => {
    await setBookingRules(h.deps, operator, {
      calendarId: berlin,
      rules: { offerAlternatives: false },
      idempotencyKey: randomUUID(),
    });
    const closed = await refusal(holdAt('2030-01-08T07:30:00Z', '2030-01-08T08:30:00Z'));
    expect(closed.code).toBe('OUTSIDE_AVAILABILITY');
    expect((closed.details as { alternatives: unknown[] }).alternatives).toEqual([]);
    await holdAt('2030-01-08T09:00:00Z', '2030-01-08T10:00:00Z');
    const taken = await refusal(holdAt('2030-01-08T09:00:00Z', '2030-01-08T10:00:00Z'));
    expect(taken.code).toBe('SLOT_UNAVAILABLE');
    expect(taken.details).toMatchObject({ calendarIds: [berlin], alternatives: [] });
    // Invalid values are refused naming the field.
    const bad = await refusal(
      setBookingRules(h.deps, operator, {
        calendarId: berlin,
        rules: { offerAlternatives: 'no' as unknown as boolean },
        idempotencyKey: randomUUID(),
      }),
    );
    expect(bad.details).toMatchObject({ field: 'offerAlternatives' });
  });

  it('a taken time says what takes it: a hold (and when it lapses: retry can succeed) or a booking (it cannot)', async () => {
    const { value } = await holdAt('2030-01-08T09:00:00Z', '2030-01-08T10:00:00Z');
    const held = await refusal(holdAt('2030-01-08T09:00:00Z', '2030-01-08T10:00:00Z'));
    expect(held.details).toMatchObject({
      takenBy: 'hold',
      holdLapsesAt: value.booking.expiresAt,
      retryCanSucceed: true,
    });
    const next = (held.details as { nextFree: { start: number } | null }).nextFree;
    expect(next!.start).toBeGreaterThanOrEqual(Date.parse('2030-01-08T10:00:00Z'));
    expect(held.message).toMatch(/held by another booking/);
    await confirm({ bookingId: value.booking.id, expectedVersion: 1, idempotencyKey: randomUUID() });
    const booked = await refusal(holdAt('2030-01-08T09:00:00Z', '2030-01-08T10:00:00Z'));
    expect(booked.details).toMatchObject({ takenBy: 'booking', retryCanSucceed: false });
    expect(booked.details).not.toHaveProperty('holdLapsesAt');
  });

  it('refuses the past, inverted ranges and unknown calendars', async () => {
    expect((await refusal(holdAt('2030-01-07T07:00:00Z', '2030-01-07T07:30:00Z'))).details.field).toBe(
      'start',
    );
    expect((await refusal(holdAt('2030-01-07T10:00:00Z', '2030-01-07T09:00:00Z'))).details.field).toBe('end');
    expect(
      (await refusal(holdAt('2030-01-07T09:00:00Z', '2030-01-07T10:00:00Z', randomUUID(), ['cal_nope'])))
        .code,
    ).toBe('NOT_FOUND');
  });

  it('offers the nearest free alternatives of the same length, none reserved', async () => {
    await holdAt('2030-01-07T10:00:00Z', '2030-01-07T11:00:00Z');
    const clash = await refusal(holdAt('2030-01-07T10:30:00Z', '2030-01-07T11:30:00Z'));
    expect(clash.code).toBe('SLOT_UNAVAILABLE');
    const alternatives = clash.details.alternatives as { start: number; end: number; reserved: boolean }[];
    expect(alternatives.map((a) => formatInstant(a.start))).toEqual([
      '2030-01-07T11:00:00Z',
      '2030-01-07T11:15:00Z',
      '2030-01-07T11:30:00Z',
    ]);
    expect(alternatives.every((a) => a.end - a.start === 3_600_000 && a.reserved === false)).toBe(true);
  });

  it('lets a lapsed hold go inside the next write (injected clock), and the sweeper records it', async () => {
    const first = await holdAt('2030-01-07T12:00:00Z', '2030-01-07T13:00:00Z');
    h.clock.advance(5 * 60_000);
    const second = await holdAt('2030-01-07T12:00:00Z', '2030-01-07T13:00:00Z');
    expect(second.value.booking.status).toBe('HELD');
    expect((await getBooking(h.deps, operator, first.value.booking.id)).booking.status).toBe('EXPIRED');
    h.clock.advance(5 * 60_000);
    expect(await sweep(h.deps)).toEqual({
      expired: 1,
      purged: 0,
      oauthRecords: 0,
      payments: { asked: 0, flagged: 0, ended: 0 },
      customersErased: 0,
    });
    const late = await refusal(
      confirm({
        bookingId: second.value.booking.id,
        expectedVersion: 2,
        idempotencyKey: randomUUID(),
      }),
    );
    expect(late.code).toBe('INVALID_STATE');
  });

  it('replays a retry with the same key without a second effect', async () => {
    const key = randomUUID();
    const one = await holdAt('2030-01-07T14:00:00Z', '2030-01-07T15:00:00Z', key);
    h.clock.advance(1000);
    const two = await holdAt('2030-01-07T14:00:00Z', '2030-01-07T15:00:00Z', key);
    expect(two.replayed).toBe(true);
    expect(two.value).toEqual(one.value);
    const other = await refusal(holdAt('2030-01-07T14:00:00Z', '2030-01-07T15:30:00Z', key));
    expect(other.code).toBe('IDEMPOTENCY_CONFLICT');
  });

  it('refuses writes from a read-only principal', async () => {
    const reader = { ...operator, writePolicy: 'readonly' as const };
    const refused = await refusal(
      holdSlot(h.deps, reader, {
        calendarIds: [berlin],
        start: '2030-01-07T09:00:00Z',
        end: '2030-01-07T10:00:00Z',
        idempotencyKey: randomUUID(),
      }),
    );
    expect(refused.code).toBe('FORBIDDEN');
  });

  it('release then confirm is an invalid state', async () => {
    const { value } = await holdAt('2030-01-07T15:00:00Z', '2030-01-07T16:00:00Z');
    await releaseHold(h.deps, operator, {
      bookingId: value.booking.id,
      expectedVersion: 1,
      idempotencyKey: randomUUID(),
    });
    const refused = await refusal(
      confirm({
        bookingId: value.booking.id,
        expectedVersion: 2,
        idempotencyKey: randomUUID(),
      }),
    );
    expect(refused.code).toBe('INVALID_STATE');
  });
});

describe('find_slots use case', () => {
  it('pages through every slot with cursors, aligned on the calendar wall clock', async () => {
    const query = {
      calendarIds: [berlin],
      from: at('2030-01-07T00:00:00Z'),
      to: at('2030-01-09T00:00:00Z'),
      durationMinutes: 45,
      limit: 7,
    };
    const all = await findSlots(h.deps, operator, { ...query, limit: 100 });
    // 08:00Z to 15:15Z every 15 minutes, two weekdays.
    expect(all.total).toBe(2 * 30);
    expect(formatInstant(all.slots[0]!.start)).toBe('2030-01-07T08:00:00Z');
    const seen: number[] = [];
    let cursor: string | undefined;
    do {
      const page = await findSlots(h.deps, operator, { ...query, ...(cursor ? { cursor } : {}) });
      seen.push(...page.slots.map((s) => s.start));
      cursor = page.nextCursor ?? undefined;
    } while (cursor);
    expect(seen).toEqual(all.slots.map((s) => s.start));
  });

  it('intersects calendars in different zones and skips held time', async () => {
    const york = await h.calendar('New York desk', 'America/New_York', weekdays('09:00', '17:00'));
    const both = {
      calendarIds: [berlin, york],
      from: '2030-01-07T00:00:00Z',
      to: '2030-01-08T00:00:00Z',
      durationMinutes: 60,
      limit: 100,
    };
    const free = await findSlots(h.deps, operator, both);
    // Berlin 08:00-16:00Z meets New York 14:00-22:00Z: 14:00-16:00Z.
    expect(free.slots.map((s) => formatInstant(s.start))).toEqual([
      '2030-01-07T14:00:00Z',
      '2030-01-07T14:15:00Z',
      '2030-01-07T14:30:00Z',
      '2030-01-07T14:45:00Z',
      '2030-01-07T15:00:00Z',
    ]);
    await holdAt('2030-01-07T15:00:00Z', '2030-01-07T15:30:00Z', randomUUID(), [york]);
    const after = await findSlots(h.deps, operator, both);
    expect(after.slots.map((s) => formatInstant(s.start))).toEqual(['2030-01-07T14:00:00Z']);
  });

  it('rejects a cursor from another query and a garbled one', async () => {
    const query = {
      calendarIds: [berlin],
      from: '2030-01-07T00:00:00Z',
      to: '2030-01-08T00:00:00Z',
      durationMinutes: 30,
      limit: 1,
    };
    const page = await findSlots(h.deps, operator, query);
    expect(
      (
        await refusal(
          findSlots(h.deps, operator, { ...query, to: '2030-01-09T00:00:00Z', cursor: page.nextCursor! }),
        )
      ).code,
    ).toBe('INVALID_CURSOR');
    expect((await refusal(findSlots(h.deps, operator, { ...query, cursor: 'not-a-cursor' }))).code).toBe(
      'INVALID_CURSOR',
    );
  });
});

describe('server-side approvals with an injected clock', () => {
  it('an approval decided in time but used after it expired is APPROVAL_EXPIRED', async () => {
    const { requestApproval, decideById } = await import('../../../src/app/approvals/approvals.js');
    const drafter = { ...operator, writePolicy: 'draft' as const };
    await h.close();
    h = await appHarness(T0, { holdTtlMs: 60 * 60_000 });
    const york = await h.calendar('Unpriced desk', 'UTC', {
      weekly: { mon: [{ start: '00:00', end: '24:00' }] },
      overrides: [],
    });
    const held = await holdSlot(h.deps, drafter, {
      calendarIds: [york],
      start: '2030-01-07T20:00:00Z',
      end: '2030-01-07T21:00:00Z',
      idempotencyKey: randomUUID(),
    });
    const { value: pending } = await requestApproval(h.deps, drafter, {
      bookingId: held.value.booking.id,
      action: 'confirm_booking',
      idempotencyKey: randomUUID(),
    });
    await decideById(h.deps, drafter.tenantId, pending.approvalId, 'APPROVE', 'test');
    // The tenant's approval window (30 minutes by default) bounds the approval, not the hour-long hold.
    h.clock.advance(30 * 60_000);
    const late = await refusal(
      gatedBookingChange(
        h.deps,
        drafter,
        'confirm_booking',
        {
          bookingId: held.value.booking.id,
          expectedVersion: 1,
          idempotencyKey: randomUUID(),
          approval: { approvalId: pending.approvalId },
        },
        { traceId: 't' },
      ),
    );
    expect(late.code).toBe('APPROVAL_EXPIRED');
  });
});
