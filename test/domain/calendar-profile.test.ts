import { describe, expect, it } from 'vitest';
import type { Calendar } from '../../src/domain/calendar.js';
import { calendarMatches, calendarTags, queryWords } from '../../src/domain/calendar-profile.js';
import type { DomainError } from '../../src/domain/errors.js';

const calendar = (name: string, description?: string, tags?: string[]): Calendar => ({
  id: 'cal_1',
  tenantId: 't1',
  name,
  timeZone: 'Europe/Berlin',
  price: null,
  availability: { weekly: {}, overrides: [] },
  createdAt: 0,
  version: 1,
  ...(description ? { description } : {}),
  ...(tags ? { tags } : {}),
});

const fieldOf = (run: () => unknown) => {
  try {
    run();
  } catch (error) {
    return (error as DomainError).details.field;
  }
  return 'no error';
};

describe('a calendar found by need', () => {
  it('matches when every word is in its name, description or tags, ignoring case and accents', () => {
    const vogel = calendar('Dr. Lena Vogel', 'Physiotherapy; sessions in German', ['Sportmedizin', 'Rücken']);
    expect(calendarMatches(vogel, queryWords('physiotherapy german'))).toBe(true);
    expect(calendarMatches(vogel, queryWords('RUCKEN, vogel'))).toBe(true);
    expect(calendarMatches(vogel, queryWords('physiotherapy french'))).toBe(false);
    expect(calendarMatches(calendar('Jade Room'), queryWords('projector'))).toBe(false);
    // A script written without spaces matches as the phrase typed.
    expect(calendarMatches(calendar('王医生', undefined, ['皮肤科']), queryWords('皮肤科'))).toBe(true);
  });

  it('refuses a query with no words, or too many, naming the field', () => {
    expect(fieldOf(() => queryWords(' ,; '))).toBe('query');
    expect(fieldOf(() => queryWords('a b c d e f g h i j k'))).toBe('query');
  });

  it('keeps tags trimmed and once each, and names the tag that is wrong', () => {
    expect(calendarTags([' physio ', 'Physio', 'German'])).toEqual(['physio', 'German']);
    expect(fieldOf(() => calendarTags(['ok', '  ']))).toBe('tags[1]');
    expect(fieldOf(() => calendarTags(['x'.repeat(51)]))).toBe('tags[0]');
    expect(fieldOf(() => calendarTags(Array.from({ length: 21 }, (_, i) => `t${i}`)))).toBe('tags');
  });
});
