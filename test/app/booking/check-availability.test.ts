import { randomUUID } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { setBookingRules } from '../../../src/app/calendars/calendars.js';
import { checkAvailability } from '../../../src/app/booking/check-availability.js';
import { holdSlot } from '../../../src/app/booking/hold-slot.js';
import { appHarness, operator } from '../../support/app-harness.js';
import { refusal } from '../../support/refusal.js';

// Monday 2030-01-07 08:00 UTC; Berlin is UTC+1 in January. The desk opens 09:00-17:00 Berlin.
const T0 = Date.UTC(2030, 0, 7, 8);
const weekdays = {
  weekly: Object.fromEntries(
    ['mon', 'tue', 'wed', 'thu', 'fri'].map((d) => [d, [{ start: '09:00', end: '17:00' }]]),
  ),
  overrides: [],
};

let h: Awaited<ReturnType<typeof appHarness>>;
let desk: string;
beforeEach(async () => {
  h = await appHarness(T0);
  desk = await h.calendar('Berlin desk', 'Europe/Berlin', weekdays);
});
afterEach(() => h.close());

const check = (date: string, times: string[], calendarIds = [desk]) =>
  checkAvailability(h.deps, operator, { calendarIds, date, times });

describe('check_availability: named local times on one date', () => {
  it('answers each time: free, taken, closed, past, against a rule — in the calendar’s zone', async () => {
    // 10:00 Berlin on Tuesday is taken by a hold.
    await holdSlot(h.deps, operator, {
      calendarIds: [desk],
      start: '2030-01-08T09:00:00Z',
      end: '2030-01-08T09:30:00Z',
      idempotencyKey: randomUUID(),
    });
    const tuesday = await check('2030-01-08', ['09:00', '10:00', '16:30', '16:45', '08:30']);
    expect(tuesday.timeZone).toBe('Europe/Berlin');
    expect(tuesday.times.map((t) => [t.time, t.free, t.reason])).toEqual([
      ['09:00', true, null],
      ['10:00', false, 'taken'],
      ['16:30', true, null],
      ['16:45', false, 'closed'], // would end at 17:15
      ['08:30', false, 'closed'],
    ]);
    expect(tuesday.times[0]!.start).toBe(Date.parse('2030-01-08T08:00:00Z'));
    // Monday 08:00 UTC is now: 09:00 Berlin has begun, 09:30 has not.
    const today = await check('2030-01-07', ['09:00', '09:30']);
    expect(today.times.map((t) => t.reason)).toEqual([null, null]);
    const sunday = await check('2030-01-06', ['10:00']);
    expect(sunday.times[0]!.reason).toBe('past');
  });

  it('applies the calendar’s booking rules as a hold would', async () => {
    const strict = await h.calendar('Strict desk', 'Europe/Berlin', weekdays);
    await setBookingRules(h.deps, operator, {
      calendarId: strict,
      rules: { minimumNoticeMinutes: 24 * 60 },
      idempotencyKey: randomUUID(),
    });
    const soon = await check('2030-01-07', ['15:00'], [strict]);
    expect(soon.times[0]).toMatchObject({ free: false, reason: 'rules' });
    expect((await check('2030-01-09', ['15:00'], [strict])).times[0]!.free).toBe(true);
  });

  it('refuses a date, a time or a count it cannot read, naming the field', async () => {
    const field = async (date: string, times: string[]) => (await refusal(check(date, times))).details.field;
    expect(await field('2030-02-30', ['09:00'])).toBe('date');
    expect(await field('8 Jan', ['09:00'])).toBe('date');
    expect(await field('2030-01-08', ['9am'])).toBe('times[0]');
    expect(await field('2030-01-08', ['09:00', '24:00'])).toBe('times[1]');
    expect(await field('2030-01-08', ['09:07'])).toBe('times[0]');
    expect(await field('2030-01-08', [])).toBe('times');
    expect(
      await field(
        '2030-01-08',
        Array.from({ length: 17 }, () => '09:00'),
      ),
    ).toBe('times');
  });
});
