import fc from 'fast-check';
import { Temporal } from 'temporal-polyfill';
import { describe, expect, it } from 'vitest';
import type { Availability, TimeWindow } from '../../src/domain/availability/availability.js';
import { weekdays } from '../../src/domain/availability/availability.js';
import type { BookingRules } from '../../src/domain/availability/booking-rules.js';
import { DEFAULT_BOOKING_RULES, paddedInterval } from '../../src/domain/availability/booking-rules.js';
import type { RuledCalendar } from '../../src/domain/availability/ruled-slots.js';
import { ruledSlotStarts, withinStartWindow } from '../../src/domain/availability/ruled-slots.js';
import type { Interval } from '../../src/domain/time/interval.js';

const MINUTE = 60_000;
const DAY = 24 * 60 * MINUTE;

/** Days with a DST change in each zone (2026), searched from the day before to the day after. */
const DST_DAYS = [
  { zone: 'Europe/Berlin', date: '2026-03-29' },
  { zone: 'Europe/Berlin', date: '2026-10-25' },
  { zone: 'America/New_York', date: '2026-03-08' },
  { zone: 'America/New_York', date: '2026-11-01' },
  { zone: 'Australia/Lord_Howe', date: '2026-04-05' },
  { zone: 'Australia/Lord_Howe', date: '2026-10-04' },
];
const ZONES = [...new Set(DST_DAYS.map((d) => d.zone)), 'Asia/Kolkata'];

// Window edges stay out of 00:30–03:30, where the day's clock jumps or repeats; windows still span it.
const edge = fc.oneof(
  fc.integer({ min: 0, max: 2 }).map((q) => q * 15),
  fc.integer({ min: 15, max: 96 }).map((q) => q * 15),
);
const window = fc
  .tuple(edge, edge)
  .filter(([a, b]) => a !== b)
  .map(([a, b]): [number, number] => [Math.min(a, b), Math.max(a, b)]);
const hhmm = (m: number) =>
  `${String(Math.floor(m / 60)).padStart(2, '0')}:${String(m % 60).padStart(2, '0')}`;
const dayWindows = fc
  .array(window, { minLength: 1, maxLength: 2 })
  .map((ws) => (ws.length === 2 && ws[0]![1] > ws[1]![0] && ws[1]![1] > ws[0]![0] ? ws.slice(0, 1) : ws))
  .map((ws) => ws.map(([a, b]): TimeWindow => ({ start: hhmm(a), end: hhmm(b) })));
const availability: fc.Arbitrary<Availability> = fc
  .array(dayWindows, { minLength: 7, maxLength: 7 })
  .map((days) => ({ weekly: Object.fromEntries(weekdays.map((d, i) => [d, days[i]])), overrides: [] }));

const rules: fc.Arbitrary<BookingRules> = fc.record({
  bufferBeforeMinutes: fc.constantFrom(0, 0, 5, 15, 45),
  bufferAfterMinutes: fc.constantFrom(0, 0, 10, 30, 90),
  minimumNoticeMinutes: fc.constantFrom(0, 0, 60, 600, 1500),
  maximumHorizonDays: fc.constantFrom(1, 2, 365, 365),
  slotStepMinutes: fc.constantFrom(null, null, 15, 20, 30, 45, 60, 90),
  allowedDurationsMinutes: fc.constantFrom(null, null, null, [30, 60], [15, 45, 90]),
  maxBookingsPerDay: fc.constantFrom(null, null, 1, 2),
  maxBookingsPerWeek: fc.constantFrom(null, null, 2, 3),
  maxBookingsPerCustomerPerDay: fc.constant(null),
  maxBookingsPerCustomerPerWeek: fc.constant(null),
  capacity: fc.constantFrom(1, 1, 2, 3),
  offerAlternatives: fc.boolean(),
});

interface Case {
  readonly calendars: {
    zone: string;
    availability: Availability;
    rules: BookingRules;
    bookings: Interval[];
  }[];
  readonly range: Interval;
  readonly durationMinutes: number;
  readonly stepMinutes: number;
  readonly now: number;
}

const aCase: fc.Arbitrary<Case> = fc
  .record({
    dst: fc.constantFrom(...DST_DAYS),
    others: fc.array(fc.constantFrom(...ZONES), { maxLength: 1 }),
    calendars: fc.array(
      fc.record({
        availability,
        rules,
        bookings: fc.array(
          fc.tuple(
            // Anywhere near the range, or crowded into the DST day's small hours so seat lanes fill up.
            fc.oneof(fc.integer({ min: -2 * 96, max: 5 * 96 }), fc.integer({ min: 96 + 16, max: 96 + 24 })),
            fc.integer({ min: 1, max: 12 }),
          ),
          { maxLength: 8 },
        ),
      }),
      { minLength: 2, maxLength: 2 },
    ),
    durationMinutes: fc.constantFrom(15, 30, 45, 60, 90),
    stepMinutes: fc.constantFrom(15, 30, 60),
    nowMinutes: fc.integer({ min: -3000, max: 900 }),
  })
  .map(({ dst, others, calendars, durationMinutes, stepMinutes, nowMinutes }) => {
    const midnight = Temporal.PlainDate.from(dst.date).toZonedDateTime(dst.zone).epochMilliseconds;
    const range = { start: midnight - DAY, end: midnight + 2 * DAY };
    const zones = [dst.zone, ...others];
    return {
      calendars: calendars.slice(0, zones.length).map((c, i) => ({
        zone: zones[i]!,
        availability: c.availability,
        rules: c.rules,
        bookings: c.bookings.map(([q, n]) => ({
          start: range.start + q * 15 * MINUTE,
          end: range.start + (q + n) * 15 * MINUTE,
        })),
      })),
      range,
      durationMinutes,
      stepMinutes,
      now: midnight + nowMinutes * MINUTE,
    };
  });

const local = (instant: number, zone: string) =>
  Temporal.Instant.fromEpochMilliseconds(instant).toZonedDateTimeISO(zone);

/** The oracle: every minute of the range, each rule asked directly of the wall clock. */
function bruteForce(c: Case): number[] {
  const d = c.durationMinutes;
  const stepped = c.calendars.filter((cal) => cal.rules.slotStepMinutes !== null);
  const onGrid = (m: number, zone: string, step: number) => {
    const t = local(m, zone);
    return (t.hour * 60 + t.minute) % step === 0 && t.second === 0;
  };
  const open = (m: number, cal: Case['calendars'][number]) => {
    const t = local(m, cal.zone);
    const windows = cal.availability.weekly[weekdays[t.dayOfWeek - 1]!] ?? [];
    const minute = t.hour * 60 + t.minute;
    const toMinutes = (s: string) => Number(s.slice(0, 2)) * 60 + Number(s.slice(3));
    return windows.some((w) => toMinutes(w.start) <= minute && minute < toMinutes(w.end));
  };
  const starts: number[] = [];
  for (let s = c.range.start; s + d * MINUTE <= c.range.end; s += MINUTE) {
    const e = s + d * MINUTE;
    if (s < c.now) continue;
    if (
      stepped.length === 0
        ? !onGrid(s, c.calendars[0]!.zone, c.stepMinutes)
        : !stepped.every((cal) => onGrid(s, cal.zone, cal.rules.slotStepMinutes!))
    )
      continue;
    const ok = c.calendars.every((cal) => {
      const r = cal.rules;
      if (s < c.now + r.minimumNoticeMinutes * MINUTE || s > c.now + r.maximumHorizonDays * DAY) return false;
      if (r.allowedDurationsMinutes !== null && !r.allowedDurationsMinutes.includes(d)) return false;
      for (let m = s; m < e; m += MINUTE) if (!open(m, cal)) return false;
      const from = s - r.bufferBeforeMinutes * MINUTE;
      const to = e + r.bufferAfterMinutes * MINUTE;
      // Some seat lane (booking i sits in lane i mod capacity) is free for the whole padded time.
      const laneFree = (lane: number) => {
        const taken = cal.bookings.filter((_, i) => i % r.capacity === lane).map((b) => paddedInterval(r, b));
        for (let m = from; m < to; m += MINUTE)
          if (taken.some((b) => b.start <= m && m < b.end)) return false;
        return true;
      };
      if (!Array.from({ length: r.capacity }, (_, lane) => lane).some(laneFree)) return false;
      const day = local(s, cal.zone);
      const sameDay = cal.bookings.filter((b) =>
        local(b.start, cal.zone).toPlainDate().equals(day.toPlainDate()),
      );
      const sameWeek = cal.bookings.filter((b) => {
        const t = local(b.start, cal.zone);
        return t.yearOfWeek === day.yearOfWeek && t.weekOfYear === day.weekOfYear;
      });
      if (r.maxBookingsPerDay !== null && sameDay.length >= r.maxBookingsPerDay) return false;
      if (r.maxBookingsPerWeek !== null && sameWeek.length >= r.maxBookingsPerWeek) return false;
      return true;
    });
    if (ok) starts.push(s);
  }
  return starts;
}

function search(c: Case): number[] {
  const calendars: RuledCalendar[] = c.calendars.map((cal) => ({
    zone: cal.zone,
    availability: cal.availability,
    rules: cal.rules,
    occupied: cal.bookings.map((b, i) => ({ ...paddedInterval(cal.rules, b), lane: i % cal.rules.capacity })),
    bookedStarts: cal.bookings.map((b) => b.start),
  }));
  const starts = ruledSlotStarts(calendars, c);
  return withinStartWindow(
    starts,
    c.calendars.map((cal) => cal.rules),
    c.now,
  );
}

describe('slot search under booking rules', () => {
  it('equals a minute-by-minute oracle across DST days, for any rules, bookings and clock', () => {
    fc.assert(
      fc.property(aCase, (c) => {
        expect(search(c)).toEqual(bruteForce(c));
      }),
      { numRuns: 120 },
    );
    // A fixed amount of work (120 cases against a minute-by-minute oracle): ~20 s alone, more on a busy machine.
  }, 120_000);

  it('keeps starts on the wall-clock grid through a half-hour DST jump (Lord Howe, hourly grid)', () => {
    const zone = 'Australia/Lord_Howe';
    const day = Temporal.PlainDate.from('2026-10-04').toZonedDateTime(zone).epochMilliseconds;
    const allDay: Availability = { weekly: { sun: [{ start: '00:00', end: '06:00' }] }, overrides: [] };
    const starts = ruledSlotStarts(
      [{ zone, availability: allDay, rules: DEFAULT_BOOKING_RULES, occupied: [], bookedStarts: [] }],
      { range: { start: day, end: day + DAY }, durationMinutes: 60, stepMinutes: 60 },
    );
    // 02:00 does not exist that day (the clock goes from 02:00 to 02:30), so 02:30 is the first time after 01:00.
    expect(starts.map((s) => local(s, zone).toPlainTime().toString().slice(0, 5))).toEqual([
      '00:00',
      '01:00',
      '03:00',
      '04:00',
      '05:00',
    ]);
  });

  it('offers a time while one seat lane is free for all of it, and not once every lane is taken', () => {
    const zone = 'UTC';
    const monday = Date.parse('2026-12-07T00:00:00Z');
    const at = (h: number, m = 0) => monday + h * 3_600_000 + m * MINUTE;
    const open: Availability = { weekly: { mon: [{ start: '09:00', end: '13:00' }] }, overrides: [] };
    const rules = { ...DEFAULT_BOOKING_RULES, capacity: 2 };
    const occupied = [
      { start: at(10), end: at(11), lane: 0 },
      { start: at(10, 30), end: at(11, 30), lane: 1 },
    ];
    const starts = ruledSlotStarts([{ zone, availability: open, rules, occupied, bookedStarts: [] }], {
      range: { start: at(9), end: at(13) },
      durationMinutes: 30,
      stepMinutes: 15,
    });
    const hhmm = (t: number) => new Date(t).toISOString().slice(11, 16);
    // 10:00-10:30 fits lane 1; 10:15-11:30 meets both lanes; from 11:00 lane 0 is free again.
    expect(starts.map(hhmm)).toEqual([
      '09:00',
      '09:15',
      '09:30',
      '09:45',
      '10:00',
      '11:00',
      '11:15',
      '11:30',
      '11:45',
      '12:00',
      '12:15',
      '12:30',
    ]);
  });

  it('with every rule at its default finds what plain availability finds, within a year', () => {
    const zone = 'Europe/Berlin';
    const open: Availability = { weekly: { mon: [{ start: '09:00', end: '17:00' }] }, overrides: [] };
    const monday = Temporal.PlainDate.from('2026-12-07').toZonedDateTime(zone).epochMilliseconds;
    const calendars: RuledCalendar[] = [
      { zone, availability: open, rules: DEFAULT_BOOKING_RULES, occupied: [], bookedStarts: [] },
    ];
    const starts = ruledSlotStarts(calendars, {
      range: { start: monday, end: monday + DAY },
      durationMinutes: 60,
      stepMinutes: 60,
    });
    expect(starts).toHaveLength(8);
    const now = monday - 400 * DAY;
    expect(withinStartWindow(starts, [DEFAULT_BOOKING_RULES], now)).toEqual([]);
    expect(withinStartWindow(starts, [DEFAULT_BOOKING_RULES], monday - 300 * DAY)).toHaveLength(8);
  });
});
