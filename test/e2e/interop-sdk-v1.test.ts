import { randomUUID } from 'node:crypto';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { futureHour, openAllWeek, plusMinutes } from '../support/fixtures.js';
import type { Envelope } from '../support/mcp-clients.js';
import type { RunningServer } from '../support/spawn-server.js';
import { CLI, spawnServer } from '../support/spawn-server.js';

// The cheapest rows of `npm run interop` (scripts/interop.mjs): the v1 TypeScript SDK
// (@modelcontextprotocol/sdk, pinned in package.json), a client Holdfast does not build on,
// through the same scenario over HTTP with the owner's token and over stdio.

let server: RunningServer;
let room: string;

const v1Client = () => new Client({ name: 'holdfast-interop-v1', version: '1.0.0' });

async function overHttp(): Promise<Client> {
  const client = v1Client();
  await client.connect(
    new StreamableHTTPClientTransport(new URL('/mcp', server.url), {
      requestInit: { headers: { Authorization: `Bearer ${server.agent.token}` } },
    }),
  );
  return client;
}

async function overStdio(): Promise<Client> {
  const client = v1Client();
  await client.connect(
    new StdioClientTransport({
      command: process.execPath,
      args: [CLI, 'stdio', '--db', server.dbPath, '--as', server.agent.email],
      stderr: 'pipe',
    }),
  );
  return client;
}

async function call(client: Client, name: string, args: Record<string, unknown>) {
  const result = await client.callTool({ name, arguments: args });
  const envelope = result.structuredContent as unknown as Envelope<Record<string, any>>;
  expect(typeof envelope.ok, JSON.stringify(result).slice(0, 300)).toBe('boolean');
  expect(Boolean(result.isError)).toBe(!envelope.ok);
  return envelope;
}

beforeAll(async () => {
  server = await spawnServer(['--no-seed']);
  const owner = await overHttp();
  const created = await call(owner, 'create_calendar', {
    name: 'Interop room',
    timeZone: 'UTC',
    availability: openAllWeek,
    idempotencyKey: randomUUID(),
  });
  expect(created.ok, JSON.stringify(created.error)).toBe(true);
  room = created.data!.calendar.id;
  await owner.close();
});
afterAll(async () => {
  await server?.stop();
});

describe.each([
  { transport: 'HTTP with a token', connect: overHttp, daysAhead: 2 },
  { transport: 'stdio', connect: overStdio, daysAhead: 3 },
])('the v1 TypeScript SDK over $transport', ({ connect, daysAhead }) => {
  it('connects, lists tools, resources and prompts, finds, holds, and meets APPROVAL_REQUIRED with a link', async () => {
    const client = await connect();
    try {
      expect(client.getServerVersion()?.name).toBe('holdfast');
      const { tools } = await client.listTools();
      expect(tools.map((t) => t.name)).toEqual(
        expect.arrayContaining(['find_slots', 'hold_slot', 'confirm_booking']),
      );
      expect((await client.listResources()).resources.length).toBeGreaterThan(0);
      expect((await client.listPrompts()).prompts.length).toBeGreaterThan(0);

      const from = futureHour(daysAhead);
      const found = await call(client, 'find_slots', {
        calendarIds: [room],
        from,
        to: plusMinutes(from, 180),
        durationMinutes: 60,
        limit: 3,
      });
      expect(found.ok, JSON.stringify(found.error)).toBe(true);
      const slots = found.data!.slots as { start: string; end: string }[];
      expect(slots).toHaveLength(3);
      expect(Date.parse(slots[0]!.start)).toBe(Date.parse(from));

      const held = await call(client, 'hold_slot', {
        calendarIds: [room],
        start: slots[0]!.start,
        end: slots[0]!.end,
        idempotencyKey: randomUUID(),
      });
      expect(held.ok, JSON.stringify(held.error)).toBe(true);
      expect(held.data!.booking).toMatchObject({ status: 'HELD', version: 1 });

      const confirmed = await call(client, 'confirm_booking', {
        bookingId: held.data!.booking.id,
        expectedVersion: held.data!.booking.version,
        idempotencyKey: randomUUID(),
      });
      expect(confirmed.ok).toBe(false);
      expect(confirmed.error!.code).toBe('APPROVAL_REQUIRED');
      const link = new URL(confirmed.error!.details.approveUrl as string);
      expect(link.protocol).toBe('http:');
    } finally {
      await client.close();
    }
  }, 20_000);
});
