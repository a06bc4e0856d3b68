import type { PaymentQuery } from '../../ports/payment-query.js';
import { PaymentUnavailableError } from '../../ports/payment-query.js';

/**
 * `--payments none` (production's default without a provider): nothing is asked and nothing is
 * simulated, so a priced booking cannot confirm (PAYMENT_UNAVAILABLE); free ones are not asked.
 */
export const noPayments: PaymentQuery = {
  queryPayment: () => Promise.reject(new PaymentUnavailableError('no payment provider is configured')),
};
