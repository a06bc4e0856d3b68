import { randomBytes } from 'node:crypto';
import { z } from 'zod';
import type { PaymentReport } from '../../domain/payment/payment.js';
import { paymentStatuses } from '../../domain/payment/payment.js';
import type { PaymentQuery, PaymentRefunds, RefundReceipt } from '../../ports/payment-query.js';
import { PaymentUnavailableError } from '../../ports/payment-query.js';
import type { Span } from '@opentelemetry/api';
import type { OutboundFetch } from '../net/outbound-guard.js';
import { SERVER_REQUEST_SENT_AT, SERVER_RESPONDED_AT } from '../telemetry/timing-headers.js';
import { inSpan, outgoingTraceHeaders, SpanKind } from '../telemetry/tracing.js';
import type { Logger } from '../log/logger.js';
import { silentLogger } from '../log/logger.js';

// The payment contract: a PAID answer says when it was paid. Without it the answer is not one
// Holdfast can act on (it would stamp the booking with its own clock): the provider is treated
// as unavailable, so the hold stays and the agent's retry asks again.
const reportSchema = z
  .object({
    bookingId: z.string(),
    status: z.enum(paymentStatuses),
    amount: z.string().nullable(),
    currency: z.string().nullable(),
    paidAt: z.iso.datetime({ offset: true }).nullable(),
  })
  .refine((report) => report.status !== 'PAID' || report.paidAt !== null, { path: ['paidAt'] });

const refundSchema = z.object({ reference: z.string().min(1).max(200) });

/**
 * Queries `GET {baseUrl}/payments/{bookingId}` with a W3C traceparent, a
 * timeout, and a validated answer. Anything else is PaymentUnavailableError.
 */
export class HttpPayments implements PaymentQuery, PaymentRefunds {
  constructor(
    private readonly baseUrl: string,
    /** The outbound guard's fetch, unless the operator allowed a provider on a private network. */
    private readonly fetch: OutboundFetch,
    private readonly timeoutMs = 3_000,
    private readonly logger: Logger = silentLogger,
  ) {}

  queryPayment(bookingId: string, trace: { readonly traceId: string }): Promise<PaymentReport> {
    return inSpan(
      'payment.query',
      { kind: SpanKind.CLIENT, attributes: { 'http.request.method': 'GET' } },
      (span) => this.query(bookingId, trace, span),
    );
  }

  /**
   * `POST {baseUrl}/payments/{bookingId}/refunds` with the amount, keyed by the booking id
   * (`Idempotency-Key`): asked twice, the provider refunds once. Answers `{ "reference": "..." }`.
   */
  requestRefund(
    bookingId: string,
    money: { readonly amount: string; readonly currency: string },
    trace: { readonly traceId: string },
  ): Promise<RefundReceipt> {
    return inSpan(
      'payment.refund',
      { kind: SpanKind.CLIENT, attributes: { 'http.request.method': 'POST' } },
      async (span) => {
        const body = await this.call(`${encodeURIComponent(bookingId)}/refunds`, trace, span, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'idempotency-key': `refund:${bookingId}` },
          body: JSON.stringify(money),
        });
        const parsed = refundSchema.safeParse(body);
        if (!parsed.success) throw new PaymentUnavailableError('payment provider sent an unexpected answer');
        return { reference: parsed.data.reference };
      },
    );
  }

  private async query(
    bookingId: string,
    trace: { readonly traceId: string },
    span: Span,
  ): Promise<PaymentReport> {
    const body = await this.call(encodeURIComponent(bookingId), trace, span, {
      headers: { [SERVER_REQUEST_SENT_AT]: new Date().toISOString() },
    });
    const parsed = reportSchema.safeParse(body);
    if (!parsed.success) throw new PaymentUnavailableError('payment provider sent an unexpected answer');
    const report = parsed.data;
    return { ...report, paidAt: report.paidAt === null ? null : Date.parse(report.paidAt) };
  }

  /**
   * One request to `{baseUrl}/payments/{path}` with the trace propagated and a timeout; the JSON
   * answer, or PaymentUnavailableError for anything else (HTTP error, timeout, unreachable).
   */
  private async call(
    path: string,
    trace: { readonly traceId: string },
    span: Span,
    init: { method?: string; headers: Record<string, string>; body?: string },
  ): Promise<unknown> {
    const url = `${this.baseUrl.replace(/\/+$/, '')}/payments/${path}`;
    const sentAt = Date.now();
    try {
      // This span's traceparent; without a tracer (no provider), one in the caller's trace id.
      const propagated = outgoingTraceHeaders();
      const response = await this.fetch(url, {
        ...init,
        headers: {
          accept: 'application/json',
          traceparent: propagated.traceparent ?? `00-${trace.traceId}-${randomBytes(8).toString('hex')}-01`,
          ...(propagated.tracestate ? { tracestate: propagated.tracestate } : {}),
          ...init.headers,
        },
        signal: AbortSignal.timeout(this.timeoutMs),
      });
      // When the provider answered (its own claim, if it makes one) and when the answer arrived.
      const receivedAt = new Date().toISOString();
      const answeredAt = response.headers.get(SERVER_RESPONDED_AT)?.slice(0, 40) ?? null;
      span.setAttribute('http.response.status_code', response.status);
      span.setAttribute('holdfast.payment.received_at', receivedAt);
      if (answeredAt) span.setAttribute('holdfast.payment.responded_at', answeredAt);
      this.logger.info('payment provider answered', {
        call: init.method === 'POST' ? 'refund' : 'query',
        status: response.status,
        trace_id: trace.traceId,
        provider_responded_at: answeredAt,
        received_at: receivedAt,
        ms: Date.now() - sentAt,
      });
      if (!response.ok)
        throw new PaymentUnavailableError(`payment provider answered HTTP ${response.status}`);
      return await response.json();
    } catch (error) {
      if (error instanceof PaymentUnavailableError) throw error;
      const reason = error instanceof Error && error.name === 'TimeoutError' ? 'timeout' : 'unreachable';
      this.logger.warn('payment provider did not answer', {
        reason,
        trace_id: trace.traceId,
        ms: Date.now() - sentAt,
      });
      throw new PaymentUnavailableError(reason);
    }
  }
}
