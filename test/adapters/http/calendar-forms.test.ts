import { describe, expect, it } from 'vitest';
import {
  overrideOf,
  priceOf,
  problemOf,
  readDetails,
  tagsOf,
  readOverride,
  readWeek,
  weeklyOf,
} from '../../../src/adapters/http/console/calendar-forms.js';
import {
  overridesWithin,
  weekInWords,
  windowsInWords,
} from '../../../src/adapters/http/console/calendar-words.js';
import { DomainError } from '../../../src/domain/errors.js';

// The calendar forms read back as a person typed them, and the hours said in words.

function fieldOf(run: () => unknown): string | undefined {
  try {
    run();
  } catch (error) {
    if (error instanceof DomainError) return error.details.field;
    throw error;
  }
  return undefined;
}

describe('reading the calendar forms', () => {
  it('pairs each day’s from and until by row, drops empty rows, and reads 9:00 as 09:00', () => {
    const week = readWeek({
      'mon-start': ['9:00', '', ' 13:00 '],
      'mon-end': ['12:00', '', '17:00'],
      'tue-start': '10:00',
      'tue-end': '',
      'sun-start': ['', ''],
      'sun-end': ['', ''],
    });
    expect(week.mon).toEqual([
      { start: '09:00', end: '12:00' },
      { start: '13:00', end: '17:00' },
    ]);
    // Half a row is kept, for the domain to name what is missing.
    expect(week.tue).toEqual([{ start: '10:00', end: '' }]);
    expect(week.sun).toEqual([]);
    expect(weeklyOf(week)).toEqual({ mon: week.mon, tue: week.tue });
  });

  it('takes a price as both parts or neither; the currency in capitals', () => {
    const details = (amount: string, currency: string) =>
      readDetails({ name: 'x', timeZone: ' UTC ', amount, currency });
    expect(readDetails({ name: ' x ', timeZone: ' UTC ' })).toEqual({
      name: ' x ',
      timeZone: 'UTC',
      amount: '',
      currency: '',
      description: '',
      tags: '',
    });
    expect(priceOf(details('', ''))).toBeNull();
    expect(priceOf(details(' 50.00 ', 'eur'))).toEqual({ amount: '50.00', currency: 'EUR' });
    expect(fieldOf(() => priceOf(details('50', '')))).toBe('price.currency');
    expect(fieldOf(() => priceOf(details('', 'EUR')))).toBe('price.amount');
  });

  it('reads tags as typed, split on commas, blanks left out', () => {
    const draft = readDetails({
      name: 'x',
      timeZone: 'UTC',
      tags: ' physio, ,German,  ',
      description: ' Sports ',
    });
    expect(draft.description).toBe(' Sports ');
    expect(tagsOf(draft)).toEqual(['physio', 'German']);
    expect(tagsOf(readDetails({ name: 'x', timeZone: 'UTC' }))).toEqual([]);
  });

  it('reads a date override as closed, or as the hours given, and refuses the two mixed up', () => {
    expect(overrideOf(readOverride({ date: '2030-01-08', kind: 'closed' }))).toEqual({
      date: '2030-01-08',
      windows: [],
    });
    const special = readOverride({
      date: '2030-01-08',
      kind: 'hours',
      start: ['10:00', ''],
      end: ['11:00', ''],
    });
    expect(overrideOf(special)).toEqual({ date: '2030-01-08', windows: [{ start: '10:00', end: '11:00' }] });
    expect(fieldOf(() => overrideOf(readOverride({ date: '2030-01-08', kind: 'hours' })))).toBe(
      'overrides[0].windows',
    );
    expect(
      fieldOf(() =>
        overrideOf(readOverride({ date: '2030-01-08', kind: 'closed', start: '10:00', end: '11:00' })),
      ),
    ).toBe('overrides[0].kind');
  });

  it('says which input a refusal is about, in the words of its label', () => {
    expect(problemOf('weekly.sat[0]', 'weekly.sat[0]: end must be after start on the same day')).toEqual({
      inputId: 'week-sat-0-start',
      text: 'Saturday, hours 1: end must be after start on the same day',
    });
    expect(problemOf('weekly.mon[2].end', 'weekly.mon[2].end: must be HH:MM (00:01-24:00)')).toEqual({
      inputId: 'week-mon-2-end',
      text: 'Monday, hours 3, until: must be HH:MM (00:01-24:00)',
    });
    expect(
      problemOf('overrides[0].windows[1].start', 'overrides[0].windows[1].start: must be HH:MM'),
    ).toEqual({
      inputId: 'ov-1-start',
      text: 'Special hours 2, from: must be HH:MM',
    });
    expect(problemOf('timeZone', 'timeZone: "x" is not an IANA time zone').inputId).toBe('cal-zone');
    expect(problemOf('price.amount', 'price.amount: must be …')).toEqual({
      inputId: 'cal-amount',
      text: 'Price: must be …',
    });
    expect(problemOf(undefined, 'The calendar kept changing')).toEqual({
      text: 'The calendar kept changing',
    });
  });
});

describe('hours in words', () => {
  const nine = [{ start: '09:00', end: '17:00' }];
  it('says runs of days once, and whole days and closed days plainly', () => {
    expect(weekInWords({ mon: nine, tue: nine, wed: nine, thu: nine, fri: nine })).toBe(
      'Mon–Fri 09:00–17:00 · Sat–Sun closed',
    );
    expect(weekInWords({})).toBe('Closed every day');
    const allDay = [{ start: '00:00', end: '24:00' }];
    expect(
      weekInWords({
        mon: allDay,
        tue: allDay,
        wed: allDay,
        thu: allDay,
        fri: allDay,
        sat: allDay,
        sun: allDay,
      }),
    ).toBe('Every day all day');
    expect(weekInWords({ mon: nine, wed: nine })).toBe(
      'Mon 09:00–17:00 · Tue closed · Wed 09:00–17:00 · Thu–Sun closed',
    );
    expect(
      windowsInWords([
        { start: '13:00', end: '17:00' },
        { start: '09:00', end: '12:00' },
      ]),
    ).toBe('09:00–12:00, 13:00–17:00');
  });

  it('finds the overrides of the coming week, across a month’s end', () => {
    const overrides = ['2030-01-28', '2030-01-29', '2030-01-31', '2030-02-04', '2030-02-05'].map((date) => ({
      date,
      windows: [],
    }));
    expect(overridesWithin(overrides, '2030-01-29', 7).map((o) => o.date)).toEqual([
      '2030-01-29',
      '2030-01-31',
      '2030-02-04',
    ]);
  });
});
