import type { Booking } from '../domain/booking/booking.js';
import {
  cancelBooking as cancelDomain,
  confirmHold,
  releaseHold as releaseDomain,
} from '../domain/booking/booking.js';
import type { Principal } from '../domain/calendar.js';
import { requireWriter } from './authorize.js';
import type { AppDeps } from './deps.js';
import type { Outcome } from './idempotent.js';
import { idempotent } from './idempotent.js';
import type { BookingSnapshot } from './snapshot.js';
import { loadBooking, snapshotOf } from './snapshot.js';

export interface ChangeBookingInput {
  readonly bookingId: string;
  readonly expectedVersion: number;
  readonly idempotencyKey: string;
}

type Change = (booking: Booking, expectedVersion: number, now: number) => Booking;

async function changeBooking(
  deps: AppDeps,
  principal: Principal,
  tool: string,
  input: ChangeBookingInput,
  change: Change,
  gated?: 'confirm' | 'cancel',
): Promise<Outcome<BookingSnapshot>> {
  requireWriter(principal);
  const outcome = await deps.store.write((tx) =>
    idempotent(deps, tx, principal, tool, input.idempotencyKey, input, async () => {
      const now = deps.clock.now();
      const booking = await loadBooking(tx, principal.tenantId, input.bookingId);
      if (gated) await deps.gate.authorize({ kind: gated, booking, principal });
      const next = change(booking, input.expectedVersion, now);
      await tx.updateBooking(next);
      return snapshotOf(tx, next);
    }),
  );
  deps.slotCache.invalidate(principal.tenantId, outcome.value.booking.calendarIds);
  return outcome;
}

export function releaseHold(deps: AppDeps, principal: Principal, input: ChangeBookingInput) {
  return changeBooking(deps, principal, 'release_hold', input, releaseDomain);
}

export function confirmBooking(deps: AppDeps, principal: Principal, input: ChangeBookingInput) {
  return changeBooking(deps, principal, 'confirm_booking', input, confirmHold, 'confirm');
}

export function cancelBooking(deps: AppDeps, principal: Principal, input: ChangeBookingInput) {
  return changeBooking(deps, principal, 'cancel_booking', input, cancelDomain, 'cancel');
}
