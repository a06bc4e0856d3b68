import { DomainError } from '../../domain/errors.js';
import type { WebhookEventType } from '../../domain/webhooks/webhook-events.js';
import { checkWebhookUrl } from '../../domain/webhooks/webhook-url.js';
import type { WebhookSecrets } from '../../ports/webhook-delivery.js';
import type { WebhookSubscription } from '../../ports/store/index.js';
import type { AppDeps } from '../deps.js';

/** Subscriptions per tenant: each is a receiver every booking change is sent to. */
const MAX_SUBSCRIPTIONS = 20;

export interface NewSubscription {
  readonly url: string;
  readonly events: readonly WebhookEventType[];
  readonly includeContact: boolean;
  /** http to loopback is accepted only where the server may deliver to private addresses. */
  readonly allowPrivate: boolean;
}

/**
 * Adds a subscription for a person (CLI, console): agents have no way here. The secret is in
 * the answer once and stored only sealed.
 */
export async function addWebhook(
  deps: Pick<AppDeps, 'store' | 'clock' | 'ids'>,
  secrets: WebhookSecrets,
  tenantId: string,
  createdBy: string,
  input: NewSubscription,
): Promise<{ subscription: WebhookSubscription; secret: string }> {
  const url = checkWebhookUrl(input.url, input.allowPrivate);
  const { secret, sealed } = secrets.create();
  const subscription: WebhookSubscription = {
    id: `wh_${deps.ids.newUuid().replace(/-/g, '')}`,
    tenantId,
    url,
    events: input.events,
    includeContact: input.includeContact,
    createdAt: deps.clock.now(),
    createdBy,
    disabledAt: null,
    disabledReason: null,
    failure: { failingSince: null, failedEvents: 0 },
  };
  await deps.store.write(async (tx) => {
    await tx.serialize(`webhooks:${tenantId}`);
    if ((await tx.webhooks.list(tenantId)).length >= MAX_SUBSCRIPTIONS)
      throw new DomainError('INVALID_ARGUMENTS', `A tenant has at most ${MAX_SUBSCRIPTIONS} webhooks.`, {
        field: 'url',
      });
    await tx.webhooks.add(subscription, sealed);
  });
  return { subscription, secret };
}

const notFound = (id: string) => new DomainError('NOT_FOUND', `No webhook ${id}.`, { field: 'id' });

export async function removeWebhook(
  deps: Pick<AppDeps, 'store'>,
  tenantId: string,
  id: string,
): Promise<void> {
  if (!(await deps.store.write((tx) => tx.webhooks.remove(tenantId, id)))) throw notFound(id);
}

/** Switches a disabled subscription on again; what waited for it is delivered from now on. */
export async function enableWebhook(
  deps: Pick<AppDeps, 'store'>,
  tenantId: string,
  id: string,
): Promise<void> {
  if (!(await deps.store.write((tx) => tx.webhooks.enable(tenantId, id)))) throw notFound(id);
}

/** Sends an event again to every subscription it went to, as a new round of attempts. */
export async function redeliverEvent(
  deps: Pick<AppDeps, 'store' | 'clock'>,
  tenantId: string,
  eventId: string,
): Promise<number> {
  const now = deps.clock.now();
  const count = await deps.store.write((tx) => tx.webhooks.redeliver(tenantId, eventId, now));
  if (count === 0)
    throw new DomainError(
      'NOT_FOUND',
      `No delivery of event ${eventId} to redeliver (or it is being sent now).`,
      {
        field: 'eventId',
      },
    );
  return count;
}
