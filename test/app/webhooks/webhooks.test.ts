import { randomUUID } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { holdSlot } from '../../../src/app/booking/hold-slot.js';
import { deliverDueWebhooks } from '../../../src/app/webhooks/deliver-webhooks.js';
import type { NewSubscription } from '../../../src/app/webhooks/manage-webhooks.js';
import {
  addWebhook,
  enableWebhook,
  redeliverEvent,
  removeWebhook,
} from '../../../src/app/webhooks/manage-webhooks.js';
import type { WebhookRequest, WebhookSecrets } from '../../../src/ports/webhook-delivery.js';
import { appHarness, operator } from '../../support/app-harness.js';
import { refusal } from '../../support/refusal.js';

// Monday 2030-01-07 08:00 UTC.
const T0 = Date.UTC(2030, 0, 7, 8);
const allDay = { weekly: { tue: [{ start: '00:00', end: '24:00' }] }, overrides: [] };
const secrets: WebhookSecrets = { create: () => ({ secret: 'whsec_test', sealed: 'sealed-by-test' }) };
const receiver = (overrides: Partial<NewSubscription> = {}): NewSubscription => ({
  url: 'https://receiver.example/hooks',
  events: ['booking.held', 'booking.confirmed'],
  includeContact: false,
  allowPrivate: false,
  ...overrides,
});

/** A receiver the test scripts: the status it answers, and every request it was sent. */
function scriptedSender() {
  const sent: WebhookRequest[] = [];
  let status = 200;
  return {
    sent,
    answer: (code: number) => void (status = code),
    sender: {
      send: (request: WebhookRequest) => {
        sent.push(request);
        const ok = status >= 200 && status < 300;
        return Promise.resolve({ statusCode: status, durationMs: 3, error: ok ? null : `HTTP ${status}` });
      },
    },
  };
}

let h: Awaited<ReturnType<typeof appHarness>>;
let desk: string;
beforeEach(async () => {
  h = await appHarness(T0);
  desk = await h.calendar('Front desk', 'UTC', allDay);
});
afterEach(() => h.close());

const holdFor = (email: string, hour = 10) =>
  holdSlot(h.deps, operator, {
    calendarIds: [desk],
    start: `2030-01-08T${hour}:00:00Z`,
    end: `2030-01-08T${hour}:30:00Z`,
    customer: { name: 'Ada Lovelace', email },
    idempotencyKey: randomUUID(),
  });

const round = (sender: ReturnType<typeof scriptedSender>['sender']) =>
  deliverDueWebhooks({
    store: h.deps.store,
    clock: h.clock,
    sender,
    random: () => 0.5,
    owner: 'test',
    leaseMs: 60_000,
    sendMs: 10_000,
  });

describe('webhook use cases', () => {
  it('refuses receivers an agent could aim inward, naming the field; nothing is stored', async () => {
    for (const url of ['http://receiver.example/hooks', 'https://user:pw@receiver.example/', 'not a url']) {
      const refused = await refusal(addWebhook(h.deps, secrets, 't1', 'owner', receiver({ url })));
      expect([refused.code, refused.details.field]).toEqual(['INVALID_ARGUMENTS', 'url']);
    }
    expect(await h.deps.store.read((tx) => tx.webhooks.list('t1'))).toEqual([]);
    expect((await refusal(removeWebhook(h.deps, 't1', 'wh_nope'))).code).toBe('NOT_FOUND');
    expect((await refusal(enableWebhook(h.deps, 't1', 'wh_nope'))).code).toBe('NOT_FOUND');
  });

  it('delivers a hold’s event once, without the customer’s contact unless asked, and retries a failing receiver later', async () => {
    const quiet = scriptedSender();
    await addWebhook(h.deps, secrets, 't1', 'owner', receiver());
    quiet.answer(503);
    await holdFor('ada@example.com');
    expect(await round(quiet.sender)).toMatchObject({ attempted: 1, delivered: 0 });
    // Not due again until the back-off has passed.
    expect(await round(quiet.sender)).toMatchObject({ attempted: 0 });
    h.clock.advance(60 * 60_000);
    quiet.answer(200);
    expect(await round(quiet.sender)).toMatchObject({ attempted: 1, delivered: 1 });
    expect(await round(quiet.sender)).toMatchObject({ attempted: 0 });
    const [first, retry] = quiet.sent;
    expect(retry?.eventId).toBe(first?.eventId);
    expect(JSON.parse(retry!.body)).toMatchObject({ type: 'booking.held' });
    expect(retry!.body).not.toContain('ada@example.com');
    expect(retry!.sealedSecret).toBe('sealed-by-test');
  });

  it('sends only the types a subscription asked for, the contact only when asked, and redelivers on request', async () => {
    const all = scriptedSender();
    await addWebhook(h.deps, secrets, 't1', 'owner', receiver({ events: ['booking.confirmed'] }));
    await holdFor('grace@example.com');
    expect(await round(all.sender)).toMatchObject({ attempted: 0 });

    await addWebhook(
      h.deps,
      secrets,
      't1',
      'owner',
      receiver({ url: 'https://crm.example/in', includeContact: true }),
    );
    await holdFor('hopper@example.com', 11);
    expect(await round(all.sender)).toMatchObject({ attempted: 1, delivered: 1 });
    expect(all.sent[0]?.url).toBe('https://crm.example/in');
    expect(all.sent[0]?.body).toContain('hopper@example.com');

    expect(await redeliverEvent(h.deps, 't1', all.sent[0]!.eventId)).toBe(1);
    expect(await round(all.sender)).toMatchObject({ attempted: 1, delivered: 1 });
    expect(all.sent[1]?.eventId).toBe(all.sent[0]?.eventId);
    expect((await refusal(redeliverEvent(h.deps, 't2', all.sent[0]!.eventId))).code).toBe('NOT_FOUND');
  });
});
