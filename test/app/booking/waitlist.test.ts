import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { holdSlot } from '../../../src/app/booking/hold-slot.js';
import { releaseHold } from '../../../src/app/booking/release-hold.js';
import { getWaitlistEntry, joinWaitlist, matchWaitlist } from '../../../src/app/booking/waitlist.js';
import { appHarnessOn, operator } from '../../support/app-harness.js';
import { allDayRoom, subscribeOutbox } from '../../support/app-outbox.js';
import { refusal } from '../../support/refusal.js';

// The waitlist matcher under an injected clock, on both engines: an offer nobody confirms lapses
// and, in the same pass, the time goes to the next entry; a window that passed expires; each offer
// is announced (the notice, and the outbox's waitlist.offered event); a second matcher instance
// is kept out by the lease; malformed windows name their field.

const T0 = Date.UTC(2030, 0, 7, 8);
const MINUTE = 60_000;
const iso = (t: number) => new Date(t).toISOString();

describe.each(['sqlite', 'postgres'] as const)('the waitlist matcher (%s)', (engine) => {
  it('passes a lapsed offer to the next entry in the same pass, expires passed windows, and announces each offer', async () => {
    const h = await appHarnessOn(engine, T0);
    try {
      const room = await allDayRoom(h);
      await subscribeOutbox(h, ['waitlist.offered']);
      const start = T0 + 120 * MINUTE;
      const held = (
        await holdSlot(h.deps, operator, {
          calendarIds: [room],
          start: iso(start),
          end: iso(start + 60 * MINUTE),
          idempotencyKey: randomUUID(),
        })
      ).value.booking;
      const join = async (latest: number) =>
        (
          await joinWaitlist(h.deps, operator, {
            calendarIds: [room],
            durationMinutes: 60,
            earliest: iso(start),
            latest: iso(latest),
            idempotencyKey: randomUUID(),
          })
        ).value.entry;
      const soon = await join(start + 60 * MINUTE);
      const first = await join(start + 60 * MINUTE);
      const second = await join(start + 60 * MINUTE);
      const bad = await refusal(
        joinWaitlist(h.deps, operator, {
          calendarIds: [room],
          durationMinutes: 3,
          earliest: iso(start),
          latest: iso(start + 60 * MINUTE),
          idempotencyKey: randomUUID(),
        }),
      );
      expect(bad.details).toMatchObject({ field: 'durationMinutes' });

      const notices: string[] = [];
      const pass = () =>
        matchWaitlist(h.deps, operator.tenantId, 'matcher-a', (e) => notices.push(`${e.id} ${e.status}`));
      // Nothing is free yet: nothing moves.
      expect(await pass()).toBe(0);
      await releaseHold(h.deps, operator, {
        bookingId: held.id,
        expectedVersion: held.version,
        idempotencyKey: randomUUID(),
      });
      // The oldest entry gets it; the others wait. Another instance is kept out meanwhile.
      expect(await pass()).toBe(1);
      expect(await matchWaitlist(h.deps, operator.tenantId, 'matcher-b')).toBe(0);
      const offered = (await getWaitlistEntry(h.deps, operator, soon.id)).entry;
      expect(offered.status).toBe('OFFERED');
      const offer = (await h.deps.store.read((tx) =>
        tx.bookings.get(operator.tenantId, offered.offerBookingId!),
      ))!;
      expect([offer.status, offer.start, offer.expiresAt]).toEqual(['HELD', start, T0 + 15 * MINUTE]);

      // Nobody confirms: sixteen minutes on, the offer lapses and the next entry has the time.
      h.clock.advance(16 * MINUTE);
      await pass();
      expect((await getWaitlistEntry(h.deps, operator, soon.id)).entry.status).toBe('LAPSED');
      const next = await getWaitlistEntry(h.deps, operator, first.id);
      expect(next.entry.status).toBe('OFFERED');
      expect((await getWaitlistEntry(h.deps, operator, second.id)).position).toBe(1);
      expect(notices).toEqual([`${soon.id} OFFERED`, `${soon.id} LAPSED`, `${first.id} OFFERED`]);
      // Each offer is in the outbox for the person's integrations, with its held booking.
      const due = await h.deps.store.write((tx) =>
        tx.webhooks.claimDue(T0 + 20 * MINUTE, 't', T0 + 30 * MINUTE, 10),
      );
      expect(due.map((d) => [d.event.type, d.event.booking.id])).toEqual([
        ['waitlist.offered', offered.offerBookingId],
        ['waitlist.offered', next.entry.offerBookingId],
      ]);

      // The window passes (its time started): the one still waiting expires.
      h.clock.advance(120 * MINUTE);
      await matchWaitlist(h.deps, operator.tenantId, 'matcher-b');
      expect((await getWaitlistEntry(h.deps, operator, second.id)).entry.status).toBe('EXPIRED');
    } finally {
      await h.close();
    }
  });
});
