import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { createOpenCalendar, futureHour, openAllWeek } from '../support/fixtures.js';
import { call, ok } from '../support/mcp-clients.js';
import type { BackendKind } from '../reliability/harness.js';
import { clientsFor, startBackend } from '../reliability/harness.js';

describe.each(['sqlite', 'postgres'] as BackendKind[])('quotas and paging on %s', (kind) => {
  it('caps calendars per tenant even when instances race, and pages list_calendars', async () => {
    const backend = await startBackend(kind, { serverArgs: ['--max-calendars', '5'] });
    try {
      const clients = await clientsFor(backend, 8);
      const answers = await Promise.all(
        clients.map((client, i) =>
          call(client, 'create_calendar', {
            name: `Room ${i}`,
            timeZone: 'UTC',
            availability: openAllWeek,
            idempotencyKey: randomUUID(),
          }),
        ),
      );
      expect(answers.filter((a) => a.ok)).toHaveLength(5);
      const refused = answers.filter((a) => !a.ok);
      expect(refused.map((a) => a.error!.code)).toEqual([
        'QUOTA_EXCEEDED',
        'QUOTA_EXCEEDED',
        'QUOTA_EXCEEDED',
      ]);
      expect(refused[0]!.error!.details).toEqual({ quota: 'calendars', limit: 5 });
      const [calendars] = await backend.sql<{ n: number | string }>('SELECT count(*) AS n FROM calendars');
      expect(Number(calendars!.n)).toBe(5);

      const first = await ok(clients[0]!, 'list_calendars', { limit: 2 });
      expect(first.calendars).toHaveLength(2);
      expect(first.total).toBe(5);
      const second = await ok(clients[1]!, 'list_calendars', { limit: 2, cursor: first.nextCursor });
      const third = await ok(clients[2]!, 'list_calendars', { limit: 2, cursor: second.nextCursor });
      expect(third.calendars).toHaveLength(1);
      expect(third.nextCursor).toBeNull();
      const ids = [...first.calendars, ...second.calendars, ...third.calendars].map(
        (c: { id: string }) => c.id,
      );
      expect(new Set(ids).size).toBe(5);
      const foreign = await call(clients[0]!, 'list_calendars', { limit: 2, cursor: 'eyJxIjoieCIsInAiOjJ9' });
      expect(foreign.error?.code).toBe('INVALID_CURSOR');
      await Promise.all(clients.map((c) => c.close()));
    } finally {
      await backend.stop();
    }
  });

  it('caps approvals waiting for a person; the refusal leaves the hold as it was', async () => {
    const backend = await startBackend(kind, {
      serverArgs: ['--max-open-approvals', '3'],
      writePolicy: 'draft',
    });
    try {
      const [agent] = await clientsFor(backend, 1);
      const room = await createOpenCalendar(agent!, 'Approvals room');
      const codes: string[] = [];
      for (let i = 0; i < 5; i++) {
        const { booking } = await ok(agent!, 'hold_slot', {
          calendarIds: [room],
          start: futureHour(2, i),
          end: futureHour(2, i + 1),
          idempotencyKey: randomUUID(),
        });
        const asked = await call(agent!, 'confirm_booking', {
          bookingId: booking.id,
          expectedVersion: 1,
          idempotencyKey: randomUUID(),
        });
        codes.push(asked.error!.code);
        expect((await ok(agent!, 'get_booking', { bookingId: booking.id })).booking.status).toBe('HELD');
      }
      expect(codes).toEqual([
        'APPROVAL_REQUIRED',
        'APPROVAL_REQUIRED',
        'APPROVAL_REQUIRED',
        'QUOTA_EXCEEDED',
        'QUOTA_EXCEEDED',
      ]);
      const [pending] = await backend.sql<{ n: number | string }>(
        "SELECT count(*) AS n FROM approvals WHERE status = 'PENDING'",
      );
      expect(Number(pending!.n)).toBe(3);
      await agent!.close();
    } finally {
      await backend.stop();
    }
  });
});
