import { Temporal } from 'temporal-polyfill';
import { describe, expect, it } from 'vitest';
import { daysFromCivil, wallClockToInstant } from '../../src/domain/time/zone.js';

// Found by the property test (seed 1323596095): São Paulo's clocks jumped from 00:00 to 01:00 on
// 25 Oct 1992, so midnight that day did not exist. The first instant at or past it is the jump.
describe('a gap that starts exactly at the asked minute', () => {
  it.each([
    ['America/Sao_Paulo', 1992, 10, 25, 0],
    ['America/Sao_Paulo', 2018, 11, 4, 0],
    ['Europe/Berlin', 2026, 3, 29, 120],
  ])('%s %i-%i-%i at minute %i maps to the jump itself', (zone, year, month, day, minutes) => {
    const instant = wallClockToInstant(daysFromCivil(year, month, day), minutes, zone);
    const asked = new Temporal.PlainDateTime(year, month, day, Math.floor(minutes / 60), minutes % 60);
    const jump = asked.toZonedDateTime(zone, { disambiguation: 'later' }).epochMilliseconds;
    expect(instant).toBe(jump);
    const before = Temporal.Instant.fromEpochMilliseconds(instant - 1)
      .toZonedDateTimeISO(zone)
      .toPlainDateTime();
    expect(Temporal.PlainDateTime.compare(before, asked)).toBe(-1);
  });
});
