import type { Money } from '../../domain/booking/money.js';
import { seriesPrice, standingOccurrences } from '../../domain/booking/series.js';
import type { StoreTx } from '../../ports/store/index.js';
import { bookingsOfSet, newMoneyOf } from '../booking/change-set-intent.js';

/**
 * What is paid under a payment id: a booking's price, or — for a series (`ser_…`), paid once —
 * the sum of its occurrences still standing. Undefined when there is no such booking or series.
 */
export async function amountDue(
  tx: StoreTx,
  tenantId: string,
  paymentId: string,
): Promise<{ price: Money | null } | undefined> {
  if (paymentId.startsWith('ser_')) {
    const occurrences = standingOccurrences(await tx.bookings.ofSeries(tenantId, paymentId)).filter(
      (b) => !b.replaces,
    );
    return occurrences.length === 0 ? undefined : { price: seriesPrice(occurrences) };
  }
  if (paymentId.startsWith('chg_')) {
    const set = await tx.changeSets.get(tenantId, paymentId);
    return set ? { price: newMoneyOf(set, await bookingsOfSet(tx, set)) } : undefined;
  }
  const booking = await tx.bookings.get(tenantId, paymentId);
  return booking ? { price: booking.price } : undefined;
}
