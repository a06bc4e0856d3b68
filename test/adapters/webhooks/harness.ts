import { randomBytes, randomUUID } from 'node:crypto';
import { PgStore } from '../../../src/adapters/storage/postgres/pg-store.js';
import { httpWebhookSender, WebhookSecretBox } from '../../../src/adapters/webhooks/index.js';
import { createCalendar } from '../../../src/app/calendars/calendars.js';
import type { AppDeps } from '../../../src/app/deps.js';
import { gatedBookingChange } from '../../../src/app/booking/gated-booking.js';
import { holdSlot } from '../../../src/app/booking/hold-slot.js';
import type { DeliveryDeps } from '../../../src/app/webhooks/deliver-webhooks.js';
import { addWebhook } from '../../../src/app/webhooks/manage-webhooks.js';
import type { WebhookEventType } from '../../../src/domain/webhooks/webhook-events.js';
import { webhookEventTypes } from '../../../src/domain/webhooks/webhook-events.js';
import type { Store } from '../../../src/ports/store/index.js';
import { appHarness, operator } from '../../support/app-harness.js';
import { freshSchema } from '../../support/postgres.js';

export type Engine = 'sqlite' | 'postgres';

// Monday 2030-01-07 08:00 UTC.
export const T0 = Date.UTC(2030, 0, 7, 8);
const allDay = [{ start: '00:00', end: '23:59' }];
const everyDay = {
  weekly: { mon: allDay, tue: allDay, wed: allDay, thu: allDay, fri: allDay, sat: allDay, sun: allDay },
  overrides: [],
};

/**
 * The app on one engine with a hand-moved clock, a calendar open all week, and what the
 * delivery worker needs (a sender allowed to reach the loopback receiver).
 */
export async function webhookApp(engine: Engine) {
  const base = await appHarness(T0);
  const schema = engine === 'postgres' ? freshSchema() : null;
  let store: Store = base.deps.store;
  if (schema) {
    await base.deps.store.close();
    store = await PgStore.open(schema.url);
  }
  const deps: AppDeps = { ...base.deps, store };
  const secrets = new WebhookSecretBox(randomBytes(32));
  const { value: calendar } = await createCalendar(deps, operator, {
    name: 'Room',
    timeZone: 'UTC',
    availability: everyDay,
    idempotencyKey: randomUUID(),
  });
  const { value: priced } = await createCalendar(deps, operator, {
    name: 'Paid room',
    timeZone: 'UTC',
    price: { amount: '10.00', currency: 'EUR' },
    availability: everyDay,
    idempotencyKey: randomUUID(),
  });
  let hour = 1;
  return {
    deps,
    clock: base.clock,
    secrets,
    schemaUrl: schema?.url ?? null,
    subscribe: (
      url: string,
      events: readonly WebhookEventType[] = webhookEventTypes,
      includeContact = false,
    ) =>
      addWebhook(deps, secrets, operator.tenantId, 'test', {
        url,
        events,
        includeContact,
        allowPrivate: true,
      }),
    /** A hold one hour long, each on the next free hour. */
    /** What the fake payment provider reports, per booking id (PENDING when unset). */
    payments: base.payments,
    async hold(customer?: { name: string; email: string; phone: string }, paid = false) {
      let start = base.clock.now() + hour++ * 3_600_000;
      // The calendar closes at 23:59.
      if (new Date(start).getUTCHours() === 23) start = base.clock.now() + hour++ * 3_600_000;
      const { value } = await holdSlot(deps, operator, {
        calendarIds: [paid ? priced.id : calendar.id],
        start: new Date(start).toISOString(),
        end: new Date(start + 3_600_000).toISOString(),
        idempotencyKey: randomUUID(),
        ...(customer ? { customer } : {}),
      });
      return value.booking;
    },
    change: (action: 'confirm_booking' | 'cancel_booking', bookingId: string, expectedVersion: number) =>
      gatedBookingChange(
        deps,
        operator,
        action,
        { bookingId, expectedVersion, idempotencyKey: randomUUID() },
        { traceId: 'test' },
      ),
    worker(overrides: Partial<DeliveryDeps> = {}): DeliveryDeps {
      return {
        store: deps.store,
        clock: base.clock,
        sender: httpWebhookSender({ allowPrivate: true, secrets, timeoutMs: 5_000 }),
        random: () => 0.5,
        owner: `test-${randomUUID().slice(0, 8)}`,
        leaseMs: 60_000,
        sendMs: 6_000,
        ...overrides,
      };
    },
    async close() {
      await deps.store.close();
      await schema?.drop();
    },
  };
}
