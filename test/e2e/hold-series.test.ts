import { randomUUID } from 'node:crypto';
import type { Client } from '@modelcontextprotocol/client';
import { Temporal } from 'temporal-polyfill';
import { describe, expect, it } from 'vitest';
import { openAllWeek } from '../support/fixtures.js';
import type { Envelope } from '../support/mcp-clients.js';
import { call, ok } from '../support/mcp-clients.js';
import { runCli } from '../support/spawn-server.js';
import type { BackendKind } from '../reliability/harness.js';
import { clientsFor, startBackend } from '../reliability/harness.js';

// Recurring series through the official client against the spawned server, on both engines: a
// weekly series across a DST change keeps its local time; a taken occurrence refuses the whole
// series with alternatives for it, and the series is held with the chosen one; one approval
// lists every occurrence, one payment of the sum confirms them all; "this and the following" is
// cancelled as one; series racing single holds never overbook and never half-hold.

const ZONE = 'Europe/Berlin';

interface Occurrence {
  id: string;
  version: number;
  status: string;
  start: string;
  local: { timeZone: string; start: string }[];
  seriesId: string | null;
}

/** Sunday 10:00 in Berlin two weeks before the next DST change at least 20 days away, weekly for 4. */
function seriesAcrossDst(): { start: string; end: string } {
  const soon = Temporal.Now.zonedDateTimeISO(ZONE).add({ days: 20 });
  const change = soon.getTimeZoneTransition('next')!;
  const first = change
    .toPlainDate()
    .subtract({ days: 14 })
    .toZonedDateTime({ timeZone: ZONE, plainTime: Temporal.PlainTime.from('10:00') });
  return {
    start: first.toInstant().toString(),
    end: first.add({ hours: 1 }).toInstant().toString(),
  };
}

async function calendar(client: Client, name: string, price?: string): Promise<string> {
  const { calendar } = await ok<{ calendar: { id: string } }>(client, 'create_calendar', {
    name,
    timeZone: ZONE,
    availability: openAllWeek,
    ...(price ? { price: { amount: price, currency: 'EUR' } } : {}),
    idempotencyKey: randomUUID(),
  });
  return calendar.id;
}

const holdSeries = (client: Client, args: Record<string, unknown>): Promise<Envelope> =>
  call(client, 'hold_series', { idempotencyKey: randomUUID(), customer: { name: 'Ana Lima' }, ...args });

describe.each<BackendKind>(['sqlite', 'postgres'])('recurring series (%s)', (kind) => {
  it('holds a weekly series across DST with an alternative, approves and pays it once, cancels the rest', async () => {
    const backend = await startBackend(kind, { writePolicy: 'draft' });
    const db = backend.databaseArgs;
    try {
      const [agent, rival] = await clientsFor(backend, 2);
      const physio = await calendar(agent!, 'Dr. Lena Vogel', '50.00');
      const first = seriesAcrossDst();
      const weekly = { calendarIds: [physio], ...first, repeat: { frequency: 'weekly', count: 4 } };

      // Someone else holds the third Sunday's 10:00 first.
      const thirdStart = Temporal.Instant.from(first.start).toZonedDateTimeISO(ZONE).add({ weeks: 2 });
      await ok(rival!, 'hold_slot', {
        calendarIds: [physio],
        start: thirdStart.toInstant().toString(),
        end: thirdStart.add({ hours: 1 }).toInstant().toString(),
        idempotencyKey: randomUUID(),
      });
      const refused = await holdSeries(agent!, weekly);
      expect(refused.error?.code).toBe('SLOT_UNAVAILABLE');
      const occurrences = refused.error!.details.occurrences as {
        occurrence: number;
        alternatives: { start: string; end: string }[];
      }[];
      expect(occurrences.map((o) => o.occurrence)).toEqual([3]);
      expect(occurrences[0]!.alternatives.length).toBeGreaterThan(0);
      // All or none: nothing of the series was held.
      // (The rival acts for the same person here: only its single hold is there.)
      const mine = await ok<{ bookings: Occurrence[] }>(agent!, 'list_bookings', { limit: 50 });
      expect(mine.bookings.map((b) => b.seriesId)).toEqual([null]);

      // The person picks the first alternative for the third; the series is held.
      const alternative = occurrences[0]!.alternatives[0]!;
      const held = await ok<{
        seriesId: string;
        occurrences: Occurrence[];
        price: { amount: string; currency: string };
        paymentUrl: string;
        confirmationIntent: { intent: { series: { occurrences: unknown[] } } };
      }>(agent!, 'hold_series', {
        ...weekly,
        instead: [{ occurrence: 3, start: alternative.start, end: alternative.end }],
        idempotencyKey: randomUUID(),
      });
      expect(held.occurrences).toHaveLength(4);
      expect(held.occurrences.every((o) => o.status === 'HELD' && o.seriesId === held.seriesId)).toBe(true);
      // The same local 10:00 on both sides of the DST change (the third is the alternative).
      for (const i of [0, 1, 3])
        expect(held.occurrences[i]!.local.find((l) => l.timeZone === ZONE)!.start).toMatch(/T10:00/);
      expect(Date.parse(held.occurrences[2]!.start)).toBe(Date.parse(alternative.start));
      const offsets = new Set(
        held.occurrences.map((o) => Temporal.Instant.from(o.start).toZonedDateTimeISO(ZONE).offset),
      );
      expect(offsets.size).toBe(2);
      expect(held.price).toEqual({ amount: '200.00', currency: 'EUR' });
      expect(held.paymentUrl).toMatch(new RegExp(`/pay/${held.seriesId}$`));
      expect(held.confirmationIntent.intent.series.occurrences).toHaveLength(4);

      // confirm_booking on any occurrence asks a person about the whole series.
      const second = held.occurrences[1]!;
      const confirm = (approvalId?: string) =>
        call(agent!, 'confirm_booking', {
          bookingId: second.id,
          expectedVersion: second.version,
          idempotencyKey: randomUUID(),
          ...(approvalId ? { approval: { approvalId } } : {}),
        });
      const asked = await confirm();
      expect(asked.error?.code).toBe('APPROVAL_REQUIRED');
      const summary = asked.error!.details.summary as {
        action: string;
        amount: string;
        occurrences: { when: string }[];
        consequence: { time: string; money: string };
      };
      expect(summary.action).toBe('Confirm series');
      expect(summary.amount).toBe('200.00');
      expect(summary.occurrences).toHaveLength(4);
      expect(summary.consequence.time).toContain('4 dates');
      const approvalId = asked.error!.details.approvalId as string;
      const approved = await runCli(['approvals', 'approve', approvalId, ...db]);
      expect(approved.status, approved.stderr).toBe(0);
      // One payment for the sum, under the series id.
      expect((await confirm(approvalId)).error?.code).toBe('PAYMENT_PENDING');
      const paid = await runCli(['payments', 'set', held.seriesId, 'PAID', ...db]);
      expect(paid.status, paid.stderr).toBe(0);
      const confirmed = await confirm(approvalId);
      expect(confirmed.ok, JSON.stringify(confirmed.error)).toBe(true);
      const after = await Promise.all(
        held.occurrences.map((o) =>
          ok<{ booking: Occurrence & { payment: { status: string } } }>(agent!, 'get_booking', {
            bookingId: o.id,
          }),
        ),
      );
      expect(after.map((a) => a.booking.status)).toEqual([
        'CONFIRMED',
        'CONFIRMED',
        'CONFIRMED',
        'CONFIRMED',
      ]);
      expect(after.every((a) => a.booking.payment.status === 'PAID')).toBe(true);

      // Moving "this and the following" (the third and fourth, later that day) is one change set:
      // one approval, both moved in one commit, each still in the series with its payment.
      const moves = after.slice(2).map(({ booking }) => ({
        kind: 'move',
        bookingId: booking.id,
        expectedVersion: booking.version,
        // Three hours later: clear of the rival's hold beside the third's alternative time.
        start: new Date(Date.parse(booking.start) + 3 * 3_600_000).toISOString(),
        end: new Date(Date.parse(booking.start) + 4 * 3_600_000).toISOString(),
      }));
      const set = await ok<{ changeSetId: string; version: number; changes: { holdId: string }[] }>(
        agent!,
        'propose_changes',
        { changes: moves, idempotencyKey: randomUUID() },
      );
      const commit = (approval?: string) =>
        call(agent!, 'confirm_changes', {
          changeSetId: set.changeSetId,
          expectedVersion: set.version,
          idempotencyKey: randomUUID(),
          ...(approval ? { approval: { approvalId: approval } } : {}),
        });
      const askedMove = await commit();
      expect(askedMove.error?.code).toBe('APPROVAL_REQUIRED');
      const moveId = askedMove.error!.details.approvalId as string;
      expect((await runCli(['approvals', 'approve', moveId, ...db])).status).toBe(0);
      expect((await commit(moveId)).ok).toBe(true);
      const moved = await Promise.all(
        set.changes.map((c) =>
          ok<{ booking: Occurrence & { payment: { status: string } } }>(agent!, 'get_booking', {
            bookingId: c.holdId,
          }),
        ),
      );
      expect(moved.map((m) => [m.booking.status, m.booking.seriesId, m.booking.payment.status])).toEqual([
        ['CONFIRMED', held.seriesId, 'PAID'],
        ['CONFIRMED', held.seriesId, 'PAID'],
      ]);

      // "This and the following" from the (moved) third: one approval for two occurrences, each refunded.
      const third = moved[0]!.booking;
      const cancel = (approval?: string) =>
        call(agent!, 'cancel_booking', {
          bookingId: third.id,
          expectedVersion: third.version,
          scope: 'following',
          idempotencyKey: randomUUID(),
          ...(approval ? { approval: { approvalId: approval } } : {}),
        });
      const askedCancel = await cancel();
      expect(askedCancel.error?.code).toBe('APPROVAL_REQUIRED');
      const cancelSummary = askedCancel.error!.details.summary as {
        action: string;
        occurrences: unknown[];
        consequence: { refundDue: { amount: string } | null };
      };
      expect(cancelSummary.action).toBe('Cancel series from here');
      expect(cancelSummary.occurrences).toHaveLength(2);
      expect(cancelSummary.consequence.refundDue).toEqual({ amount: '100.00', currency: 'EUR' });
      const cancelId = askedCancel.error!.details.approvalId as string;
      expect((await runCli(['approvals', 'approve', cancelId, ...db])).status).toBe(0);
      expect((await cancel(cancelId)).ok).toBe(true);
      const final = await Promise.all(
        held.occurrences.map((o) => ok<{ booking: Occurrence }>(agent!, 'get_booking', { bookingId: o.id })),
      );
      expect(final.map((f) => f.booking.status)).toEqual([
        'CONFIRMED',
        'CONFIRMED',
        'CANCELLED',
        'CANCELLED',
      ]);
      // The moved third and fourth were the ones cancelled "from here".
      for (const c of set.changes)
        expect(
          (await ok<{ booking: Occurrence }>(agent!, 'get_booking', { bookingId: c.holdId })).booking.status,
        ).toBe('CANCELLED');
      expect(await backend.overlaps()).toBe(0);
      await Promise.all([agent!.close(), rival!.close()]);
    } finally {
      await backend.stop();
    }
  }, 120_000);

  it('series racing single holds on a one-seat calendar: every series whole or absent, 0 overlaps', async () => {
    const backend = await startBackend(kind);
    try {
      const clients = await clientsFor(backend, 12);
      const room = await calendar(clients[0]!, 'Jade Room');
      const first = seriesAcrossDst();
      const base = Date.parse(first.start);
      const HOUR = 3_600_000;
      const WEEK = 7 * 24 * HOUR;
      // Six series of four weeks, each starting an hour apart or on the same hour; six singles in their way.
      const answers = await Promise.all(
        clients.map((client, i) =>
          i < 6
            ? holdSeries(client, {
                calendarIds: [room],
                start: new Date(base + (i % 3) * HOUR).toISOString(),
                end: new Date(base + (i % 3) * HOUR + HOUR).toISOString(),
                repeat: { frequency: 'weekly', count: 4 },
              })
            : call(client, 'hold_slot', {
                calendarIds: [room],
                start: new Date(base + (i % 4) * WEEK + (i % 3) * HOUR).toISOString(),
                end: new Date(base + (i % 4) * WEEK + (i % 3) * HOUR + HOUR).toISOString(),
                idempotencyKey: randomUUID(),
              }),
        ),
      );
      expect(answers.every((a) => a.ok || a.error?.code === 'SLOT_UNAVAILABLE')).toBe(true);
      expect(answers.some((a) => a.ok)).toBe(true);
      expect(await backend.overlaps()).toBe(0);
      const groups = await backend.sql<{ series_id: string; n: number | string }>(
        `SELECT series_id, count(*) AS n FROM bookings WHERE series_id IS NOT NULL GROUP BY series_id`,
      );
      expect(groups.every((g) => Number(g.n) === 4)).toBe(true);
      expect(groups).toHaveLength(answers.slice(0, 6).filter((a) => a.ok).length);
      await Promise.all(clients.map((c) => c.close()));
    } finally {
      await backend.stop();
    }
  }, 120_000);
});
