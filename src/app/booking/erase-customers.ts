import { customerKey } from '../../domain/availability/booking-rules.js';
import { DomainError, invalidArgument } from '../../domain/errors.js';
import type { Person } from '../../domain/identity/identity.js';
import { DAY_MS } from '../../domain/time/zone.js';
import type { EffectAudit } from '../../ports/audit.js';
import type { AppDeps } from '../deps.js';

/** How many customers one sweep erases per tenant at most: the next sweep takes the rest. */
const RETENTION_BATCH = 200;

/**
 * `holdfast customers erase EMAIL`: the customer's key is destroyed, so their details are
 * unreadable in every booking and every copy; the audit trail (which never held them) is untouched.
 * Recorded in the trail with the effect, without the address.
 */
export async function eraseCustomerByEmail(
  deps: AppDeps,
  tenantId: string,
  email: string,
  audit?: EffectAudit,
): Promise<{ bookings: number }> {
  const key = email.includes('@') ? customerKey({ email }) : null;
  if (key === null) throw invalidArgument('email', "must be the customer's e-mail address");
  return deps.store.write(async (tx) => {
    const bookings = await tx.customers.erase(tenantId, key);
    await audit?.recordIn(tx);
    return { bookings };
  });
}

/** An owner erases a booking's customer from the console (every booking of theirs, by their address). */
export async function eraseCustomerAs(
  deps: AppDeps,
  person: Person,
  bookingId: string,
): Promise<{ bookings: number }> {
  if (person.role !== 'owner' || person.disabledAt !== null)
    throw new DomainError('FORBIDDEN', "Only an owner erases a customer's details.", {});
  return deps.store.write(async (tx) => {
    if (!(await tx.bookings.get(person.tenantId, bookingId)))
      throw new DomainError('NOT_FOUND', `No booking ${bookingId}.`, { bookingId });
    return { bookings: await tx.customers.eraseOfBooking(person.tenantId, bookingId) };
  });
}

/** The sweeper's retention: each tenant that set one has its customers erased that long after their last booking ends. */
export async function eraseByRetention(deps: AppDeps, now: number): Promise<number> {
  const tenants = await deps.store.read((tx) => tx.tenants.listTenants());
  let erased = 0;
  for (const tenant of tenants) {
    const days = tenant.customerRetentionDays;
    if (!days) continue;
    erased += await deps.store.write((tx) =>
      tx.customers.eraseEndedBefore(tenant.id, now - days * DAY_MS, RETENTION_BATCH),
    );
  }
  return erased;
}

/** At start-up: details stored before sealing existed are sealed, a batch per transaction. */
export async function sealLegacyCustomers(deps: AppDeps): Promise<number> {
  if (await deps.store.readOne((tx) => tx.customers.legacySealed())) return 0;
  let sealed = 0;
  for (;;) {
    const batch = await deps.store.write((tx) => tx.customers.sealLegacy(200));
    if (batch === 0) return sealed;
    sealed += batch;
  }
}
