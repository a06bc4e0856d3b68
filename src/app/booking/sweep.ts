import type { AppDeps } from '../deps.js';
import { eraseByRetention } from './erase-customers.js';
import type { FollowUpResult } from '../payments/payment-follow-up.js';
import { followUpPayments } from '../payments/payment-follow-up.js';

export interface SweepResult {
  readonly expired: number;
  readonly purged: number;
  /** Expired authorization codes, refresh tokens, sessions and interactions removed. */
  readonly oauthRecords: number;
  readonly payments: FollowUpResult;
  /** Customers erased by their tenant's retention. */
  readonly customersErased: number;
}

/**
 * Frees lapsed holds, forgets idempotency records past their retention and expired OAuth
 * records (codes, refresh tokens, sessions, interactions), then follows up the
 * payments of lapsed priced holds (so late money is found even when no confirm ever comes), and
 * erases customers past their tenant's retention.
 */
export async function sweep(deps: AppDeps): Promise<SweepResult> {
  const now = deps.clock.now();
  const { expired, purged, oauthRecords } = await deps.store.write(async (tx) => ({
    expired: await tx.bookings.expireLapsed(now),
    purged: await tx.idempotency.purge(now),
    oauthRecords: await tx.oauth.sweep(now),
  }));
  const payments = await followUpPayments(deps);
  return { expired, purged, oauthRecords, payments, customersErased: await eraseByRetention(deps, now) };
}
