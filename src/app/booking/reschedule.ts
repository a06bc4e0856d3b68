import type { Booking } from '../../domain/booking/booking.js';
import { effectiveStatus } from '../../domain/booking/booking.js';
import { samePrice, sumPrices } from '../../domain/booking/money.js';
import type { Principal } from '../../domain/identity/principal.js';
import { DomainError, invalidArgument } from '../../domain/errors.js';
import type { Customer } from '../../domain/booking/booking.js';
import { requireWriter } from '../authorize.js';
import type { AppDeps } from '../deps.js';
import type { IdempotentCall, Outcome, WriteCall } from '../idempotent.js';
import { findReplay } from '../idempotent.js';
import type { HoldSlotInput } from './hold-slot.js';
import { holdSlot } from './hold-slot.js';
import type { BookingSnapshot } from './snapshot.js';
import { loadCalendars, loadOwnBooking, snapshotStorage } from './snapshot.js';

export interface RescheduleInput {
  readonly bookingId: string;
  readonly start: string;
  readonly end: string;
  /** The calendars after the move; the booking's own when left out. */
  readonly calendarIds?: readonly string[];
  readonly idempotencyKey: string;
}

/**
 * reschedule_booking: holds the new time (same rules, all calendars or none) as a replacement
 * hold while the confirmed booking keeps its time. Confirming the replacement (confirm_booking,
 * approved by a person who sees old → new) swaps them in one transaction; releasing it, or
 * letting it lapse, leaves the booking as it was.
 */
export async function rescheduleBooking(
  deps: AppDeps,
  principal: Principal,
  input: RescheduleInput,
  call: WriteCall = {},
): Promise<Outcome<BookingSnapshot>> {
  requireWriter(principal, 'draft');
  const calendarIds = input.calendarIds ?? null;
  const { booking, price, held } = await deps.store.read(async (tx) => {
    const booking = await loadOwnBooking(tx, principal, input.bookingId);
    const calendars = await loadCalendars(tx, principal.tenantId, calendarIds ?? booking.calendarIds);
    const held = await tx.bookings.allocationsOf(principal.tenantId, booking.id);
    return { booking, price: sumPrices(calendars.map((c) => c.price)), held };
  });
  const hold: HoldSlotInput = {
    calendarIds: calendarIds ?? booking.calendarIds,
    start: input.start,
    end: input.end,
    ...(booking.customer ? { customer: booking.customer as Customer } : {}),
    ...(booking.label ? { label: booking.label } : {}),
    idempotencyKey: input.idempotencyKey,
  };
  try {
    requireMovable(booking, deps.clock.now());
    if (!samePrice(price, booking.price))
      throw invalidArgument('calendarIds', 'a move keeps the price; to change it, cancel and book anew');
  } catch (error) {
    // A retry of a move that was made (and maybe confirmed since) replays it.
    const record: IdempotentCall<BookingSnapshot> = {
      principal,
      tool: 'reschedule_booking',
      key: input.idempotencyKey,
      args: hold,
      argumentsDigest: call.argumentsDigest,
      audit: call.audit,
      storage: snapshotStorage,
    };
    const replay = await deps.store.read((tx) => findReplay(deps, tx, record));
    if (replay) return replay;
    throw error;
  }
  return holdSlot(deps, principal, hold, call, { booking, held });
}

/** A confirmed booking that has not begun: one that took place cannot become a new one. */
export function requireMovable(booking: Booking, now: number): void {
  const status = effectiveStatus(booking, now);
  if (status !== 'CONFIRMED')
    throw new DomainError(
      'INVALID_STATE',
      status === 'HELD'
        ? 'Only a confirmed booking is moved this way; release this hold and hold the new time.'
        : `Booking ${booking.id} is ${status}; only a confirmed booking can be moved.`,
      { bookingId: booking.id, status, requested: 'CONFIRMED' },
    );
  if (booking.start <= now)
    throw new DomainError(
      'INVALID_STATE',
      `Booking ${booking.id} has begun; only a booking still ahead can be moved.`,
      {
        bookingId: booking.id,
        status,
      },
    );
}
