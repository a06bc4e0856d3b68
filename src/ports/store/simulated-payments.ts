import type { PaymentReport } from '../../domain/payment/payment.js';
import type { Instant } from '../../domain/time/instant.js';

/** The local payment simulator's state, kept beside the bookings (development and tests). */
export interface SimulatedPaymentStore {
  /** What the simulated provider reports for a booking; null: nothing yet (PENDING). */
  get(bookingId: string): Promise<PaymentReport | null>;
  /** Sets (or replaces) what it reports. */
  set(report: PaymentReport, now: Instant): Promise<void>;
}
