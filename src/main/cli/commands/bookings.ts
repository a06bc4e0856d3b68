import { sweep } from '../../../app/booking/sweep.js';
import { table } from '../../../adapters/format/index.js';
import type { Booking } from '../../../domain/booking/booking.js';
import { formatInstant } from '../../../domain/time/instant.js';
import type { Runtime } from '../../runtime/compose.js';
import type { ServerConfig } from '../../config/config.js';

type Print = (text: string) => void;

/** Expires lapsed holds, purges old idempotency records and follows up lapsed priced holds' payments. */
export async function sweepOnce(runtime: Runtime, config: ServerConfig, print: Print): Promise<number> {
  const r = await sweep(runtime.deps);
  print(
    config.json
      ? JSON.stringify(r)
      : `Expired ${r.expired} lapsed hold(s), purged ${r.purged} idempotency record(s) and ${r.oauthRecords} expired OAuth record(s); asked the payment provider about ${r.payments.asked} lapsed priced hold(s): ${r.payments.flagged} paid (flagged for reconciliation), ${r.payments.ended} settled; erased ${r.customersErased} customer(s) past their tenant's retention.`,
  );
  return 0;
}

export function bookingJson(b: Booking) {
  return {
    id: b.id,
    reference: b.reference,
    status: b.status,
    start: formatInstant(b.start),
    end: formatInstant(b.end),
    price: b.price,
    payment: b.payment && {
      status: b.payment.status,
      paidAt: b.payment.paidAt === null ? null : formatInstant(b.payment.paidAt),
      reconciliationRequired: b.payment.reconciliationRequired ?? false,
      refund: b.payment.refund
        ? {
            ...b.payment.refund,
            dueAt: formatInstant(b.payment.refund.dueAt),
            ...(b.payment.refund.returnedAt
              ? { returnedAt: formatInstant(b.payment.refund.returnedAt) }
              : {}),
          }
        : null,
    },
  };
}

/**
 * Money a person must settle: bookings paid after their hold lapsed (money without time), and
 * cancelled paid bookings whose money is owed back. A sweep runs first, so a lapse nobody noticed
 * yet is found too.
 */
export async function reconciliation(runtime: Runtime, config: ServerConfig, print: Print): Promise<number> {
  await sweep(runtime.deps);
  const bookings = await runtime.store.read(async (tx) => [
    ...(await tx.bookings.toReconcile(config.tenantId)),
    ...(await tx.bookings.toRefund(config.tenantId)),
  ]);
  if (config.json) print(JSON.stringify(bookings.map(bookingJson), null, 2));
  else if (bookings.length === 0) print('Nothing to reconcile.');
  else
    print(
      table(
        ['BOOKING', 'REFERENCE', 'STATUS', 'PAID', 'AT', 'WHAT TO DO'],
        bookings.map((b) => [
          b.id,
          b.reference,
          b.status,
          `${b.price?.amount} ${b.price?.currency}`,
          b.payment?.paidAt ? formatInstant(b.payment.paidAt) : '',
          b.payment?.refund
            ? `cancelled: return ${b.payment.refund.amount} ${b.payment.refund.currency} (holdfast payments refund|refunded ${b.id})`
            : 'reconciliation required: refund, or book the time again for the customer',
        ]),
      ),
    );
  return 0;
}
