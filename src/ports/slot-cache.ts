import type { Instant } from '../domain/time/instant.js';

/**
 * Remembers computed slot starts for a query. Entries are dropped when a write
 * touches one of their calendars, never served past the cache's age bound, nor past the moment
 * a hold they counted lapses (its time frees up without any write).
 */
export interface SlotCache {
  /** A token to take before reading, so a result computed from older data is never stored after an invalidation. */
  generation(tenantId: string): number;
  /**
   * The starts stored under `key` for the tenant; undefined when there are none, or they are too old at
   * `now`.
   */
  get(tenantId: string, key: string, now: Instant): Instant[] | undefined;
  /**
   * Stores starts under `key`, unless the tenant's generation moved since `generation` was taken (then
   * nothing is kept); `calendarIds` are the calendars whose writes drop it.
   */
  set(entry: {
    tenantId: string;
    key: string;
    calendarIds: readonly string[];
    starts: Instant[];
    now: Instant;
    generation: number;
    /** A hold they counted lapses then: never served from that moment on (null/absent: none). */
    until?: Instant | null;
  }): void;
  /** Forget every entry of the tenant that involves any of these calendars (all of the tenant's when omitted). */
  invalidate(tenantId: string, calendarIds?: readonly string[]): void;
}

export const noSlotCache: SlotCache = {
  generation: () => 0,
  get: () => undefined,
  set() {},
  invalidate() {},
};
