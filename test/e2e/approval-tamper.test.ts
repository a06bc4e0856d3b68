import { createHash, randomUUID } from 'node:crypto';
import type { Client } from '@modelcontextprotocol/client';
import canonicalize from 'canonicalize';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { HostKey } from '../support/approvals.js';
import { attest, registerHost } from '../support/approvals.js';
import { createOpenCalendar, futureHour } from '../support/fixtures.js';
import { call, connectHttp, ok } from '../support/mcp-clients.js';
import { startPaymentStub } from '../support/payment-stub.js';
import { addAgent, identityDeps } from '../support/provision.js';
import type { RunningServer } from '../support/spawn-server.js';
import { runCli, spawnServer } from '../support/spawn-server.js';

let stub: Awaited<ReturnType<typeof startPaymentStub>>;
let alice: RunningServer;
let host: HostKey;
let agent: Client;
let intruder: Client;
let rooms: string[];
let hour = 0;

/** What a host computes: sha256 over the RFC 8785 form of the intent. */
const hashIntent = (intent: unknown) =>
  `sha256:${createHash('sha256').update(canonicalize(intent)!).digest('hex')}`;

/** A registered host's genuine signature on an intent other than the booking's own. */
const attestOther = (ci: { intent: Record<string, unknown> }, change: Record<string, unknown>) =>
  attest({ intentHash: hashIntent({ ...ci.intent, ...change }) }, host);

beforeAll(async () => {
  stub = await startPaymentStub();
  // Both people's tokens have policy attested; the host that signs is registered.
  alice = await spawnServer(['--no-seed', '--payments', 'http'], {
    env: { PAYMENT_QUERY_BASE_URL: stub.baseUrl, HOLDFAST_ALLOW_PRIVATE_UPSTREAMS: '1' },
    writePolicy: 'attested',
  });
  host = await registerHost(alice.dbPath);
  // A second person on the same database, with a token of their own.
  const { deps, close } = await identityDeps(alice.dbPath);
  const bob = await addAgent(deps, { email: 'bob@local.example', writePolicy: 'attested' });
  await close();
  agent = await connectHttp(alice.url, 'modern');
  intruder = await connectHttp(alice.url, 'modern', { token: bob.token });
  rooms = [
    await createOpenCalendar(agent, 'Priced room A', { amount: '500.00', currency: 'CNY' }),
    await createOpenCalendar(agent, 'Priced room B', { amount: '500.00', currency: 'CNY' }),
  ];
});
afterAll(async () => {
  await agent.close();
  await intruder.close();
  await alice.stop();
  await stub.close();
});

/** A fresh priced hold whose payment the provider already reports as PAID: only the approval can stop it. */
async function paidHold(room = rooms[0]!) {
  hour += 1;
  const { booking } = await ok(agent, 'hold_slot', {
    calendarIds: [room],
    start: futureHour(2, hour),
    end: futureHour(2, hour + 1),
    idempotencyKey: randomUUID(),
  });
  stub.paid(booking.id);
  return booking;
}

async function pageApproval(
  booking: { id: string; version: number },
  decision: 'approve' | 'deny' = 'approve',
) {
  const asked = await call(agent, 'confirm_booking', {
    bookingId: booking.id,
    expectedVersion: booking.version,
    idempotencyKey: randomUUID(),
  });
  expect(asked.error!.code).toBe('APPROVAL_REQUIRED');
  const approvalId = asked.error!.details.approvalId as string;
  expect((await runCli(['approvals', decision, approvalId, '--db', alice.dbPath])).status).toBe(0);
  return approvalId;
}

const confirm = (client: Client, booking: { id: string; version: number }, proof: Record<string, unknown>) =>
  call(client, 'confirm_booking', {
    bookingId: booking.id,
    expectedVersion: booking.version,
    idempotencyKey: randomUUID(),
    ...proof,
  });

describe('asking up front', () => {
  it('request_approval, a decision on the CLI, get_approval, then the action with the approval', async () => {
    const b = await paidHold();
    const asked = await ok(agent, 'request_approval', {
      bookingId: b.id,
      action: 'confirm_booking',
      idempotencyKey: randomUUID(),
    });
    expect(asked.intentHash).toBe(b.confirmationIntent.intentHash);
    expect(asked.approveUrl).toMatch(new RegExp(`/console/approvals/${asked.approvalId}$`));
    expect((await call(agent, 'get_approval', { approvalId: asked.approvalId })).error!.code).toBe(
      'APPROVAL_PENDING',
    );
    const listed = await runCli(['approvals', 'list', '--db', alice.dbPath]);
    expect(listed.stdout).toContain(asked.approvalId);
    expect((await runCli(['approvals', 'approve', asked.approvalId, '--db', alice.dbPath])).status).toBe(0);
    expect((await ok(agent, 'get_approval', { approvalId: asked.approvalId })).approval.status).toBe(
      'APPROVED',
    );
    const done = await confirm(agent, b, { approval: { approvalId: asked.approvalId } });
    expect(done.ok).toBe(true);
    expect((await call(agent, 'get_approval', { approvalId: asked.approvalId })).error!.code).toBe(
      'APPROVAL_USED',
    );
  });
});

describe('tamper matrix: no forged, stale, replayed or foreign approval confirms anything', () => {
  const outcomes: { name: string; code: string | undefined; accepted: boolean; paymentQueries: number }[] =
    [];

  async function attempt(
    name: string,
    run: () => Promise<Awaited<ReturnType<typeof call>>>,
    expected: string,
  ) {
    const before = stub.requests.length;
    const result = await run();
    outcomes.push({
      name,
      code: result.error?.code,
      accepted: result.ok,
      paymentQueries: stub.requests.length - before,
    });
    expect(result.ok, name).toBe(false);
    expect(result.error!.code, name).toBe(expected);
    expect(stub.requests.length - before, `${name} reached the payment provider`).toBe(0);
  }

  it('changed time', async () => {
    const b = await paidHold();
    // The helper hashes as the server does: unchanged, it gives the booking's own hash.
    expect(hashIntent(b.confirmationIntent.intent)).toBe(b.confirmationIntent.intentHash);
    await attempt(
      'changed time',
      () => confirm(agent, b, { humanApproval: attestOther(b.confirmationIntent, { start: futureHour(9) }) }),
      'APPROVAL_MISMATCH',
    );
  });

  it('other calendar', async () => {
    const b = await paidHold();
    await attempt(
      'other calendar',
      () =>
        confirm(agent, b, {
          humanApproval: attestOther(b.confirmationIntent, { calendarIds: [rooms[1]] }),
        }),
      'APPROVAL_MISMATCH',
    );
  });

  it('other booking (attested)', async () => {
    const [a, other] = [await paidHold(), await paidHold(rooms[1])];
    await attempt(
      'other booking',
      () => confirm(agent, a, { humanApproval: attest(other.confirmationIntent, host) }),
      'APPROVAL_MISMATCH',
    );
  });

  it('other booking (page approval)', async () => {
    const [a, other] = [await paidHold(), await paidHold(rooms[1])];
    const approvalId = await pageApproval(other);
    await attempt(
      'other booking, page approval',
      () => confirm(agent, a, { approval: { approvalId } }),
      'APPROVAL_MISMATCH',
    );
    // The mismatch burned it: not even its own booking can use it now.
    await attempt(
      'burned approval on its own booking',
      () => confirm(agent, other, { approval: { approvalId } }),
      'APPROVAL_USED',
    );
  });

  it('other person: neither burns nor reveals the approval, which its owner then uses', async () => {
    const b = await paidHold();
    const approvalId = await pageApproval(b);
    await attempt('other person', () => confirm(intruder, b, { approval: { approvalId } }), 'NOT_FOUND');
    // Same answer as for an id that never existed: the intruder learns nothing.
    const unknown = await confirm(intruder, b, { approval: { approvalId: randomUUID() } });
    expect(unknown.error!.code).toBe('NOT_FOUND');
    expect((await call(intruder, 'get_approval', { approvalId })).error!.code).toBe('NOT_FOUND');
    expect((await confirm(agent, b, { approval: { approvalId } })).ok).toBe(true);
  });

  it('bumped version', async () => {
    const b = await paidHold();
    await attempt(
      'bumped version',
      () => confirm(agent, b, { humanApproval: attestOther(b.confirmationIntent, { version: 2 }) }),
      'APPROVAL_MISMATCH',
    );
  });

  it('replayed host approval id', async () => {
    const first = await paidHold();
    const approvalId = randomUUID();
    const accepted = await confirm(agent, first, {
      humanApproval: attest(first.confirmationIntent, host, { approvalId }),
    });
    expect(accepted.ok).toBe(true);
    const second = await paidHold();
    await attempt(
      'replayed approval',
      () =>
        confirm(agent, second, { humanApproval: attest(second.confirmationIntent, host, { approvalId }) }),
      'APPROVAL_USED',
    );
  });

  it('used approval', async () => {
    const first = await paidHold();
    const approvalId = await pageApproval(first);
    expect((await confirm(agent, first, { approval: { approvalId } })).ok).toBe(true);
    const second = await paidHold();
    await attempt(
      'used approval',
      () => confirm(agent, second, { approval: { approvalId } }),
      'APPROVAL_USED',
    );
  });

  it('denied', async () => {
    const b = await paidHold();
    const approvalId = await pageApproval(b, 'deny');
    await attempt('denied', () => confirm(agent, b, { approval: { approvalId } }), 'APPROVAL_DENIED');
  });

  it('expired host attestation (121 s old)', async () => {
    const b = await paidHold();
    const approvedAt = new Date(Date.now() - 121_000);
    await attempt(
      'expired',
      () => confirm(agent, b, { humanApproval: attest(b.confirmationIntent, host, { approvedAt }) }),
      'APPROVAL_EXPIRED',
    );
  });

  it('future-dated host attestation', async () => {
    const b = await paidHold();
    const approvedAt = new Date(Date.now() + 60_000);
    await attempt(
      'future-dated',
      () => confirm(agent, b, { humanApproval: attest(b.confirmationIntent, host, { approvedAt }) }),
      'APPROVAL_MISMATCH',
    );
  });

  it('forged hash', async () => {
    const b = await paidHold();
    const intentHash = `sha256:${'0'.repeat(64)}`;
    await attempt(
      'forged hash',
      () => confirm(agent, b, { humanApproval: attest(b.confirmationIntent, host, { intentHash }) }),
      'APPROVAL_MISMATCH',
    );
  });

  it('no proof at all', async () => {
    const b = await paidHold();
    await attempt('no proof', () => confirm(agent, b, {}), 'APPROVAL_REQUIRED');
  });

  it('accepted = 0 across the matrix, and no tampered booking moved', async () => {
    expect(outcomes.length).toBeGreaterThanOrEqual(13);
    expect(outcomes.filter((o) => o.accepted)).toEqual([]);
    expect(outcomes.reduce((n, o) => n + o.paymentQueries, 0)).toBe(0);
    const held = await ok(agent, 'list_bookings', { status: 'CONFIRMED', limit: 100 });
    expect(held.total).toBe(4); // only the legitimate confirmations of this file
  });
});
