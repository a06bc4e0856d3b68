import { randomBytes } from 'node:crypto';
import { z } from 'zod';
import type { PaymentReport } from '../../domain/payment/payment.js';
import { paymentStatuses } from '../../domain/payment/payment.js';
import type { PaymentQuery } from '../../ports/payment-query.js';
import { PaymentUnavailableError } from '../../ports/payment-query.js';

const reportSchema = z.object({
  bookingId: z.string(),
  status: z.enum(paymentStatuses),
  amount: z.string().nullable(),
  currency: z.string().nullable(),
  paidAt: z.iso.datetime({ offset: true }).nullable(),
});

/**
 * Queries `GET {baseUrl}/payments/{bookingId}` with a W3C traceparent, a
 * timeout, and a validated answer. Anything else is PaymentUnavailableError.
 */
export class HttpPayments implements PaymentQuery {
  constructor(
    private readonly baseUrl: string,
    private readonly timeoutMs = 3_000,
  ) {}

  async queryPayment(bookingId: string, trace: { readonly traceId: string }): Promise<PaymentReport> {
    const url = `${this.baseUrl.replace(/\/+$/, '')}/payments/${encodeURIComponent(bookingId)}`;
    let body: unknown;
    try {
      const response = await fetch(url, {
        headers: {
          accept: 'application/json',
          traceparent: `00-${trace.traceId}-${randomBytes(8).toString('hex')}-01`,
        },
        signal: AbortSignal.timeout(this.timeoutMs),
      });
      if (!response.ok)
        throw new PaymentUnavailableError(`payment provider answered HTTP ${response.status}`);
      body = await response.json();
    } catch (error) {
      if (error instanceof PaymentUnavailableError) throw error;
      throw new PaymentUnavailableError(
        error instanceof Error && error.name === 'TimeoutError' ? 'timeout' : 'unreachable',
      );
    }
    const parsed = reportSchema.safeParse(body);
    if (!parsed.success) throw new PaymentUnavailableError('payment provider sent an unexpected answer');
    const report = parsed.data;
    return { ...report, paidAt: report.paidAt === null ? null : Date.parse(report.paidAt) };
  }
}
