import { amountDue } from '../../app/payments/amount-due.js';
import { DomainError } from '../../domain/errors.js';
import type { PaymentReport, PaymentStatus } from '../../domain/payment/payment.js';
import type { EffectAudit } from '../../ports/audit.js';
import type { PaymentQuery, PaymentRefunds, RefundReceipt } from '../../ports/payment-query.js';
import type { Store } from '../../ports/store/index.js';

/**
 * A local stand-in for a payment provider, kept in the Holdfast database.
 * A booking with no record is PENDING. Set with `holdfast payments set`.
 */
export class SimulatedPayments implements PaymentQuery, PaymentRefunds {
  constructor(
    private readonly store: Store,
    private readonly tenantId: string,
  ) {}

  async queryPayment(bookingId: string): Promise<PaymentReport> {
    const report = await this.store.read((tx) => tx.simulatedPayments.get(bookingId));
    return report ?? { bookingId, status: 'PENDING', amount: null, currency: null, paidAt: null };
  }

  /** The simulated provider refunds at once; the booking id keys the refund, as a real one would. */
  requestRefund(bookingId: string): Promise<RefundReceipt> {
    return Promise.resolve({ reference: `sim-refund-${bookingId}` });
  }

  /** Records what the simulated provider will report; amount and currency default to the booking's price. */
  set(
    bookingId: string,
    status: PaymentStatus,
    now: number,
    money?: { amount?: string; currency?: string },
    audit?: EffectAudit,
    tenantId: string = this.tenantId,
  ): Promise<PaymentReport> {
    return this.store.write(async (tx) => {
      const due = await amountDue(tx, tenantId, bookingId);
      if (!due) throw new DomainError('NOT_FOUND', `No booking ${bookingId}.`, { bookingId });
      const report: PaymentReport = {
        bookingId,
        status,
        amount: money?.amount ?? due.price?.amount ?? null,
        currency: money?.currency ?? due.price?.currency ?? null,
        paidAt: status === 'PAID' ? now : null,
      };
      await tx.simulatedPayments.set(report, now);
      await audit?.recordIn(tx);
      return report;
    });
  }
}
