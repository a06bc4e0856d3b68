import type { PaymentReport, PaymentStatus } from '../../domain/payment/payment.js';
import type { PaymentQuery } from '../../ports/payment-query.js';
import type { SqliteDb } from '../storage/sqlite/sqlite-database.js';

interface Row {
  booking_id: string;
  status: PaymentStatus;
  amount: string | null;
  currency: string | null;
  paid_at: number | null;
}

/**
 * A local stand-in for a payment provider, kept in the Holdfast database.
 * A booking with no record is PENDING. Set with `holdfast payments set`.
 */
export class SimulatedPayments implements PaymentQuery {
  constructor(private readonly db: SqliteDb) {}

  async queryPayment(bookingId: string): Promise<PaymentReport> {
    const row = this.db.prepare('SELECT * FROM simulated_payments WHERE booking_id = ?').get(bookingId) as
      Row | undefined;
    if (!row) return { bookingId, status: 'PENDING', amount: null, currency: null, paidAt: null };
    return {
      bookingId: row.booking_id,
      status: row.status,
      amount: row.amount,
      currency: row.currency,
      paidAt: row.paid_at,
    };
  }

  /** Records what the simulated provider will report; amount and currency default to the booking's price. */
  set(
    bookingId: string,
    status: PaymentStatus,
    now: number,
    money?: { amount?: string; currency?: string },
  ): PaymentReport {
    const price = this.db
      .prepare('SELECT price_amount AS amount, price_currency AS currency FROM bookings WHERE id = ?')
      .get(bookingId) as { amount: string | null; currency: string | null } | undefined;
    if (!price) throw new Error(`No booking ${bookingId}`);
    const report: PaymentReport = {
      bookingId,
      status,
      amount: money?.amount ?? price.amount,
      currency: money?.currency ?? price.currency,
      paidAt: status === 'PAID' ? now : null,
    };
    this.db
      .prepare(
        `INSERT INTO simulated_payments (booking_id, status, amount, currency, paid_at, updated_at) VALUES (?, ?, ?, ?, ?, ?)
         ON CONFLICT (booking_id) DO UPDATE SET status = excluded.status, amount = excluded.amount,
           currency = excluded.currency, paid_at = excluded.paid_at, updated_at = excluded.updated_at`,
      )
      .run(bookingId, status, report.amount, report.currency, report.paidAt, now);
    return report;
  }
}
