import { randomUUID } from 'node:crypto';
import Database from 'better-sqlite3';
import type { Client } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { csrfFor } from '../support/console-attack.js';
import { call, connectHttp, ok } from '../support/mcp-clients.js';
import { startAgentAccess } from '../support/agent-access.js';
import { signIn } from '../support/person.js';
import type { RunningServer } from '../support/spawn-server.js';
import { runCli } from '../support/spawn-server.js';

// agent-access (seed 004) on bookings, through the official client against `holdfast serve
// --profile agent-access`: an agent with only `draft` reads a booking's state, drafts a write
// with it, gets a pending operation and its confirmationUrl; the person's confirmation there
// runs the write; operation_get says how it ended. The agent attacks the confirmation as it
// would; none of it may move anything.

let setup: Awaited<ReturnType<typeof startAgentAccess>>;
let server: RunningServer;
/** The agent: a token of the owner's with read and draft only. */
let agent: Client;
let agentToken = '';
/** A second connection of the same person (another device), draft too. */
let second: Client;
/** Someone of another tenant. */
let stranger: Client;

function snapshot(bookingId: string) {
  const db = new Database(server.dbPath, { readonly: true });
  try {
    return {
      booking: db.prepare('SELECT status, version FROM bookings WHERE id = ?').get(bookingId),
      approvals: db
        .prepare('SELECT status, last_failure FROM approvals WHERE booking_id = ? ORDER BY created_at')
        .all(bookingId),
    };
  } finally {
    db.close();
  }
}

const held = (calendar?: string) => setup.held(calendar);
const draft = (tool: 'confirm_booking' | 'cancel_booking', bookingId: string) => setup.draft(tool, bookingId);

/** The person, signed in, answers the operation's page as its form would. */
async function personDecides(operationId: string, decision: string) {
  const origin = new URL(server.url).origin;
  const cookie = await signIn(origin, server.agent.email, server.agent.password);
  const page = await fetch(new URL(`/console/approvals/${operationId}`, origin), { headers: { cookie } });
  const html = await page.text();
  const answer = await fetch(new URL(`/console/approvals/${operationId}`, origin), {
    method: 'POST',
    redirect: 'manual',
    headers: { cookie, origin, 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ csrf: csrfFor(server, cookie, `console-approval:${operationId}`), decision }),
  });
  return { html, status: answer.status, location: answer.headers.get('location') ?? '' };
}

beforeAll(async () => {
  setup = await startAgentAccess();
  ({ server, agent, agentToken } = setup);
  second = await connectHttp(server.url, 'modern', {
    token: await setup.draftToken(server.agent.email, 'phone'),
  });
  const run = await runCli([
    'users',
    'add',
    'eve@other.example',
    '--role',
    'owner',
    '--tenant',
    'other',
    '--db',
    server.dbPath,
  ]);
  expect(run.status, run.stderr).toBe(0);
  stranger = await connectHttp(server.url, 'modern', {
    token: await setup.draftToken('eve@other.example', 'eve', 'other'),
  });
}, 60_000);

afterAll(async () => {
  await second?.close();
  await stranger?.close();
  await setup?.stop();
});

describe('agent-access: writes a person confirms, which their confirmation runs', () => {
  it('serves the seed’s flow: state_get, the drafting writes and operation_get, no approval tools', async () => {
    const names = (await agent.listTools()).tools.map((t) => t.name);
    expect(names).toEqual(
      expect.arrayContaining(['state_get', 'confirm_booking', 'cancel_booking', 'operation_get']),
    );
    expect(names).not.toContain('request_approval');
    expect(names).not.toContain('get_approval');
  });

  it('a draft-scoped agent confirms a hold: pending with a confirmationUrl for 10 minutes; the person’s yes books it; operation_get says completed', async () => {
    const booking = await held();
    const { state } = await ok(agent, 'state_get', { bookingId: booking.id });
    const key = randomUUID();
    const args = { bookingId: booking.id, expectedState: state, idempotencyKey: key };
    const pending = await ok(agent, 'confirm_booking', args);
    expect(pending).toMatchObject({ status: 'pending', action: 'confirm_booking', bookingId: booking.id });
    expect(pending.confirmationUrl).toBe(
      `${new URL(server.url).origin}/console/approvals/${pending.operationId}`,
    );
    // Ten minutes, never past the hold it would confirm (5 minutes here, the default).
    const hold = (await ok(agent, 'get_booking', { bookingId: booking.id })).booking;
    expect(Date.parse(pending.expiresAt) - Date.now()).toBeLessThanOrEqual(10 * 60_000);
    expect(Date.parse(pending.expiresAt)).toBe(Date.parse(hold.expiresAt));
    // A network retry (same key, arguments and state) is the same operation.
    expect((await ok(agent, 'confirm_booking', args)).operationId).toBe(pending.operationId);
    expect(await ok(agent, 'operation_get', { operationId: pending.operationId })).toMatchObject({
      status: 'pending',
      lastFailure: null,
    });

    const decided = await personDecides(pending.operationId, 'approve');
    expect(decided.html).toContain('your approval does it at once');
    expect(decided.html).toContain('Harbour room');
    expect(decided.status).toBe(303);
    expect(decided.location).toContain('decided=done');

    const done = await ok(agent, 'operation_get', { operationId: pending.operationId });
    expect(done).toMatchObject({
      status: 'completed',
      confirmationUrl: null,
      booking: { status: 'CONFIRMED' },
    });
    expect((await ok(agent, 'get_booking', { bookingId: booking.id })).booking.status).toBe('CONFIRMED');
  });

  it('a cancellation likewise: pending until the person confirms it, then the booking is cancelled', async () => {
    const booking = await held();
    const confirmed = await draft('confirm_booking', booking.id);
    await personDecides(confirmed.operationId, 'approve');
    const pending = await draft('cancel_booking', booking.id);
    expect(pending.status).toBe('pending');
    expect((await ok(agent, 'get_booking', { bookingId: booking.id })).booking.status).toBe('CONFIRMED');
    expect((await personDecides(pending.operationId, 'approve')).location).toContain('decided=done');
    expect(await ok(agent, 'operation_get', { operationId: pending.operationId })).toMatchObject({
      status: 'completed',
      booking: { status: 'CANCELLED' },
    });
  });

  it('denied by the person: cancelled, and nothing was booked', async () => {
    const booking = await held();
    const pending = await draft('confirm_booking', booking.id);
    expect((await personDecides(pending.operationId, 'deny')).location).toContain('decided=denied');
    expect((await ok(agent, 'operation_get', { operationId: pending.operationId })).status).toBe('cancelled');
    expect(snapshot(booking.id).booking).toMatchObject({ status: 'HELD' });
  });

  it('a stale expectedState is VERSION_CONFLICT naming what to do; nothing is drafted', async () => {
    const booking = await held();
    const { state } = await ok(agent, 'state_get', { bookingId: booking.id });
    const stale = await call(agent, 'confirm_booking', {
      bookingId: booking.id,
      expectedState: `${state}0`,
      idempotencyKey: randomUUID(),
    });
    expect(stale.error?.code).toBe('VERSION_CONFLICT');
    expect(JSON.stringify(stale.error)).toContain('state_get');
    expect(snapshot(booking.id).approvals).toEqual([]);
  });

  it('the same key with other arguments, or from another connection of the same person, is refused', async () => {
    const booking = await held();
    const other = await held();
    const { state } = await ok(agent, 'state_get', { bookingId: booking.id });
    const key = randomUUID();
    await ok(agent, 'confirm_booking', { bookingId: booking.id, expectedState: state, idempotencyKey: key });
    const otherState = (await ok(agent, 'state_get', { bookingId: other.id })).state;
    const changed = await call(agent, 'confirm_booking', {
      bookingId: other.id,
      expectedState: otherState,
      idempotencyKey: key,
    });
    expect(changed.error?.code).toBe('IDEMPOTENCY_CONFLICT');
    const elsewhere = await call(second, 'confirm_booking', {
      bookingId: booking.id,
      expectedState: state,
      idempotencyKey: key,
    });
    expect(elsewhere.error?.code).toBe('IDEMPOTENCY_CONFLICT');
    expect(snapshot(other.id).approvals).toEqual([]);
  });

  it('the run fails (payment not cleared): the operation stays pending with the reason; the person retries once paid, and it completes', async () => {
    const booking = await held(setup.paid);
    const pending = await draft('confirm_booking', booking.id);
    const first = await personDecides(pending.operationId, 'approve');
    expect(first.location).toContain('decided=failed');
    const failed = await ok(agent, 'operation_get', { operationId: pending.operationId });
    expect(failed.status).toBe('pending');
    expect(failed.lastFailure).toMatch(/^PAYMENT_PENDING: /);
    const page = await personDecides(pending.operationId, 'retry');
    expect(page.html).toContain('Approved, but it could not be done:');
    expect(page.html).toContain('Try again');
    expect(page.location).toContain('decided=failed');
    setup.stub.paid(booking.id);
    expect((await personDecides(pending.operationId, 'retry')).location).toContain('decided=done');
    expect(await ok(agent, 'operation_get', { operationId: pending.operationId })).toMatchObject({
      status: 'completed',
      lastFailure: null,
      booking: { status: 'CONFIRMED' },
    });
  });

  it('a failed run the person cancels is cancelled; nothing is booked', async () => {
    const booking = await held(setup.paid);
    const pending = await draft('confirm_booking', booking.id);
    await personDecides(pending.operationId, 'approve');
    expect((await personDecides(pending.operationId, 'cancel')).location).toContain('decided=cancelled');
    expect((await ok(agent, 'operation_get', { operationId: pending.operationId })).status).toBe('cancelled');
    expect(snapshot(booking.id).booking).toMatchObject({ status: 'HELD' });
  });
});

describe('agent-access, attacked by the agent', () => {
  it('the agent cannot confirm its own operation, vouch for the person, or read another’s: 0 of the attacks succeed', async () => {
    const booking = await held();
    const pending = await draft('confirm_booking', booking.id);
    const id = pending.operationId as string;
    const url = new URL(`/console/approvals/${id}`, server.url);
    const before = snapshot(booking.id);
    const { state } = await ok(agent, 'state_get', { bookingId: booking.id });
    const bearer = { authorization: `Bearer ${agentToken}` };
    // A decision made redirects to the page with ?decided=…; a refused one does not (sign-in, 403).
    const decides = async (answer: Promise<Response>) =>
      (await answer).headers.get('location')?.includes('decided=') === true;
    const form = (fields: Record<string, string>, headers: Record<string, string> = {}) =>
      fetch(url, {
        method: 'POST',
        redirect: 'manual',
        headers: { 'content-type': 'application/x-www-form-urlencoded', origin: url.origin, ...headers },
        body: new URLSearchParams(fields),
      });
    const attacks: [string, () => Promise<boolean>][] = [
      ['POST the approval with its bearer token', () => decides(form({ decision: 'approve' }, bearer))],
      [
        'POST with a made-up csrf',
        () => decides(form({ decision: 'approve', csrf: 'x'.repeat(43) }, bearer)),
      ],
      ['POST retry', () => decides(form({ decision: 'retry' }, bearer))],
      [
        'GET the page with its bearer token',
        async () => (await fetch(url, { headers: bearer, redirect: 'manual' })).status === 200,
      ],
      [
        'vouch with confirmed: true',
        async () =>
          (
            await call(agent, 'confirm_booking', {
              bookingId: booking.id,
              expectedState: state,
              idempotencyKey: randomUUID(),
              confirmed: true,
            })
          ).ok,
      ],
      [
        'carry the operation as an approval',
        async () =>
          (
            await call(agent, 'confirm_booking', {
              bookingId: booking.id,
              expectedState: state,
              idempotencyKey: randomUUID(),
              approval: { approvalId: id },
            })
          ).ok,
      ],
      [
        'read it from another tenant',
        async () => (await call(stranger, 'operation_get', { operationId: id })).ok,
      ],
      [
        'read another tenant’s booking state',
        async () => (await call(stranger, 'state_get', { bookingId: booking.id })).ok,
      ],
    ];
    let succeeded = 0;
    for (const [name, attack] of attacks)
      if (await attack()) {
        succeeded++;
        console.log(`attack succeeded: ${name}`);
      }
    expect(succeeded).toBe(0);
    const vouched = await call(agent, 'confirm_booking', {
      bookingId: booking.id,
      expectedState: state,
      idempotencyKey: randomUUID(),
      confirmed: true,
    });
    expect(vouched.error?.code).toBe('INVALID_ARGUMENTS');
    expect(JSON.stringify(vouched.error)).toContain('confirmed');
    expect((await ok(agent, 'operation_get', { operationId: id })).status).toBe('pending');
    expect(snapshot(booking.id)).toEqual(before);
  });
});
