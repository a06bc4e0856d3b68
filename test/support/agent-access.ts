import { randomUUID } from 'node:crypto';
import type { Client } from '@modelcontextprotocol/client';
import { expect } from 'vitest';
import { createOpenCalendar, futureHour } from './fixtures.js';
import { connectHttp, ok } from './mcp-clients.js';
import { startPaymentStub } from './payment-stub.js';
import type { RunningServer } from './spawn-server.js';
import { runCli, spawnServer } from './spawn-server.js';

/**
 * `holdfast serve --profile agent-access` with a payment provider stub, a free and a priced
 * calendar, and an agent: a token of the owner's with read and draft only.
 */
export async function startAgentAccess() {
  const stub = await startPaymentStub();
  const server: RunningServer = await spawnServer(
    ['--no-seed', '--profile', 'agent-access', '--payments', 'http'],
    { env: { PAYMENT_QUERY_BASE_URL: stub.baseUrl, HOLDFAST_ALLOW_PRIVATE_UPSTREAMS: '1' } },
  );
  const owner = await connectHttp(server.url, 'modern');
  const room = await createOpenCalendar(owner, 'Harbour room');
  const paid = await createOpenCalendar(owner, 'Camera body', { amount: '500.00', currency: 'CNY' });

  /** A token of `email` with read and draft only, as `holdfast tokens create` gives it. */
  const draftToken = async (email: string, name: string, tenant?: string) => {
    const run = await runCli([
      'tokens',
      'create',
      email,
      '--name',
      name,
      '--scopes',
      'read,draft',
      ...(tenant ? ['--tenant', tenant] : []),
      '--json',
      '--db',
      server.dbPath,
    ]);
    expect(run.status, run.stderr).toBe(0);
    return (JSON.parse(run.stdout) as { token: string }).token;
  };
  const agentToken = await draftToken(server.agent.email, 'agent');
  const agent = await connectHttp(server.url, 'modern', { token: agentToken });
  let hour = 0;

  return {
    server,
    stub,
    owner,
    agent,
    agentToken,
    room,
    paid,
    draftToken,
    /** The agent holds the next free hour of `calendar`. */
    async held(calendar = room) {
      hour += 1;
      return (
        await ok(agent, 'hold_slot', {
          calendarIds: [calendar],
          start: futureHour(3, hour),
          end: futureHour(3, hour + 1),
          idempotencyKey: randomUUID(),
        })
      ).booking as { id: string; version: number };
    },
    /** The agent reads the state and drafts the write: the pending operation's answer. */
    async draft(tool: 'confirm_booking' | 'cancel_booking', bookingId: string, client: Client = agent) {
      const { state } = await ok(client, 'state_get', { bookingId });
      return ok(client, tool, { bookingId, expectedState: state, idempotencyKey: randomUUID() });
    },
    async stop() {
      await agent.close();
      await owner.close();
      await server.stop();
      await stub.close();
    },
  };
}
