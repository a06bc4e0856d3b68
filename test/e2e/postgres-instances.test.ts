import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createOpenCalendar, futureHour, plusMinutes } from '../support/fixtures.js';
import { call, connectHttp, ok } from '../support/mcp-clients.js';
import { approvalCsrf, signIn } from '../support/person.js';
import { freshSchema, withClient } from '../support/postgres.js';
import type { RunningServer } from '../support/spawn-server.js';
import { runCli, spawnServer } from '../support/spawn-server.js';

const schema = freshSchema();
let a: RunningServer;
let b: RunningServer;

beforeAll(async () => {
  // One owner's token with policy direct (trusted automation), shared by both instances.
  const args = [...schema.args, '--no-seed'];
  const options = { writePolicy: 'direct' } as const;
  [a, b] = await Promise.all([spawnServer(args, options), spawnServer(args, options)]);
});
afterAll(async () => {
  await Promise.all([a?.stop(), b?.stop()]);
  await schema.drop();
});

const overlapsInDatabase = () =>
  withClient(schema.name, async (client) => {
    const { rows } = await client.query(`
      SELECT count(*)::int AS n FROM allocations x JOIN allocations y
        ON x.tenant_id = y.tenant_id AND x.calendar_id = y.calendar_id AND x.booking_id < y.booking_id
      WHERE x.active AND y.active AND int8range(x.start_at, x.end_at, '[)') && int8range(y.start_at, y.end_at, '[)')`);
    return rows[0].n as number;
  });

describe('two instances on one PostgreSQL database', () => {
  // 128 holds of one person, each taking the person's hold-cap lock in turn across both instances:
  // seconds when PostgreSQL's disk is quiet, longer while it checkpoints; the SDK client's own
  // 60 s request timeout still fails a call whose answer never comes.
  it('32 clients spread across both race for 4 slots: one winner each, zero overlaps', async () => {
    const setup = await connectHttp(a.url, 'modern');
    const rooms = [
      await createOpenCalendar(setup, 'PG room 1'),
      await createOpenCalendar(setup, 'PG room 2'),
    ];
    await setup.close();
    const slots = Array.from({ length: 4 }, (_, i) => ({
      start: futureHour(2, i),
      end: futureHour(2, i + 1),
    }));
    const clients = await Promise.all(
      Array.from({ length: 32 }, (_, i) => connectHttp((i % 2 ? a : b).url, i % 4 < 2 ? 'modern' : 'legacy')),
    );
    const results = await Promise.all(
      clients.flatMap((client, i) =>
        slots.map(async (slot, s) => ({
          slot: s,
          envelope: await call(client, 'hold_slot', {
            // Half the clients hold both rooms in the opposite order: the hold path must not deadlock.
            calendarIds: i % 2 ? rooms : [...rooms].reverse(),
            ...slot,
            idempotencyKey: randomUUID(),
          }),
        })),
      ),
    );
    await Promise.all(clients.map((c) => c.close()));
    for (let s = 0; s < slots.length; s++) {
      const forSlot = results.filter((r) => r.slot === s);
      expect(forSlot.filter((r) => r.envelope.ok)).toHaveLength(1);
      for (const loser of forSlot.filter((r) => !r.envelope.ok))
        expect(loser.envelope.error!.code).toBe('SLOT_UNAVAILABLE');
    }
    expect(await overlapsInDatabase()).toBe(0);
  }, 90_000);

  it('the same idempotency key from 16 clients at once: one effect, identical answers', async () => {
    const setup = await connectHttp(a.url, 'modern');
    const room = await createOpenCalendar(setup, 'PG idempotency room');
    await setup.close();
    const clients = await Promise.all(
      Array.from({ length: 16 }, (_, i) => connectHttp((i % 2 ? a : b).url, 'modern')),
    );
    const args = {
      calendarIds: [room],
      start: futureHour(3),
      end: futureHour(3, 1),
      idempotencyKey: randomUUID(),
    };
    const answers = await Promise.all(clients.map((c) => call(c, 'hold_slot', args)));
    await Promise.all(clients.map((c) => c.close()));
    expect(answers.every((x) => x.ok)).toBe(true);
    expect(new Set(answers.map((x) => JSON.stringify(x.data))).size).toBe(1);
    expect(answers.filter((x) => !x.meta.idempotentReplay)).toHaveLength(1);
    const bookings = await withClient(schema.name, (c) =>
      c.query('SELECT count(*)::int AS n FROM allocations WHERE calendar_id = $1', [room]),
    );
    expect(bookings.rows[0].n).toBe(1);
  });

  it('concurrent confirms at one expectedVersion: exactly one succeeds', async () => {
    const clients = await Promise.all(
      Array.from({ length: 8 }, (_, i) => connectHttp((i % 2 ? a : b).url, 'modern')),
    );
    const room = await createOpenCalendar(clients[0]!, 'PG version room');
    const held = (
      await ok(clients[0]!, 'hold_slot', {
        calendarIds: [room],
        start: futureHour(4),
        end: futureHour(4, 1),
        idempotencyKey: randomUUID(),
      })
    ).booking;
    const answers = await Promise.all(
      clients.map((c) =>
        call(c, 'confirm_booking', { bookingId: held.id, expectedVersion: 1, idempotencyKey: randomUUID() }),
      ),
    );
    await Promise.all(clients.map((c) => c.close()));
    expect(answers.filter((x) => x.ok)).toHaveLength(1);
    for (const lost of answers.filter((x) => !x.ok)) expect(lost.error!.code).toBe('VERSION_CONFLICT');
  });

  it("a write on one instance reaches the other's slot cache well within its 2 s bound", async () => {
    const onA = await connectHttp(a.url, 'modern');
    const onB = await connectHttp(b.url, 'modern');
    const room = await createOpenCalendar(onA, 'PG cache room');
    const from = futureHour(5);
    const query = { calendarIds: [room], from, to: plusMinutes(from, 120), durationMinutes: 60, limit: 10 };
    const before = (await ok(onB, 'find_slots', query)).total;
    await ok(onA, 'hold_slot', {
      calendarIds: [room],
      start: from,
      end: plusMinutes(from, 60),
      idempotencyKey: randomUUID(),
    });
    const wrote = Date.now();
    let after = before;
    let slowestCallMs = 0;
    while (after === before && Date.now() - wrote < 10_000) {
      const asked = Date.now();
      after = (await ok(onB, 'find_slots', query)).total;
      slowestCallMs = Math.max(slowestCallMs, Date.now() - asked);
      if (after === before) await new Promise((resolve) => setTimeout(resolve, 10));
    }
    const seenAfterMs = Date.now() - wrote;
    expect(after).toBeLessThan(before);
    // The bound is on the answer's age; one call's own time (long on a loaded machine) comes on top.
    expect(seenAfterMs).toBeLessThan(2_000 + slowestCallMs);
    await onA.close();
    await onB.close();
  });

  it('both instances extend one audit chain that verifies', async () => {
    const verify = await runCli(['audit', 'verify', ...schema.args]);
    expect(verify.stdout).toMatch(/audit chain ok: \d+ records/);
    expect(verify.status).toBe(0);
  });
});

describe('the approval page behind a load balancer', () => {
  it('a page served by one instance can be approved on the other (session and CSRF key are shared)', async () => {
    const agent = await connectHttp(a.url, 'modern');
    const room = await createOpenCalendar(agent, 'PG page room');
    const { booking } = await ok(agent, 'hold_slot', {
      calendarIds: [room],
      start: futureHour(5),
      end: futureHour(5, 1),
      idempotencyKey: randomUUID(),
    });
    const asked = await ok(agent, 'request_approval', {
      bookingId: booking.id,
      action: 'confirm_booking',
      idempotencyKey: randomUUID(),
    });
    // Signed in on one instance, the page read there, the form posted to the other.
    const cookie = await signIn(new URL(a.url).origin, a.agent.email, a.agent.password);
    const page = await (await fetch(asked.approveUrl, { headers: { cookie } })).text();
    const csrf = approvalCsrf(page);
    expect(csrf, page.slice(0, 400)).toBeDefined();
    const onB = new URL(new URL(asked.approveUrl).pathname, b.url);
    const posted = await fetch(onB, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', origin: onB.origin, cookie },
      body: new URLSearchParams({ csrf: csrf!, decision: 'approve' }),
    });
    expect(posted.status).toBe(200);
    expect((await ok(agent, 'get_approval', { approvalId: asked.approvalId })).approval.status).toBe(
      'APPROVED',
    );
    await agent.close();
  });
});
