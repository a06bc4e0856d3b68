import { describe, expect, it } from 'vitest';
import { occurrenceTimes, validateRepeat } from '../../src/domain/booking/series.js';

const BERLIN = 'Europe/Berlin';
const MIN = 60_000;
const iso = (ms: number) => new Date(ms).toISOString();

describe('a series’ occurrence times', () => {
  it('keep the local start across the spring DST change (10:00 Berlin: 09:00Z, then 08:00Z)', () => {
    const first = Date.parse('2027-03-21T09:00:00Z'); // Sunday 10:00 CET
    const times = occurrenceTimes(
      { start: first, end: first + 60 * MIN },
      { frequency: 'weekly', interval: 1, count: 3 },
      BERLIN,
    );
    expect(times.map((t) => iso(t.start))).toEqual([
      '2027-03-21T09:00:00.000Z',
      '2027-03-28T08:00:00.000Z',
      '2027-04-04T08:00:00.000Z',
    ]);
    expect(times.every((t) => t.end - t.start === 60 * MIN)).toBe(true);
  });

  it('move a start the gap skips forward by the gap, keeping the length (02:30 → 03:30 CEST)', () => {
    const first = Date.parse('2027-03-21T01:30:00Z'); // Sunday 02:30 CET
    const [, gap] = occurrenceTimes(
      { start: first, end: first + 45 * MIN },
      { frequency: 'weekly', interval: 1, count: 2 },
      BERLIN,
    );
    expect(iso(gap!.start)).toBe('2027-03-28T01:30:00.000Z'); // 03:30 CEST
    expect(gap!.end - gap!.start).toBe(45 * MIN);
  });

  it('take the earlier of the repeated autumn hour, and keep the first exactly as given', () => {
    const first = Date.parse('2027-10-24T00:30:00Z'); // Sunday 02:30 CEST
    const times = occurrenceTimes(
      { start: first + 1234, end: first + 1234 + 30 * MIN },
      { frequency: 'weekly', interval: 1, count: 2 },
      BERLIN,
    );
    expect(times[0]!.start).toBe(first + 1234);
    expect(iso(times[1]!.start)).toBe('2027-10-31T00:30:01.234Z'); // 02:30 CEST, the first of the two
  });

  it('repeat every k days', () => {
    const first = Date.parse('2027-05-03T07:00:00Z');
    const times = occurrenceTimes(
      { start: first, end: first + 30 * MIN },
      { frequency: 'daily', interval: 2, count: 3 },
      'UTC',
    );
    expect(times.map((t) => iso(t.start).slice(0, 10))).toEqual(['2027-05-03', '2027-05-05', '2027-05-07']);
  });

  it('refuse a repeat out of bounds, naming the field', () => {
    expect(() => validateRepeat({ frequency: 'weekly', interval: 1, count: 1 })).toThrow(/repeat\.count/);
    expect(() => validateRepeat({ frequency: 'weekly', interval: 1, count: 53 })).toThrow(/repeat\.count/);
    expect(() => validateRepeat({ frequency: 'weekly', interval: 9, count: 2 })).toThrow(/repeat\.interval/);
    expect(() => validateRepeat({ frequency: 'monthly' as never, interval: 1, count: 2 })).toThrow(
      /repeat\.frequency/,
    );
    expect(() => validateRepeat({ frequency: 'daily', interval: 56, count: 52 })).not.toThrow();
  });
});
