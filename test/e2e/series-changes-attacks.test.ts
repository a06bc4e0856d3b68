import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { createOpenCalendar, futureHour } from '../support/fixtures.js';
import { anotherPersonsAgent } from '../support/another-agent.js';
import { call, connectHttp, ok } from '../support/mcp-clients.js';
import { runCli, spawnServer } from '../support/spawn-server.js';

// Series and change sets attacked as an untrusted agent would: another person's agent names this
// person's series, occurrences, bookings and change sets in every tool that takes them, fetches
// the pay pages with its token, and the person's own agent tries to approve or pay for itself.
// Every attempt must fail: 0 successes.

describe('series and change sets under attack', () => {
  it('another person’s agent reaches nothing of them, and no agent approves or pays: 0 successes', async () => {
    const server = await spawnServer(['--no-seed', '--dev']);
    const db = ['--db', server.dbPath];
    try {
      const owner = await connectHttp(server.url, 'modern');
      const room = await createOpenCalendar(owner, 'Jade Room', { amount: '30.00', currency: 'EUR' });
      const series = await ok<{ seriesId: string; occurrences: { id: string; version: number }[] }>(
        owner,
        'hold_series',
        {
          calendarIds: [room],
          start: futureHour(3),
          end: futureHour(3, 1),
          repeat: { frequency: 'daily', count: 2 },
          idempotencyKey: randomUUID(),
        },
      );
      const single = await ok<{ booking: { id: string; version: number } }>(owner, 'hold_slot', {
        calendarIds: [room],
        start: futureHour(6),
        end: futureHour(6, 1),
        idempotencyKey: randomUUID(),
      });
      const set = await ok<{ changeSetId: string; version: number }>(owner, 'propose_changes', {
        changes: [{ kind: 'hold', calendarIds: [room], start: futureHour(7), end: futureHour(7, 1) }],
        idempotencyKey: randomUUID(),
      });

      const { client: mallory } = await anotherPersonsAgent(server.url, db);
      const [first] = series.occurrences;
      const attempts: [string, Record<string, unknown>][] = [
        [
          'confirm_booking',
          { bookingId: first!.id, expectedVersion: first!.version, idempotencyKey: randomUUID() },
        ],
        [
          'cancel_booking',
          {
            bookingId: first!.id,
            expectedVersion: first!.version,
            scope: 'following',
            idempotencyKey: randomUUID(),
          },
        ],
        ['get_booking', { bookingId: first!.id }],
        [
          'propose_changes',
          {
            changes: [
              { kind: 'cancel', bookingId: single.booking.id, expectedVersion: single.booking.version },
            ],
            idempotencyKey: randomUUID(),
          },
        ],
        [
          'propose_changes',
          {
            changes: [
              {
                kind: 'move',
                bookingId: first!.id,
                expectedVersion: first!.version,
                start: futureHour(9),
                end: futureHour(9, 1),
              },
            ],
            idempotencyKey: randomUUID(),
          },
        ],
        [
          'confirm_changes',
          { changeSetId: set.changeSetId, expectedVersion: set.version, idempotencyKey: randomUUID() },
        ],
        [
          'abandon_changes',
          { changeSetId: set.changeSetId, expectedVersion: set.version, idempotencyKey: randomUUID() },
        ],
      ];
      let successes = 0;
      for (const [tool, args] of attempts) {
        const answer = await call(mallory, tool, args);
        if (answer.ok) successes += 1;
        expect(answer.error?.code, tool).toBe('NOT_FOUND');
      }
      // No tool approves or pays: the pay pages of the series and of the set want a person's sign-in.
      for (const id of [series.seriesId, set.changeSetId]) {
        const paid = await fetch(new URL(`/pay/${id}`, server.url), {
          method: 'POST',
          redirect: 'manual',
          headers: {
            authorization: `Bearer ${server.agent.token}`,
            'content-type': 'application/x-www-form-urlencoded',
          },
          body: 'status=PAID',
        });
        if (paid.status < 400 && !paid.headers.get('location')?.startsWith('/login')) successes += 1;
      }
      // The owner's own agent, with a standing rule for confirms and cancels: a series still goes to
      // a person, a held occurrence is not "cancelled from here", a set's hold is confirmed only with its set.
      const granted = await runCli([
        'standing-rules',
        'grant',
        server.agent.email,
        '--actions',
        'confirm,cancel',
        ...db,
      ]);
      expect(granted.status, granted.stderr).toBe(0);
      const byRule = await call(owner, 'confirm_booking', {
        bookingId: first!.id,
        expectedVersion: first!.version,
        idempotencyKey: randomUUID(),
      });
      if (byRule.ok) successes += 1;
      expect(byRule.error?.code).toBe('APPROVAL_REQUIRED');
      const heldFollowing = await call(owner, 'cancel_booking', {
        bookingId: first!.id,
        expectedVersion: first!.version,
        scope: 'following',
        idempotencyKey: randomUUID(),
      });
      if (heldFollowing.ok) successes += 1;
      expect(heldFollowing.error?.code).toBe('INVALID_STATE');
      const setHold = (
        await ok<{ changes: { holdId: string }[] }>(owner, 'propose_changes', {
          changes: [{ kind: 'hold', calendarIds: [room], start: futureHour(8), end: futureHour(8, 1) }],
          idempotencyKey: randomUUID(),
        })
      ).changes[0]!.holdId;
      const alone = await call(owner, 'confirm_booking', {
        bookingId: setHold,
        expectedVersion: 1,
        idempotencyKey: randomUUID(),
      });
      if (alone.ok) successes += 1;
      expect(alone.error?.code).toBe('INVALID_STATE');
      // A series whose occurrences would overlap one another is refused, naming the field.
      const overlapping = await call(owner, 'hold_series', {
        calendarIds: [room],
        start: futureHour(20),
        end: futureHour(22, 2),
        repeat: { frequency: 'daily', count: 2 },
        idempotencyKey: randomUUID(),
      });
      expect(overlapping.error?.details.field).toBe('repeat.interval');
      const tools = (await owner.listTools()).tools.map((t) => t.name);
      successes += tools.filter((name) => /approve|pay/.test(name)).length;
      expect(successes).toBe(0);
      // And nothing moved: the series is still held, the set still proposed.
      const still = await ok<{ booking: { status: string } }>(owner, 'get_booking', { bookingId: first!.id });
      expect(still.booking.status).toBe('HELD');
      const abandoned = await ok<{ status: string }>(owner, 'abandon_changes', {
        changeSetId: set.changeSetId,
        expectedVersion: set.version,
        idempotencyKey: randomUUID(),
      });
      expect(abandoned.status).toBe('ABANDONED');
      await Promise.all([owner.close(), mallory.close()]);
    } finally {
      await server.stop();
    }
  }, 60_000);
});
