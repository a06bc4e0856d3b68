import { randomUUID } from 'node:crypto';
import type { Client } from '@modelcontextprotocol/client';
import { describe, expect, it } from 'vitest';
import type { Envelope } from '../support/mcp-clients.js';
import { call } from '../support/mcp-clients.js';
import { createOpenCalendar, futureHour } from '../support/fixtures.js';
import type { BackendKind } from './harness.js';
import { clientsFor, record, scale, startBackend } from './harness.js';

const CYCLES = scale(2, 100);
const CLIENTS = 4;

type BookingData = { booking: { id: string; status: string } };

interface Sent {
  tool: string;
  args: Record<string, unknown>;
  answer: Envelope | null; // null: no answer (the server died mid-call)
}

/** Half-applied state: a booking whose allocations disagree with its status. */
const HALF_APPLIED = {
  sqlite: `SELECT count(*) AS n FROM bookings b WHERE
    (SELECT count(*) FROM allocations a WHERE a.tenant_id = b.tenant_id AND a.booking_id = b.id AND a.active = 1)
      <> CASE WHEN b.status IN ('HELD', 'CONFIRMED') THEN json_array_length(b.calendar_ids) ELSE 0 END`,
  postgres: `SELECT count(*)::int AS n FROM bookings b WHERE
    (SELECT count(*) FROM allocations a WHERE a.tenant_id = b.tenant_id AND a.booking_id = b.id AND a.active)
      <> CASE WHEN b.status IN ('HELD', 'CONFIRMED') THEN json_array_length(b.calendar_ids::json) ELSE 0 END`,
};

describe.each(['sqlite', 'postgres'] as BackendKind[])('kill -9 during a mixed workload on %s', (kind) => {
  it(
    `${CYCLES} crash/restart cycles lose nothing acknowledged and half-apply nothing`,
    async () => {
      const started = performance.now();
      const backend = await startBackend(kind);
      const figures = {
        cycles: 0,
        acknowledged: 0,
        acknowledgedConfirmations: 0,
        lostConfirmations: 0,
        halfApplied: 0,
        overlaps: 0,
        integrityFailures: 0,
        retriesReplayed: 0,
        retriesDuplicated: 0,
        acknowledgedWithoutAudit: 0,
      };
      let hour = 0;
      try {
        const [setup] = await clientsFor(backend, 1);
        const rooms = [
          await createOpenCalendar(setup!, 'Crash room A'),
          await createOpenCalendar(setup!, 'Crash room B'),
        ];
        await setup!.close();
        for (let cycle = 0; cycle < CYCLES; cycle++) {
          const clients = await clientsFor(backend, CLIENTS);
          const sent: Sent[] = [];
          let stop = false;
          const send = async (client: Client, tool: string, args: Record<string, unknown>) => {
            const entry: Sent = { tool, args, answer: null };
            sent.push(entry);
            // A call cut off by the kill may never be answered: give up after 5 s and count it as unacknowledged.
            entry.answer = await call(client, tool, args, { timeout: 5_000 }).catch(() => null);
            return entry.answer;
          };
          const work = clients.map(async (client, c) => {
            while (!stop) {
              hour += 1;
              const start = futureHour(2, hour);
              const held = await send(client, 'hold_slot', {
                calendarIds: c % 2 ? rooms : [rooms[c % 2]!],
                start,
                end: futureHour(2, hour + 1),
                idempotencyKey: randomUUID(),
              });
              if (!held?.ok || stop) continue;
              const { booking } = held.data as BookingData;
              const confirmed = await send(client, 'confirm_booking', {
                bookingId: booking.id,
                expectedVersion: 1,
                idempotencyKey: randomUUID(),
              });
              if (confirmed?.ok && !stop && hour % 3 === 0) {
                await send(client, 'cancel_booking', {
                  bookingId: booking.id,
                  expectedVersion: 2,
                  idempotencyKey: randomUUID(),
                });
              }
            }
          });
          // Kill mid-workload, a random moment after it has made progress (a confirmation answered),
          // however slow the machine is today: a kill before any progress would prove nothing.
          const progressed = () => sent.some((s) => s.tool === 'confirm_booking' && s.answer?.ok);
          for (const giveUp = Date.now() + 60_000; !progressed() && Date.now() < giveUp;)
            await new Promise((resolve) => setTimeout(resolve, 20));
          await new Promise((resolve) => setTimeout(resolve, 100 + Math.random() * 500));
          stop = true;
          const victim = cycle % backend.servers.length;
          await backend.crashAndRestart(victim);
          await Promise.all(work);
          await Promise.all(clients.map((c) => c.close().catch(() => undefined)));

          figures.cycles++;
          if (kind === 'sqlite') {
            const [check] = await backend.sql<{ integrity_check: string }>('PRAGMA integrity_check');
            if (check?.integrity_check !== 'ok') figures.integrityFailures++;
          }
          figures.halfApplied += (await backend.sql<{ n: number }>(HALF_APPLIED[kind]))[0]!.n;
          figures.overlaps += await backend.overlaps();

          // Every acknowledged call has its audit record: writes committed it with their effect, and the
          // restarted server sealed whatever the crash left unlinked.
          const traces = new Set(
            (
              await backend.sql<{ trace_id: string }>(
                'SELECT trace_id FROM audit_log UNION SELECT trace_id FROM audit_pending',
              )
            ).map((r) => r.trace_id),
          );
          figures.acknowledgedWithoutAudit += sent.filter(
            (s) => s.answer?.ok && !traces.has(s.answer.meta.traceId),
          ).length;

          // Every acknowledged confirmation is still there (or was cancelled by an acknowledged cancel).
          const [reader] = await clientsFor(backend, 1);
          const acknowledged = sent.filter((s) => s.answer?.ok);
          figures.acknowledged += acknowledged.length;
          for (const s of acknowledged.filter((x) => x.tool === 'confirm_booking')) {
            figures.acknowledgedConfirmations++;
            const cancel = sent.find(
              (x) => x.tool === 'cancel_booking' && x.args.bookingId === s.args.bookingId,
            );
            const now = await call<BookingData>(reader!, 'get_booking', {
              bookingId: s.args.bookingId as string,
            });
            const status = now.data?.booking.status ?? 'missing';
            // An acknowledged cancel must have happened; an unanswered one may or may not have.
            const allowed = cancel?.answer?.ok
              ? ['CANCELLED']
              : cancel
                ? ['CONFIRMED', 'CANCELLED']
                : ['CONFIRMED'];
            if (!allowed.includes(status)) figures.lostConfirmations++;
          }
          // Retrying after the restart replays what was acknowledged and never applies anything twice.
          for (const s of sent.slice(-12)) {
            const again = await call(reader!, s.tool, s.args);
            const twice = await call(reader!, s.tool, s.args);
            if (s.answer?.ok) {
              if (again.meta.idempotentReplay && JSON.stringify(again.data) === JSON.stringify(s.answer.data))
                figures.retriesReplayed++;
              else figures.retriesDuplicated++;
            }
            if (
              again.ok &&
              (!twice.meta.idempotentReplay || JSON.stringify(twice.data) !== JSON.stringify(again.data))
            )
              figures.retriesDuplicated++;
          }
          await reader!.close();
        }
        record('3 crash', backend.label, {
          ...figures,
          seconds: Math.round((performance.now() - started) / 1000),
        });
        expect(figures.lostConfirmations).toBe(0);
        expect(figures.halfApplied).toBe(0);
        expect(figures.overlaps).toBe(0);
        expect(figures.integrityFailures).toBe(0);
        expect(figures.retriesDuplicated).toBe(0);
        expect(figures.acknowledgedWithoutAudit).toBe(0);
        expect(figures.acknowledgedConfirmations).toBeGreaterThan(0);
      } finally {
        await backend.stop();
      }
    },
    scale(600_000, 3_600_000),
  );
});
