import { createHash, randomUUID } from 'node:crypto';
import canonicalize from 'canonicalize';
import { writeFileSync } from 'node:fs';
import Database from 'better-sqlite3';
import type { Client } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { futureHour, openAllWeek } from '../support/fixtures.js';
import type { Envelope } from '../support/mcp-clients.js';
import { call, connectHttp, connectStdio } from '../support/mcp-clients.js';
import { approvalCsrf, signIn } from '../support/person.js';
import type { RunningServer } from '../support/spawn-server.js';
import { runCli, spawnServer, untilSealed } from '../support/spawn-server.js';

let server: RunningServer;
beforeAll(async () => {
  server = await spawnServer(['--no-seed']);
});
afterAll(() => server.stop());

interface Row {
  seq: number;
  subject: string;
  client_id: string;
  tool: string;
  transport: string;
  outcome: string;
  error_code: string | null;
  blocked_reason: string | null;
  trace_id: string;
  preview: string;
}

/** The sealed trail, once the server linked everything written so far. */
const rows = async (): Promise<Row[]> => {
  await untilSealed(server.dbPath);
  const db = new Database(server.dbPath, { readonly: true });
  try {
    return db.prepare('SELECT * FROM audit_log ORDER BY seq').all() as Row[];
  } finally {
    db.close();
  }
};

/** A mix of reads, writes, refusals and bad input, on every transport. */
async function session(client: Client): Promise<Envelope[]> {
  const room = (await call(client, 'create_calendar', {
    name: `Audit ${randomUUID()}`,
    timeZone: 'UTC',
    availability: openAllWeek,
    idempotencyKey: randomUUID(),
  })) as Envelope<any>;
  const roomId = room.data!.calendar.id as string;
  const at = Math.floor(Math.random() * 500);
  const results: Envelope[] = [room];
  results.push(await call(client, 'list_calendars', {}));
  const hold = {
    calendarIds: [roomId],
    start: futureHour(4, at),
    end: futureHour(4, at + 1),
    customer: { name: 'Ada', email: 'ada@example.com', phone: '+44 20 7946 0958' },
    idempotencyKey: randomUUID(),
  };
  const held = (await call(client, 'hold_slot', hold)) as Envelope<any>;
  results.push(held);
  // A retry: it is answered from the first call and makes nothing.
  results.push(await call(client, 'hold_slot', hold));
  results.push(
    await call(client, 'confirm_booking', {
      bookingId: held.data!.booking.id,
      expectedVersion: 1,
      idempotencyKey: randomUUID(),
    }),
  );
  results.push(
    await call(client, 'find_slots', {
      calendarIds: [roomId],
      from: '2030-01-07T09:00:00',
      to: '2030-01-07T10:00:00Z',
      durationMinutes: 30,
      limit: 1,
    }),
  );
  results.push(await call(client, 'get_booking', { bookingId: 'bk_missing' }));
  return results;
}

describe('audit trail', () => {
  it('leaves exactly one record per tool call, on every transport, with contact details masked', async () => {
    const before = (await rows()).length;
    const http = await connectHttp(server.url, 'modern');
    const legacy = await connectHttp(server.url, 'legacy');
    const stdio = await connectStdio(server.dbPath, 'modern');
    const envelopes = [...(await session(http)), ...(await session(legacy)), ...(await session(stdio))];
    await Promise.all([http.close(), legacy.close(), stdio.close()]);
    const all = (await rows()).slice(before);
    // Protocol requests (the 2026 client's discovery, the 2025 client's initialize) leave their
    // own record, once each; stdio has no gate and no such records.
    const isProtocol = (tool: string) => tool.includes('/') || tool === 'initialize' || tool === 'ping';
    const protocol = all.filter((r) => isProtocol(r.tool));
    expect(protocol.map((r) => r.tool).sort()).toEqual(['initialize', 'server/discover']);
    const records = all.filter((r) => !isProtocol(r.tool));
    expect(records).toHaveLength(envelopes.length);
    for (const envelope of envelopes) {
      const matching = records.filter((r) => r.trace_id === envelope.meta.traceId);
      expect(matching).toHaveLength(1);
      expect(matching[0]!.outcome).toBe(envelope.ok ? 'ok' : 'error');
      expect(matching[0]!.error_code).toBe(envelope.error?.code ?? null);
    }
    expect(new Set(records.map((r) => r.transport))).toEqual(new Set(['http', 'stdio']));
    const blocked = records.filter((r) => r.error_code === 'APPROVAL_REQUIRED');
    expect(blocked.length).toBe(3); // both are draft, and the stdio client declared no elicitation
    for (const r of blocked) expect(r.blocked_reason).toMatch(/approve/i);
    const holdRecords = records.filter((r) => r.tool === 'hold_slot');
    const holds = holdRecords.map((r) => JSON.parse(r.preview));
    expect(holds).toHaveLength(6);
    // The record of the call that placed a hold names the booking it made (its history starts
    // there); the retry's record names nothing.
    for (const record of holdRecords) {
      const answer = envelopes.find((e) => e.meta.traceId === record.trace_id) as Envelope<any>;
      const made = JSON.parse(record.preview).made;
      if (answer.meta.idempotentReplay) expect(made).toBeUndefined();
      else expect(made).toEqual({ bookingId: answer.data.booking.id });
    }
    expect(holdRecords.filter((r) => JSON.parse(r.preview).made)).toHaveLength(3);
    for (const preview of holds) {
      expect(JSON.stringify(preview)).not.toMatch(/ada@example\.com|Ada|7946/);
      expect(preview.customer.fields).toEqual(['name', 'email', 'phone']);
      expect(preview.customer.digest).toMatch(/^hmac:[0-9a-f]{32}$/);
      expect(preview.calendarIds).toHaveLength(1);
    }
    const verify = await runCli(['audit', 'verify', '--db', server.dbPath]);
    expect(verify.status).toBe(0);
    expect(verify.stdout).toMatch(/audit chain ok: \d+ records/);
  });

  it('is append-only, and an edited row makes `holdfast audit verify` fail at that row', async () => {
    const client = await connectHttp(server.url, 'modern');
    await session(client);
    await client.close();
    const db = new Database(server.dbPath);
    expect(() => db.prepare("UPDATE audit_log SET outcome = 'ok' WHERE seq = 3").run()).toThrow(
      /append-only/,
    );
    expect(() => db.prepare('DELETE FROM audit_log WHERE seq = 3').run()).toThrow(/append-only/);
    // Someone with file access drops the guard and rewrites history.
    db.exec('DROP TRIGGER audit_log_no_update');
    db.prepare("UPDATE audit_log SET tool = 'list_calendars', duration_ms = 0 WHERE seq = 3").run();
    db.close();
    const verify = await runCli(['audit', 'verify', '--db', server.dbPath]);
    expect(verify.status).toBe(1);
    expect(verify.stdout).toContain('BROKEN at seq 3');
    const json = JSON.parse((await runCli(['audit', 'verify', '--json', '--db', server.dbPath])).stdout);
    expect(json.firstBroken.seq).toBe(3);
    const tail = await runCli(['audit', 'tail', '-n', '2', '--json', '--db', server.dbPath]);
    expect(tail.stdout.trim().split('\n')).toHaveLength(2);
  });
});

describe('checkpoints in the server log', () => {
  it('are written every N records and anchor the chain when the log is given to verify', async () => {
    const logged = await spawnServer(['--no-seed', '--checkpoint-every', '3']);
    try {
      const client = await connectHttp(logged.url, 'modern');
      for (let i = 0; i < 10; i++) await call(client, 'get_booking', { bookingId: `bk_${i}` });
      await client.close();
      await untilSealed(logged.dbPath);
      // The lines reach this process through a pipe: wait for them rather than for a fixed time.
      const checkpointLines = () =>
        logged.logs
          .join('')
          .split('\n')
          .filter((l) => l.includes('audit checkpoint'));
      for (let i = 0; i < 200 && checkpointLines().length < 3; i++)
        await new Promise((resolve) => setTimeout(resolve, 50));
      const lines = checkpointLines();
      expect(lines.length).toBeGreaterThanOrEqual(3);
      const logFile = `${logged.dbPath}.log`;
      writeFileSync(logFile, logged.logs.join(''));
      const ok = await runCli(['audit', 'verify', '--checkpoint', logFile, '--db', logged.dbPath]);
      expect(ok.status, ok.stdout + ok.stderr).toBe(0);
      expect(ok.stdout).toMatch(new RegExp(`${lines.length} of ${lines.length} checkpoints matched`));
      // Someone removes the newest records (guards dropped first): the logged checkpoints notice.
      const db = new Database(logged.dbPath);
      db.exec('DROP TRIGGER audit_log_no_delete');
      const newest = JSON.parse(lines.at(-1)!).checkpoint.seq as number;
      db.prepare('DELETE FROM audit_log WHERE seq >= ?').run(newest);
      db.close();
      const broken = await runCli(['audit', 'verify', '--checkpoint', logFile, '--db', logged.dbPath]);
      expect(broken.status).toBe(1);
      expect(broken.stdout).toContain(`BROKEN at seq ${newest}`);
      expect((await runCli(['audit', 'verify', '--db', logged.dbPath])).status).toBe(0); // without anchors it cannot tell
    } finally {
      await logged.stop();
    }
  });
});

describe('what people do on an approval in the console is in the trail too', () => {
  it('a decision is recorded with its effect and the person; a refused post (no session, no CSRF, no decision) is recorded as refused', async () => {
    const agent = await connectHttp(server.url, 'modern');
    const room = (await call(agent, 'create_calendar', {
      name: 'Page audit room',
      timeZone: 'UTC',
      availability: openAllWeek,
      idempotencyKey: randomUUID(),
    })) as Envelope<any>;
    const held = (await call(agent, 'hold_slot', {
      calendarIds: [room.data!.calendar.id],
      start: futureHour(6),
      end: futureHour(6, 1),
      idempotencyKey: randomUUID(),
    })) as Envelope<any>;
    const asked = (await call(agent, 'request_approval', {
      bookingId: held.data!.booking.id,
      action: 'confirm_booking',
      idempotencyKey: randomUUID(),
    })) as Envelope<any>;
    const url = asked.data!.approveUrl as string;
    const cookie = await signIn(new URL(url).origin, server.agent.email, server.agent.password);
    const before = (await rows()).length;
    const form = (body: Record<string, string>, session: string | null = cookie) =>
      fetch(url, {
        method: 'POST',
        redirect: 'manual',
        headers: {
          'content-type': 'application/x-www-form-urlencoded',
          origin: new URL(url).origin,
          ...(session ? { cookie: session } : {}),
        },
        body: new URLSearchParams(body),
      });
    const csrf = approvalCsrf(await (await fetch(url, { headers: { cookie } })).text())!;
    expect((await form({ csrf, decision: 'approve' }, null)).status).toBe(303); // to sign in
    expect((await form({ decision: 'approve' })).status).toBe(403);
    expect((await form({ csrf })).status).toBe(403);
    const approved = await form({ csrf, decision: 'approve' });
    expect(approved.status).toBe(303);
    expect(approved.headers.get('location')).toMatch(/^\/console\/approvals\/.+\?decided=approved$/);
    await agent.close();
    const added = (await rows())
      .slice(before)
      .filter((r) => r.tool === 'console_post' || r.tool === 'console_approval');
    expect(added.map((r) => [r.outcome, r.error_code])).toEqual([
      ['error', 'FORBIDDEN'],
      ['error', 'FORBIDDEN'],
      ['error', 'FORBIDDEN'],
      ['ok', null],
    ]);
    expect(added[0]).toMatchObject({ subject: 'anonymous-page', client_id: 'no session' });
    for (const r of added.slice(1))
      expect(r).toMatchObject({ subject: server.agent.personId, client_id: 'session (password)' });
  });

  it('digests of arguments are keyed: the stored digest is not the plain hash of the call', async () => {
    const client = await connectHttp(server.url, 'modern');
    const args = { bookingId: 'bk_guessable' };
    const answer = await call(client, 'get_booking', args);
    await client.close();
    const record = (await rows()).find((r) => r.trace_id === answer.meta.traceId) as Row & {
      arguments_digest: string;
    };
    const plain = `sha256:${createHash('sha256').update(canonicalize(args)!).digest('hex')}`;
    expect(record.arguments_digest).toMatch(/^hmac-sha256:[0-9a-f]{64}$/);
    expect(record.arguments_digest).not.toBe(plain);
  });
});
