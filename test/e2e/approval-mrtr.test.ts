import { randomUUID } from 'node:crypto';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createOpenCalendar, futureHour } from '../support/fixtures.js';
import { call, ok } from '../support/mcp-clients.js';
import type { RunningServer } from '../support/spawn-server.js';
import { CLI, spawnServer, tempDbPath } from '../support/spawn-server.js';

let server: RunningServer;
const stdioDb = tempDbPath();
let hour = 0;

beforeAll(async () => {
  server = await spawnServer(['--no-seed', '--write-policy', 'attested']);
});
afterAll(async () => {
  await server.stop();
  stdioDb.cleanup();
});

type Answer = { action: 'accept'; content: { approve: boolean } } | { action: 'decline' };

/** The official client, declaring elicitation; its handler plays the user. */
async function elicitingClient(
  kind: 'http' | 'stdio',
  era: 'modern' | 'legacy',
  answer: () => Answer,
  seen: string[],
) {
  const client = new Client(
    { name: 'mrtr-test', version: '1.0.0' },
    {
      capabilities: { elicitation: { form: {} } },
      ...(era === 'modern' ? { versionNegotiation: { mode: { pin: '2026-07-28' } } } : {}),
    },
  );
  client.setRequestHandler('elicitation/create', async (request) => {
    seen.push(String((request.params as { message?: string }).message));
    return answer();
  });
  const transport =
    kind === 'http'
      ? new StreamableHTTPClientTransport(new URL(server.url))
      : new StdioClientTransport({
          command: process.execPath,
          args: [CLI, 'stdio', '--db', stdioDb.path, '--no-seed'],
          stderr: 'pipe',
        });
  await client.connect(transport);
  return client;
}

async function heldBooking(client: Client) {
  const room = await createOpenCalendar(client, `MRTR room ${randomUUID().slice(0, 8)}`);
  hour += 1;
  return (
    await ok(client, 'hold_slot', {
      calendarIds: [room],
      start: futureHour(2, hour),
      end: futureHour(2, hour + 1),
      idempotencyKey: randomUUID(),
    })
  ).booking;
}

describe.each(['http', 'stdio'] as const)('MRTR approval over %s (2026-07-28)', (kind) => {
  it('asks the user through elicitation, showing the intent, and confirms on accept', async () => {
    const seen: string[] = [];
    const client = await elicitingClient(
      kind,
      'modern',
      () => ({ action: 'accept', content: { approve: true } }),
      seen,
    );
    const booking = await heldBooking(client);
    const confirmed = await ok(client, 'confirm_booking', {
      bookingId: booking.id,
      expectedVersion: 1,
      idempotencyKey: randomUUID(),
    });
    expect(confirmed.booking.status).toBe('CONFIRMED');
    expect(seen).toHaveLength(1);
    expect(seen[0]).toContain(booking.reference);
    expect(seen[0]).toContain(booking.confirmationIntent.intentHash);
    await client.close();
  });

  it('a declined elicitation is APPROVAL_DENIED and nothing changes', async () => {
    const client = await elicitingClient(kind, 'modern', () => ({ action: 'decline' }), []);
    const booking = await heldBooking(client);
    const refused = await call(client, 'confirm_booking', {
      bookingId: booking.id,
      expectedVersion: 1,
      idempotencyKey: randomUUID(),
    });
    expect(refused.error!.code).toBe('APPROVAL_DENIED');
    expect((await ok(client, 'get_booking', { bookingId: booking.id })).booking.status).toBe('HELD');
    await client.close();
  });
});

describe('MRTR integrity and era limits', () => {
  const META = {
    'io.modelcontextprotocol/protocolVersion': '2026-07-28',
    'io.modelcontextprotocol/clientInfo': { name: 'raw', version: '1' },
    'io.modelcontextprotocol/clientCapabilities': { elicitation: { form: {} } },
  };
  const post = async (params: Record<string, unknown>) => {
    const response = await fetch(server.url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-protocol-version': '2026-07-28',
        'mcp-method': 'tools/call',
        'mcp-name': 'confirm_booking',
      },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: randomUUID(),
        method: 'tools/call',
        params: { name: 'confirm_booking', _meta: META, ...params },
      }),
    });
    return (await response.json()) as {
      result?: Record<string, any>;
      error?: { code: number; message: string };
    };
  };

  it('rejects a tampered requestState and confirms nothing', async () => {
    const client = await elicitingClient('http', 'modern', () => ({ action: 'decline' }), []);
    const booking = await heldBooking(client);
    const args = { bookingId: booking.id, expectedVersion: 1, idempotencyKey: randomUUID() };
    const first = await post({ arguments: args });
    expect(first.result!.resultType).toBe('input_required');
    const state = first.result!.requestState as string;
    const [version, payload, mac] = state.split('.');
    const forgedPayload = Buffer.from(
      JSON.stringify({
        ...JSON.parse(Buffer.from(payload!, 'base64url').toString()),
        p: { approvalId: randomUUID(), intentHash: 'sha256:0' },
      }),
    ).toString('base64url');
    for (const tampered of [`${version}.${forgedPayload}.${mac}`, `${state.slice(0, -2)}xx`]) {
      const retry = await post({
        arguments: args,
        requestState: tampered,
        inputResponses: { approval: { action: 'accept', content: { approve: true } } },
      });
      expect(retry.error?.code).toBe(-32602);
      expect(retry.error?.message).toMatch(/requestState/);
    }
    expect((await ok(client, 'get_booking', { bookingId: booking.id })).booking.status).toBe('HELD');
    // Control: the genuine state with the same answer goes through.
    const genuine = await post({
      arguments: args,
      requestState: state,
      inputResponses: { approval: { action: 'accept', content: { approve: true } } },
    });
    expect(genuine.result!.structuredContent).toMatchObject({
      ok: true,
      data: { booking: { status: 'CONFIRMED' } },
    });
    await client.close();
  });

  it('a declined answer sticks: the same sealed request replayed as "accept" confirms nothing', async () => {
    const client = await elicitingClient('http', 'modern', () => ({ action: 'decline' }), []);
    const booking = await heldBooking(client);
    const args = { bookingId: booking.id, expectedVersion: 1, idempotencyKey: randomUUID() };
    const first = await post({ arguments: args });
    const state = first.result!.requestState as string;
    const declined = await post({
      arguments: args,
      requestState: state,
      inputResponses: { approval: { action: 'decline' } },
    });
    expect(declined.result!.structuredContent).toMatchObject({
      ok: false,
      error: { code: 'APPROVAL_DENIED' },
    });
    const replayed = await post({
      arguments: { ...args, idempotencyKey: randomUUID() },
      requestState: state,
      inputResponses: { approval: { action: 'accept', content: { approve: true } } },
    });
    expect(replayed.result!.structuredContent?.ok).toBe(false);
    expect((await ok(client, 'get_booking', { bookingId: booking.id })).booking.status).toBe('HELD');
    await client.close();
  });

  it('a 2025-era HTTP client gets APPROVAL_REQUIRED instead of an elicitation', async () => {
    const seen: string[] = [];
    const client = await elicitingClient(
      'http',
      'legacy',
      () => ({ action: 'accept', content: { approve: true } }),
      seen,
    );
    const booking = await heldBooking(client);
    const asked = await call(client, 'confirm_booking', {
      bookingId: booking.id,
      expectedVersion: 1,
      idempotencyKey: randomUUID(),
    });
    expect(asked.error!.code).toBe('APPROVAL_REQUIRED');
    expect(seen).toEqual([]);
    await client.close();
  });
});
