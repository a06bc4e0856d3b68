import type { Instant } from '../time/instant.js';

const DAY_MS = 24 * 60 * 60_000;

/** When a subscription is switched off because its receiver keeps failing. */
export interface FailurePolicy {
  /** Consecutive events whose every attempt failed. */
  readonly failedEvents: number;
  /** Every attempt failing for this long. */
  readonly failingForMs: number;
}

export const defaultFailurePolicy: FailurePolicy = { failedEvents: 5, failingForMs: 3 * DAY_MS };

/** How a subscription's receiver has fared since its last success. */
export interface FailureRecord {
  /** The first failed attempt since the last success; null when the last attempt succeeded. */
  readonly failingSince: Instant | null;
  /** Events in a row that spent all their attempts without a success. */
  readonly failedEvents: number;
}

/** Why the subscription must be disabled now, in words for `webhooks list`; null while it may go on. */
export function disableReason(record: FailureRecord, now: Instant, policy: FailurePolicy): string | null {
  if (record.failedEvents >= policy.failedEvents)
    return `${record.failedEvents} events in a row failed every delivery attempt`;
  if (record.failingSince !== null && now - record.failingSince >= policy.failingForMs)
    return `every delivery attempt failed for ${Math.floor((now - record.failingSince) / DAY_MS)} days`;
  return null;
}
