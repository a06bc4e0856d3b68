import { DomainError } from '../../domain/errors.js';
import type { Person } from '../../domain/identity/identity.js';
import { mayApprove } from '../../domain/identity/identity.js';
import type { PaymentReport } from '../../domain/payment/payment.js';
import type { BookingLine } from './bookings.js';
import { bookingsOf } from './bookings.js';
import type { AppDeps } from '../deps.js';

/** Live holds a --dev simulator page lists at most. */
const SIMULATED_AT_ONCE = 100;

export interface SimulatedPaymentLine {
  readonly line: BookingLine;
  /** What the simulated provider reports now; null: nothing yet (PENDING). */
  readonly report: PaymentReport | null;
}

/**
 * Development only: the tenant's live priced holds and what the local payment simulator says of
 * each, for an owner or approver to play the customer paying (or failing to).
 */
export async function simulatedPayments(deps: AppDeps, person: Person): Promise<SimulatedPaymentLine[]> {
  requirePayer(person);
  const { items } = await bookingsOf(
    deps,
    person,
    { status: 'HELD' },
    { offset: 0, limit: SIMULATED_AT_ONCE },
  );
  const priced = items.filter((l) => l.booking.price !== null);
  return deps.store.read(async (tx) =>
    Promise.all(
      priced.map(async (line) => ({ line, report: await tx.simulatedPayments.get(line.booking.id) })),
    ),
  );
}

export function requirePayer(person: Person): void {
  if (!mayApprove(person))
    throw new DomainError('FORBIDDEN', 'Only owners and approvers use the payment simulator.');
}
