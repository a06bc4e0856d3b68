import { randomUUID } from 'node:crypto';
import type { Client } from '@modelcontextprotocol/client';
import { describe, expect, it } from 'vitest';
import { createOpenCalendar, futureHour } from '../support/fixtures.js';
import type { Envelope } from '../support/mcp-clients.js';
import { call, ok } from '../support/mcp-clients.js';
import { runCli } from '../support/spawn-server.js';
import type { Backend, BackendKind } from '../reliability/harness.js';
import { clientsFor, startBackend } from '../reliability/harness.js';

// Change sets through the official client against the spawned server, on both engines: a swap of
// two bookings on a one-seat calendar, a cancellation and a new priced hold proposed as one,
// approved once (every change in words), paid once, committed all together; a set whose booking
// moved on commits nothing; abandoning gives the holds back; kill -9 during the commit leaves all
// or nothing.

interface Held {
  id: string;
  version: number;
}
interface SetView {
  changeSetId: string;
  status: string;
  version: number;
  changes: { kind: string; holdId: string | null; bookingId: string | null; heldNow: boolean }[];
  bookings: { id: string; status: string; start: string }[];
  paymentUrl: string | null;
}

async function hold(client: Client, calendarId: string, daysAhead: number, hour: number, name: string) {
  const { booking } = await ok<{ booking: Held }>(client, 'hold_slot', {
    calendarIds: [calendarId],
    start: futureHour(daysAhead, hour),
    end: futureHour(daysAhead, hour + 1),
    customer: { name },
    idempotencyKey: randomUUID(),
  });
  return booking;
}

/** Confirms a hold: approved by the operator first when the token's policy asks a person. */
async function confirmed(client: Client, backend: Backend, held: Held): Promise<Held> {
  const args = { bookingId: held.id, expectedVersion: held.version };
  let answer = await call<{ booking: Held }>(client, 'confirm_booking', {
    ...args,
    idempotencyKey: randomUUID(),
  });
  if (answer.error?.code === 'APPROVAL_REQUIRED') {
    const approvalId = answer.error.details.approvalId as string;
    expect((await runCli(['approvals', 'approve', approvalId, ...backend.databaseArgs])).status).toBe(0);
    answer = await call(client, 'confirm_booking', {
      ...args,
      approval: { approvalId },
      idempotencyKey: randomUUID(),
    });
  }
  expect(answer.ok, JSON.stringify(answer.error)).toBe(true);
  return answer.data!.booking;
}

const statusOf = async (client: Client, id: string) =>
  (await ok<{ booking: { status: string; start: string } }>(client, 'get_booking', { bookingId: id }))
    .booking;

const confirmChanges = (client: Client, set: SetView, approvalId?: string): Promise<Envelope<SetView>> =>
  call<SetView>(client, 'confirm_changes', {
    changeSetId: set.changeSetId,
    expectedVersion: set.version,
    idempotencyKey: randomUUID(),
    ...(approvalId ? { approval: { approvalId } } : {}),
  });

describe.each<BackendKind>(['sqlite', 'postgres'])('change sets (%s)', (kind) => {
  it('swaps two bookings on a one-seat calendar, cancels one and holds one, approved and paid once', async () => {
    const backend = await startBackend(kind, { writePolicy: 'draft' });
    try {
      const [agent] = await clientsFor(backend, 1);
      const vogel = await createOpenCalendar(agent!, 'Dr. Lena Vogel');
      const room = await createOpenCalendar(agent!, 'Jade Room', { amount: '40.00', currency: 'EUR' });
      const ana = await confirmed(agent!, backend, await hold(agent!, vogel, 3, 0, 'Ana Lima'));
      const ben = await confirmed(agent!, backend, await hold(agent!, vogel, 3, 1, 'Ben Okafor'));
      const cleo = await confirmed(agent!, backend, await hold(agent!, vogel, 3, 2, 'Cleo Park'));

      const set = await ok<SetView>(agent!, 'propose_changes', {
        changes: [
          {
            kind: 'move',
            bookingId: ana.id,
            expectedVersion: ana.version,
            start: futureHour(3, 1),
            end: futureHour(3, 2),
          },
          {
            kind: 'move',
            bookingId: ben.id,
            expectedVersion: ben.version,
            start: futureHour(3, 0),
            end: futureHour(3, 1),
          },
          { kind: 'cancel', bookingId: cleo.id, expectedVersion: cleo.version },
          {
            kind: 'hold',
            calendarIds: [room],
            start: futureHour(3, 4),
            end: futureHour(3, 5),
            customer: { name: 'Dev Rao' },
          },
        ],
        idempotencyKey: randomUUID(),
      });
      expect(set.status).toBe('PROPOSED');
      // The swap's new times are each other's: taken over at the commit; the new hold is held now.
      expect(set.changes.map((c) => c.heldNow)).toEqual([false, false, true, true]);
      expect(set.paymentUrl).toMatch(new RegExp(`/pay/${set.changeSetId}$`));

      const asked = await confirmChanges(agent!, set);
      expect(asked.error?.code).toBe('APPROVAL_REQUIRED');
      const summary = asked.error!.details.summary as {
        action: string;
        changes: string[];
        consequence: { money: string };
      };
      expect(summary.action).toBe('Confirm changes');
      expect(summary.changes).toHaveLength(4);
      expect(summary.changes[0]).toMatch(
        /^Move Ana Lima's booking HF-\S+ from .+ \(Dr\. Lena Vogel\) to .+\(UTC\)/,
      );
      expect(summary.changes[2]).toMatch(/^Cancel Cleo Park's booking/);
      expect(summary.changes[3]).toMatch(/^Book Jade Room for Dev Rao on /);
      expect(summary.consequence.money).toContain('40.00 EUR');
      const approvalId = asked.error!.details.approvalId as string;
      const approved = await runCli(['approvals', 'approve', approvalId, ...backend.databaseArgs]);
      expect(approved.status, approved.stderr).toBe(0);
      expect((await confirmChanges(agent!, set, approvalId)).error?.code).toBe('PAYMENT_PENDING');
      expect(
        (await runCli(['payments', 'set', set.changeSetId, 'PAID', ...backend.databaseArgs])).status,
      ).toBe(0);
      const done = await confirmChanges(agent!, set, approvalId);
      expect(done.ok, JSON.stringify(done.error)).toBe(true);
      expect(done.data!.status).toBe('CONFIRMED');

      const [anaHold, benHold, , devHold] = set.changes.map((c) => c.holdId);
      expect((await statusOf(agent!, ana.id)).status).toBe('CANCELLED');
      expect((await statusOf(agent!, ben.id)).status).toBe('CANCELLED');
      expect((await statusOf(agent!, cleo.id)).status).toBe('CANCELLED');
      const anaNow = await statusOf(agent!, anaHold!);
      const benNow = await statusOf(agent!, benHold!);
      expect([anaNow.status, benNow.status, (await statusOf(agent!, devHold!)).status]).toEqual([
        'CONFIRMED',
        'CONFIRMED',
        'CONFIRMED',
      ]);
      expect(Date.parse(anaNow.start)).toBe(Date.parse(futureHour(3, 1)));
      expect(Date.parse(benNow.start)).toBe(Date.parse(futureHour(3, 0)));
      expect(await backend.overlaps()).toBe(0);
      // Used once: the same approval commits nothing more.
      expect((await confirmChanges(agent!, done.data!, approvalId)).ok).toBe(false);
      await agent!.close();
    } finally {
      await backend.stop();
    }
  }, 120_000);

  it('a booking of the set that moved on commits nothing; abandoning gives the holds back', async () => {
    const backend = await startBackend(kind);
    try {
      const [agent] = await clientsFor(backend, 1);
      const vogel = await createOpenCalendar(agent!, 'Dr. Lena Vogel');
      const ana = await confirmed(agent!, backend, await hold(agent!, vogel, 4, 0, 'Ana Lima'));
      const ben = await confirmed(agent!, backend, await hold(agent!, vogel, 4, 1, 'Ben Okafor'));
      const swap = await ok<SetView>(agent!, 'propose_changes', {
        changes: [
          {
            kind: 'move',
            bookingId: ana.id,
            expectedVersion: ana.version,
            start: futureHour(4, 1),
            end: futureHour(4, 2),
          },
          {
            kind: 'move',
            bookingId: ben.id,
            expectedVersion: ben.version,
            start: futureHour(4, 0),
            end: futureHour(4, 1),
          },
          { kind: 'hold', calendarIds: [vogel], start: futureHour(4, 5), end: futureHour(4, 6) },
        ],
        idempotencyKey: randomUUID(),
      });
      // Malformed changes are refused naming the field; nothing is held.
      const malformed: [Record<string, unknown>, string][] = [
        [{ kind: 'move', start: futureHour(4, 3), end: futureHour(4, 4) }, 'changes[0].bookingId'],
        [
          { kind: 'cancel', bookingId: ana.id, expectedVersion: ana.version, start: futureHour(4, 3) },
          'changes[0].start',
        ],
        [{ kind: 'hold', calendarIds: [vogel], start: futureHour(4, 3) }, 'changes[0].end'],
        [{ kind: 'swap', bookingId: ana.id }, 'changes[0].kind'],
      ];
      for (const [change, field] of malformed) {
        const refused = await call(agent!, 'propose_changes', {
          changes: [change],
          idempotencyKey: randomUUID(),
        });
        expect(refused.error?.code, field).toBe('INVALID_ARGUMENTS');
        expect(refused.error?.details.field, JSON.stringify(refused.error)).toBe(field);
      }
      const twice = await call(agent!, 'propose_changes', {
        changes: [
          { kind: 'cancel', bookingId: ana.id, expectedVersion: ana.version },
          { kind: 'cancel', bookingId: ana.id, expectedVersion: ana.version },
        ],
        idempotencyKey: randomUUID(),
      });
      expect(twice.error?.details.field).toBe('changes[1].bookingId');
      // Ben's booking is cancelled on its own meanwhile: the set commits nothing.
      const cancelled = await call(agent!, 'cancel_booking', {
        bookingId: ben.id,
        expectedVersion: ben.version,
        idempotencyKey: randomUUID(),
      });
      expect(cancelled.ok).toBe(true);
      const refused = await confirmChanges(agent!, swap);
      expect(refused.ok).toBe(false);
      expect(['INVALID_STATE', 'VERSION_CONFLICT']).toContain(refused.error!.code);
      expect((await statusOf(agent!, ana.id)).status).toBe('CONFIRMED');
      const newHold = swap.changes[2]!.holdId!;
      expect((await statusOf(agent!, newHold)).status).toBe('HELD');

      const abandoned = await ok<SetView>(agent!, 'abandon_changes', {
        changeSetId: swap.changeSetId,
        expectedVersion: swap.version,
        idempotencyKey: randomUUID(),
      });
      expect(abandoned.status).toBe('ABANDONED');
      expect((await statusOf(agent!, newHold)).status).toBe('RELEASED');
      expect((await confirmChanges(agent!, abandoned)).error?.code).toBe('INVALID_STATE');

      // A new priced hold whose payment failed: the set is abandoned, its hold freed, nothing else touched.
      const paid = await createOpenCalendar(agent!, 'Jade Room', { amount: '40.00', currency: 'EUR' });
      const priced = await ok<SetView>(agent!, 'propose_changes', {
        changes: [
          { kind: 'cancel', bookingId: ana.id, expectedVersion: ana.version },
          { kind: 'hold', calendarIds: [paid], start: futureHour(4, 7), end: futureHour(4, 8) },
        ],
        idempotencyKey: randomUUID(),
      });
      expect(
        (await runCli(['payments', 'set', priced.changeSetId, 'FAILED', ...backend.databaseArgs])).status,
      ).toBe(0);
      expect((await confirmChanges(agent!, priced)).error?.code).toBe('PAYMENT_FAILED');
      expect((await statusOf(agent!, priced.changes[1]!.holdId!)).status).toBe('PAYMENT_FAILED');
      expect((await statusOf(agent!, ana.id)).status).toBe('CONFIRMED');
      // Another person's set is unknown to this one (the same token here: a made-up id).
      expect(
        (
          await call(agent!, 'abandon_changes', {
            changeSetId: 'chg_nope',
            expectedVersion: 1,
            idempotencyKey: randomUUID(),
          })
        ).error?.code,
      ).toBe('NOT_FOUND');
      await agent!.close();
    } finally {
      await backend.stop();
    }
  }, 120_000);

  it('kill -9 during the commit of swaps leaves each set all done or not at all', async () => {
    const backend = await startBackend(kind, { instances: 1 });
    try {
      let [agent] = await clientsFor(backend, 1);
      const vogel = await createOpenCalendar(agent!, 'Dr. Lena Vogel');
      const sets: string[] = [];
      for (let cycle = 0; cycle < 4; cycle++) {
        const day = 5 + cycle;
        const a = await confirmed(agent!, backend, await hold(agent!, vogel, day, 0, 'Ana Lima'));
        const b = await confirmed(agent!, backend, await hold(agent!, vogel, day, 1, 'Ben Okafor'));
        const set = await ok<SetView>(agent!, 'propose_changes', {
          changes: [
            {
              kind: 'move',
              bookingId: a.id,
              expectedVersion: a.version,
              start: futureHour(day, 1),
              end: futureHour(day, 2),
            },
            {
              kind: 'move',
              bookingId: b.id,
              expectedVersion: b.version,
              start: futureHour(day, 0),
              end: futureHour(day, 1),
            },
          ],
          idempotencyKey: randomUUID(),
        });
        sets.push(set.changeSetId);
        const commit = confirmChanges(agent!, set).catch(() => null);
        await new Promise((resolve) => setTimeout(resolve, cycle * 4));
        await backend.crashAndRestart(0);
        await commit;
        [agent] = await clientsFor(backend, 1);
      }
      // Each set: committed whole (both old bookings cancelled, both new confirmed) or not at all.
      for (const id of sets) {
        const [row] = await backend.sql<{ status: string; changes: string }>(
          'SELECT status, changes FROM change_sets WHERE id = $1'.replace(
            '$1',
            kind === 'sqlite' ? '?' : '$1',
          ),
          [id],
        );
        const changes = JSON.parse(row!.changes) as { targetId: string; holdId: string }[];
        const statuses = async (ids: string[]) =>
          Promise.all(
            ids.map(
              async (bid) =>
                (
                  await backend.sql<{ status: string }>(
                    `SELECT status FROM bookings WHERE id = ${kind === 'sqlite' ? '?' : '$1'}`,
                    [bid],
                  )
                )[0]!.status,
            ),
          );
        const olds = await statuses(changes.map((c) => c.targetId));
        const news = await statuses(changes.map((c) => c.holdId));
        if (row!.status === 'CONFIRMED') {
          expect(olds).toEqual(['CANCELLED', 'CANCELLED']);
          expect(news).toEqual(['CONFIRMED', 'CONFIRMED']);
        } else {
          expect(row!.status).toBe('PROPOSED');
          expect(olds).toEqual(['CONFIRMED', 'CONFIRMED']);
          expect(news.every((s) => s === 'HELD' || s === 'EXPIRED')).toBe(true);
        }
      }
      expect(await backend.overlaps()).toBe(0);
      await agent!.close();
    } finally {
      await backend.stop();
    }
  }, 180_000);
});
