import type { PaymentReport } from '../../domain/payment/payment.js';
import type { PaymentQuery } from '../../ports/payment-query.js';
import { canRefund, PaymentUnavailableError } from '../../ports/payment-query.js';
import type { CallMetrics } from './metrics.js';

/** The payment query, counting what the provider said: its status, or `unavailable`. Refunds pass through. */
export function meteredPayments(inner: PaymentQuery, metrics: CallMetrics): PaymentQuery {
  return {
    ...(canRefund(inner) ? { requestRefund: inner.requestRefund.bind(inner) } : {}),
    async queryPayment(bookingId: string, trace: { readonly traceId: string }): Promise<PaymentReport> {
      try {
        const report = await inner.queryPayment(bookingId, trace);
        metrics.paymentQueried(report.status);
        return report;
      } catch (error) {
        metrics.paymentQueried(error instanceof PaymentUnavailableError ? 'unavailable' : 'error');
        throw error;
      }
    },
  };
}
