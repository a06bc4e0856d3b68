import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { eraseCustomerByEmail } from '../../../src/app/booking/erase-customers.js';
import { holdSlot } from '../../../src/app/booking/hold-slot.js';
import { getBooking } from '../../../src/app/booking/read-bookings.js';
import { appHarnessOn, operator } from '../../support/app-harness.js';
import { allDayRoom, subscribeOutbox } from '../../support/app-outbox.js';

// The outbox keeps a snapshot of every booking event: erasing a customer leaves those copies
// unreadable too (their key is gone), and a delivery sent afterwards carries no details. A
// booking that names no address has a key of its own, erased with that booking's customer. Both engines.

const T0 = Date.UTC(2030, 0, 7, 8);

describe.each(['sqlite', 'postgres'] as const)('customer erasure in the store (%s)', (engine) => {
  it('reaches the outbox snapshots; a customer with no address goes with their booking', async () => {
    const h = await appHarnessOn(engine, T0);
    try {
      const room = await allDayRoom(h);
      await subscribeOutbox(h, ['booking.held'], true);
      const hold = async (hour: number, customer: Record<string, string>) =>
        (
          await holdSlot(h.deps, operator, {
            calendarIds: [room],
            start: new Date(T0 + hour * 3_600_000).toISOString(),
            end: new Date(T0 + (hour + 1) * 3_600_000).toISOString(),
            customer,
            idempotencyKey: randomUUID(),
          })
        ).value.booking;
      const ana = await hold(2, { name: 'Ana Lima', email: 'ana@example.com' });
      const walkIn = await hold(4, { name: 'Walk-in Wu' });

      const due = await h.deps.store.write((tx) =>
        tx.webhooks.claimDue(T0 + 60_000, 'test', T0 + 120_000, 10),
      );
      expect(due.find((d) => d.event.booking.id === ana.id)?.event.booking.customer?.email).toBe(
        'ana@example.com',
      );
      await h.deps.store.write((tx) =>
        Promise.all(
          due.map((d) => tx.webhooks.release(d.event.tenantId, d.event.id, d.subscriptionId, 'test')),
        ),
      );

      expect((await eraseCustomerByEmail(h.deps, operator.tenantId, 'ANA@example.com')).bookings).toBe(1);
      const again = await h.deps.store.write((tx) =>
        tx.webhooks.claimDue(T0 + 60_000, 'test', T0 + 120_000, 10),
      );
      const snapshot = again.find((d) => d.event.booking.id === ana.id)!.event.booking;
      expect(snapshot.customer).toBeNull();
      expect(snapshot.customerErased).toBe(true);
      expect((await getBooking(h.deps, operator, ana.id)).booking.customerErased).toBe(true);

      // A customer with no address is erased with their booking (the console's action).
      expect(
        await h.deps.store.write((tx) => tx.customers.eraseOfBooking(operator.tenantId, walkIn.id)),
      ).toBe(1);
      expect((await getBooking(h.deps, operator, walkIn.id)).booking.customerErased).toBe(true);
    } finally {
      await h.close();
    }
  });
});
