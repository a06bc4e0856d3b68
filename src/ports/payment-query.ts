import type { PaymentReport } from '../domain/payment/payment.js';

/** Thrown when the provider cannot answer (timeout, network, bad response). */
export class PaymentUnavailableError extends Error {
  override readonly name = 'PaymentUnavailableError';
}

/** Read-only view of the payment provider; the booking id is the payment's query id. */
export interface PaymentQuery {
  /**
   * What the provider reports about the booking's payment (status, amount, currency, when paid);
   * PaymentUnavailableError when it cannot answer.
   */
  queryPayment(bookingId: string, trace: { readonly traceId: string }): Promise<PaymentReport>;
}

/** A refund the provider accepted: its reference, to find it again in the provider's records. */
export interface RefundReceipt {
  readonly reference: string;
}

/**
 * A provider that can also give money back. Optional: with a query-only provider, a person
 * returns the money outside Holdfast and records it. The booking id keys the refund, so asking
 * twice for the same booking returns the same refund.
 */
export interface PaymentRefunds {
  /**
   * Asks the provider to give `money` back for the booking; its receipt, or PaymentUnavailableError when it
   * cannot answer.
   */
  requestRefund(
    bookingId: string,
    money: { readonly amount: string; readonly currency: string },
    trace: { readonly traceId: string },
  ): Promise<RefundReceipt>;
}

export function canRefund(payments: PaymentQuery): payments is PaymentQuery & PaymentRefunds {
  return typeof (payments as Partial<PaymentRefunds>).requestRefund === 'function';
}
