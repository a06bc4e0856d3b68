import { randomUUID } from 'node:crypto';
import type { Client } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createOpenCalendar, futureHour } from '../support/fixtures.js';
import { call, connectHttp, ok } from '../support/mcp-clients.js';
import { startPaymentStub } from '../support/payment-stub.js';
import type { RunningServer } from '../support/spawn-server.js';
import { runCli, spawnServer } from '../support/spawn-server.js';

let stub: Awaited<ReturnType<typeof startPaymentStub>>;
let server: RunningServer;
let agent: Client;
let other: Client;
let room: string;
let hour = 0;

beforeAll(async () => {
  stub = await startPaymentStub();
  // Trusted automation (a token with policy direct): this suite is about the payment gate, not approvals.
  server = await spawnServer(['--no-seed', '--payments', 'http', '--hold-ttl', '8'], {
    env: { PAYMENT_QUERY_BASE_URL: stub.baseUrl, HOLDFAST_ALLOW_PRIVATE_UPSTREAMS: '1' },
    writePolicy: 'direct',
  });
  agent = await connectHttp(server.url, 'modern');
  other = await connectHttp(server.url, 'legacy');
  room = await createOpenCalendar(agent, 'Camera body', { amount: '500.00', currency: 'CNY' });
});
afterAll(async () => {
  await agent.close();
  await other.close();
  await server.stop();
  await stub.close();
});

async function hold(client: Client = agent, h?: number) {
  const at = h ?? (hour += 1);
  return (
    await ok(client, 'hold_slot', {
      calendarIds: [room],
      start: futureHour(2, at),
      end: futureHour(2, at + 1),
      idempotencyKey: randomUUID(),
    })
  ).booking;
}
const confirm = (b: { id: string; version: number }) =>
  call(agent, 'confirm_booking', {
    bookingId: b.id,
    expectedVersion: b.version,
    idempotencyKey: randomUUID(),
  });

describe('payment gate against a real HTTP provider stub', () => {
  it('PENDING then PAID: one query each, one HELD -> CONFIRMED transition, trace context sent', async () => {
    const b = await hold();
    expect(b.paymentUrl).toContain(b.id);
    const before = stub.requests.length;
    const pending = await confirm(b);
    expect(pending.error!.code).toBe('PAYMENT_PENDING');
    expect(pending.error!.retryable).toBe(true);
    expect((await ok(agent, 'get_booking', { bookingId: b.id })).booking).toMatchObject({
      status: 'HELD',
      version: 1,
    });
    stub.paid(b.id);
    const done = await confirm(b);
    expect(done.ok).toBe(true);
    const after = (await ok(agent, 'get_booking', { bookingId: b.id })).booking;
    expect(after).toMatchObject({ status: 'CONFIRMED', version: 2, payment: { status: 'PAID' } });
    const queries = stub.requests.slice(before);
    expect(queries.map((q) => q.bookingId)).toEqual([b.id, b.id]);
    // Sampled (01) only when spans are exported; here they are not (00).
    for (const q of queries) expect(q.traceparent).toMatch(/^00-[\da-f]{32}-[\da-f]{16}-0[01]$/);
  });

  it.each([
    ['amount', { amount: '499.99' }],
    ['currency', { currency: 'EUR' }],
    ['booking id', { bookingId: 'bk_someone_else' }],
  ])('PAID with another %s is PAYMENT_MISMATCH and changes nothing', async (_what, change) => {
    const b = await hold();
    stub.payments.set(b.id, {
      status: 'PAID',
      amount: '500.00',
      currency: 'CNY',
      paidAt: new Date().toISOString(),
      ...change,
    });
    const refused = await confirm(b);
    expect(refused.error!.code).toBe('PAYMENT_MISMATCH');
    expect((await ok(agent, 'get_booking', { bookingId: b.id })).booking).toMatchObject({
      status: 'HELD',
      version: 1,
    });
  });

  it('FAILED releases the time for another client; CLOSED ends as PAYMENT_CLOSED', async () => {
    const b = await hold();
    stub.payments.set(b.id, { status: 'FAILED', amount: null, currency: null, paidAt: null });
    const failed = await confirm(b);
    expect(failed.error!.code).toBe('PAYMENT_FAILED');
    expect((await ok(agent, 'get_booking', { bookingId: b.id })).booking.status).toBe('PAYMENT_FAILED');
    const taken = await hold(other, hour);
    expect(taken.status).toBe('HELD');

    const c = await hold();
    stub.payments.set(c.id, { status: 'CLOSED', amount: null, currency: null, paidAt: null });
    expect((await confirm(c)).error!.code).toBe('PAYMENT_FAILED');
    expect((await ok(agent, 'get_booking', { bookingId: c.id })).booking.status).toBe('PAYMENT_CLOSED');
  });

  it('a provider that does not answer is PAYMENT_UNAVAILABLE within the 3 s timeout', async () => {
    const b = await hold();
    stub.payments.set(b.id, {
      status: 'PAID',
      amount: '500.00',
      currency: 'CNY',
      paidAt: null,
      delayMs: 6_000,
    });
    const started = Date.now();
    const slow = await confirm(b);
    const elapsed = Date.now() - started;
    expect(slow.error!.code).toBe('PAYMENT_UNAVAILABLE');
    expect(slow.error!.retryable).toBe(true);
    expect(elapsed).toBeGreaterThanOrEqual(2_900);
    // It gave up rather than waiting for the provider's 6 s (how much sooner depends on the machine).
    expect(elapsed).toBeLessThan(6_000);
    expect((await ok(agent, 'get_booking', { bookingId: b.id })).booking).toMatchObject({
      status: 'HELD',
      version: 1,
    });
  });

  it('paid after the hold lapsed: refused, flagged for reconciliation, visible in get_booking and the CLI', async () => {
    const b = await hold();
    // Past the expiry the server gave the hold, by its own clock (the same machine's).
    const lapsed = Date.parse(b.expiresAt) + 300 - Date.now();
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, lapsed)));
    stub.paid(b.id);
    const late = await confirm(b);
    expect(late.error!.code).toBe('HOLD_EXPIRED');
    expect(late.error!.details.reconciliationRequired).toBe(true);
    const read = (await ok(agent, 'get_booking', { bookingId: b.id })).booking;
    expect(read.status).toBe('EXPIRED');
    expect(read.payment).toMatchObject({ status: 'PAID', reconciliationRequired: true });
    const cli = await runCli(['reconciliation', '--db', server.dbPath]);
    expect(cli.stdout).toContain(b.id);
  });
});
