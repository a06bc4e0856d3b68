import type { JsonWebKey } from 'node:crypto';
import { createPublicKey, randomUUID } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Client } from '@modelcontextprotocol/client';
import jwt from 'jsonwebtoken';
import { describe, expect, it } from 'vitest';
import { createOpenCalendar, futureHour } from '../support/fixtures.js';
import { anotherPersonsAgent } from '../support/another-agent.js';
import { call, ok } from '../support/mcp-clients.js';
import { runCli, spawnCli } from '../support/spawn-server.js';
import type { Backend, BackendKind } from '../reliability/harness.js';
import { clientsFor, startBackend } from '../reliability/harness.js';

// Signed receipts through the official client against the spawned server, on both engines (two
// instances on PostgreSQL): a confirmed booking's receipt is signed once (every instance serves
// the same bytes), verifies with an independent JOSE library (jsonwebtoken, not the jose the
// server signs with) against the published JWKS, names the approved intent, the approver and the
// sealed audit record of the confirming call; a tampered one fails; a rotated key leaves old
// receipts verifiable; `holdfast receipts verify` agrees offline; another person's agent reads none.

type Jwk = JsonWebKey & { kid: string };

interface Receipt {
  jws: string;
  kid: string;
  jwks: string;
  claims: Record<string, any>;
}

/** The server's origin (its logged url is the MCP endpoint's). */
const originOf = (url: string) => new URL(url).origin;

async function jwksOf(url: string): Promise<Jwk[]> {
  const response = await fetch(`${originOf(url)}/receipts/jwks.json`);
  expect(response.status).toBe(200);
  return ((await response.json()) as { keys: Jwk[] }).keys;
}

/** Verified by jsonwebtoken with the key its header names, as any relying party would. */
function independentlyVerified(jws: string, keys: readonly Jwk[]): Record<string, any> {
  const { header } = jwt.decode(jws, { complete: true })!;
  const jwk = keys.find((k) => k.kid === header.kid);
  if (!jwk) throw new Error(`no published key ${header.kid}`);
  const pem = createPublicKey({ key: jwk, format: 'jwk' }).export({ type: 'spki', format: 'pem' });
  return jwt.verify(jws, pem, { algorithms: ['ES256'] }) as Record<string, any>;
}

async function readReceipt(client: Client, bookingId: string): Promise<Receipt> {
  const result = await client.readResource({ uri: `holdfast://bookings/${bookingId}/receipt` });
  const text = (result.contents[0] as { text: string }).text;
  return (JSON.parse(text) as { receipt: Receipt }).receipt;
}

/** Held, asked, approved by a person on the CLI, paid, confirmed: the booking's id and the approved intent hash. */
async function confirmedBooking(backend: Backend, agent: Client, calendarId: string, hour: number) {
  const db = backend.databaseArgs;
  const held = await ok<{ booking: { id: string; version: number } }>(agent, 'hold_slot', {
    calendarIds: [calendarId],
    start: futureHour(hour),
    end: futureHour(hour, 1),
    customer: { name: 'Ana Lima', email: 'ana@example.com' },
    idempotencyKey: randomUUID(),
  });
  const { id, version } = held.booking;
  const confirm = (approvalId?: string) =>
    call(agent, 'confirm_booking', {
      bookingId: id,
      expectedVersion: version,
      idempotencyKey: randomUUID(),
      ...(approvalId ? { approval: { approvalId } } : {}),
    });
  const asked = await confirm();
  expect(asked.error?.code).toBe('APPROVAL_REQUIRED');
  const approvalId = asked.error!.details.approvalId as string;
  const intentHash = asked.error!.details.intentHash as string;
  expect((await runCli(['approvals', 'approve', approvalId, ...db])).status).toBe(0);
  expect((await runCli(['payments', 'set', id, 'PAID', ...db])).status).toBe(0);
  const confirmed = await confirm(approvalId);
  expect(confirmed.ok, JSON.stringify(confirmed.error)).toBe(true);
  return { id, approvalId, intentHash };
}

describe.each<BackendKind>(['sqlite', 'postgres'])('signed receipts (%s)', (kind) => {
  it('signs once, verifies independently, survives rotation, refuses tampering and strangers', async () => {
    const backend = await startBackend(kind, { writePolicy: 'draft' });
    const db = backend.databaseArgs;
    const scratch = join(tmpdir(), `receipts-${randomUUID()}`);
    try {
      const [agent, other] = await clientsFor(backend, 2);
      const room = await createOpenCalendar(agent!, 'Salle Émeraude', { amount: '45.00', currency: 'EUR' });
      const first = await confirmedBooking(backend, agent!, room, 3);

      const booking = await ok<{ booking: { receiptUri: string | null; reference: string } }>(
        agent!,
        'get_booking',
        { bookingId: first.id },
      );
      expect(booking.booking.receiptUri).toBe(`holdfast://bookings/${first.id}/receipt`);
      // Asked on two instances at once (PostgreSQL): one signature is kept, both answer with it.
      const [receipt, again] = await Promise.all([
        readReceipt(agent!, first.id),
        readReceipt(other!, first.id),
      ]);
      expect(again.jws).toBe(receipt.jws);
      expect(receipt.jwks).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/receipts\/jwks\.json$/);

      const keys = await jwksOf(backend.urls()[0]!);
      expect(keys.every((k) => !('d' in k))).toBe(true);
      const claims = independentlyVerified(receipt.jws, keys);
      expect(claims.sub).toBe(first.id);
      expect(claims.reference).toBe(booking.booking.reference);
      expect(claims.calendars).toMatchObject([{ id: room, name: 'Salle Émeraude' }]);
      expect(Date.parse(claims.start)).toBe(Date.parse(futureHour(3)));
      expect(Date.parse(claims.end)).toBe(Date.parse(futureHour(3, 1)));
      expect(claims.amount).toEqual({ value: '45.00', currency: 'EUR' });
      expect(claims.intentHash).toBe(first.intentHash);
      expect(claims.approval).toMatchObject({ how: 'person', approvalId: first.approvalId });
      expect(typeof claims.approval.by).toBe('string');
      expect(claims.iss).toBe(receipt.jwks.replace('/receipts/jwks.json', ''));
      // The receipt names the sealed record of the very call that confirmed it.
      const [record] = await backend.sql<{ seq: number | string; tool: string; outcome: string }>(
        'SELECT seq, tool, outcome FROM audit_log WHERE operation_id = $1'.replace(
          '$1',
          kind === 'sqlite' ? '?' : '$1',
        ),
        [claims.audit.operationId],
      );
      expect(record).toMatchObject({ tool: 'confirm_booking', outcome: 'ok' });
      expect(Number(record!.seq)).toBe(claims.audit.seq);
      // No customer detail is in a receipt: it is meant to be shown to others.
      expect(receipt.jws).not.toContain(Buffer.from('ana@example.com').toString('base64url').slice(0, 12));
      expect(JSON.stringify(claims)).not.toMatch(/ana|Lima/i);

      // Tampered: another amount under the same signature fails, with this library and the CLI.
      const [header, , signature] = receipt.jws.split('.');
      const forged = Buffer.from(
        JSON.stringify({ ...claims, amount: { value: '0.01', currency: 'EUR' } }),
      ).toString('base64url');
      const tampered = `${header}.${forged}.${signature}`;
      expect(() => independentlyVerified(tampered, keys)).toThrow(/signature/);
      const valid = join(`${scratch}-valid.jws`);
      const altered = join(`${scratch}-altered.jws`);
      writeFileSync(valid, receipt.jws);
      writeFileSync(altered, tampered);
      const keysUrl = `${originOf(backend.urls()[0]!)}/receipts/jwks.json`;
      const offline = await spawnCli(['receipts', 'verify', valid, '--jwks', keysUrl]);
      expect(offline.status, offline.stderr).toBe(0);
      expect(offline.stdout).toContain('Valid receipt');
      expect(offline.stdout).toContain('Salle Émeraude');
      expect(offline.stdout).toContain('45.00 EUR');
      const refused = await spawnCli(['receipts', 'verify', altered, '--jwks', keysUrl]);
      expect(refused.status).toBe(1);
      expect(refused.stdout).toContain('Not a valid receipt');
      // Against this installation's own keys (no --jwks), the JSON the resource gave works too.
      const asJson = join(`${scratch}-resource.json`);
      writeFileSync(asJson, JSON.stringify({ receipt }));
      expect((await runCli(['receipts', 'verify', asJson, ...db])).status).toBe(0);

      // Rotation: the next receipt is signed by the new key, and the old receipt still verifies.
      const rotated = await runCli(['receipts', 'rotate-key', '--json', ...db]);
      expect(rotated.status, rotated.stderr).toBe(0);
      const newKid = (JSON.parse(rotated.stdout) as { kid: string }).kid;
      const second = await confirmedBooking(backend, agent!, room, 4);
      const later = await readReceipt(other!, second.id);
      expect(later.kid).toBe(newKid);
      expect(later.kid).not.toBe(receipt.kid);
      const keysNow = await jwksOf(backend.urls().at(-1)!);
      expect(keysNow.map((k) => k.kid).sort()).toEqual([receipt.kid, newKid].sort());
      expect(independentlyVerified(receipt.jws, keysNow).sub).toBe(first.id);
      expect(independentlyVerified(later.jws, keysNow).sub).toBe(second.id);
      // Signed once: the first receipt is unchanged after the rotation.
      expect((await readReceipt(agent!, first.id)).jws).toBe(receipt.jws);

      // Another person's agent: the receipt does not exist for it; a held booking has none either.
      const { client: mallory, token: malloryToken } = await anotherPersonsAgent(backend.urls()[0]!, db);
      const held = await ok<{ booking: { id: string } }>(agent!, 'hold_slot', {
        calendarIds: [room],
        start: futureHour(5),
        end: futureHour(5, 1),
        idempotencyKey: randomUUID(),
      });
      let successes = 0;
      for (const id of [first.id, second.id, held.booking.id, 'bk_doesnotexist1'])
        await mallory
          .readResource({ uri: `holdfast://bookings/${id}/receipt` })
          .then(() => successes++)
          .catch(() => undefined);
      // The console's download is for signed-in people: a bearer token is no session.
      const token = malloryToken;
      const download = await fetch(
        `${originOf(backend.urls()[0]!)}/console/bookings/${first.id}/receipt.jws`,
        {
          headers: { Authorization: `Bearer ${token}` },
          redirect: 'manual',
        },
      );
      if (download.status === 200) successes++;
      expect(successes).toBe(0);
      // The owner's own hold has no receipt yet either (its receiptUri is null until it is confirmed).
      await expect(
        agent!.readResource({ uri: `holdfast://bookings/${held.booking.id}/receipt` }),
      ).rejects.toThrow(/not found/i);
      await mallory.close();
    } finally {
      await backend.stop();
    }
  }, 120_000);
});
