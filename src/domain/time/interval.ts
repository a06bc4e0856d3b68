import type { Instant } from './instant.js';

/** A half-open range [start, end) of instants. */
export interface Interval {
  readonly start: Instant;
  readonly end: Instant;
}

export function overlaps(a: Interval, b: Interval): boolean {
  return a.start < b.end && b.start < a.end;
}

/** Sorts, drops empty intervals and merges touching or overlapping ones. */
export function normalize(intervals: readonly Interval[]): Interval[] {
  const sorted = intervals.filter((i) => i.end > i.start).sort((a, b) => a.start - b.start);
  const merged: Interval[] = [];
  for (const current of sorted) {
    const last = merged[merged.length - 1];
    if (last && current.start <= last.end) {
      merged[merged.length - 1] = { start: last.start, end: Math.max(last.end, current.end) };
    } else {
      merged.push(current);
    }
  }
  return merged;
}

/** Intersection of two normalized lists. */
export function intersect(a: readonly Interval[], b: readonly Interval[]): Interval[] {
  const out: Interval[] = [];
  let i = 0;
  let j = 0;
  while (i < a.length && j < b.length) {
    const x = a[i]!;
    const y = b[j]!;
    const start = Math.max(x.start, y.start);
    const end = Math.min(x.end, y.end);
    if (start < end) out.push({ start, end });
    if (x.end < y.end) i++;
    else j++;
  }
  return out;
}

/** Parts of a normalized list not covered by any interval of `remove` (any order). */
export function subtract(from: readonly Interval[], remove: readonly Interval[]): Interval[] {
  const holes = normalize(remove);
  const out: Interval[] = [];
  for (const piece of from) {
    let cursor = piece.start;
    for (const hole of holes) {
      if (hole.end <= cursor) continue;
      if (hole.start >= piece.end) break;
      if (hole.start > cursor) out.push({ start: cursor, end: hole.start });
      cursor = Math.max(cursor, hole.end);
      if (cursor >= piece.end) break;
    }
    if (cursor < piece.end) out.push({ start: cursor, end: piece.end });
  }
  return out;
}

export function clip(intervals: readonly Interval[], range: Interval): Interval[] {
  return intersect(normalize(intervals), [range]);
}
