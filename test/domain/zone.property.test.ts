import fc from 'fast-check';
import { Temporal } from 'temporal-polyfill';
import { describe, expect, it } from 'vitest';
import {
  civilFromDays,
  formatLocal,
  formatUtc,
  localEpochDay,
  offsetAt,
  wallClockToInstant,
} from '../../src/domain/time/zone.js';

const zones = [
  'Europe/Berlin',
  'America/New_York',
  'Asia/Shanghai',
  'Australia/Lord_Howe',
  'Asia/Kathmandu',
  'America/Sao_Paulo',
  'UTC',
];
const instants = fc.integer({ min: Date.UTC(1990, 0, 1), max: Date.UTC(2060, 0, 1) });

describe('cached zone arithmetic agrees with Temporal', () => {
  it('offsets, local dates and local formatting', () => {
    fc.assert(
      fc.property(instants, fc.constantFrom(...zones), (instant, zone) => {
        const zoned = Temporal.Instant.fromEpochMilliseconds(instant).toZonedDateTimeISO(zone);
        expect(offsetAt(instant, zone)).toBe(zoned.offsetNanoseconds / 1e6);
        expect(formatUtc(instant)).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d{3})?Z$/);
        expect(Temporal.Instant.from(formatUtc(instant)).epochMilliseconds).toBe(instant);
        expect(formatLocal(instant, zone)).toBe(
          zoned.toString({ timeZoneName: 'never', smallestUnit: 'second' }),
        );
        const date = civilFromDays(localEpochDay(instant, zone));
        expect([date.year, date.month, date.day]).toEqual([zoned.year, zoned.month, zoned.day]);
      }),
      { numRuns: 2000 },
    );
  });

  it('wall clock to instant: exact times round-trip, gap times map to the jump', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 7300, max: 32000 }),
        fc.integer({ min: 0, max: 1439 }),
        fc.constantFrom(...zones),
        (epochDay, minutes, zone) => {
          const instant = wallClockToInstant(epochDay, minutes, zone);
          const { year, month, day } = civilFromDays(epochDay);
          const wall = new Temporal.PlainDateTime(year, month, day, Math.floor(minutes / 60), minutes % 60);
          const earlier = wall.toZonedDateTime(zone, { disambiguation: 'earlier' });
          const local = Temporal.Instant.fromEpochMilliseconds(instant)
            .toZonedDateTimeISO(zone)
            .toPlainDateTime();
          if (Temporal.PlainDateTime.compare(earlier.toPlainDateTime(), wall) === 0) {
            expect(instant).toBe(earlier.epochMilliseconds);
          } else {
            // In a gap: the first instant whose wall clock is past the asked time.
            expect(Temporal.PlainDateTime.compare(local, wall)).toBe(1);
            const justBefore = Temporal.Instant.fromEpochMilliseconds(instant - 1)
              .toZonedDateTimeISO(zone)
              .toPlainDateTime();
            expect(Temporal.PlainDateTime.compare(justBefore, wall)).toBe(-1);
          }
        },
      ),
      { numRuns: 2000 },
    );
  });
});
