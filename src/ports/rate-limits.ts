/** Counters over a window, shared by every instance that shares the database. */
export interface RateLimits {
  /**
   * Takes one point from `key`'s budget of `points` per `windowMs`. `ok` false when the budget is
   * spent; `retryAfterMs` is when a point comes back.
   */
  take(key: string, points: number, windowMs: number): Promise<{ ok: boolean; retryAfterMs: number }>;
  /** Whether `key`'s budget is spent, without taking from it. */
  check(key: string, points: number, windowMs: number): Promise<{ ok: boolean; retryAfterMs: number }>;
  /** Forgets a key (a successful sign-in clears its failures). */
  reset(key: string, points: number, windowMs: number): Promise<void>;
}
