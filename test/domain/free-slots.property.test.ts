import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { commonFreeTime, slotStarts } from '../../src/domain/availability/free-slots.js';
import type { Interval } from '../../src/domain/time/interval.js';

const MINUTE = 60_000;
const HORIZON = 600; // minutes

const interval = fc
  .tuple(fc.integer({ min: 0, max: HORIZON }), fc.integer({ min: 1, max: 180 }))
  .map(([start, length]): Interval => ({
    start: start * MINUTE,
    end: Math.min(HORIZON, start + length) * MINUTE,
  }));
const calendar = fc.record({
  open: fc.array(interval, { maxLength: 5 }),
  busy: fc.array(interval, { maxLength: 5 }),
});

/** The oracle: walk every minute and ask each calendar directly. */
function bruteForce(
  calendars: { open: Interval[]; busy: Interval[] }[],
  duration: number,
  step: number,
  offset: number,
): number[] {
  const inside = (list: Interval[], m: number) =>
    list.some((x) => x.start <= m * MINUTE && m * MINUTE < x.end);
  const freeAt = (m: number) => calendars.every((c) => inside(c.open, m) && !inside(c.busy, m));
  const starts: number[] = [];
  for (let m = 0; m + duration <= HORIZON; m++) {
    if ((m + offset) % step !== 0) continue;
    let ok = true;
    for (let k = m; k < m + duration && ok; k++) ok = freeAt(k);
    if (ok) starts.push(m * MINUTE);
  }
  return starts;
}

describe('free-slot arithmetic', () => {
  it('matches a minute-by-minute oracle for any calendars, duration, step and wall-clock offset', () => {
    fc.assert(
      fc.property(
        fc.array(calendar, { minLength: 1, maxLength: 4 }),
        fc.integer({ min: 1, max: 120 }),
        fc.constantFrom(1, 5, 15, 30, 60),
        fc.constantFrom(0, 30, 45, -60),
        (calendars, duration, step, offset) => {
          const free = commonFreeTime(calendars, { start: 0, end: HORIZON * MINUTE });
          const starts = slotStarts(free, {
            durationMs: duration * MINUTE,
            stepMs: step * MINUTE,
            alignOffsetMs: () => offset * MINUTE,
          });
          expect(starts).toEqual(bruteForce(calendars, duration, step, ((offset % step) + step) % step));
        },
      ),
      { numRuns: 400 },
    );
  });

  it('finds nothing for no calendars', () => {
    expect(commonFreeTime([], { start: 0, end: MINUTE })).toEqual([]);
  });
});
