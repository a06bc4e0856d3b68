import { bookingJson } from './bookings.js';
import { paymentStatuses } from '../../../domain/payment/payment.js';
import type { PaymentStatus } from '../../../domain/payment/payment.js';
import { formatInstant } from '../../../domain/time/instant.js';
import type { Runtime } from '../../runtime/compose.js';
import type { ServerConfig } from '../../config/config.js';
import { UsageError } from '../../config/usage-error.js';
import type { WriteCall } from '../../../app/idempotent.js';

type Print = (text: string) => void;

export async function payments(
  runtime: Runtime,
  config: ServerConfig,
  print: Print,
  call: WriteCall,
): Promise<number> {
  const [verb, bookingId, status] = config.rest;
  if ((verb === 'refund' || verb === 'refunded') && bookingId && status === undefined) {
    const { settleRefund } = await import('../../../app/payments/refunds.js');
    const settled = await settleRefund(
      runtime.deps,
      config.tenantId,
      bookingId,
      verb === 'refund' ? 'provider' : 'by-hand',
      'operator-cli',
      call,
    );
    const refund = settled.payment!.refund!;
    print(
      config.json
        ? JSON.stringify(bookingJson(settled))
        : `${refund.amount} ${refund.currency} of booking ${settled.reference} is recorded as returned` +
            (refund.providerReference ? ` (provider reference ${refund.providerReference}).` : '.'),
    );
    return 0;
  }
  if (verb !== 'set' || !bookingId || !paymentStatuses.includes(status as PaymentStatus)) {
    throw new UsageError(
      'usage: holdfast payments set BOOKING_ID PAID|FAILED|CLOSED|PENDING [--amount A --currency C] | refund BOOKING_ID | refunded BOOKING_ID',
    );
  }
  const money = { amount: config.options.amount, currency: config.options.currency };
  const report = await runtime.simulator.set(
    bookingId,
    status as PaymentStatus,
    runtime.deps.clock.now(),
    money,
    call.audit,
  );
  const json = { ...report, paidAt: report.paidAt === null ? null : formatInstant(report.paidAt) };
  print(
    config.json
      ? JSON.stringify(json)
      : `The simulated provider now reports ${report.status} for ${report.bookingId}` +
          (report.amount === null ? '.' : ` (${report.amount} ${report.currency}).`),
  );
  return 0;
}
