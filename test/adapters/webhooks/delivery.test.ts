import { createHmac, randomUUID } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { releaseHold } from '../../../src/app/booking/release-hold.js';
import { sweep } from '../../../src/app/booking/sweep.js';
import type { DeliveryDeps } from '../../../src/app/webhooks/deliver-webhooks.js';
import { deliverDueWebhooks } from '../../../src/app/webhooks/deliver-webhooks.js';
import { recordBookingEvent } from '../../../src/app/webhooks/record-booking-event.js';
import { operator } from '../../support/app-harness.js';
import type { Engine } from './harness.js';
import { T0, webhookApp } from './harness.js';
import { startReceiver, verifySignature } from './receiver.js';

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function setUp(engine: Engine, reply?: Parameters<typeof startReceiver>[1]) {
  const app = await webhookApp(engine);
  cleanups.push(() => app.close());
  let secret = '';
  const receiver = await startReceiver(() => secret, reply);
  cleanups.push(() => receiver.close());
  return { app, receiver, setSecret: (s: string) => void (secret = s) };
}

/** Runs the worker until a round finds nothing due. */
async function drain(worker: DeliveryDeps): Promise<number> {
  let attempted = 0;
  for (;;) {
    const round = await deliverDueWebhooks(worker);
    if (round.attempted === 0) return attempted;
    attempted += round.attempted;
  }
}

const customer = { name: 'Ada Lovelace', email: 'ada@example.com', phone: '+44 20 7946 0000' };

describe.each(['sqlite', 'postgres'] as Engine[])('webhooks on %s', (engine) => {
  it('hold, confirm and cancel arrive in order, each signed, with the booking as it was then', async () => {
    const { app, receiver, setSecret } = await setUp(engine);
    const { secret } = await app.subscribe(receiver.url);
    setSecret(secret);
    const held = await app.hold(customer);
    await app.change('confirm_booking', held.id, 1);
    await app.change('cancel_booking', held.id, 2);
    expect(await drain(app.worker())).toBe(3);

    expect(receiver.received.map((r) => r.type)).toEqual([
      'booking.held',
      'booking.confirmed',
      'booking.cancelled',
    ]);
    expect(receiver.received.every((r) => r.signatureValid)).toBe(true);
    expect(new Set(receiver.received.map((r) => r.id)).size).toBe(3);
    const bookings = receiver.received.map(
      (r) => (r.body.data as { booking: Record<string, unknown> }).booking,
    );
    expect(bookings.map((b) => [b.id, b.status, b.version])).toEqual([
      [held.id, 'HELD', 1],
      [held.id, 'CONFIRMED', 2],
      [held.id, 'CANCELLED', 3],
    ]);
    expect(receiver.received[0]!.body).toMatchObject({
      tenantId: operator.tenantId,
      id: receiver.received[0]!.id,
    });
    // Not opted into contact details: masked as for a reader without the sensitive scope.
    expect(bookings[0]!.customer).toEqual({
      name: 'Ada Lovelace',
      email: 'a***@example.com',
      phone: '***00',
    });
    expect(JSON.stringify(receiver.received.map((r) => r.body))).not.toContain('ada@example.com');
    expect(receiver.received[0]!.timestamp).toBe(Math.floor(T0 / 1000));
    // Delivered once each: another round sends nothing.
    expect(await drain(app.worker())).toBe(0);
  });

  it('expiry, release and a late payment are announced; a subscription hears only its types', async () => {
    const { app, receiver, setSecret } = await setUp(engine);
    const { secret } = await app.subscribe(receiver.url, [
      'booking.expired',
      'booking.released',
      'booking.payment_flagged',
      'booking.rescheduled',
    ]);
    setSecret(secret);
    const released = await app.hold();
    await releaseHold(app.deps, operator, {
      bookingId: released.id,
      expectedVersion: 1,
      idempotencyKey: randomUUID(),
    });
    const lapsing = await app.hold(undefined, true);
    app.payments.set(lapsing.id, {
      bookingId: lapsing.id,
      status: 'PAID',
      amount: '10.00',
      currency: 'EUR',
      paidAt: T0 + 60_000,
    });
    app.clock.advance(10 * 60_000);
    const swept = await sweep(app.deps);
    expect(swept.payments.flagged).toBe(1);
    // What a reschedule will call inside its own transaction.
    const eventId = await app.deps.store.write((tx) =>
      recordBookingEvent(tx, app.deps.ids, 'booking.rescheduled', released, app.clock.now()),
    );
    expect(eventId).toMatch(/^evt_/);
    await drain(app.worker());
    expect(
      receiver.received.map((r) => [r.type, (r.body.data as { booking: { id: string } }).booking.id]),
    ).toEqual([
      ['booking.released', released.id],
      ['booking.expired', lapsing.id],
      ['booking.payment_flagged', lapsing.id],
      ['booking.rescheduled', released.id],
    ]);
    expect(receiver.received.every((r) => r.signatureValid)).toBe(true);
    expect(receiver.received[3]!.id).toBe(eventId);
  });

  it('records nothing while no subscription exists, and opted-in contact details go out whole', async () => {
    const { app, receiver, setSecret } = await setUp(engine);
    const first = await app.hold(customer);
    const nobody = await app.deps.store.read((tx) => tx.webhooks.deliveries(operator.tenantId, null, 100));
    expect(nobody).toEqual([]);
    const none = await app.deps.store.write((tx) =>
      recordBookingEvent(tx, app.deps.ids, 'booking.rescheduled', first, T0),
    );
    expect(none).toBeNull();

    const { secret } = await app.subscribe(receiver.url, ['booking.held'], true);
    setSecret(secret);
    await app.hold(customer);
    await drain(app.worker());
    expect(receiver.received).toHaveLength(1);
    expect((receiver.received[0]!.body.data as { booking: { customer: unknown } }).booking.customer).toEqual(
      customer,
    );
  });
});

describe('the test receiver', () => {
  it('refuses a signature made with another secret or over another body', () => {
    const secret = `whsec_${Buffer.alloc(32, 7).toString('base64')}`;
    const other = `whsec_${Buffer.alloc(32, 8).toString('base64')}`;
    const sign = (s: string, body: string) =>
      `v1,${createHmac('sha256', Buffer.from(s.slice(6), 'base64'))
        .update(`evt_1.1700000000.${body}`)
        .digest('base64')}`;
    const headers = (sig: string) => ({
      'webhook-id': 'evt_1',
      'webhook-timestamp': '1700000000',
      'webhook-signature': sig,
    });
    expect(verifySignature(secret, headers(sign(secret, '{}')), '{}')).toBe(true);
    expect(verifySignature(secret, headers(sign(other, '{}')), '{}')).toBe(false);
    expect(verifySignature(secret, headers(sign(secret, '{}')), '{"a":1}')).toBe(false);
  });
});
