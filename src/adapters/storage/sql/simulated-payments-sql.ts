import type { PaymentReport } from '../../../domain/payment/payment.js';
import type { Instant } from '../../../domain/time/instant.js';
import type { SimulatedPaymentStore } from '../../../ports/store/index.js';
import type { SqlRunner } from './sql-runner.js';

interface SimulatedPaymentRow {
  booking_id: string;
  status: PaymentReport['status'];
  amount: string | null;
  currency: string | null;
  paid_at: number | string | null;
}

export class SimulatedPaymentsSql implements SimulatedPaymentStore {
  constructor(private readonly db: SqlRunner) {}

  async get(bookingId: string): Promise<PaymentReport | null> {
    const [row] = await this.db.all<SimulatedPaymentRow>(
      'SELECT * FROM simulated_payments WHERE booking_id = ?',
      [bookingId],
    );
    if (!row) return null;
    return {
      bookingId: row.booking_id,
      status: row.status,
      amount: row.amount,
      currency: row.currency,
      paidAt: row.paid_at === null ? null : Number(row.paid_at),
    };
  }

  async set(report: PaymentReport, now: Instant): Promise<void> {
    await this.db.run(
      `INSERT INTO simulated_payments (booking_id, status, amount, currency, paid_at, updated_at) VALUES (?, ?, ?, ?, ?, ?)
       ON CONFLICT (booking_id) DO UPDATE SET status = excluded.status, amount = excluded.amount,
         currency = excluded.currency, paid_at = excluded.paid_at, updated_at = excluded.updated_at`,
      [report.bookingId, report.status, report.amount, report.currency, report.paidAt, now],
    );
  }
}
