import { randomUUID } from 'node:crypto';
import type { Client } from '@modelcontextprotocol/client';
import { describe, expect, it } from 'vitest';
import { call, ok } from '../support/mcp-clients.js';
import { createOpenCalendar } from '../support/fixtures.js';
import { runCli } from '../support/spawn-server.js';
import type { BackendKind } from './harness.js';
import { clientsFor, sharedBackend, startBackend } from './harness.js';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
/** RFC 3339 without fractions, as Holdfast answers instants. */
const at = (ahead: number, hour: number, minute = 0) =>
  new Date(Math.floor(Date.now() / DAY) * DAY + ahead * DAY + hour * HOUR + minute * 60_000)
    .toISOString()
    .replace('.000Z', 'Z');

async function confirmedBooking(agent: Client, calendarId: string, start: string, end: string) {
  const { booking } = await ok(agent, 'hold_slot', {
    calendarIds: [calendarId],
    start,
    end,
    idempotencyKey: randomUUID(),
  });
  const confirmed = await ok(agent, 'confirm_booking', {
    bookingId: booking.id,
    expectedVersion: booking.version,
    idempotencyKey: randomUUID(),
  });
  return confirmed.booking as { id: string; version: number };
}

const statusOf = async (agent: Client, bookingId: string) =>
  ((await ok(agent, 'get_booking', { bookingId })).booking as { status: string }).status;

describe.each(['sqlite', 'postgres'] as BackendKind[])('reschedule_booking on %s', (kind) => {
  // The first three scenarios each work on calendars of their own: one backend serves them all.
  const shared = sharedBackend(() => startBackend(kind));

  it('holds the new time while the old stays booked; confirming swaps them; releasing abandons', async () => {
    const backend = await shared();
    {
      const [agent, other] = await clientsFor(backend, 2);
      const calendarId = await createOpenCalendar(agent!, 'Consulting room');
      const old = await confirmedBooking(agent!, calendarId, at(3, 10), at(3, 11));
      // Thirty minutes later: the new time overlaps the old one, which the booking already holds.
      const { booking: move } = await ok(agent!, 'reschedule_booking', {
        bookingId: old.id,
        start: at(3, 10, 30),
        end: at(3, 11, 30),
        idempotencyKey: randomUUID(),
      });
      expect(move).toMatchObject({ status: 'HELD', replaces: old.id });
      expect(move.confirmationIntent.intent.replaces).toMatchObject({
        bookingId: old.id,
        start: at(3, 10),
        end: at(3, 11),
      });
      // Meanwhile both the old time and the new one are taken for everyone else.
      for (const [start, end] of [
        [at(3, 10), at(3, 10, 30)],
        [at(3, 11), at(3, 11, 30)],
      ])
        expect(
          (
            await call(other!, 'hold_slot', {
              calendarIds: [calendarId],
              start,
              end,
              idempotencyKey: randomUUID(),
            })
          ).error?.code,
        ).toBe('SLOT_UNAVAILABLE');
      expect(await statusOf(agent!, old.id)).toBe('CONFIRMED');
      const done = await ok(agent!, 'confirm_booking', {
        bookingId: move.id,
        expectedVersion: move.version,
        idempotencyKey: randomUUID(),
      });
      expect(done.booking).toMatchObject({ status: 'CONFIRMED', start: at(3, 10, 30), end: at(3, 11, 30) });
      expect(await statusOf(agent!, old.id)).toBe('CANCELLED');
      // The freed half hour is bookable again; the moved booking's whole new time is not.
      expect(
        (
          await call(other!, 'hold_slot', {
            calendarIds: [calendarId],
            start: at(3, 10),
            end: at(3, 10, 30),
            idempotencyKey: randomUUID(),
          })
        ).ok,
      ).toBe(true);
      expect(
        (
          await call(other!, 'hold_slot', {
            calendarIds: [calendarId],
            start: at(3, 10, 30),
            end: at(3, 11),
            idempotencyKey: randomUUID(),
          })
        ).error?.code,
      ).toBe('SLOT_UNAVAILABLE');
      expect(await backend.overlaps()).toBe(0);

      // A second move, abandoned: the booking keeps its time and the held new time is free again.
      const { booking: abandoned } = await ok(agent!, 'reschedule_booking', {
        bookingId: done.booking.id,
        start: at(4, 9),
        end: at(4, 10),
        idempotencyKey: randomUUID(),
      });
      await ok(agent!, 'release_hold', {
        bookingId: abandoned.id,
        expectedVersion: abandoned.version,
        idempotencyKey: randomUUID(),
      });
      expect(await statusOf(agent!, done.booking.id)).toBe('CONFIRMED');
      expect(
        (
          await call(other!, 'hold_slot', {
            calendarIds: [calendarId],
            start: at(4, 9),
            end: at(4, 10),
            idempotencyKey: randomUUID(),
          })
        ).ok,
      ).toBe(true);
      await Promise.all([agent!.close(), other!.close()]);
    }
  }, 60_000);

  it('a move onto a taken time is refused with alternatives, and bad moves name the field', async () => {
    const backend = await shared();
    {
      const [agent] = await clientsFor(backend, 1);
      const calendarId = await createOpenCalendar(agent!, 'Studio');
      const old = await confirmedBooking(agent!, calendarId, at(5, 9), at(5, 10));
      await confirmedBooking(agent!, calendarId, at(5, 14), at(5, 15));
      const clash = await call(agent!, 'reschedule_booking', {
        bookingId: old.id,
        start: at(5, 14),
        end: at(5, 15),
        idempotencyKey: randomUUID(),
      });
      expect(clash.error?.code).toBe('SLOT_UNAVAILABLE');
      expect((clash.error?.details?.alternatives as unknown[]).length).toBeGreaterThan(0);
      const wider = await call(agent!, 'reschedule_booking', {
        bookingId: old.id,
        start: at(5, 8, 30),
        end: at(5, 10, 30),
        idempotencyKey: randomUUID(),
      });
      expect(wider.error).toMatchObject({ code: 'INVALID_ARGUMENTS', details: { field: 'end' } });
      const priced = await ok(agent!, 'create_calendar', {
        name: 'Priced',
        timeZone: 'UTC',
        price: { amount: '50.00', currency: 'EUR' },
        availability: {
          weekly: {
            mon: [{ start: '00:00', end: '24:00' }],
            tue: [{ start: '00:00', end: '24:00' }],
            wed: [{ start: '00:00', end: '24:00' }],
            thu: [{ start: '00:00', end: '24:00' }],
            fri: [{ start: '00:00', end: '24:00' }],
            sat: [{ start: '00:00', end: '24:00' }],
            sun: [{ start: '00:00', end: '24:00' }],
          },
          overrides: [],
        },
        idempotencyKey: randomUUID(),
      });
      const repriced = await call(agent!, 'reschedule_booking', {
        bookingId: old.id,
        calendarIds: [priced.calendar.id],
        start: at(6, 9),
        end: at(6, 10),
        idempotencyKey: randomUUID(),
      });
      expect(repriced.error).toMatchObject({ code: 'INVALID_ARGUMENTS', details: { field: 'calendarIds' } });
      const unknown = await call(agent!, 'reschedule_booking', {
        bookingId: 'bk_nope',
        start: at(6, 9),
        end: at(6, 10),
        idempotencyKey: randomUUID(),
      });
      expect(unknown.error?.code).toBe('NOT_FOUND');
      expect(await statusOf(agent!, old.id)).toBe('CONFIRMED');
      await agent!.close();
    }
  }, 60_000);

  it('a move and 16 racing holds on its new time: exactly one gets it, the old booking is untouched if the move loses', async () => {
    const backend = await shared();
    {
      const clients = await clientsFor(backend, 17);
      const mover = clients[0]!;
      const calendarId = await createOpenCalendar(mover, 'Contended');
      const old = await confirmedBooking(mover, calendarId, at(7, 9), at(7, 10));
      const target = { start: at(7, 15), end: at(7, 16) };
      const [moveAnswer, ...holds] = await Promise.all([
        call(mover, 'reschedule_booking', { bookingId: old.id, ...target, idempotencyKey: randomUUID() }),
        ...clients
          .slice(1)
          .map((c) =>
            call(c, 'hold_slot', { calendarIds: [calendarId], ...target, idempotencyKey: randomUUID() }),
          ),
      ]);
      const winners = [moveAnswer!, ...holds].filter((a) => a.ok);
      expect(winners).toHaveLength(1);
      expect(
        [moveAnswer!, ...holds].filter((a) => !a.ok).every((a) => a.error?.code === 'SLOT_UNAVAILABLE'),
      ).toBe(true);
      expect(await statusOf(mover, old.id)).toBe('CONFIRMED');
      expect(await backend.overlaps()).toBe(0);
      await Promise.all(clients.map((c) => c.close()));
    }
  }, 60_000);

  it('killed while confirming moves, again and again: each booking is either the old or the new, never both or neither', async () => {
    const backend = await startBackend(kind, { instances: 1 });
    try {
      const rounds = 6;
      let [agent] = await clientsFor(backend, 1);
      const calendarId = await createOpenCalendar(agent!, 'Crash room');
      const pairs: { old: string; move: string }[] = [];
      for (let round = 0; round < rounds; round++) {
        const old = await confirmedBooking(agent!, calendarId, at(10 + round, 9), at(10 + round, 10));
        const { booking: move } = await ok(agent!, 'reschedule_booking', {
          bookingId: old.id,
          start: at(10 + round, 13),
          end: at(10 + round, 14),
          idempotencyKey: randomUUID(),
        });
        pairs.push({ old: old.id, move: move.id });
        // Confirm and kill the server a few milliseconds later: before, during or after the commit.
        const confirming = call(agent!, 'confirm_booking', {
          bookingId: move.id,
          expectedVersion: move.version,
          idempotencyKey: randomUUID(),
        }).catch(() => null);
        await new Promise((resolve) => setTimeout(resolve, round * 3));
        await backend.crashAndRestart(0);
        await confirming;
        [agent] = await clientsFor(backend, 1);
      }
      const active = kind === 'sqlite' ? 'active = 1' : 'active';
      for (const { old, move } of pairs) {
        const rows = await backend.sql<{ id: string; status: string }>(
          `SELECT id, status FROM bookings WHERE id IN (${kind === 'sqlite' ? '?, ?' : '$1, $2'})`,
          [old, move],
        );
        const byId = Object.fromEntries(rows.map((r) => [r.id, r.status]));
        const oldLives = byId[old] === 'CONFIRMED';
        const newLives = byId[move] === 'CONFIRMED';
        expect(oldLives !== newLives || (oldLives && byId[move] === 'HELD'), JSON.stringify(byId)).toBe(true);
        expect(oldLives && newLives).toBe(false);
        const allocations = await backend.sql<{ booking_id: string }>(
          `SELECT booking_id FROM allocations WHERE ${active} AND booking_id IN (${kind === 'sqlite' ? '?, ?' : '$1, $2'})`,
          [old, move],
        );
        expect(allocations.length).toBeGreaterThan(0);
      }
      expect(await backend.overlaps()).toBe(0);
      await agent!.close();
    } finally {
      await backend.stop();
    }
  }, 120_000);

  it('a person approving a move sees the old and the new time, and the approval binds both', async () => {
    const backend = await startBackend(kind, { writePolicy: 'draft', instances: 1 });
    try {
      const [agent] = await clientsFor(backend, 1);
      const calendarId = await createOpenCalendar(agent!, 'Approved room');
      const { booking } = await ok(agent!, 'hold_slot', {
        calendarIds: [calendarId],
        start: at(20, 9),
        end: at(20, 10),
        idempotencyKey: randomUUID(),
      });
      const asked = await call(agent!, 'confirm_booking', {
        bookingId: booking.id,
        expectedVersion: 1,
        idempotencyKey: randomUUID(),
      });
      const approve = (id: string) => runCli(['approvals', 'approve', id, ...backend.databaseArgs]);
      expect((await approve(asked.error!.details!.approvalId as string)).status).toBe(0);
      await ok(agent!, 'confirm_booking', {
        bookingId: booking.id,
        expectedVersion: 1,
        approval: { approvalId: asked.error!.details!.approvalId },
        idempotencyKey: randomUUID(),
      });
      const { booking: move } = await ok(agent!, 'reschedule_booking', {
        bookingId: booking.id,
        start: at(21, 14),
        end: at(21, 15),
        idempotencyKey: randomUUID(),
      });
      const askMove = await call(agent!, 'confirm_booking', {
        bookingId: move.id,
        expectedVersion: move.version,
        idempotencyKey: randomUUID(),
      });
      expect(askMove.error?.code).toBe('APPROVAL_REQUIRED');
      const summary = askMove.error!.details!.summary as {
        action: string;
        startUtc: string;
        movedFrom: { startUtc: string; reference: string };
      };
      expect(summary).toMatchObject({
        action: 'Move booking',
        startUtc: at(21, 14),
        movedFrom: { startUtc: at(20, 9), reference: booking.reference },
      });
      expect(askMove.error!.details!.intentHash).toBe(move.confirmationIntent.intentHash);
      // An approval of the plain booking's confirmation does not confirm the move (other intent).
      const reused = await call(agent!, 'confirm_booking', {
        bookingId: move.id,
        expectedVersion: move.version,
        approval: { approvalId: asked.error!.details!.approvalId },
        idempotencyKey: randomUUID(),
      });
      expect(reused.ok).toBe(false);
      expect((await approve(askMove.error!.details!.approvalId as string)).status).toBe(0);
      const moved = await ok(agent!, 'confirm_booking', {
        bookingId: move.id,
        expectedVersion: move.version,
        approval: { approvalId: askMove.error!.details!.approvalId },
        idempotencyKey: randomUUID(),
      });
      expect(moved.booking.status).toBe('CONFIRMED');
      expect(await statusOf(agent!, booking.id)).toBe('CANCELLED');
      await agent!.close();
    } finally {
      await backend.stop();
    }
  }, 60_000);
});
