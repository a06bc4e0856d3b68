import { relative, table } from '../../../adapters/format/index.js';
import { terminalSafe } from '../../../adapters/format/index.js';
import { refusedHost, WebhookSecretBox } from '../../../adapters/webhooks/index.js';
import {
  addWebhook,
  enableWebhook,
  redeliverEvent,
  removeWebhook,
} from '../../../app/webhooks/manage-webhooks.js';
import { formatInstant } from '../../../domain/time/instant.js';
import { parseEventTypes } from '../../../domain/webhooks/webhook-events.js';
import type { AttemptView, DeliveryView, WebhookSubscription } from '../../../ports/store/index.js';
import type { Runtime } from '../../runtime/compose.js';
import type { ServerConfig } from '../../config/config.js';
import { UsageError } from '../../config/usage-error.js';

type Print = (text: string) => void;

const USAGE =
  'usage: holdfast webhooks add URL --events all|TYPE,… [--include-contact] | list | remove ID | deliveries [ID | EVENT_ID] | redeliver EVENT_ID | enable ID';

/** The key webhook secrets are sealed under: every instance and the CLI derive the same one. */
export const webhookSecretBox = (runtime: Runtime) =>
  new WebhookSecretBox(runtime.auditKey.derive('webhook-secrets'));

const when = (t: number | null) => (t === null ? null : formatInstant(t));

/** `active`, `failing since …`, or `DISABLED …: reason` — what a person must know first. */
export function subscriptionStatus(s: WebhookSubscription, now: number): string {
  if (s.disabledAt !== null) return `DISABLED ${relative(s.disabledAt, now)}: ${s.disabledReason ?? ''}`;
  if (s.failure.failingSince !== null)
    return `failing since ${relative(s.failure.failingSince, now)} (${s.failure.failedEvents} events failed)`;
  return 'active';
}

const subscriptionJson = (s: WebhookSubscription, now: number) => ({
  id: s.id,
  url: s.url,
  events: s.events,
  includeContact: s.includeContact,
  status: s.disabledAt === null ? 'active' : 'disabled',
  summary: subscriptionStatus(s, now),
  disabledAt: when(s.disabledAt),
  disabledReason: s.disabledReason,
  failingSince: when(s.failure.failingSince),
  failedEvents: s.failure.failedEvents,
  createdAt: formatInstant(s.createdAt),
  createdBy: s.createdBy,
});

const deliveryJson = (d: DeliveryView) => ({
  ...d,
  eventCreatedAt: formatInstant(d.eventCreatedAt),
  nextAttemptAt: when(d.nextAttemptAt),
});
const attemptJson = (a: AttemptView) => ({
  ...a,
  at: formatInstant(a.at),
  nextAttemptAt: when(a.nextAttemptAt),
});

/** holdfast webhooks …: the person's side of webhooks (agents have none). */
export async function webhooks(runtime: Runtime, config: ServerConfig, print: Print): Promise<number> {
  const { deps } = runtime;
  const tenant = config.tenantId;
  const [verb, id] = config.rest;
  const now = deps.clock.now();
  const out = (json: unknown, text: string) => print(config.json ? JSON.stringify(json, null, 2) : text);
  switch (verb) {
    case 'add': {
      if (!id || config.options.events === undefined) throw new UsageError(USAGE);
      // The delivery's own guard, applied when subscribing too: a receiver written as a
      // special-use address or local name is refused now, not at its first delivery.
      const refused = config.allowPrivateWebhooks ? null : URL.canParse(id) ? refusedHost(new URL(id)) : null;
      if (refused) throw new UsageError(`The receiver may not be reached: ${refused}.`);
      const { subscription, secret } = await addWebhook(
        deps,
        webhookSecretBox(runtime),
        tenant,
        'operator-cli',
        {
          url: id,
          events: parseEventTypes(config.options.events),
          includeContact: config.options.includeContact ?? false,
          allowPrivate: config.allowPrivateWebhooks,
        },
      );
      out(
        { ...subscriptionJson(subscription, now), secret },
        [
          `Webhook ${subscription.id} sends ${subscription.events.join(', ')} to ${subscription.url}.`,
          `Signing secret (shown only now; verify webhook-signature with it): ${secret}`,
        ].join('\n'),
      );
      return 0;
    }
    case 'list': {
      const all = await deps.store.read((tx) => tx.webhooks.list(tenant));
      if (config.json)
        out(
          all.map((s) => subscriptionJson(s, now)),
          '',
        );
      else if (all.length === 0) print('No webhooks.');
      else
        print(
          table(
            ['WEBHOOK', 'STATUS', 'URL', 'EVENTS'],
            all.map((s) => [
              s.id,
              terminalSafe(subscriptionStatus(s, now)),
              terminalSafe(s.url),
              s.events.join(','),
            ]),
          ),
        );
      return 0;
    }
    case 'remove':
      if (!id) throw new UsageError(USAGE);
      await removeWebhook(deps, tenant, id);
      out({ removed: id }, `Webhook ${id} removed, with its deliveries.`);
      return 0;
    case 'enable':
      if (!id) throw new UsageError(USAGE);
      await enableWebhook(deps, tenant, id);
      out({ enabled: id }, `Webhook ${id} is active again; deliveries that waited go out now.`);
      return 0;
    case 'redeliver': {
      if (!id) throw new UsageError(USAGE);
      const count = await redeliverEvent(deps, tenant, id);
      out({ redelivering: id, deliveries: count }, `Event ${id} goes out again to ${count} webhook(s).`);
      return 0;
    }
    case 'deliveries':
      return id?.startsWith('evt_')
        ? attempts(runtime, config, id, out)
        : deliveries(runtime, config, id ?? null, out);
    default:
      throw new UsageError(USAGE);
  }
}

async function deliveries(
  runtime: Runtime,
  config: ServerConfig,
  subscriptionId: string | null,
  out: (json: unknown, text: string) => void,
): Promise<number> {
  const limit = Number(config.options.lines ?? 20);
  if (!/^\d+$/.test(config.options.lines ?? '20') || limit < 1 || limit > 10_000)
    throw new UsageError(`-n must be a whole number from 1 to 10000, got "${config.options.lines}"`);
  const now = runtime.deps.clock.now();
  const rows = await runtime.store.read((tx) =>
    tx.webhooks.deliveries(config.tenantId, subscriptionId, limit),
  );
  out(
    rows.map(deliveryJson),
    rows.length === 0
      ? 'No deliveries.'
      : table(
          ['EVENT', 'TYPE', 'BOOKING', 'WEBHOOK', 'STATE', 'ATTEMPTS', 'LAST', 'NEXT'],
          rows.map((d) => [
            d.eventId,
            d.type,
            d.bookingId,
            d.subscriptionId,
            d.state,
            String(d.attempts),
            terminalSafe(d.lastError ?? (d.lastStatus === null ? '' : `HTTP ${d.lastStatus}`)),
            d.nextAttemptAt === null ? '' : relative(d.nextAttemptAt, now),
          ]),
        ),
  );
  return 0;
}

async function attempts(
  runtime: Runtime,
  config: ServerConfig,
  eventId: string,
  out: (json: unknown, text: string) => void,
): Promise<number> {
  const rows = await runtime.store.read((tx) => tx.webhooks.attempts(config.tenantId, eventId));
  out(
    rows.map(attemptJson),
    rows.length === 0
      ? `No attempts of ${eventId} yet.`
      : table(
          ['WEBHOOK', 'ATTEMPT', 'AT', 'STATUS', 'MS', 'ERROR', 'NEXT ATTEMPT'],
          rows.map((a) => [
            a.subscriptionId,
            String(a.attempt),
            formatInstant(a.at),
            a.statusCode === null ? '—' : String(a.statusCode),
            String(a.durationMs),
            terminalSafe(a.error ?? ''),
            a.nextAttemptAt === null ? '' : formatInstant(a.nextAttemptAt),
          ]),
        ),
  );
  return 0;
}
