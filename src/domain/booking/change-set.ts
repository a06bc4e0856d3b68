import { DomainError } from '../errors.js';
import type { Instant } from '../time/instant.js';
import type { Interval } from '../time/interval.js';
import { overlaps } from '../time/interval.js';

/**
 * A change set: several holds, moves and cancellations of one person's bookings proposed as one
 * intent, approved once, committed all together or not at all. Every new time is held when it is
 * proposed — directly, or, where it lies on a time another change of the set gives up (a swap),
 * by that booking itself until the commit hands it over in the same transaction.
 */
export const MAX_CHANGES = 20;

export type ChangeKind = 'hold' | 'move' | 'cancel';

export interface PlannedChange {
  readonly kind: ChangeKind;
  /** The booking a move or cancellation ends; null for a new hold. */
  readonly targetId: string | null;
  /** The hold standing for the new time (a new hold, or a move's replacement); null for a cancellation. */
  readonly holdId: string | null;
  readonly calendarIds: readonly string[];
  /** The new time (hold, move) or the time given up (cancel). */
  readonly start: Instant;
  readonly end: Instant;
  /** A move: where the booking is now. */
  readonly from: {
    readonly calendarIds: readonly string[];
    readonly start: Instant;
    readonly end: Instant;
  } | null;
  /** On a time another change of the set gives up: nothing held yet, the commit places it. */
  readonly deferred: boolean;
}

export type ChangeSetStatus = 'PROPOSED' | 'CONFIRMED' | 'ABANDONED';

export interface ChangeSet {
  readonly id: string;
  readonly tenantId: string;
  /** The person it acts for; only their bookings can be in it. */
  readonly subject: string;
  readonly status: ChangeSetStatus;
  readonly changes: readonly PlannedChange[];
  readonly version: number;
  readonly createdAt: Instant;
  readonly updatedAt: Instant;
}

/** Whether a new time lies on a time some other change of the set gives up, on a shared calendar. */
export function landsOnReleased(
  change: { readonly calendarIds: readonly string[] } & Interval,
  released: readonly ({ readonly id: string; readonly calendarIds: readonly string[] } & Interval)[],
  ownTarget: string | null,
): boolean {
  return released.some(
    (r) =>
      r.id !== ownTarget &&
      r.calendarIds.some((id) => change.calendarIds.includes(id)) &&
      overlaps(r, change),
  );
}

export function settle(set: ChangeSet, status: 'CONFIRMED' | 'ABANDONED', now: Instant): ChangeSet {
  if (set.status !== 'PROPOSED')
    throw new DomainError(
      'INVALID_STATE',
      `Change set ${set.id} is ${set.status}; only a proposed one can be ${status === 'CONFIRMED' ? 'confirmed' : 'abandoned'}.`,
      {
        status: set.status,
        requested: status,
      },
    );
  return { ...set, status, version: set.version + 1, updatedAt: now };
}
