import { describe, expect, it } from 'vitest';
import { cellLocks } from '../../../src/adapters/storage/postgres/pg-bookings.js';

// The advisory locks a PostgreSQL hold takes before inserting its allocations: two holds that
// could overlap always share a key (so they queue instead of deadlocking on the exclusion
// constraint), every hold takes its keys in one global order, and holds of other hours or
// calendars share none.

const DAY = 86_400_000;
const at = (day: number, hour: number) => Date.UTC(2026, 11, day, hour);

describe('cell locks of a PostgreSQL hold', () => {
  it('are in ascending order, one per calendar and UTC hour covered', () => {
    const keys = cellLocks('local', ['cal_a', 'cal_b'], at(3, 22), at(4, 2) + 30 * 60_000).map(BigInt);
    expect(keys).toHaveLength(10);
    expect([...keys].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0))).toEqual(keys);
    for (const k of keys) expect(k >= -(2n ** 63n) && k < 2n ** 63n).toBe(true);
  });

  it('overlapping holds share a key whatever their calendars’ order; other hours and calendars do not', () => {
    const one = cellLocks('local', ['cal_a', 'cal_b'], at(3, 9), at(3, 10));
    const other = cellLocks('local', ['cal_b'], at(3, 9) + 30 * 60_000, at(3, 11));
    expect(one.filter((k) => other.includes(k))).toHaveLength(1);
    expect(cellLocks('local', ['cal_b', 'cal_a'], at(3, 9), at(3, 10))).toEqual(one);
    expect(cellLocks('local', ['cal_a'], at(3, 10), at(3, 11)).filter((k) => one.includes(k))).toEqual([]);
    expect(cellLocks('other', ['cal_a'], at(3, 9), at(3, 10)).filter((k) => one.includes(k))).toEqual([]);
    // A hold ending on the hour does not reach into the next hour's cell.
    expect(cellLocks('local', ['cal_a'], at(3, 23), at(4, 0))).toHaveLength(1);
  });

  it('a very long hold locks its calendars whole, with one key each', () => {
    expect(cellLocks('local', ['cal_a', 'cal_b'], at(1, 0), at(1, 0) + 90 * DAY)).toHaveLength(2);
  });
});
