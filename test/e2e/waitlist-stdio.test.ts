import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { createOpenCalendar, futureHour } from '../support/fixtures.js';
import { connectStdio, ok } from '../support/mcp-clients.js';
import { tempDbPath } from '../support/spawn-server.js';

// Over stdio (a desktop host's one connection): the agent listens on its waitlist entry and is
// told when freed time is held for it, by the matcher `holdfast stdio` runs beside the connection.

describe('waitlist offers over stdio', () => {
  it('the listening agent is told the moment its entry is offered', async () => {
    const db = tempDbPath();
    const client = await connectStdio(db.path, 'modern');
    try {
      const room = await createOpenCalendar(client, 'Jade Room');
      const held = await ok<{ booking: { id: string; version: number } }>(client, 'hold_slot', {
        calendarIds: [room],
        start: futureHour(3),
        end: futureHour(3, 1),
        idempotencyKey: randomUUID(),
      });
      const { entry } = await ok<{ entry: { id: string; resourceUri: string; status: string } }>(
        client,
        'join_waitlist',
        {
          calendarIds: [room],
          durationMinutes: 60,
          earliest: futureHour(3),
          latest: futureHour(3, 1),
          idempotencyKey: randomUUID(),
        },
      );
      expect(entry.status).toBe('WAITING');
      const told: string[] = [];
      client.setNotificationHandler('notifications/resources/updated', (n) => void told.push(n.params.uri));
      const listening = await client.listen({ resourceSubscriptions: [entry.resourceUri] });
      expect(listening.honoredFilter.resourceSubscriptions).toEqual([entry.resourceUri]);
      await ok(client, 'release_hold', {
        bookingId: held.booking.id,
        expectedVersion: held.booking.version,
        idempotencyKey: randomUUID(),
      });
      const deadline = Date.now() + 10_000;
      while (!told.includes(entry.resourceUri) && Date.now() < deadline)
        await new Promise((resolve) => setTimeout(resolve, 50));
      expect(told).toContain(entry.resourceUri);
      const read = await client.readResource({ uri: entry.resourceUri });
      const now = JSON.parse((read.contents[0] as { text: string }).text) as { entry: { status: string } };
      expect(now.entry.status).toBe('OFFERED');
      await listening.close();
    } finally {
      await client.close();
      db.cleanup();
    }
  }, 60_000);
});
