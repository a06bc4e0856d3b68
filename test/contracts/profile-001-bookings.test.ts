import type { Client } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectStdio } from '../support/mcp-clients.js';
import type { RunningServer } from '../support/spawn-server.js';
import { runCli, spawnServer, tempDbPath } from '../support/spawn-server.js';

// Seed 001 (bookings-mcp, /work/shared/seeds/001_e31d480a59766f8e.txt) served as itself:
// `holdfast stdio --profile bookings` (and `serve --profile bookings`), driven by the official
// client with the README's own calls — check_availability, request_approval, create_booking with
// { token, approvedBy }, the tampered time — and their answers compared field by field. The README's
// dates (2026-11-02) have passed: each call is replayed with its date moved to the next weekday.

interface Answer {
  readonly isError: boolean;
  readonly text: string;
  readonly data: any;
}

async function tool(client: Client, name: string, args: Record<string, unknown>): Promise<Answer> {
  const result = (await client.callTool({ name, arguments: args })) as {
    isError?: boolean;
    content: { type: string; text: string }[];
    structuredContent?: unknown;
  };
  return { isError: !!result.isError, text: result.content[0]!.text, data: result.structuredContent };
}

async function must(client: Client, name: string, args: Record<string, unknown>) {
  const answer = await tool(client, name, args);
  if (answer.isError) throw new Error(`${name}: ${answer.text}`);
  // The payload is the JSON in the text content block (the README's examples show that text).
  expect(JSON.parse(answer.text)).toEqual(answer.data);
  return answer.data;
}

/** The next weekday at least `ahead` days away, YYYY-MM-DD (UTC, the store's zone). */
let ahead = 2;
function nextWeekday(): string {
  const day = new Date(Date.now() + ahead++ * 86_400_000);
  while ([0, 6].includes(day.getUTCDay())) {
    day.setUTCDate(day.getUTCDate() + 1);
    ahead++;
  }
  return day.toISOString().slice(0, 10);
}

const db = tempDbPath();
let agent: Client;
const approve = async (approvalId: string) =>
  expect((await runCli(['approvals', 'approve', approvalId, '--db', db.path])).status).toBe(0);

beforeAll(async () => {
  // The store starts seeded (3 fictional customers, 3 confirmed bookings); the write policy is
  // direct, which under this profile still needs a token for every write.
  agent = await connectStdio(db.path, 'legacy', ['--profile', 'bookings', '--write-policy', 'direct']);
});
afterAll(async () => {
  await agent?.close();
  db.cleanup();
});

describe('bookings-mcp as itself (stdio, --profile bookings)', () => {
  it('001 tools: the 7 tools appear as list_customers, get_customer, list_bookings, check_availability, request_approval, create_booking, cancel_booking', async () => {
    const { tools } = await agent.listTools();
    expect(tools.map((t) => t.name)).toEqual([
      'list_customers',
      'get_customer',
      'list_bookings',
      'check_availability',
      'request_approval',
      'create_booking',
      'cancel_booking',
    ]);
    // Read tools say readOnlyHint: true; write tools make no such claim.
    const hint = (name: string) => tools.find((t) => t.name === name)!.annotations?.readOnlyHint;
    for (const name of ['list_customers', 'get_customer', 'list_bookings', 'check_availability'])
      expect(hint(name), name).toBe(true);
    for (const name of ['create_booking', 'cancel_booking', 'request_approval'])
      expect(hint(name), name).not.toBe(true);
    // The approval is a required, schema-validated argument of every write.
    const required = (name: string) => (tools.find((t) => t.name === name)!.inputSchema as any).required;
    expect(required('create_booking')).toEqual(
      expect.arrayContaining(['customerId', 'date', 'time', 'service', 'approval']),
    );
    expect(required('cancel_booking')).toEqual(expect.arrayContaining(['bookingId', 'approval']));
  });

  it('001 store: seeded with 3 fictional customers (customerId 1 is Ada Miranda); reads need no approval', async () => {
    const { customers } = await must(agent, 'list_customers', {});
    expect(customers.map((c: any) => c.id)).toEqual([1, 2, 3]);
    expect(customers[0]).toMatchObject({ id: 1, name: 'Ada Miranda' });
    const one = await must(agent, 'get_customer', { id: 1 });
    expect(one).toMatchObject({ id: 1, name: 'Ada Miranda' });
    expect(one.bookings).toHaveLength(1);
    expect(one.bookings[0].status).toBe('confirmed');
    expect((await tool(agent, 'get_customer', { id: 999 })).text).toMatch(/^NOT_FOUND: /);
  });

  it('001 check_availability: the README’s call (date moved) — which 30-minute slots are free, 09:00–16:30', async () => {
    const date = nextWeekday();
    const answer = await must(agent, 'check_availability', { date, times: ['09:00', '11:00', '16:30'] });
    expect(answer).toEqual({
      date,
      slots: [
        { time: '09:00', available: expect.any(Boolean), reason: expect.anything() },
        { time: '11:00', available: true, reason: null },
        { time: '16:30', available: true, reason: null },
      ].map((s, i) => (i === 0 ? { ...s, reason: answer.slots[0].reason } : s)),
    });
    // Outside 09:00–16:30, or off the :00/:30 grid, is not a slot.
    const off = await must(agent, 'check_availability', { date, times: ['17:00', '10:15'] });
    expect(off.slots.map((s: any) => s.available)).toEqual([false, false]);
    // 1–16 times per call.
    expect((await tool(agent, 'check_availability', { date, times: [] })).isError).toBe(true);
  });

  it('001 the approval flow: the README’s four steps — request, a token bound to the action, a person releases it, the write runs with unchanged arguments', async () => {
    const date = nextWeekday();
    const args = { customerId: 1, date, time: '11:00', service: 'consultation' };
    // 1. The agent requests approval for the exact action.
    const asked = await must(agent, 'request_approval', {
      tool: 'create_booking',
      args,
      requester_note: 'Ada Miranda asked for Monday 11:00',
    });
    // 2. A token comes back, bound to that action (the README's fields; and the page a person decides on).
    expect(Object.keys(asked)).toEqual([
      'message',
      'approvalId',
      'token',
      'boundTo',
      'expiresAt',
      'note',
      'approveUrl',
    ]);
    expect(asked).toMatchObject({
      message: 'Approval requested. A human must review and release this token.',
      boundTo: { tool: 'create_booking', args },
      note: 'Pass { token, approvedBy } in the write tool. Any change to the arguments invalidates the token.',
    });
    expect(asked.token).toMatch(/^[0-9a-f]{48}$/);
    // 10 minutes.
    expect(Date.parse(asked.expiresAt) - Date.now()).toBeGreaterThan(9 * 60_000);
    expect(Date.parse(asked.expiresAt) - Date.now()).toBeLessThanOrEqual(10 * 60_000);
    // 3. A human releases the token; the agent calls the write tool with unchanged arguments.
    await approve(asked.approvalId);
    const booked = await must(agent, 'create_booking', {
      ...args,
      approval: { token: asked.token, approvedBy: 'elton' },
    });
    // 4. The booking is created, and the new booking object returned.
    expect(booked).toMatchObject({
      customerId: 1,
      date,
      time: '11:00',
      service: 'consultation',
      status: 'confirmed',
    });
  });

  it('001 tampered arguments: 12:00 instead of 11:00 is BLOCKED BY APPROVAL GATE, and the spent token cannot be retried with the original', async () => {
    const date = nextWeekday();
    const args = { customerId: 1, date, time: '11:00', service: 'consultation' };
    const asked = await must(agent, 'request_approval', { tool: 'create_booking', args });
    await approve(asked.approvalId);
    const tampered = await tool(agent, 'create_booking', {
      ...args,
      time: '12:00',
      approval: { token: asked.token, approvedBy: 'elton' },
    });
    expect(tampered).toMatchObject({
      isError: true,
      text: 'BLOCKED BY APPROVAL GATE: Arguments changed after approval — the token is bound to the original action',
    });
    const retried = await tool(agent, 'create_booking', {
      ...args,
      approval: { token: asked.token, approvedBy: 'elton' },
    });
    expect(retried.isError).toBe(true);
    expect(retried.text).toMatch(/^BLOCKED BY APPROVAL GATE: Approval token already used/);
    // Nothing was booked at either time; the held time was given back.
    const times = await must(agent, 'check_availability', { date, times: ['11:00', '12:00'] });
    expect(times.slots.map((s: any) => s.available)).toEqual([true, true]);
  });

  it('001 gate: without approval the call fails schema validation; a forged 48-char token is Unknown; a create token cannot be replayed against cancel_booking', async () => {
    const date = nextWeekday();
    const args = { customerId: 2, date, time: '14:00', service: 'consultation' };
    const missing = await tool(agent, 'create_booking', args);
    expect(missing.isError).toBe(true);
    expect(missing.text).toMatch(/^INVALID_ARGUMENTS: approval/);
    const forged = await tool(agent, 'create_booking', {
      ...args,
      approval: { token: 'f'.repeat(48), approvedBy: 'elton' },
    });
    expect(forged.text).toBe('BLOCKED BY APPROVAL GATE: Unknown approval token');
    const asked = await must(agent, 'request_approval', { tool: 'create_booking', args });
    await approve(asked.approvalId);
    const crossed = await tool(agent, 'cancel_booking', {
      bookingId: 'bk_anything',
      approval: { token: asked.token, approvedBy: 'elton' },
    });
    expect(crossed.text).toMatch(
      /^BLOCKED BY APPROVAL GATE: The token was approved for create_booking, not cancel_booking/,
    );
    // Single use, even on failure: the token is gone for create_booking too.
    expect(
      (
        await tool(agent, 'create_booking', {
          ...args,
          approval: { token: asked.token, approvedBy: 'elton' },
        })
      ).text,
    ).toMatch(/already used/);
  });

  it('001 gate: a token is worth nothing until a person released it — the agent alone never books, whatever its write policy', async () => {
    const date = nextWeekday();
    const args = { customerId: 3, date, time: '09:30', service: 'consultation' };
    const asked = await must(agent, 'request_approval', { tool: 'create_booking', args });
    const early = await tool(agent, 'create_booking', {
      ...args,
      approval: { token: asked.token, approvedBy: 'elton' },
    });
    expect(early.text).toMatch(/^BLOCKED BY APPROVAL GATE: A person has not approved this action yet/);
    // The approval was spent with the token: a person's later yes books nothing.
    expect((await runCli(['approvals', 'approve', asked.approvalId, '--db', db.path])).status).not.toBe(0);
    const times = await must(agent, 'check_availability', { date, times: ['09:30'] });
    expect(times.slots[0].available).toBe(true);
  });

  it('001 cancel_booking: approved for its bookingId, cancels once; cancelling twice fails', async () => {
    const date = nextWeekday();
    const args = { customerId: 2, date, time: '15:00', service: 'follow-up' };
    const made = await must(agent, 'request_approval', { tool: 'create_booking', args });
    await approve(made.approvalId);
    const booking = await must(agent, 'create_booking', {
      ...args,
      approval: { token: made.token, approvedBy: 'elton' },
    });
    const asked = await must(agent, 'request_approval', {
      tool: 'cancel_booking',
      args: { bookingId: booking.id },
    });
    await approve(asked.approvalId);
    const cancelled = await must(agent, 'cancel_booking', {
      bookingId: booking.id,
      approval: { token: asked.token, approvedBy: 'elton' },
    });
    expect(cancelled).toMatchObject({ id: booking.id, status: 'cancelled' });
    const again = await must(agent, 'request_approval', {
      tool: 'cancel_booking',
      args: { bookingId: booking.id },
    });
    await approve(again.approvalId);
    const twice = await tool(agent, 'cancel_booking', {
      bookingId: booking.id,
      approval: { token: again.token, approvedBy: 'elton' },
    });
    expect(twice.isError).toBe(true);
    expect(twice.text).toMatch(/^INVALID_STATE: /);
  });

  it('001 the business rule still applies after the gate: a taken slot cannot be approved into a double booking', async () => {
    const date = nextWeekday();
    const args = { customerId: 1, date, time: '10:00', service: 'consultation' };
    const first = await must(agent, 'request_approval', { tool: 'create_booking', args });
    await approve(first.approvalId);
    await must(agent, 'create_booking', { ...args, approval: { token: first.token, approvedBy: 'elton' } });
    const second = await tool(agent, 'request_approval', {
      tool: 'create_booking',
      args: { ...args, customerId: 2 },
    });
    expect(second.isError).toBe(true);
    expect(second.text).toMatch(/^SLOT_UNAVAILABLE: /);
  });
});

describe('bookings-mcp over Streamable HTTP (serve --profile bookings)', () => {
  let server: RunningServer;
  beforeAll(async () => {
    server = await spawnServer(['--profile', 'bookings']);
  });
  afterAll(() => server?.stop());

  const rpc = (body: unknown, token: string | null = server.agent.token) =>
    fetch(server.url, {
      method: 'POST',
      headers: {
        'Content-Type': 'application/json',
        Accept: 'application/json, text/event-stream',
        ...(token ? { Authorization: `Bearer ${token}` } : {}),
      },
      body: JSON.stringify(body),
    });

  it('001 curl: initialize (2025-03-26), tools/list and a read tool, as the README sends them; stateless: no session id, GET/DELETE 405', async () => {
    const init = await rpc({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: {
        protocolVersion: '2025-03-26',
        capabilities: {},
        clientInfo: { name: 'curl', version: '0.0.0' },
      },
    });
    expect(init.status).toBe(200);
    expect(init.headers.get('mcp-session-id')).toBeNull();
    const listed = await (await rpc({ jsonrpc: '2.0', id: 2, method: 'tools/list', params: {} })).text();
    expect(listed).toContain('check_availability');
    const date = nextWeekday();
    const checked = await (
      await rpc({
        jsonrpc: '2.0',
        id: 3,
        method: 'tools/call',
        params: { name: 'check_availability', arguments: { date, times: ['09:00', '11:00', '16:30'] } },
      })
    ).text();
    expect(checked).toContain(`\\"date\\":\\"${date}\\"`);
    expect((await fetch(server.url)).status).toBe(405);
    expect((await fetch(server.url, { method: 'DELETE' })).status).toBe(405);
  });

  it('001 security: the transport is authenticated before the gate is reached — no bearer, 401', async () => {
    expect((await rpc({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} }, null)).status).toBe(401);
  });
});
