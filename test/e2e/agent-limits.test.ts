import { randomUUID } from 'node:crypto';
import type { Client } from '@modelcontextprotocol/client';
import { afterAll, describe, expect, it } from 'vitest';
import { createOpenCalendar, futureHour } from '../support/fixtures.js';
import type { Envelope } from '../support/mcp-clients.js';
import { call, connectHttp } from '../support/mcp-clients.js';
import { freshSchema } from '../support/postgres.js';
import { createToken } from '../../src/app/identity/tokens.js';
import { SCOPES } from '../../src/domain/identity/identity.js';
import { addAgent, identityDeps } from '../support/provision.js';
import type { RunningServer } from '../support/spawn-server.js';
import { spawnServer } from '../support/spawn-server.js';

// An agent cannot take all the time there is, nor flood the server: holds at once per person
// and per connection, calls per connection per minute. Others are not held back by it.

const running: RunningServer[] = [];
const clients: Client[] = [];
const schema = freshSchema();
afterAll(async () => {
  await Promise.all(clients.map((c) => c.close()));
  await Promise.all(running.map((s) => s.stop()));
  await schema.drop();
});

async function start(args: string[], limits: Record<string, number>, instances = 1) {
  const first = await spawnServer(args, { limits });
  const rest = await Promise.all(Array.from({ length: instances - 1 }, () => spawnServer(args, { limits })));
  running.push(first, ...rest);
  return [first, ...rest];
}

async function connect(server: RunningServer, token?: string) {
  const client = await connectHttp(server.url, 'modern', token ? { token } : {});
  clients.push(client);
  return client;
}

const hold = (client: Client, room: string, hour: number, idempotencyKey = randomUUID()) =>
  call(client, 'hold_slot', {
    calendarIds: [room],
    start: futureHour(2, hour),
    end: futureHour(2, hour + 1),
    idempotencyKey,
  });

const codes = (answers: Envelope[]) => answers.map((a) => (a.ok ? 'ok' : a.error!.code)).sort();

describe('holds at once (SQLite)', () => {
  it('a connection gets its cap and RATE_LIMITED beyond; an innocent connection is unaffected; a retry still replays', async () => {
    const [server] = await start(['--no-seed'], { activeHoldsPerConnection: 3, activeHoldsPerPerson: 4 });
    const greedy = await connect(server!);
    const room = await createOpenCalendar(greedy, 'Contested');
    const { deps, close } = await identityDeps(server!.dbPath);
    const innocentAgent = await addAgent(deps, { email: 'inno@local.example' });
    // A second token of the same person: a connection of its own, the person's cap shared.
    const second = await createToken(deps, {
      email: server!.agent.email,
      name: 'second',
      scopes: SCOPES,
      writePolicy: 'draft',
    });
    await close();
    const innocent = await connect(server!, innocentAgent.token);

    const keys = Array.from({ length: 8 }, () => randomUUID());
    const [greedyAnswers, innocentAnswers] = await Promise.all([
      Promise.all(keys.map((key, i) => hold(greedy, room, i, key))),
      Promise.all(Array.from({ length: 3 }, (_, i) => hold(innocent, room, 20 + i))),
    ]);
    expect(codes(greedyAnswers)).toEqual([...Array(3).fill('ok'), ...Array(5).fill('RATE_LIMITED')].sort());
    const refused = greedyAnswers.find((a) => !a.ok)!;
    expect(refused.error!.details).toMatchObject({ limit: 'active_holds', max: 3 });
    expect(refused.error!.retryable).toBe(true);
    expect(codes(innocentAnswers)).toEqual(['ok', 'ok', 'ok']);

    // A retry of a hold that was placed replays at the cap instead of being refused.
    const placedAt = greedyAnswers.findIndex((a) => a.ok);
    const again = await hold(greedy, room, placedAt, keys[placedAt]);
    expect(again.ok).toBe(true);
    expect(again.meta.idempotentReplay).toBe(true);
    // Releasing one gives room back.
    const placed = greedyAnswers.find((a) => a.ok)!.data as { booking: { id: string; version: number } };
    const released = await call(greedy, 'release_hold', {
      bookingId: placed.booking.id,
      expectedVersion: placed.booking.version,
      idempotencyKey: randomUUID(),
    });
    expect(released.ok).toBe(true);
    expect((await hold(greedy, room, 30)).ok).toBe(true);
    const sameperson = await connect(server!, second.secret);
    const more = [await hold(sameperson, room, 40), await hold(sameperson, room, 41)];
    expect(codes(more)).toEqual(['RATE_LIMITED', 'ok']);
  });

  it('calls per connection per minute: RATE_LIMITED with retryAfterMs beyond the budget; others unaffected', async () => {
    const [server] = await start(['--no-seed'], { callsPerMinute: 15 });
    const { deps, close } = await identityDeps(server!.dbPath);
    const other = await addAgent(deps, { email: 'calm@local.example' });
    await close();
    const noisy = await connect(server!);
    const calm = await connect(server!, other.token);
    const answers = await Promise.all(
      Array.from({ length: 20 }, () => call(noisy, 'list_calendars', { limit: 5 })),
    );
    expect(codes(answers)).toEqual([...Array(15).fill('ok'), ...Array(5).fill('RATE_LIMITED')].sort());
    const limited = answers.find((a) => !a.ok)!.error!;
    expect(limited.details).toMatchObject({ limit: 'calls_per_minute', max: 15 });
    expect(limited.details.retryAfterMs as number).toBeGreaterThan(0);
    expect((await call(calm, 'list_calendars', { limit: 5 })).ok).toBe(true);
  });
});

describe('open approvals per person', () => {
  it('a person has at most their cap of approvals waiting; others are unaffected', async () => {
    const [server] = await start(['--no-seed'], { openApprovalsPerPerson: 2 });
    const asker = await connect(server!);
    const room = await createOpenCalendar(asker, 'Asked about');
    const { deps, close } = await identityDeps(server!.dbPath);
    const other = await addAgent(deps, { email: 'patient@local.example' });
    await close();
    const patient = await connect(server!, other.token);
    const ask = async (client: Client, hour: number) => {
      const held = await hold(client, room, hour);
      const booking = (held.data as { booking: { id: string } }).booking;
      return call(client, 'request_approval', {
        bookingId: booking.id,
        action: 'confirm_booking',
        idempotencyKey: randomUUID(),
      });
    };
    const answers = [await ask(asker, 0), await ask(asker, 1), await ask(asker, 2)];
    expect(answers.map((a) => (a.ok ? 'ok' : a.error!.code))).toEqual(['ok', 'ok', 'QUOTA_EXCEEDED']);
    expect(answers[2]!.error!.details).toMatchObject({ quota: 'openApprovalsPerPerson', limit: 2 });
    expect((await ask(patient, 5)).ok).toBe(true);
  });
});

describe('limits across two PostgreSQL instances', () => {
  it('hold the same for one connection spread over both', async () => {
    const args = [...schema.args, '--no-seed'];
    const [a, b] = await start(args, { callsPerMinute: 24, activeHoldsPerConnection: 3 }, 2);
    const onA = await connect(a!);
    const onB = await connect(b!);
    const room = await createOpenCalendar(onA, 'Shared');
    const holds = await Promise.all(Array.from({ length: 8 }, (_, i) => hold(i % 2 ? onA : onB, room, i)));
    expect(codes(holds).filter((c) => c === 'ok')).toHaveLength(3);
    expect(codes(holds).filter((c) => c === 'RATE_LIMITED')).toHaveLength(5);
    // 1 create_calendar + 8 holds so far; 24 more calls spread over both: 15 fit in the minute.
    const calls = await Promise.all(
      Array.from({ length: 24 }, (_, i) => call(i % 2 ? onA : onB, 'list_calendars', { limit: 5 })),
    );
    expect(codes(calls).filter((c) => c === 'ok')).toHaveLength(15);
    expect(codes(calls).filter((c) => c === 'RATE_LIMITED')).toHaveLength(9);
  });
});
