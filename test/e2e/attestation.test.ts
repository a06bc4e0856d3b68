import { generateKeyPairSync, randomUUID } from 'node:crypto';
import type { Client } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { HostKey } from '../support/approvals.js';
import { attest, registerHost } from '../support/approvals.js';
import { createOpenCalendar, futureHour } from '../support/fixtures.js';
import { call, connectStdio, ok } from '../support/mcp-clients.js';
import { runCli, tempDbPath } from '../support/spawn-server.js';

// Over stdio with policy `attested`, the model itself fills humanApproval: it copies the intent
// hash, sets approvedAt to now, and makes up the rest. Only a host holding a registered key can sign.

const db = tempDbPath();
let agent: Client;
let room: string;
let host: HostKey;
let revoked: HostKey;
let hour = 0;

beforeAll(async () => {
  agent = await connectStdio(db.path, 'modern', ['--write-policy', 'attested', '--no-seed']);
  room = await createOpenCalendar(agent, 'Attested room');
  host = await registerHost(db.path, 'local', 'Desktop host');
  revoked = await registerHost(db.path, 'local', 'Old host');
  expect((await runCli(['hosts', 'revoke', revoked.id, '--db', db.path])).status).toBe(0);
});
afterAll(async () => {
  await agent?.close();
  db.cleanup();
});

async function held() {
  const { booking } = await ok(agent, 'hold_slot', {
    calendarIds: [room],
    start: futureHour(2, hour),
    end: futureHour(2, ++hour),
    idempotencyKey: randomUUID(),
  });
  return booking as {
    id: string;
    confirmationIntent: { intent: Record<string, unknown>; intentHash: string };
  };
}

const confirm = (bookingId: string, humanApproval: unknown) =>
  call(agent, 'confirm_booking', {
    bookingId,
    expectedVersion: 1,
    idempotencyKey: randomUUID(),
    humanApproval,
  });

describe('host attestations must be signed by a registered host', () => {
  it('the schema tells the model it cannot fill humanApproval', async () => {
    const { tools } = await agent.listTools();
    const schema = tools.find((t) => t.name === 'confirm_booking')!.inputSchema as unknown as {
      properties: { humanApproval: { description: string } };
    };
    expect(schema.properties.humanApproval.description).toContain('never by the model');
  });

  it('every forgery is refused with a code; confirmations by forgeries = 0', async () => {
    const b = await held();
    const ci = b.confirmationIntent;
    const stranger = generateKeyPairSync('ed25519').privateKey.export({ type: 'pkcs8', format: 'der' });
    const forgeries: [string, unknown, string][] = [
      [
        'the forgery that was found: copied intent, approvedAt now, decision APPROVE',
        {
          approvalId: randomUUID(),
          decision: 'APPROVE',
          approvedAt: new Date().toISOString(),
          intent: ci.intent,
          intentHash: ci.intentHash,
        },
        'INVALID_ARGUMENTS',
      ],
      ['copied hash, no signature', { ...attest(ci, host), signature: undefined }, 'INVALID_ARGUMENTS'],
      ['copied hash, a made-up signature', attest(ci, host, { signature: 'AAAAAAAA' }), 'APPROVAL_MISMATCH'],
      ['an unknown host id', attest(ci, host, { hostId: 'host_madeup' }), 'APPROVAL_MISMATCH'],
      [
        'signed with a key nobody registered, under a registered host id',
        attest(ci, { id: host.id, privateKey: stranger.toString('base64url') }),
        'APPROVAL_MISMATCH',
      ],
      ['signed by a revoked host', attest(ci, revoked), 'APPROVAL_MISMATCH'],
      [
        'a genuine signature of another intent',
        attest(ci, host, { intentHash: `sha256:${'0'.repeat(64)}` }),
        'APPROVAL_MISMATCH',
      ],
      [
        'a genuine signature, approvedAt an hour ago',
        attest(ci, host, { approvedAt: new Date(Date.now() - 3_600_000) }),
        'APPROVAL_EXPIRED',
      ],
    ];
    let confirmed = 0;
    for (const [name, humanApproval, code] of forgeries) {
      const answer = await confirm(b.id, humanApproval);
      if (answer.ok) confirmed++;
      else expect(answer.error!.code, name).toBe(code);
    }
    expect(confirmed).toBe(0);
    expect((await ok(agent, 'get_booking', { bookingId: b.id })).booking.status).toBe('HELD');
  });

  it('a correctly signed attestation is accepted once; its replay is refused', async () => {
    const b = await held();
    const signed = attest(b.confirmationIntent, host);
    const done = await confirm(b.id, signed);
    expect(done.ok, JSON.stringify(done.error)).toBe(true);
    expect((done.data as { booking: { status: string } }).booking.status).toBe('CONFIRMED');

    const other = await held();
    const replayed = await confirm(other.id, signed);
    expect(replayed.error!.code).toBe('APPROVAL_MISMATCH'); // signed for the first booking's intent
    const reused = await confirm(
      other.id,
      attest(other.confirmationIntent, host, { approvalId: signed.approvalId }),
    );
    expect(reused.error!.code).toBe('APPROVAL_USED'); // a host's approval id works once
    expect((await ok(agent, 'get_booking', { bookingId: other.id })).booking.status).toBe('HELD');
  });
});
