import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Client } from '@modelcontextprotocol/client';
import { createTemporalClientFetch } from '../client/client-timing.js';
import type { Json } from './demo-kit.js';
import { callTool, connect, provision, runCli, say, setPassword, startServer } from './demo-kit.js';

/**
 * Seed 000's flow, as its own host would run it against `--profile expert-booking`: the three
 * catalog tools, a search, a hold, the person's approval, the payment outside the agent and the
 * confirmation. Step titles carry no ids or times, so two runs print the same steps.
 */

/** A logical tool through tool_catalog.call; the answer is the seed's envelope. */
const logical = (client: Client, tool: string, args: Json) =>
  callTool(client, 'tool_catalog.call', { tool, arguments: args });

/** The seed's humanApproval: the intent and hash copied from the hold, approvedAt now. */
const approvalFor = (booking: Json, approvalId: string) => ({
  approvalId,
  decision: 'APPROVE',
  approvedAt: new Date().toISOString(),
  intent: booking.confirmationIntent.intent,
  intentHash: booking.confirmationIntent.intentHash,
});

export async function expertDemo(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'holdfast-expert-demo-'));
  const dbPath = join(dir, 'demo.db');
  const { setupUrl, tokens } = provision(dbPath);
  const server = await startServer(dbPath, ['--profile', 'expert-booking']);
  try {
    await setPassword(new URL(server.url).origin, setupUrl);
    const agent = await connect(server.url, 'expert-host', tokens[0]!, createTemporalClientFetch());
    say('Connected with createTemporalClientFetch: every request says when it was sent', {
      protocolEra: agent.getProtocolEra(),
    });

    const { tools } = await agent.listTools();
    say(
      'tools/list: only the catalog',
      tools.map((t) => t.name),
    );
    const found = await callTool(agent, 'tool_catalog.search', { query: 'booking', limit: 10 });
    say(
      'tool_catalog.search "booking"',
      (found.data.tools as Json[]).map((t) => t.name),
    );

    const search = await logical(agent, 'booking.search_available_slots', {
      query: '',
      specialty: 'ai',
      limit: 2,
    });
    const slots = search.data.slots as Json[];
    say('booking.search_available_slots (specialty ai)', { slots, cache: search.meta.cache });

    const held = await logical(agent, 'booking.hold_slot', {
      slotId: slots[0]!.slotId,
      customer: { name: 'Lin Wei', email: 'lin.wei@example.com' },
      idempotencyKey: randomUUID(),
    });
    const booking = held.data.booking as Json;
    say('booking.hold_slot -> HELD for five minutes, with the intent a person must approve', {
      status: booking.status,
      expiresAt: booking.expiresAt,
      amount: booking.amount,
      currency: booking.currency,
      confirmationIntent: booking.confirmationIntent,
    });

    const confirm = (approvalId: string) =>
      logical(agent, 'booking.confirm_booking', {
        bookingId: booking.bookingId,
        expectedVersion: booking.version,
        idempotencyKey: randomUUID(),
        humanApproval: approvalFor(booking, approvalId),
      });
    const asked = await confirm(randomUUID());
    say('booking.confirm_booking with an approval the agent wrote itself -> APPROVAL_REQUIRED', {
      code: asked.error.code,
      message: asked.error.message,
      approveUrl: asked.error.details.approveUrl,
    });

    const approvalId = asked.error.details.approvalId as string;
    runCli(['approvals', 'approve', approvalId, '--db', dbPath]);
    say('The person approves (here the operator on the command line: holdfast approvals approve <id>)');

    const unpaid = await confirm(approvalId);
    say('booking.confirm_booking with the person’s approval -> PAYMENT_PENDING; the hold is kept', {
      code: unpaid.error.code,
      message: unpaid.error.message,
      recovery: unpaid.error.recovery,
    });

    runCli(['payments', 'set', booking.bookingId as string, 'PAID', '--db', dbPath]);
    say('The customer pays outside the agent (simulated: holdfast payments set <bookingId> PAID)');

    const done = await confirm(approvalId);
    say('booking.confirm_booking again -> CONFIRMED', {
      status: done.data.booking.status,
      version: done.data.booking.version,
      payment: done.data.booking.payment,
      confirmationIntent: done.data.booking.confirmationIntent,
    });

    const read = await logical(agent, 'booking.get_booking', { bookingId: booking.bookingId });
    say('booking.get_booking: the whole snapshot', read.data.booking);

    await agent.close();
    process.stdout.write('\nDemo complete.\n');
  } finally {
    server.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}
