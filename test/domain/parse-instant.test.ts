import { Temporal } from 'temporal-polyfill';
import { describe, expect, it } from 'vitest';
import { parseInstant } from '../../src/domain/time/instant.js';
import { civilFromDays, daysFromCivil } from '../../src/domain/time/zone.js';

/** What Temporal answers for a string: epoch milliseconds, or 'invalid'. */
function temporal(text: string): number | 'invalid' {
  try {
    return Temporal.Instant.from(text.toUpperCase()).epochMilliseconds;
  } catch {
    return 'invalid';
  }
}

function ours(text: string): number | 'invalid' {
  try {
    return parseInstant(text, 'start');
  } catch {
    return 'invalid';
  }
}

// A deterministic generator (mulberry32), so a failure names its seed and repeats.
function random(seed: number): () => number {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

describe('parseInstant agrees with Temporal.Instant.from', () => {
  it('on 20,000 generated strings, valid and invalid, near every edge', () => {
    const next = random(20261130);
    const int = (lo: number, hi: number) => lo + Math.floor(next() * (hi - lo + 1));
    const two = (n: number) => String(n).padStart(2, '0');
    let valid = 0;
    for (let i = 0; i < 20_000; i++) {
      const year = next() < 0.1 ? int(0, 9999) : int(1899, 2101);
      const fraction = next() < 0.4 ? `.${String(int(0, 999_999_999)).slice(0, int(1, 9))}` : '';
      const offset =
        next() < 0.3
          ? next() < 0.5
            ? 'Z'
            : 'z'
          : `${next() < 0.5 ? '+' : '-'}${two(int(0, 25))}:${two(int(0, 61))}`;
      const text = `${String(year).padStart(4, '0')}-${two(int(0, 13))}-${two(int(0, 32))}${next() < 0.9 ? 'T' : 't'}${two(int(0, 24))}:${two(int(0, 60))}:${two(int(0, 61))}${fraction}${offset}`;
      const expected = temporal(text);
      if (expected !== 'invalid') valid++;
      expect(ours(text), text).toBe(expected);
    }
    // The generator must exercise both sides.
    expect(valid).toBeGreaterThan(5_000);
    expect(valid).toBeLessThan(19_000);
  });

  it('on the named edges: leap days, leap seconds, offsets, fractions, naive times', () => {
    for (const text of [
      '2024-02-29T12:00:00Z',
      '2023-02-29T12:00:00Z',
      '2000-02-29T00:00:00Z',
      '1900-02-29T00:00:00Z',
      '2016-12-31T23:59:60Z',
      '2026-12-01T09:00:00.1234567+01:00',
      '1969-12-31T23:59:59.9999Z',
      '2026-12-01T24:00:00Z',
      '2026-12-01T10:00:00-00:00',
      '2026-12-01T10:00:00+23:59',
      '2026-12-01T10:00:00',
    ]) {
      expect(ours(text), text).toBe(temporal(text));
    }
    // Stricter than Temporal on purpose: the T is required, as the tools' descriptions say.
    expect(temporal('2026-12-01 10:00:00Z')).not.toBe('invalid');
    expect(ours('2026-12-01 10:00:00Z')).toBe('invalid');
  });

  it('daysFromCivil inverts civilFromDays across four centuries', () => {
    for (let day = -200_000; day <= 200_000; day += 7) {
      const { year, month, day: d } = civilFromDays(day);
      expect(daysFromCivil(year, month, d)).toBe(day);
    }
  });
});
