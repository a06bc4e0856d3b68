import { randomUUID } from 'node:crypto';
import type { Client } from '@modelcontextprotocol/client';
import { describe, expect, it } from 'vitest';
import { createOpenCalendar, futureHour } from '../support/fixtures.js';
import { call, connectHttp, ok } from '../support/mcp-clients.js';
import type { BackendKind } from '../reliability/harness.js';
import { startBackend } from '../reliability/harness.js';

// Waitlists through the official client against the spawned server, on both engines (two
// instances on PostgreSQL, the entries joined through different instances): freed time is held
// for the first entry that fits (first come, first offered); the waiting agent that listens
// (subscriptions/listen) is told the moment its entry is offered, whichever instance offered it;
// an offer given back passes to the next entry; racing agents and the matcher never hold the same
// time twice, and no time is offered to two entries.

interface Entry {
  id: string;
  status: string;
  position: number | null;
  offerBookingId: string | null;
  resourceUri: string;
}

async function entry(client: Client, uri: string): Promise<Entry> {
  const read = await client.readResource({ uri });
  return (JSON.parse((read.contents[0] as { text: string }).text) as { entry: Entry }).entry;
}

async function until(client: Client, uri: string, status: string, timeoutMs = 15_000): Promise<Entry> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const seen = await entry(client, uri);
    if (seen.status === status) return seen;
    if (Date.now() > deadline) throw new Error(`${uri} stayed ${seen.status}, expected ${status}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

const join = (client: Client, calendarId: string, day: number) =>
  ok<{ entry: Entry }>(client, 'join_waitlist', {
    calendarIds: [calendarId],
    durationMinutes: 60,
    earliest: futureHour(day),
    latest: futureHour(day, 1),
    idempotencyKey: randomUUID(),
  }).then((d) => d.entry);

describe.each<BackendKind>(['sqlite', 'postgres'])('waitlists (%s)', (kind) => {
  it('offers freed time first come first offered, tells the listening agent, passes an unwanted offer on, and never offers twice', async () => {
    const backend = await startBackend(kind);
    try {
      const urls = backend.urls();
      const [first, second, holder] = await Promise.all(
        [0, 1, 0].map((i) => connectHttp(urls[i % urls.length]!, 'modern')),
      );
      const room = await createOpenCalendar(holder!, 'Jade Room');
      const held = await ok<{ booking: { id: string; version: number } }>(holder!, 'hold_slot', {
        calendarIds: [room],
        start: futureHour(3),
        end: futureHour(3, 1),
        idempotencyKey: randomUUID(),
      });

      const a = await join(first!, room, 3);
      const b = await join(second!, room, 3);
      expect([a.status, a.position, b.status, b.position]).toEqual(['WAITING', 1, 'WAITING', 2]);
      // Malformed windows are refused naming the field; nothing is queued.
      const bad = await call(first!, 'join_waitlist', {
        calendarIds: [room],
        durationMinutes: 90,
        earliest: futureHour(3),
        latest: futureHour(3, 1),
        idempotencyKey: randomUUID(),
      });
      expect(bad.error?.details.field).toBe('latest');

      // The second agent listens on its own entry (on its own instance).
      const told: string[] = [];
      second!.setNotificationHandler('notifications/resources/updated', (n) => void told.push(n.params.uri));
      const listening = await second!.listen({ resourceSubscriptions: [b.resourceUri] });
      expect(listening.honoredFilter.resourceSubscriptions).toEqual([b.resourceUri]);

      // The time frees: the first entry gets it held for its person; the second waits, now first.
      await ok(holder!, 'release_hold', {
        bookingId: held.booking.id,
        expectedVersion: held.booking.version,
        idempotencyKey: randomUUID(),
      });
      const offered = await until(first!, a.resourceUri, 'OFFERED');
      const offer = await ok<{ booking: { status: string; start: string; expiresAt: string } }>(
        first!,
        'get_booking',
        { bookingId: offered.offerBookingId },
      );
      expect(offer.booking.status).toBe('HELD');
      expect(Date.parse(offer.booking.start)).toBe(Date.parse(futureHour(3)));
      // The offer is held longer than a plain hold (15 minutes).
      expect(Date.parse(offer.booking.expiresAt) - Date.now()).toBeGreaterThan(10 * 60_000);
      const waiting = await entry(second!, b.resourceUri);
      expect([waiting.status, waiting.position]).toEqual(['WAITING', 1]);
      expect(told).toEqual([]);

      // The first agent does not want it: the time passes to the second, who is told at once.
      expect((await ok<{ entry: Entry }>(first!, 'leave_waitlist', { entryId: a.id })).entry.status).toBe(
        'LEFT',
      );
      const passed = await until(second!, b.resourceUri, 'OFFERED');
      const deadline = Date.now() + 5_000;
      while (!told.includes(b.resourceUri) && Date.now() < deadline)
        await new Promise((resolve) => setTimeout(resolve, 50));
      expect(told).toContain(b.resourceUri);
      const confirmed = await ok<{ booking: { status: string } }>(second!, 'confirm_booking', {
        bookingId: passed.offerBookingId,
        expectedVersion: 1,
        idempotencyKey: randomUUID(),
      });
      expect(confirmed.booking.status).toBe('CONFIRMED');
      await until(second!, b.resourceUri, 'ACCEPTED');
      await listening.close();

      // Race: five entries wait for one hour; it frees while three agents try to hold it too.
      const rivals = await Promise.all([0, 1, 0].map((i) => connectHttp(urls[i % urls.length]!, 'modern')));
      const block = await ok<{ booking: { id: string; version: number } }>(holder!, 'hold_slot', {
        calendarIds: [room],
        start: futureHour(4),
        end: futureHour(4, 1),
        idempotencyKey: randomUUID(),
      });
      const queue: Entry[] = [];
      for (let i = 0; i < 5; i++) queue.push(await join(i % 2 === 0 ? first! : second!, room, 4));
      await Promise.all([
        call(holder!, 'release_hold', {
          bookingId: block.booking.id,
          expectedVersion: block.booking.version,
          idempotencyKey: randomUUID(),
        }),
        ...rivals.map((rival) =>
          call(rival, 'hold_slot', {
            calendarIds: [room],
            start: futureHour(4),
            end: futureHour(4, 1),
            idempotencyKey: randomUUID(),
          }),
        ),
      ]);
      await new Promise((resolve) => setTimeout(resolve, 3_000));
      const states = await Promise.all(queue.map((e) => entry(first!, e.resourceUri)));
      const offers = states.filter((s) => s.status === 'OFFERED');
      expect(offers.length).toBeLessThanOrEqual(1);
      // If the matcher won the hour, the first entry has it: nobody behind it was served first.
      if (offers.length === 1) expect(offers[0]!.id).toBe(queue[0]!.id);
      expect(await backend.overlaps()).toBe(0);
      for (const client of [first, second, holder, ...rivals]) await client!.close();
    } finally {
      await backend.stop();
    }
  }, 120_000);
});
