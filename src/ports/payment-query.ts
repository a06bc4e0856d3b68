import type { PaymentReport } from '../domain/payment/payment.js';

/** Thrown when the provider cannot answer (timeout, network, bad response). */
export class PaymentUnavailableError extends Error {
  override readonly name = 'PaymentUnavailableError';
}

/** Read-only view of the payment provider; the booking id is the payment's query id. */
export interface PaymentQuery {
  queryPayment(bookingId: string, trace: { readonly traceId: string }): Promise<PaymentReport>;
}
