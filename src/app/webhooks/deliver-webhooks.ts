import { defaultFailurePolicy, disableReason } from '../../domain/webhooks/failure-policy.js';
import type { FailurePolicy } from '../../domain/webhooks/failure-policy.js';
import { accepted, nextAttemptAfterFailure } from '../../domain/webhooks/retry-schedule.js';
import { webhookPayload } from '../../domain/webhooks/webhook-payload.js';
import type { Clock } from '../../ports/clock.js';
import type { DueDelivery, Store } from '../../ports/store/index.js';
import type { WebhookSender } from '../../ports/webhook-delivery.js';

export interface DeliveryDeps {
  readonly store: Store;
  readonly clock: Clock;
  readonly sender: WebhookSender;
  /** In [0, 1): the jitter of retry waits. */
  readonly random: () => number;
  /** This instance's name on the leases it takes. */
  readonly owner: string;
  /** How long a claimed batch is this instance's; a delivery is sent only with `sendMs` of it left. */
  readonly leaseMs: number;
  /** The longest one send may take (its timeout), with a margin. */
  readonly sendMs: number;
  readonly batch?: number;
  readonly failurePolicy?: FailurePolicy;
}

export interface DeliveryRound {
  readonly attempted: number;
  readonly delivered: number;
  /** Subscriptions switched off in this round, with why. */
  readonly disabled: readonly { subscriptionId: string; reason: string }[];
}

/**
 * One pass of the delivery worker: claims the deliveries that are due, sends each (one
 * subscription's in event order, subscriptions side by side) and records every attempt with
 * what comes next: done, a retry after backoff, or failed. A receiver that keeps failing gets
 * its subscription switched off, with the reason recorded.
 */
export async function deliverDueWebhooks(deps: DeliveryDeps): Promise<DeliveryRound> {
  const now = deps.clock.now();
  const leaseUntil = now + deps.leaseMs;
  const due = await deps.store.write((tx) =>
    tx.webhooks.claimDue(now, deps.owner, leaseUntil, deps.batch ?? 20),
  );
  const bySubscription = new Map<string, DueDelivery[]>();
  for (const delivery of due)
    bySubscription.set(delivery.subscriptionId, [
      ...(bySubscription.get(delivery.subscriptionId) ?? []),
      delivery,
    ]);
  const results = await Promise.all(
    [...bySubscription.values()].map(async (queue) => {
      const outcomes: Outcome[] = [];
      for (const delivery of queue) {
        // Sent only while the lease outlasts the send: otherwise another instance could claim it mid-send.
        if (deps.clock.now() + deps.sendMs > leaseUntil) await giveBack(deps, delivery);
        else outcomes.push(await deliverOne(deps, delivery));
      }
      return outcomes;
    }),
  );
  const outcomes = results.flat();
  return {
    attempted: outcomes.length,
    delivered: outcomes.filter((o) => o.delivered).length,
    disabled: outcomes.flatMap((o) => (o.disabled ? [o.disabled] : [])),
  };
}

interface Outcome {
  readonly delivered: boolean;
  readonly disabled: { subscriptionId: string; reason: string } | null;
}

async function giveBack(deps: DeliveryDeps, d: DueDelivery): Promise<void> {
  await deps.store.write((tx) =>
    tx.webhooks.release(d.event.tenantId, d.event.id, d.subscriptionId, deps.owner),
  );
}

async function deliverOne(deps: DeliveryDeps, delivery: DueDelivery): Promise<Outcome> {
  const body = JSON.stringify(webhookPayload(delivery.event, delivery.includeContact));
  const response = await deps.sender.send({
    url: delivery.url,
    eventId: delivery.event.id,
    timestamp: Math.floor(deps.clock.now() / 1000),
    body,
    sealedSecret: delivery.sealedSecret,
  });
  const at = deps.clock.now();
  const delivered = accepted(response.statusCode);
  const attempt = delivery.attempts + 1;
  const { tenantId } = delivery.event;
  return deps.store.write(async (tx) => {
    const record = await tx.webhooks.finishAttempt({
      tenantId,
      eventId: delivery.event.id,
      subscriptionId: delivery.subscriptionId,
      leaseOwner: deps.owner,
      at,
      statusCode: response.statusCode,
      durationMs: response.durationMs,
      error: delivered ? null : (response.error ?? `HTTP ${response.statusCode}`),
      delivered,
      nextAttemptAt: delivered ? null : nextAttemptAfterFailure(attempt, at, deps.random()),
    });
    const reason = record && disableReason(record, at, deps.failurePolicy ?? defaultFailurePolicy);
    if (!reason || !(await tx.webhooks.disable(tenantId, delivery.subscriptionId, at, reason)))
      return { delivered, disabled: null };
    return { delivered, disabled: { subscriptionId: delivery.subscriptionId, reason } };
  });
}
