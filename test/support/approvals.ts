import { createPrivateKey, randomUUID, sign } from 'node:crypto';
import { attestationMessage } from '../../src/domain/approval/approval.js';
import { addHost } from '../../src/app/identity/hosts.js';
import type { Client } from '@modelcontextprotocol/client';
import { expect } from 'vitest';
import { call, ok } from './mcp-clients.js';
import { identityDeps } from './provision.js';

export interface HostKey {
  readonly id: string;
  readonly privateKey: string;
}

/** Registers a host on a database, as `holdfast hosts add` does; returns its id and private key. */
export async function registerHost(database: string, tenant = 'local', name = 'test host'): Promise<HostKey> {
  const { deps, close } = await identityDeps(database);
  try {
    const { host, privateKey } = await addHost(deps, tenant, name);
    return { id: host.id, privateKey };
  } finally {
    await close();
  }
}

/**
 * A host attestation for booking.confirmationIntent, signed with `host`'s key unless told
 * otherwise: what a registered host application sends after its user said yes.
 */
export function attest(
  confirmationIntent: { intentHash: string },
  host: HostKey | null,
  options: {
    intentHash?: string;
    approvedAt?: Date;
    approvalId?: string;
    signature?: string;
    hostId?: string;
  } = {},
) {
  const unsigned = {
    hostId: options.hostId ?? host?.id ?? 'host_unregistered',
    approvalId: options.approvalId ?? randomUUID(),
    approvedAt: (options.approvedAt ?? new Date()).toISOString(),
    intentHash: options.intentHash ?? confirmationIntent.intentHash,
  };
  const signature =
    options.signature ??
    (host
      ? sign(
          null,
          Buffer.from(attestationMessage(unsigned)),
          createPrivateKey({ key: Buffer.from(host.privateKey, 'base64url'), format: 'der', type: 'pkcs8' }),
        ).toString('base64url')
      : 'AAAA');
  return { ...unsigned, signature };
}

/** What an agent is told when a person must decide: the approval and the link to it. */
export interface AskedApproval {
  readonly booking: { readonly id: string; readonly [field: string]: any };
  readonly details: { approvalId: string; approveUrl: string };
}

/** An agent holds one hour and asks to confirm it: the approval a person must now decide. */
export async function askForApproval(
  agent: Client,
  calendarId: string,
  start: string,
  end: string,
  extra: Record<string, unknown> = {},
): Promise<AskedApproval> {
  const { booking } = await ok(agent, 'hold_slot', {
    calendarIds: [calendarId],
    start,
    end,
    ...extra,
    idempotencyKey: randomUUID(),
  });
  const asked = await call(agent, 'confirm_booking', {
    bookingId: booking.id,
    expectedVersion: 1,
    idempotencyKey: randomUUID(),
  });
  expect(asked.error!.code).toBe('APPROVAL_REQUIRED');
  return { booking, details: asked.error!.details as AskedApproval['details'] };
}
