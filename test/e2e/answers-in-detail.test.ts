import { randomUUID } from 'node:crypto';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createOpenCalendar, futureHour } from '../support/fixtures.js';
import { call, connectHttp, connectStdio, ok } from '../support/mcp-clients.js';
import type { RunningServer } from '../support/spawn-server.js';
import { runCli, spawnServer, untilSealed } from '../support/spawn-server.js';

const RFC3339 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/;

let server: RunningServer;
beforeAll(async () => {
  server = await spawnServer(['--no-seed']);
});
afterAll(() => server.stop());

describe('what the answers say', () => {
  it('SLOT_UNAVAILABLE names only the calendars that are taken', async () => {
    const agent = await connectHttp(server.url, 'modern');
    const [a, b] = [await createOpenCalendar(agent, 'Busy A'), await createOpenCalendar(agent, 'Free B')];
    const slot = { start: futureHour(3), end: futureHour(3, 1) };
    await ok(agent, 'hold_slot', { calendarIds: [a], ...slot, idempotencyKey: randomUUID() });
    const refused = await call(agent, 'hold_slot', {
      calendarIds: [a, b],
      ...slot,
      idempotencyKey: randomUUID(),
    });
    expect(refused.error?.code).toBe('SLOT_UNAVAILABLE');
    expect(refused.error?.details.calendarIds).toEqual([a]);
    await agent.close();
  });

  it('every instant in error details and operator JSON is RFC 3339', async () => {
    const agent = await connectHttp(server.url, 'modern');
    const room = await createOpenCalendar(agent, 'Priced', { amount: '10.00', currency: 'EUR' });
    const { booking } = await ok(agent, 'hold_slot', {
      calendarIds: [room],
      start: futureHour(4),
      end: futureHour(4, 1),
      idempotencyKey: randomUUID(),
    });
    const asked = await call(agent, 'confirm_booking', {
      bookingId: booking.id,
      expectedVersion: 1,
      idempotencyKey: randomUUID(),
    });
    const approvalId = asked.error!.details.approvalId as string;
    expect(asked.error!.details.expiresAt).toMatch(RFC3339);
    const pending = await call(agent, 'get_approval', { approvalId });
    expect(pending.error?.details).toMatchObject({ status: 'PENDING' });
    expect((await runCli(['approvals', 'approve', approvalId, '--db', server.dbPath])).status).toBe(0);
    const unpaid = await call(agent, 'confirm_booking', {
      bookingId: booking.id,
      expectedVersion: 1,
      idempotencyKey: randomUUID(),
      approval: { approvalId },
    });
    expect(unpaid.error?.code).toBe('PAYMENT_PENDING');
    expect(unpaid.error?.details.holdExpiresAt).toMatch(RFC3339);
    const listed = JSON.parse(
      (await runCli(['approvals', 'list', '--json', '--db', server.dbPath])).stdout,
    ) as Record<string, string>[];
    for (const a of listed) {
      expect(a.createdAt).toMatch(RFC3339);
      expect(a.expiresAt).toMatch(RFC3339);
    }
    const tail = (await runCli(['audit', 'tail', '-n', '3', '--json', '--db', server.dbPath])).stdout
      .trim()
      .split('\n');
    for (const line of tail) expect(JSON.parse(line).at).toMatch(RFC3339);
    await agent.close();
  });

  it('the audit names the client each call came from, as it declared itself, on every transport', async () => {
    const http = await connectHttp(server.url, 'legacy');
    const modern = await connectHttp(server.url, 'modern');
    const stdio = await connectStdio(server.dbPath, 'legacy', ['--no-seed']);
    const viaHttp = await call(http, 'list_calendars', {});
    const viaModern = await call(modern, 'list_calendars', {});
    const viaStdio = await call(stdio, 'list_calendars', {});
    await Promise.all([http.close(), modern.close(), stdio.close()]);
    await untilSealed(server.dbPath);
    const db = new Database(server.dbPath, { readonly: true });
    const row = (trace: string) =>
      db.prepare('SELECT subject, client_id, transport FROM audit_log WHERE trace_id = ?').get(trace) as {
        subject: string;
        client_id: string;
        transport: string;
      };
    // Each names the person, the connection (token id and name; stdio: the process), then the
    // client as declared. A 2025-era client over stateless HTTP names itself only at
    // initialize, to another request.
    const { personId, tokenId } = server.agent;
    expect(row(viaHttp.meta.traceId)).toEqual({
      subject: personId,
      client_id: `${tokenId} "test agent" · undeclared client`,
      transport: 'http',
    });
    expect(row(viaModern.meta.traceId)).toEqual({
      subject: personId,
      client_id: `${tokenId} "test agent" · holdfast-test-modern 1.0.0`,
      transport: 'http',
    });
    expect(row(viaStdio.meta.traceId)).toEqual({
      subject: personId,
      client_id: `stdio:${personId} "stdio" · holdfast-test-legacy 1.0.0`,
      transport: 'stdio',
    });
    db.close();
  });

  it('does not promise tool list changes it never sends', async () => {
    const legacy = await connectHttp(server.url, 'legacy');
    expect(legacy.getServerCapabilities()?.tools?.listChanged).toBe(false);
    await legacy.close();
  });
});
