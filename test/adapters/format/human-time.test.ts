import { describe, expect, it } from 'vitest';
import { duration, localDateTime, localSpan, relative } from '../../../src/adapters/format/human-time.js';

const at = (iso: string) => Date.parse(iso);

describe('instants as people read them', () => {
  it('weekday, date and local time in the zone; a span names the day once', () => {
    expect(localDateTime(at('2026-12-04T01:00:00Z'), 'Asia/Shanghai')).toBe('Fri 4 Dec 2026, 09:00');
    expect(localSpan(at('2026-12-04T01:00:00Z'), at('2026-12-04T02:30:00Z'), 'Asia/Shanghai')).toBe(
      'Fri 4 Dec 2026, 09:00–10:30',
    );
    expect(localSpan(at('2026-12-04T15:00:00Z'), at('2026-12-04T17:00:00Z'), 'Asia/Shanghai')).toBe(
      'Fri 4 Dec 2026, 23:00 – Sat 5 Dec 2026, 01:00',
    );
    expect(localDateTime(at('2026-12-04T12:00:00Z'), 'America/New_York')).toBe('Fri 4 Dec 2026, 07:00');
  });

  it('durations and relative times', () => {
    expect(duration(45 * 60_000)).toBe('45 min');
    expect(duration(90 * 60_000)).toBe('1 h 30 min');
    expect(duration(51 * 3_600_000)).toBe('2 d 3 h');
    expect(relative(10 * 60_000, 0)).toBe('in 10 min');
    expect(relative(0, 4 * 60_000)).toBe('4 min ago');
  });
});
