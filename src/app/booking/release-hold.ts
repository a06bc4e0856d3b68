import { releaseHold as releaseDomain } from '../../domain/booking/booking.js';
import type { Principal } from '../../domain/identity/principal.js';
import { requireWriter } from '../authorize.js';
import type { AppDeps } from '../deps.js';
import type { Outcome, WriteCall } from '../idempotent.js';
import { idempotent } from '../idempotent.js';
import type { BookingSnapshot } from './snapshot.js';
import { loadOwnBooking, snapshotOf, snapshotStorage } from './snapshot.js';

export interface ReleaseHoldInput {
  readonly bookingId: string;
  readonly expectedVersion: number;
  readonly idempotencyKey: string;
}

/** release_hold: not gated — giving time back never needs a person's yes. */
export async function releaseHold(
  deps: AppDeps,
  principal: Principal,
  input: ReleaseHoldInput,
  call: WriteCall = {},
): Promise<Outcome<BookingSnapshot>> {
  requireWriter(principal, 'draft');
  const outcome = await deps.store.write((tx) =>
    idempotent(
      deps,
      tx,
      {
        principal,
        tool: 'release_hold',
        key: input.idempotencyKey,
        args: input,
        audit: call.audit,
        storage: snapshotStorage,
      },
      async () => {
        const booking = await loadOwnBooking(tx, principal, input.bookingId);
        const next = releaseDomain(booking, input.expectedVersion, deps.clock.now());
        await tx.bookings.update(next);
        return snapshotOf(tx, next);
      },
    ),
  );
  deps.slotCache.invalidate(principal.tenantId, outcome.value.booking.calendarIds);
  return outcome;
}
