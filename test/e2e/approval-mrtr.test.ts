import { randomUUID } from 'node:crypto';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createOpenCalendar, futureHour } from '../support/fixtures.js';
import { call, ok } from '../support/mcp-clients.js';
import type { RunningServer } from '../support/spawn-server.js';
import { CLI, provisionOnce, spawnServer, tempDbPath } from '../support/spawn-server.js';

// Only a host that started a stdio server stands between the model and the person, so only
// stdio asks the user mid-call (MRTR). Over HTTP whoever holds the token could answer: no
// elicitation, the person decides on the page or CLI.

let server: RunningServer;
const stdioDb = tempDbPath();
let hour = 0;

beforeAll(async () => {
  server = await spawnServer(['--no-seed']);
  await provisionOnce(stdioDb.path); // holdfast stdio acts for the database's only person
});
afterAll(async () => {
  await server.stop();
  stdioDb.cleanup();
});

/** The request envelope of a 2026-07-28 client that declares elicitation. */
const META = {
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientInfo': { name: 'raw', version: '1' },
  'io.modelcontextprotocol/clientCapabilities': { elicitation: { form: {} } },
};

type Answer = { action: 'accept'; content: { approve: boolean } } | { action: 'decline' };

const stdioArgs = () => [CLI, 'stdio', '--db', stdioDb.path, '--no-seed'];

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
      ? new StreamableHTTPClientTransport(new URL(server.url), {
          requestInit: { headers: { Authorization: `Bearer ${server.agent.token}` } },
        })
      : new StdioClientTransport({ command: process.execPath, args: stdioArgs(), stderr: 'pipe' });
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

describe('MRTR approval over stdio (2026-07-28)', () => {
  it('asks the user through elicitation, showing the intent, and confirms on accept', async () => {
    const seen: string[] = [];
    const client = await elicitingClient(
      'stdio',
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
    const client = await elicitingClient('stdio', 'modern', () => ({ action: 'decline' }), []);
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

describe('MRTR integrity (stdio)', () => {
  type Reply = { result?: Record<string, any>; error?: { code: number; message: string } };

  /**
   * A host speaking raw JSON-RPC to its own stdio process, requestState included: the state is
   * sealed with that process's key, so every round of a test goes to the same process.
   */
  async function rawHost() {
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: stdioArgs(),
      stderr: 'pipe',
    });
    const waiting = new Map<string, (reply: Reply) => void>();
    transport.onmessage = (message) => {
      const { id } = message as { id?: string };
      waiting.get(String(id))?.(message as Reply);
      waiting.delete(String(id));
    };
    await transport.start();
    const post = (params: Record<string, unknown>) =>
      new Promise<Reply>((resolve, reject) => {
        const id = randomUUID();
        waiting.set(id, resolve);
        transport
          .send({
            jsonrpc: '2.0',
            id,
            method: 'tools/call',
            params: { name: 'confirm_booking', _meta: META, ...params },
          })
          .catch(reject);
      });
    return { post, close: () => transport.close() };
  }

  /** Reads and holds go through an ordinary client (another process, same person and database). */
  const reader = () => elicitingClient('stdio', 'modern', () => ({ action: 'decline' }), []);

  it('rejects a tampered requestState and confirms nothing', async () => {
    const client = await reader();
    const host = await rawHost();
    const booking = await heldBooking(client);
    const args = { bookingId: booking.id, expectedVersion: 1, idempotencyKey: randomUUID() };
    const first = await host.post({ arguments: args });
    expect(first.result!.resultType).toBe('input_required');
    const state = first.result!.requestState as string;
    const [version, payload, mac] = state.split('.');
    const forgedPayload = Buffer.from(
      JSON.stringify({
        ...JSON.parse(Buffer.from(payload!, 'base64url').toString()),
        p: { approvalId: randomUUID(), intentHash: 'sha256:0' },
      }),
    ).toString('base64url');
    // The MAC's first character changed (its last ones may carry only padding bits: equal bytes).
    const otherMac = `${mac![0] === 'A' ? 'B' : 'A'}${mac!.slice(1)}`;
    for (const tampered of [`${version}.${forgedPayload}.${mac}`, `${version}.${payload}.${otherMac}`]) {
      const retry = await host.post({
        arguments: args,
        requestState: tampered,
        inputResponses: { approval: { action: 'accept', content: { approve: true } } },
      });
      expect(retry.error?.code).toBe(-32602);
      expect(retry.error?.message).toMatch(/requestState/);
    }
    expect((await ok(client, 'get_booking', { bookingId: booking.id })).booking.status).toBe('HELD');
    // Control: the genuine state with the same answer goes through.
    const genuine = await host.post({
      arguments: args,
      requestState: state,
      inputResponses: { approval: { action: 'accept', content: { approve: true } } },
    });
    expect(genuine.result!.structuredContent).toMatchObject({
      ok: true,
      data: { booking: { status: 'CONFIRMED' } },
    });
    await host.close();
    await client.close();
  });

  it('a declined answer sticks: the same sealed request replayed as "accept" confirms nothing', async () => {
    const client = await reader();
    const host = await rawHost();
    const booking = await heldBooking(client);
    const args = { bookingId: booking.id, expectedVersion: 1, idempotencyKey: randomUUID() };
    const first = await host.post({ arguments: args });
    const state = first.result!.requestState as string;
    const declined = await host.post({
      arguments: args,
      requestState: state,
      inputResponses: { approval: { action: 'decline' } },
    });
    expect(declined.result!.structuredContent).toMatchObject({
      ok: false,
      error: { code: 'APPROVAL_DENIED' },
    });
    const replayed = await host.post({
      arguments: { ...args, idempotencyKey: randomUUID() },
      requestState: state,
      inputResponses: { approval: { action: 'accept', content: { approve: true } } },
    });
    expect(replayed.result!.structuredContent?.ok).toBe(false);
    expect((await ok(client, 'get_booking', { bookingId: booking.id })).booking.status).toBe('HELD');
    await host.close();
    await client.close();
  });
});

describe('no elicitation over HTTP', () => {
  it.each(['modern', 'legacy'] as const)(
    'a %s HTTP client that declares elicitation gets APPROVAL_REQUIRED; nothing asks it',
    async (era) => {
      const seen: string[] = [];
      const client = await elicitingClient(
        'http',
        era,
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
      expect(asked.error!.details.approveUrl).toMatch(/\/approvals\//);
      expect(seen).toEqual([]);
      expect((await ok(client, 'get_booking', { bookingId: booking.id })).booking.status).toBe('HELD');
      await client.close();
    },
  );

  it('a raw 2026-07-28 call declaring elicitation gets no requestState to answer', async () => {
    const client = await elicitingClient('http', 'modern', () => ({ action: 'decline' }), []);
    const booking = await heldBooking(client);
    const response = await fetch(server.url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        authorization: `Bearer ${server.agent.token}`,
        'mcp-protocol-version': '2026-07-28',
        'mcp-method': 'tools/call',
        'mcp-name': 'confirm_booking',
      },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: randomUUID(),
        method: 'tools/call',
        params: {
          name: 'confirm_booking',
          _meta: META,
          arguments: { bookingId: booking.id, expectedVersion: 1, idempotencyKey: randomUUID() },
        },
      }),
    });
    const answer = (await response.json()) as { result?: Record<string, any> };
    expect(answer.result!.resultType).not.toBe('input_required');
    expect(answer.result!.requestState).toBeUndefined();
    expect(answer.result!.structuredContent).toMatchObject({
      ok: false,
      error: { code: 'APPROVAL_REQUIRED' },
    });
    await client.close();
  });
});
