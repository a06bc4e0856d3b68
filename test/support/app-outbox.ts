import type { WebhookEventType } from '../../src/domain/webhooks/webhook-events.js';
import type { appHarness } from './app-harness.js';
import { operator } from './app-harness.js';

type Harness = Awaited<ReturnType<typeof appHarness>>;

/** A calendar open every hour of every day, in UTC: the one room an app test books. */
export function allDayRoom(h: Harness, name = 'Jade'): Promise<string> {
  const day = [{ start: '00:00', end: '24:00' }];
  return h.calendar(name, 'UTC', {
    weekly: { mon: day, tue: day, wed: day, thu: day, fri: day, sat: day, sun: day },
    overrides: [],
  });
}

/** A webhook subscription of the operator's tenant to these events, so the outbox records them. */
export function subscribeOutbox(
  h: Harness,
  events: WebhookEventType[],
  includeContact = false,
): Promise<void> {
  return h.deps.store.write((tx) =>
    tx.webhooks.add(
      {
        id: 'wh_1',
        tenantId: operator.tenantId,
        url: 'https://hooks.example.com/in',
        events,
        includeContact,
        createdAt: 0,
        createdBy: 'test',
        disabledAt: null,
        disabledReason: null,
        failure: { failingSince: null, failedEvents: 0 },
      },
      'sealed',
    ),
  );
}
