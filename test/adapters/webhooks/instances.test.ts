import { afterEach, describe, expect, it } from 'vitest';
import { PgStore } from '../../../src/adapters/storage/postgres/pg-store.js';
import type { DeliveryDeps } from '../../../src/app/webhooks/deliver-webhooks.js';
import { deliverDueWebhooks } from '../../../src/app/webhooks/deliver-webhooks.js';
import { webhookApp } from './harness.js';
import { startReceiver } from './receiver.js';

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

const EVENTS = 40;

describe('two instances on one PostgreSQL', () => {
  it('deliver each event exactly once between them', async () => {
    const app = await webhookApp('postgres');
    cleanups.push(() => app.close());
    let secret = '';
    // A slow receiver widens the window in which both instances look for due deliveries.
    const receiver = await startReceiver(() => secret);
    cleanups.push(() => receiver.close());
    secret = (await app.subscribe(receiver.url)).secret;
    for (let i = 0; i < EVENTS; i++) await app.hold();

    const second = await PgStore.open(app.schemaUrl!);
    cleanups.push(() => second.close());
    const instances: DeliveryDeps[] = [
      app.worker({ owner: 'instance-a', batch: 3 }),
      app.worker({ owner: 'instance-b', batch: 3, store: second }),
    ];
    const sentBy = new Map<string, number>();
    await Promise.all(
      instances.map(async (worker) => {
        for (;;) {
          const round = await deliverDueWebhooks(worker);
          if (round.attempted === 0) return;
          sentBy.set(worker.owner, (sentBy.get(worker.owner) ?? 0) + round.attempted);
        }
      }),
    );
    const ids = receiver.received.map((r) => r.id);
    expect(ids).toHaveLength(EVENTS);
    expect(new Set(ids).size).toBe(EVENTS);
    expect(receiver.received.every((r) => r.signatureValid)).toBe(true);
    // Both took part: the claim, not luck of timing, kept them apart.
    expect(sentBy.get('instance-a')).toBeGreaterThan(0);
    expect(sentBy.get('instance-b')).toBeGreaterThan(0);
  });
});
