import { describe, expect, it } from 'vitest';
import { DomainError } from '../../src/domain/errors.js';
import { formatInstant, formatLocal, isValidTimeZone, parseInstant } from '../../src/domain/time/instant.js';
import { intersect, normalize, subtract } from '../../src/domain/time/interval.js';

describe('parseInstant (RFC 3339, offset required)', () => {
  it('reads Z and numeric offsets to the same instant', () => {
    const utc = parseInstant('2026-12-01T09:00:00Z', 'start');
    expect(parseInstant('2026-12-01T10:00:00+01:00', 'start')).toBe(utc);
    expect(parseInstant('2026-12-01T04:00:00.000-05:00', 'start')).toBe(utc);
    expect(formatInstant(utc)).toBe('2026-12-01T09:00:00Z');
  });

  it.each([
    '2026-12-01T09:00:00',
    '2026-12-01 09:00:00Z',
    '2026-12-01',
    '09:00Z',
    '2026-12-01T09:00Z',
    'tomorrow',
  ])('rejects %s as INVALID_ARGUMENTS naming the field', (text) => {
    let caught: unknown;
    try {
      parseInstant(text, 'from');
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(DomainError);
    expect((caught as DomainError).code).toBe('INVALID_ARGUMENTS');
    expect((caught as DomainError).details.field).toBe('from');
  });

  it('rejects impossible dates', () => {
    expect(() => parseInstant('2026-02-30T09:00:00Z', 'start')).toThrow(/not a valid date-time/);
  });

  it('formats the calendar-local wall clock with its offset', () => {
    const instant = parseInstant('2026-07-01T07:00:00Z', 'x');
    expect(formatLocal(instant, 'Europe/Berlin')).toBe('2026-07-01T09:00:00+02:00');
    expect(formatLocal(instant, 'Asia/Kathmandu')).toBe('2026-07-01T12:45:00+05:45');
  });

  it('knows IANA zones', () => {
    expect(isValidTimeZone('America/New_York')).toBe(true);
    expect(isValidTimeZone('Mars/Olympus')).toBe(false);
    expect(isValidTimeZone('')).toBe(false);
  });
});

describe('half-open interval arithmetic', () => {
  const i = (start: number, end: number) => ({ start, end });
  it('merges touching and overlapping intervals, drops empty ones', () => {
    expect(normalize([i(5, 7), i(0, 2), i(2, 3), i(6, 9), i(4, 4)])).toEqual([i(0, 3), i(5, 9)]);
  });
  it('intersects sorted lists', () => {
    expect(intersect([i(0, 5), i(8, 12)], [i(3, 10)])).toEqual([i(3, 5), i(8, 10)]);
    expect(intersect([i(0, 5)], [i(5, 10)])).toEqual([]);
  });
  it('subtracts busy time', () => {
    expect(subtract([i(0, 10)], [i(2, 3), i(5, 7), i(9, 12)])).toEqual([i(0, 2), i(3, 5), i(7, 9)]);
    expect(subtract([i(0, 10)], [i(0, 10)])).toEqual([]);
  });
});
