import type { Booking, ExternalKeys } from '../../domain/booking/booking.js';
import { isHoldLapsed } from '../../domain/booking/booking.js';
import { isUniqueKind, keyRowsOf, mergeKeys, withKeys } from '../../domain/booking/business-keys.js';
import { DomainError } from '../../domain/errors.js';
import type { Person } from '../../domain/identity/identity.js';
import { mayApprove } from '../../domain/identity/identity.js';
import type { StoreTx } from '../../ports/store/index.js';
import type { AppDeps } from '../deps.js';

export type KeyChange = Partial<Record<keyof ExternalKeys, string>>;

const fieldOfKind = {
  confirmation: 'confirmationNumber',
  group: 'groupCode',
  reservation: 'externalReservationNumber',
};

const isLive = (b: Booking, now: number) =>
  (b.status === 'HELD' && !isHoldLapsed(b, now)) || b.status === 'CONFIRMED';

/**
 * Refuses a confirmation or reservation number that a live booking (held or confirmed) other
 * than `bookingId` carries. Inside a write (`release`), a booking that ended lets go of the
 * number — its history keeps it — so a new booking may carry it.
 */
export async function requireKeysFree(
  tx: StoreTx,
  tenantId: string,
  change: KeyChange,
  bookingId: string | null,
  now: number,
  release = false,
): Promise<void> {
  for (const row of keyRowsOf(mergeKeys({}, change)).filter((r) => isUniqueKind(r.kind))) {
    for (const holder of await tx.inbox.bookingsWithKey(tenantId, row.kind, row.value)) {
      if (holder === bookingId) continue;
      const other = await tx.bookings.get(tenantId, holder);
      if (other && isLive(other, now))
        throw new DomainError(
          'INVALID_ARGUMENTS',
          `${fieldOfKind[row.kind]}: ${row.value} belongs to another booking`,
          { field: fieldOfKind[row.kind] },
        );
      if (release)
        await tx.inbox.replaceKeys(
          tenantId,
          holder,
          keyRowsOf(other?.externalKeys ?? {}).filter((r) => !(r.kind === row.kind && r.value === row.value)),
        );
    }
  }
}

/**
 * Gives a booking business keys inside the caller's write, checked under a per-tenant lock (the
 * unique index is the last line of defence).
 */
export async function setKeysIn(
  deps: AppDeps,
  tx: StoreTx,
  booking: Booking,
  change: KeyChange,
  expectedVersion: number,
): Promise<Booking> {
  const keys = mergeKeys(booking.externalKeys, change);
  await tx.serialize(`booking-keys:${booking.tenantId}`);
  const now = deps.clock.now();
  await requireKeysFree(tx, booking.tenantId, keys as KeyChange, booking.id, now, true);
  const next = withKeys(booking, keys, expectedVersion, now);
  await tx.bookings.update(next);
  await tx.inbox.replaceKeys(booking.tenantId, booking.id, keyRowsOf(keys));
  return next;
}

/** A person sets a booking's business keys in the console: owners and approvers, at the version shown. */
export async function setKeysAs(
  deps: AppDeps,
  person: Person,
  bookingId: string,
  change: KeyChange,
  expectedVersion: number,
): Promise<Booking> {
  if (!mayApprove(person))
    throw new DomainError('FORBIDDEN', 'Only owners and approvers may change business keys.', {});
  return deps.store.write(async (tx) => {
    const booking = await tx.bookings.get(person.tenantId, bookingId);
    if (!booking) throw new DomainError('NOT_FOUND', `No booking ${bookingId}.`, {});
    return setKeysIn(deps, tx, booking, change, expectedVersion);
  });
}
