import { randomUUID } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { holdSlot } from '../../../src/app/booking/hold-slot.js';
import { addWebhook, enableWebhook } from '../../../src/app/webhooks/manage-webhooks.js';
import { appHarnessOn, operator } from '../../support/app-harness.js';

// Monday 2030-01-07 08:00 UTC.
const T0 = Date.UTC(2030, 0, 7, 8);
const allDay = { weekly: { tue: [{ start: '00:00', end: '24:00' }] }, overrides: [] };
const secrets = { create: () => ({ secret: 'whsec_test', sealed: 'sealed' }) };

describe.each(['sqlite', 'postgres'] as const)('the booking trigger on %s', (engine) => {
  let h: Awaited<ReturnType<typeof appHarnessOn>>;
  afterEach(() => h.close());

  it('records an event only while an active subscription wants it; with none it writes nothing', async () => {
    h = await appHarnessOn(engine, T0);
    const desk = await h.calendar('Desk', 'UTC', allDay);
    let hour = 9;
    const hold = () =>
      holdSlot(h.deps, operator, {
        calendarIds: [desk],
        start: `2030-01-08T${String(hour).padStart(2, '0')}:00:00Z`,
        end: `2030-01-08T${String(hour++).padStart(2, '0')}:30:00Z`,
        idempotencyKey: randomUUID(),
      });
    const recorded = () => h.deps.store.read((tx) => tx.webhooks.deliveries('t1', null, 100));

    await hold();
    expect(await recorded()).toEqual([]);

    const { subscription } = await addWebhook(h.deps, secrets, 't1', 'owner', {
      url: 'https://receiver.example/hooks',
      events: ['booking.held'],
      includeContact: false,
      allowPrivate: false,
    });
    await hold();
    expect(await recorded()).toHaveLength(1);

    await h.deps.store.write((tx) => tx.webhooks.disable('t1', subscription.id, T0, 'test'));
    await hold();
    expect(await recorded()).toHaveLength(1);

    await enableWebhook(h.deps, 't1', subscription.id);
    await hold();
    expect(await recorded()).toHaveLength(2);
  });
});
