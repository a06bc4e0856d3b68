import { describe, expect, it } from 'vitest';
import type { Availability } from '../../src/domain/availability/availability.js';
import { openIntervals, validateAvailability } from '../../src/domain/availability/availability.js';
import type { DomainError } from '../../src/domain/errors.js';
import { formatInstant, parseInstant } from '../../src/domain/time/instant.js';

const HOUR = 3_600_000;
// The day before through the day after, in UTC: wide enough for any zone's wall-clock day.
const day = (iso: string) => ({
  start: parseInstant(`${iso}T00:00:00Z`, 'x') - 36 * HOUR,
  end: parseInstant(`${iso}T00:00:00Z`, 'x') + 48 * HOUR,
});
const every = (start: string, end: string): Availability => {
  const w = [{ start, end }];
  return { weekly: { mon: w, tue: w, wed: w, thu: w, fri: w, sat: w, sun: w }, overrides: [] };
};
const show = (intervals: { start: number; end: number }[]) =>
  intervals.map((x) => `${formatInstant(x.start)}/${formatInstant(x.end)}`);
const onDate = (intervals: { start: number; end: number }[], date: string) =>
  show(intervals).filter((s) => s.startsWith(date) || s.includes(`/${date}`));

describe('weekly hours in the calendar zone across DST', () => {
  it('Europe/Berlin spring forward (2026-03-29): 09:00-17:00 moves from 08:00Z to 07:00Z', () => {
    const open = openIntervals(every('09:00', '17:00'), 'Europe/Berlin', day('2026-03-29'));
    expect(show(open)).toContain('2026-03-28T08:00:00Z/2026-03-28T16:00:00Z');
    expect(show(open)).toContain('2026-03-29T07:00:00Z/2026-03-29T15:00:00Z');
  });

  it('Europe/Berlin spring forward: a 01:00-04:00 window lasts two real hours', () => {
    const open = openIntervals(every('01:00', '04:00'), 'Europe/Berlin', day('2026-03-29'));
    const sunday = open.find((x) => formatInstant(x.start) === '2026-03-29T00:00:00Z')!;
    expect(sunday.end - sunday.start).toBe(2 * HOUR);
  });

  it('Europe/Berlin fall back (2026-10-25): 02:00-03:00 covers the repeated hour (two real hours)', () => {
    const open = openIntervals(every('02:00', '03:00'), 'Europe/Berlin', day('2026-10-25'));
    const sunday = open.find((x) => formatInstant(x.start) === '2026-10-25T00:00:00Z')!;
    expect(formatInstant(sunday.end)).toBe('2026-10-25T02:00:00Z');
  });

  it('America/New_York spring forward (2026-03-08): a window inside the gap has no time', () => {
    const open = openIntervals(every('02:15', '02:45'), 'America/New_York', day('2026-03-08'));
    expect(onDate(open, '2026-03-08')).toEqual([]);
    expect(show(open)).toContain('2026-03-07T07:15:00Z/2026-03-07T07:45:00Z');
  });

  it('America/New_York fall back (2026-11-01): 09:00-17:00 is 14:00Z-22:00Z after, 13:00Z-21:00Z before', () => {
    const open = openIntervals(every('09:00', '17:00'), 'America/New_York', day('2026-11-01'));
    expect(show(open)).toContain('2026-10-31T13:00:00Z/2026-10-31T21:00:00Z');
    expect(show(open)).toContain('2026-11-01T14:00:00Z/2026-11-01T22:00:00Z');
  });

  it('America/New_York spring forward: a window starting in the gap opens when the clock jumps', () => {
    const open = openIntervals(every('02:30', '05:00'), 'America/New_York', day('2026-03-08'));
    expect(show(open)).toContain('2026-03-08T07:00:00Z/2026-03-08T09:00:00Z');
  });

  it('24:00 ends at the next local midnight', () => {
    const open = openIntervals(every('20:00', '24:00'), 'Asia/Shanghai', day('2026-06-10'));
    expect(show(open)).toContain('2026-06-10T12:00:00Z/2026-06-10T16:00:00Z');
  });
});

describe('date overrides', () => {
  const base = every('09:00', '17:00');
  it('closes a date', () => {
    const open = openIntervals(
      { ...base, overrides: [{ date: '2026-12-24', windows: [] }] },
      'UTC',
      day('2026-12-24'),
    );
    expect(onDate(open, '2026-12-24')).toEqual([]);
    expect(show(open)).toContain('2026-12-25T09:00:00Z/2026-12-25T17:00:00Z');
  });
  it('replaces the hours of a date', () => {
    const overrides = [{ date: '2026-12-24', windows: [{ start: '10:00', end: '12:00' }] }];
    const open = openIntervals({ ...base, overrides }, 'UTC', day('2026-12-24'));
    expect(onDate(open, '2026-12-24')).toEqual(['2026-12-24T10:00:00Z/2026-12-24T12:00:00Z']);
  });
  it('leaves a missing weekday closed', () => {
    const open = openIntervals(
      { weekly: { mon: [{ start: '09:00', end: '10:00' }] }, overrides: [] },
      'UTC',
      {
        start: parseInstant('2026-12-01T00:00:00Z', 'x'),
        end: parseInstant('2026-12-08T00:00:00Z', 'x'),
      },
    );
    expect(show(open)).toEqual(['2026-12-07T09:00:00Z/2026-12-07T10:00:00Z']);
  });
});

describe('validateAvailability', () => {
  const fieldOf = (a: Availability) => {
    try {
      validateAvailability(a);
      return null;
    } catch (error) {
      return (error as DomainError).details.field;
    }
  };
  it('accepts a sane week', () => expect(fieldOf(every('09:00', '17:00'))).toBeNull());
  it('names the bad field', () => {
    expect(fieldOf({ weekly: { tue: [{ start: '9:00', end: '17:00' }] }, overrides: [] })).toBe(
      'weekly.tue[0].start',
    );
    expect(fieldOf({ weekly: { tue: [{ start: '17:00', end: '09:00' }] }, overrides: [] })).toBe(
      'weekly.tue[0]',
    );
    expect(
      fieldOf({
        weekly: {
          wed: [
            { start: '09:00', end: '12:00' },
            { start: '11:00', end: '13:00' },
          ],
        },
        overrides: [],
      }),
    ).toBe('weekly.wed[1]');
    expect(fieldOf({ weekly: {}, overrides: [{ date: '2026-02-30', windows: [] }] })).toBe(
      'overrides[0].date',
    );
    expect(
      fieldOf({
        weekly: {},
        overrides: [
          { date: '2026-12-24', windows: [] },
          { date: '2026-12-24', windows: [] },
        ],
      }),
    ).toBe('overrides[1].date');
  });
});
