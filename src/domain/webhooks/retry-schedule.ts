import type { Instant } from '../time/instant.js';

/** Attempts per delivery round before the delivery counts as failed (about 21 hours). */
export const MAX_ATTEMPTS = 8;
const FIRST_RETRY_MS = 30_000;
const GROWTH = 4;
const MAX_RETRY_MS = 10 * 60 * 60_000;
/** Each wait is stretched or shrunk by up to this share, so a receiver that was down is not hit by every sender at once. */
const JITTER = 0.2;

/**
 * How long to wait after failed attempt `attempt` (1-based): 30 s, 2 min, 8 min, 32 min, 2 h 8 min,
 * 8 h 32 min, then 10 h, each times 1 ± 20 % (`random` in [0, 1); 0.5 means no jitter).
 */
export function retryDelayMs(attempt: number, random: number): number {
  const base = Math.min(FIRST_RETRY_MS * GROWTH ** (attempt - 1), MAX_RETRY_MS);
  return Math.round(base * (1 + (random * 2 - 1) * JITTER));
}

/** When attempt `attempt` (1-based) failed at `at`: when to try again, or null when the round is spent. */
export function nextAttemptAfterFailure(attempt: number, at: Instant, random: number): Instant | null {
  return attempt >= MAX_ATTEMPTS ? null : at + retryDelayMs(attempt, random);
}

/** A receiver accepted the event: any 2xx. Redirects are not followed, so a 3xx is a failure. */
export function accepted(statusCode: number | null): boolean {
  return statusCode !== null && statusCode >= 200 && statusCode < 300;
}
