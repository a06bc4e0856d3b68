import { afterEach, describe, expect, it } from 'vitest';
import type { DeliveryDeps } from '../../../src/app/webhooks/deliver-webhooks.js';
import { deliverDueWebhooks } from '../../../src/app/webhooks/deliver-webhooks.js';
import { MAX_ATTEMPTS, retryDelayMs } from '../../../src/domain/webhooks/retry-schedule.js';
import type { Runtime } from '../../../src/main/runtime/compose.js';
import { readConfig } from '../../../src/main/config/config.js';
import { webhooks } from '../../../src/main/cli/commands/webhooks.js';
import { operator } from '../../support/app-harness.js';
import { webhookApp } from './harness.js';
import { startReceiver } from './receiver.js';

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

const SECOND = 1000;
const MINUTE = 60 * SECOND;

async function failingSetUp() {
  const app = await webhookApp('sqlite');
  cleanups.push(() => app.close());
  const receiver = await startReceiver(
    () => '',
    () => 503,
  );
  cleanups.push(() => receiver.close());
  const { subscription } = await app.subscribe(receiver.url);
  return { app, receiver, subscription };
}

/** The earliest attempt still due among pending deliveries; null when none is pending. */
async function nextDue(app: Awaited<ReturnType<typeof webhookApp>>): Promise<number | null> {
  const all = await app.deps.store.read((tx) => tx.webhooks.deliveries(operator.tenantId, null, 100));
  const due = all.flatMap((d) =>
    d.state === 'pending' && d.nextAttemptAt !== null ? [d.nextAttemptAt] : [],
  );
  return due.length === 0 ? null : Math.min(...due);
}

describe('retry schedule', () => {
  it('backs off 30 s, 2 min, 8 min, 32 min, … capped at 10 h, jittered by at most 20 %', () => {
    expect(Array.from({ length: MAX_ATTEMPTS - 1 }, (_, i) => retryDelayMs(i + 1, 0.5))).toEqual([
      30 * SECOND,
      2 * MINUTE,
      8 * MINUTE,
      32 * MINUTE,
      128 * MINUTE,
      512 * MINUTE,
      600 * MINUTE,
    ]);
    expect(retryDelayMs(1, 0)).toBe(24 * SECOND);
    expect(retryDelayMs(1, 0.999999)).toBe(36 * SECOND);
  });
});

describe('a receiver that keeps failing', () => {
  it('is retried on the backoff schedule, not before each attempt is due, until the round is spent', async () => {
    const { app, receiver } = await failingSetUp();
    const worker: DeliveryDeps = app.worker();
    await app.hold();
    const attemptTimes: number[] = [];
    for (;;) {
      const due = await nextDue(app);
      if (due === null) break;
      app.clock.set(due - 1);
      expect((await deliverDueWebhooks(worker)).attempted).toBe(0);
      app.clock.set(due);
      expect((await deliverDueWebhooks(worker)).attempted).toBe(1);
      attemptTimes.push(due);
    }
    expect(attemptTimes).toHaveLength(MAX_ATTEMPTS);
    expect(attemptTimes.slice(1).map((t, i) => t - attemptTimes[i]!)).toEqual([
      30 * SECOND,
      2 * MINUTE,
      8 * MINUTE,
      32 * MINUTE,
      128 * MINUTE,
      512 * MINUTE,
      600 * MINUTE,
    ]);
    expect(receiver.received).toHaveLength(MAX_ATTEMPTS);
    // One event, one id on every retry: a receiver dedupes by webhook-id.
    expect(new Set(receiver.received.map((r) => r.id)).size).toBe(1);
    const [delivery] = await app.deps.store.read((tx) => tx.webhooks.deliveries(operator.tenantId, null, 10));
    expect(delivery).toMatchObject({
      state: 'failed',
      attempts: MAX_ATTEMPTS,
      lastStatus: 503,
      nextAttemptAt: null,
    });
    const log = await app.deps.store.read((tx) => tx.webhooks.attempts(operator.tenantId, delivery!.eventId));
    expect(log.map((a) => a.statusCode)).toEqual(Array(MAX_ATTEMPTS).fill(503));
    expect(log.map((a) => a.nextAttemptAt)).toEqual([...attemptTimes.slice(1), null]);
    expect(log.every((a) => a.error?.startsWith('HTTP 503'))).toBe(true);
  });

  it('gets its subscription disabled after five events fail every attempt, and webhooks list says so', async () => {
    const { app, receiver, subscription } = await failingSetUp();
    const worker = app.worker();
    for (let i = 0; i < 5; i++) await app.hold();
    const disabled: string[] = [];
    for (let due = await nextDue(app); due !== null; due = await nextDue(app)) {
      app.clock.set(due);
      const round = await deliverDueWebhooks(worker);
      if (round.attempted === 0) break; // pending, but its subscription is off
      disabled.push(...round.disabled.map((d) => d.reason));
    }
    expect(disabled).toEqual(['5 events in a row failed every delivery attempt']);
    expect(receiver.received).toHaveLength(5 * 8);
    const [stored] = await app.deps.store.read((tx) => tx.webhooks.list(operator.tenantId));
    expect(stored).toMatchObject({
      id: subscription.id,
      disabledReason: '5 events in a row failed every delivery attempt',
    });

    // A new event while disabled is not even recorded; nothing is sent.
    await app.hold();
    app.clock.advance(60 * MINUTE);
    expect((await deliverDueWebhooks(worker)).attempted).toBe(0);

    const lines: string[] = [];
    const config = readConfig(['webhooks', 'list', '--tenant', operator.tenantId], {});
    const runtime = { deps: app.deps, store: app.deps.store } as unknown as Runtime;
    expect(await webhooks(runtime, config, (text) => lines.push(text))).toBe(0);
    expect(lines.join('\n')).toMatch(new RegExp(`${subscription.id}\\s+DISABLED .*5 events in a row failed`));

    // enable: switched on with a clean record, and a redelivery goes out again.
    const enable = readConfig(['webhooks', 'enable', subscription.id, '--tenant', operator.tenantId], {});
    expect(await webhooks(runtime, enable, () => undefined)).toBe(0);
    const [first] = await app.deps.store
      .read((tx) => tx.webhooks.deliveries(operator.tenantId, null, 100))
      .then((d) => d.slice(-1));
    const redeliver = readConfig(
      ['webhooks', 'redeliver', first!.eventId, '--tenant', operator.tenantId],
      {},
    );
    expect(await webhooks(runtime, redeliver, () => undefined)).toBe(0);
    const before = receiver.received.length;
    expect((await deliverDueWebhooks(worker)).attempted).toBe(1);
    expect(receiver.received.slice(before).map((r) => r.id)).toEqual([first!.eventId]);
  });
});
