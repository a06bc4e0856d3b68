import type { Booking } from '../domain/booking/booking.js';
import type { Principal } from '../domain/calendar.js';

export interface GatedAction {
  readonly kind: 'confirm' | 'cancel';
  readonly booking: Booking;
  readonly principal: Principal;
}

/**
 * The seam where a gated write proves a human said yes (and, for confirm,
 * that payment cleared). It throws a DomainError to stop the write.
 */
export interface WriteGate {
  authorize(action: GatedAction): Promise<void>;
}

/** No approval or payment checks: the core issue's behaviour, and `direct` automation. */
export const openGate: WriteGate = {
  async authorize() {},
};
