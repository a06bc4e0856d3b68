// Tenant A's receiver answers just inside the (scaled-down) timeout and A has a backlog; B must not wait behind it.
// Time is scaled down: timeout 300 ms (real default 10 s), lease 3x, as webhook-worker.ts sets it.
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { appHarness, operator } from '../../support/app-harness.js';
import { holdSlot } from '../../../src/app/booking/hold-slot.js';
import { createCalendar } from '../../../src/app/calendars/calendars.js';
import { addWebhook } from '../../../src/app/webhooks/manage-webhooks.js';
import { deliverDueWebhooks } from '../../../src/app/webhooks/deliver-webhooks.js';
import { WebhookSecretBox } from '../../../src/adapters/webhooks/index.js';
import { openAllWeek } from '../../support/fixtures.js';

describe('webhook delivery is fair across receivers', () => {
  it("tenant B's one event goes out in the first round, beside tenant A's slow backlog of 60", async () => {
    const h = await appHarness(Date.now());
    (h.deps as { clock: unknown }).clock = { now: () => Date.now() };
    const box = new WebhookSecretBox(Buffer.alloc(32, 7));
    const tenantB = { ...operator, tenantId: 't2', subject: 'b-person' };
    try {
      const calA = await h.calendar('A', 'UTC', openAllWeek);
      const calB = (
        await createCalendar(h.deps, tenantB, {
          name: 'B',
          timeZone: 'UTC',
          availability: openAllWeek,
          idempotencyKey: randomUUID(),
        })
      ).value.id;
      await addWebhook(h.deps, box, 't1', 'op', {
        url: 'https://slow.a.example/hook',
        events: ['booking.held'],
        includeContact: false,
        allowPrivate: false,
      });
      await addWebhook(h.deps, box, 't2', 'op', {
        url: 'https://fast.b.example/hook',
        events: ['booking.held'],
        includeContact: false,
        allowPrivate: false,
      });
      const day = Math.ceil(Date.now() / 86_400_000) * 86_400_000 + 86_400_000;
      for (let i = 0; i < 60; i++)
        await holdSlot(h.deps, operator, {
          calendarIds: [calA],
          start: new Date(day + i * 3_600_000).toISOString(),
          end: new Date(day + i * 3_600_000 + 1_800_000).toISOString(),
          idempotencyKey: randomUUID(),
        });
      await holdSlot(h.deps, tenantB, {
        calendarIds: [calB],
        start: new Date(day).toISOString(),
        end: new Date(day + 1_800_000).toISOString(),
        idempotencyKey: randomUUID(),
      });
      const TIMEOUT = 300;
      let bDeliveredAfterRounds = -1;
      for (let round = 1; round <= 80 && bDeliveredAfterRounds < 0; round++) {
        await deliverDueWebhooks({
          store: h.deps.store,
          clock: h.deps.clock,
          random: () => 0.5,
          owner: 'i1',
          leaseMs: 3 * TIMEOUT,
          sendMs: TIMEOUT + 100,
          sender: {
            send: async (r) => {
              if (r.url.includes('slow')) {
                await new Promise((z) => setTimeout(z, TIMEOUT - 20));
                return { statusCode: 200, durationMs: TIMEOUT - 20, error: null };
              }
              bDeliveredAfterRounds = round;
              return { statusCode: 200, durationMs: 1, error: null };
            },
          },
        });
      }
      expect(bDeliveredAfterRounds).toBe(1);
    } finally {
      await h.close();
    }
  }, 120_000);
});
