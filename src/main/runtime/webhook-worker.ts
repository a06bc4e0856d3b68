import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import type { Logger } from '../../adapters/log/index.js';
import { httpWebhookSender } from '../../adapters/webhooks/index.js';
import type { DeliveryDeps } from '../../app/webhooks/deliver-webhooks.js';
import { deliverDueWebhooks } from '../../app/webhooks/deliver-webhooks.js';
import type { Runtime } from './compose.js';
import type { ServerConfig } from '../config/config.js';
import { webhookSecretBox } from '../cli/commands/webhooks.js';

const POLL_MS = 1_000;

/** What the delivery worker of this process runs with: the system clock, jitter from Math.random. */
export function deliveryDeps(runtime: Runtime, config: ServerConfig): DeliveryDeps {
  return {
    store: runtime.deps.store,
    clock: runtime.deps.clock,
    sender: httpWebhookSender({
      allowPrivate: config.allowPrivateWebhooks,
      secrets: webhookSecretBox(runtime),
      timeoutMs: config.webhookTimeoutMs,
    }),
    random: Math.random,
    owner: `${hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`,
    // A crashed instance's claims lapse after this; each send needs its timeout plus a second of it left.
    leaseMs: 3 * config.webhookTimeoutMs,
    sendMs: config.webhookTimeoutMs + 1_000,
  };
}

/**
 * Delivers due webhooks every second (at once again while there is more), beside the sweeper
 * in serve and stdio. Returns stop, which waits for the round in flight.
 */
export function startWebhookWorker(
  runtime: Runtime,
  config: ServerConfig,
  logger: Logger,
): () => Promise<void> {
  const deps = deliveryDeps(runtime, config);
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let round: Promise<void> = Promise.resolve();
  const tick = () => {
    round = deliverDueWebhooks(deps)
      .then((r) => {
        for (const d of r.disabled)
          logger.warn('webhook disabled', { webhookId: d.subscriptionId, reason: d.reason });
        return r.attempted > 0;
      })
      .catch((error: unknown) => {
        logger.error('webhook delivery failed', { error: String(error) });
        return false;
      })
      .then((more) => {
        if (!stopped) (timer = setTimeout(tick, more ? 0 : POLL_MS)).unref();
      });
  };
  (timer = setTimeout(tick, 0)).unref();
  return async () => {
    stopped = true;
    clearTimeout(timer);
    await round;
  };
}
