import { randomUUID } from 'node:crypto';
import Database from 'better-sqlite3';
import type { Client } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { csrfFor } from '../support/console-attack.js';
import { createOpenCalendar, futureHour } from '../support/fixtures.js';
import { call, connectHttp, ok } from '../support/mcp-clients.js';
import { startAgentAccess } from '../support/agent-access.js';
import { signIn } from '../support/person.js';
import type { RunningServer } from '../support/spawn-server.js';
import { runCli, spawnServer } from '../support/spawn-server.js';

// Seed 004 (agent access, docs/contracts/seeds/004_6ff0d81b7a9488c9.txt) served on bookings by
// `holdfast serve --profile agent-access`, through the official client: an agent with only
// `draft` reads a booking's state, drafts a write with it, gets a pending operation and its
// confirmationUrl; the person's confirmation there runs the write; operation_get says how it
// ended. The seed's own client code is replayed with the v1 SDK it names. Each `it` names the
// inventory rows it proves (docs/contracts/004-agent-access.md); the difference of this file, a
// draft ending with the hold it would confirm, is proven by its attack test, and the agent
// attacks the confirmation as it would: none of it may move anything.

let setup: Awaited<ReturnType<typeof startAgentAccess>>;
let server: RunningServer;
/** The agent: a token of the owner's with read and draft only. */
let agent: Client;
let agentToken = '';
/** A second connection of the same person (another device), draft too. */
let second: Client;
/** Someone of another tenant. */
let stranger: Client;

function snapshot(bookingId: string) {
  const db = new Database(server.dbPath, { readonly: true });
  try {
    return {
      booking: db.prepare('SELECT status, version FROM bookings WHERE id = ?').get(bookingId),
      approvals: db
        .prepare('SELECT status, last_failure FROM approvals WHERE booking_id = ? ORDER BY created_at')
        .all(bookingId),
    };
  } finally {
    db.close();
  }
}

const held = (calendar?: string) => setup.held(calendar);
const draft = (tool: 'confirm_booking' | 'cancel_booking', bookingId: string) => setup.draft(tool, bookingId);

/** The person, signed in, answers the operation's page as its form would. */
async function personDecides(operationId: string, decision: string, on: RunningServer = server) {
  const origin = new URL(on.url).origin;
  const cookie = await signIn(origin, on.agent.email, on.agent.password);
  const page = await fetch(new URL(`/console/approvals/${operationId}`, origin), { headers: { cookie } });
  const html = await page.text();
  const answer = await fetch(new URL(`/console/approvals/${operationId}`, origin), {
    method: 'POST',
    redirect: 'manual',
    headers: { cookie, origin, 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ csrf: csrfFor(on, cookie, `console-approval:${operationId}`), decision }),
  });
  return { html, status: answer.status, location: answer.headers.get('location') ?? '' };
}

/** A token of the owner's with these scopes (and policy), made as an operator does, and a client on it. */
async function connectAs(name: string, scopes: string, policy?: string) {
  const made = await runCli([
    'tokens',
    'create',
    server.agent.email,
    '--name',
    name,
    '--scopes',
    scopes,
    ...(policy ? ['--write-policy', policy] : []),
    '--json',
    '--db',
    server.dbPath,
  ]);
  expect(made.status, made.stderr).toBe(0);
  const { id, token } = JSON.parse(made.stdout) as { id: string; token: string };
  return { id, token, client: await connectHttp(server.url, 'modern', { token }) };
}

beforeAll(async () => {
  setup = await startAgentAccess();
  ({ server, agent, agentToken } = setup);
  second = await connectHttp(server.url, 'modern', {
    token: await setup.draftToken(server.agent.email, 'phone'),
  });
  const run = await runCli([
    'users',
    'add',
    'eve@other.example',
    '--role',
    'owner',
    '--tenant',
    'other',
    '--db',
    server.dbPath,
  ]);
  expect(run.status, run.stderr).toBe(0);
  stranger = await connectHttp(server.url, 'modern', {
    token: await setup.draftToken('eve@other.example', 'eve', 'other'),
  });
}, 60_000);

afterAll(async () => {
  await second?.close();
  await stranger?.close();
  await setup?.stop();
});

describe('agent-access: writes a person confirms, which their confirmation runs', () => {
  it('[004-start-17 004-files-2] serves the seed’s flow: state_get, the drafting writes and operation_get; no approval tools, and none that deletes, clears or imports', async () => {
    const names = (await agent.listTools()).tools.map((t) => t.name);
    expect(names).toEqual(
      expect.arrayContaining(['state_get', 'confirm_booking', 'cancel_booking', 'operation_get']),
    );
    expect(names).not.toContain('request_approval');
    expect(names).not.toContain('get_approval');
    expect(names.filter((n) => /delete|remove|clear|purge|wipe|import|upload|export/.test(n))).toEqual([]);
  });

  it('[004-start-14 004-start-17 004-start-20 004-start-21 004-start-22 004-env-3 004-writes-2 004-writes-9] a read,draft agent confirms a hold: pending with a confirmationUrl until the hold lapses; a retry is the same operation; the person’s yes books it; operation_get says completed', async () => {
    const booking = await held();
    const { state } = await ok(agent, 'state_get', { bookingId: booking.id });
    const key = randomUUID();
    const args = { bookingId: booking.id, expectedState: state, idempotencyKey: key };
    const pending = await ok(agent, 'confirm_booking', args);
    expect(pending).toMatchObject({ status: 'pending', action: 'confirm_booking', bookingId: booking.id });
    expect(pending.confirmationUrl).toBe(
      `${new URL(server.url).origin}/console/approvals/${pending.operationId}`,
    );
    // Ten minutes, never past the hold it would confirm (5 minutes here, the default).
    const hold = (await ok(agent, 'get_booking', { bookingId: booking.id })).booking;
    expect(Date.parse(pending.expiresAt) - Date.now()).toBeLessThanOrEqual(10 * 60_000);
    expect(Date.parse(pending.expiresAt)).toBe(Date.parse(hold.expiresAt));
    // A network retry (same key, arguments and state) is the same operation, and no second one.
    const retried = await call(agent, 'confirm_booking', args);
    expect(retried.meta.idempotentReplay).toBe(true);
    expect(retried.data?.operationId).toBe(pending.operationId);
    expect(snapshot(booking.id).approvals).toHaveLength(1);
    expect(await ok(agent, 'operation_get', { operationId: pending.operationId })).toMatchObject({
      status: 'pending',
      lastFailure: null,
    });

    const decided = await personDecides(pending.operationId, 'approve');
    expect(decided.html).toContain('your approval does it at once');
    expect(decided.html).toContain('Harbour room');
    expect(decided.status).toBe(303);
    expect(decided.location).toContain('decided=done');

    const done = await ok(agent, 'operation_get', { operationId: pending.operationId });
    expect(done).toMatchObject({
      status: 'completed',
      confirmationUrl: null,
      booking: { status: 'CONFIRMED' },
    });
    expect((await ok(agent, 'get_booking', { bookingId: booking.id })).booking.status).toBe('CONFIRMED');
  });

  it('[004-start-21 004-start-22 004-writes-2 004-writes-4] a cancellation likewise: pending for 10 minutes until the person confirms it, then the booking is cancelled', async () => {
    const booking = await held();
    const confirmed = await draft('confirm_booking', booking.id);
    await personDecides(confirmed.operationId, 'approve');
    const pending = await draft('cancel_booking', booking.id);
    expect(pending.status).toBe('pending');
    // No hold to end it sooner: the seed's 10 minutes.
    const left = Date.parse(pending.expiresAt) - Date.now();
    expect(left).toBeLessThanOrEqual(10 * 60_000);
    expect(left).toBeGreaterThan(9 * 60_000);
    expect((await ok(agent, 'get_booking', { bookingId: booking.id })).booking.status).toBe('CONFIRMED');
    expect((await personDecides(pending.operationId, 'approve')).location).toContain('decided=done');
    expect(await ok(agent, 'operation_get', { operationId: pending.operationId })).toMatchObject({
      status: 'completed',
      booking: { status: 'CANCELLED' },
    });
  });

  it('[004-start-21 004-start-22] denied by the person: cancelled, and nothing was booked', async () => {
    const booking = await held();
    const pending = await draft('confirm_booking', booking.id);
    expect((await personDecides(pending.operationId, 'deny')).location).toContain('decided=denied');
    expect((await ok(agent, 'operation_get', { operationId: pending.operationId })).status).toBe('cancelled');
    expect(snapshot(booking.id).booking).toMatchObject({ status: 'HELD' });
  });

  it('[004-start-19 004-writes-11] a stale expectedState is VERSION_CONFLICT naming what to do; nothing is drafted; read again, the old key is refused and a new one drafts', async () => {
    const booking = await held();
    const { state } = await ok(agent, 'state_get', { bookingId: booking.id });
    const stale = await call(agent, 'confirm_booking', {
      bookingId: booking.id,
      expectedState: `${state}0`,
      idempotencyKey: randomUUID(),
    });
    expect(stale.error?.code).toBe('VERSION_CONFLICT');
    expect(JSON.stringify(stale.error)).toContain('state_get');
    expect(JSON.stringify(stale.error)).toContain('new idempotencyKey');
    expect(snapshot(booking.id).approvals).toEqual([]);
    // The state changes (the person confirms a draft): read it again, and use a new key with it.
    const key = randomUUID();
    const first = await ok(agent, 'confirm_booking', {
      bookingId: booking.id,
      expectedState: state,
      idempotencyKey: key,
    });
    await personDecides(first.operationId, 'approve');
    const now = (await ok(agent, 'state_get', { bookingId: booking.id })).state;
    expect(now).not.toBe(state);
    const oldKey = await call(agent, 'cancel_booking', {
      bookingId: booking.id,
      expectedState: now,
      idempotencyKey: key,
    });
    expect(oldKey.error?.code).toBe('IDEMPOTENCY_CONFLICT');
    const newKey = await ok(agent, 'cancel_booking', {
      bookingId: booking.id,
      expectedState: now,
      idempotencyKey: randomUUID(),
    });
    expect(newKey.status).toBe('pending');
  });

  it('[004-start-18 004-writes-10] the same key with other arguments, or from another connection of the same person, is refused', async () => {
    const booking = await held();
    const other = await held();
    const { state } = await ok(agent, 'state_get', { bookingId: booking.id });
    const key = randomUUID();
    await ok(agent, 'confirm_booking', { bookingId: booking.id, expectedState: state, idempotencyKey: key });
    const otherState = (await ok(agent, 'state_get', { bookingId: other.id })).state;
    const changed = await call(agent, 'confirm_booking', {
      bookingId: other.id,
      expectedState: otherState,
      idempotencyKey: key,
    });
    expect(changed.error?.code).toBe('IDEMPOTENCY_CONFLICT');
    const elsewhere = await call(second, 'confirm_booking', {
      bookingId: booking.id,
      expectedState: state,
      idempotencyKey: key,
    });
    expect(elsewhere.error?.code).toBe('IDEMPOTENCY_CONFLICT');
    expect(snapshot(other.id).approvals).toEqual([]);
  });

  it('[004-start-18] a key is the person’s across the profile’s writes: one used by hold_slot is refused to a draft, one used by a draft to hold_slot and release_hold; nothing is written', async () => {
    const holdKey = randomUUID();
    const made = await ok(agent, 'hold_slot', {
      calendarIds: [setup.room],
      start: futureHour(30),
      end: futureHour(30, 1),
      idempotencyKey: holdKey,
    });
    const booking = made.booking as { id: string; version: number };
    const { state } = await ok(agent, 'state_get', { bookingId: booking.id });
    const drafted = await call(agent, 'confirm_booking', {
      bookingId: booking.id,
      expectedState: state,
      idempotencyKey: holdKey,
    });
    expect(drafted.error).toMatchObject({ code: 'IDEMPOTENCY_CONFLICT', details: { tool: 'hold_slot' } });
    expect(snapshot(booking.id).approvals).toEqual([]);
    const draftKey = randomUUID();
    await ok(agent, 'confirm_booking', {
      bookingId: booking.id,
      expectedState: state,
      idempotencyKey: draftKey,
    });
    const reheld = await call(agent, 'hold_slot', {
      calendarIds: [setup.room],
      start: futureHour(31),
      end: futureHour(31, 1),
      idempotencyKey: draftKey,
    });
    expect(reheld.error?.code).toBe('IDEMPOTENCY_CONFLICT');
    const released = await call(agent, 'release_hold', {
      bookingId: booking.id,
      expectedVersion: booking.version,
      idempotencyKey: draftKey,
    });
    expect(released.error?.code).toBe('IDEMPOTENCY_CONFLICT');
    expect(snapshot(booking.id).booking).toMatchObject({ status: 'HELD' });
    // The same hold retried with its own key is still a replay.
    const again = await call(agent, 'hold_slot', {
      calendarIds: [setup.room],
      start: futureHour(30),
      end: futureHour(30, 1),
      idempotencyKey: holdKey,
    });
    expect(again.meta.idempotentReplay).toBe(true);
  });

  it('[004-start-23 004-writes-6] the run fails (payment not cleared): the operation stays pending with the reason; the person retries once paid, and it completes', async () => {
    const booking = await held(setup.paid);
    const pending = await draft('confirm_booking', booking.id);
    const first = await personDecides(pending.operationId, 'approve');
    expect(first.location).toContain('decided=failed');
    const failed = await ok(agent, 'operation_get', { operationId: pending.operationId });
    expect(failed.status).toBe('pending');
    expect(failed.lastFailure).toMatch(/^PAYMENT_PENDING: /);
    const page = await personDecides(pending.operationId, 'retry');
    expect(page.html).toContain('Approved, but it could not be done:');
    expect(page.html).toContain('Try again');
    expect(page.location).toContain('decided=failed');
    setup.stub.paid(booking.id);
    expect((await personDecides(pending.operationId, 'retry')).location).toContain('decided=done');
    expect(await ok(agent, 'operation_get', { operationId: pending.operationId })).toMatchObject({
      status: 'completed',
      lastFailure: null,
      booking: { status: 'CONFIRMED' },
    });
  });

  it('[004-writes-6a 004-writes-6] attack: a draft whose connection was revoked, lost its draft scope or turned read-only is not run by the person’s confirmation: 0 of 3 booked, each reason kept', async () => {
    const origin = new URL(server.url).origin;
    const cookie = await signIn(origin, server.agent.email, server.agent.password);
    /** The person changes one of their tokens on the console's Connections page. */
    const consolePost = async (path: string, body: Record<string, string | string[]>) => {
      const form = new URLSearchParams({ csrf: csrfFor(server, cookie, 'console-connections') });
      for (const [name, value] of Object.entries(body)) for (const v of [value].flat()) form.append(name, v);
      const answer = await fetch(new URL(path, origin), {
        method: 'POST',
        redirect: 'manual',
        headers: { cookie, origin, 'content-type': 'application/x-www-form-urlencoded' },
        body: form,
      });
      expect(answer.status, path).toBe(303);
    };
    const cuts: [string, (tokenId: string) => Promise<void>, RegExp][] = [
      ['revoked', (id) => consolePost(`/console/tokens/${id}/revoke`, {}), /revoked since/],
      [
        'no draft',
        (id) => consolePost(`/console/tokens/${id}/access`, { scopes: ['read'], writePolicy: 'draft' }),
        /may no longer draft/,
      ],
      [
        'read-only',
        (id) =>
          consolePost(`/console/tokens/${id}/access`, { scopes: ['read', 'draft'], writePolicy: 'readonly' }),
        /read-only now/,
      ],
    ];
    let booked = 0;
    for (const [name, cut, reason] of cuts) {
      const { id, client: drafter } = await connectAs(`cut ${name}`, 'read,draft');
      try {
        const booking = await held();
        const pending = await setup.draft('confirm_booking', booking.id, drafter);
        await cut(id);
        const decided = await personDecides(pending.operationId, 'approve');
        expect(decided.location, name).toContain('decided=failed');
        const after = await ok(agent, 'operation_get', { operationId: pending.operationId });
        expect(after.status, name).toBe('pending');
        expect(after.lastFailure, name).toMatch(/^FORBIDDEN: /);
        expect(after.lastFailure, name).toMatch(reason);
        if ((snapshot(booking.id).booking as { status: string }).status !== 'HELD') booked++;
      } finally {
        await drafter.close();
      }
    }
    expect(booked).toBe(0);
  });

  it('[004-start-23] a failed run the person cancels is cancelled; nothing is booked', async () => {
    const booking = await held(setup.paid);
    const pending = await draft('confirm_booking', booking.id);
    await personDecides(pending.operationId, 'approve');
    expect((await personDecides(pending.operationId, 'cancel')).location).toContain('decided=cancelled');
    expect((await ok(agent, 'operation_get', { operationId: pending.operationId })).status).toBe('cancelled');
    expect(snapshot(booking.id).booking).toMatchObject({ status: 'HELD' });
  });
});

describe('agent-access: the seed’s client, policies and records', () => {
  it('[004-clients-1 004-clients-3 004-clients-4 004-clients-5 004-clients-6 004-service-2] the seed’s own SDK sample, replayed with the v1 SDK it names: it connects with the Bearer token, negotiates 2025-11-25, lists the profile’s tools and calls them', async () => {
    const booking = await held();
    process.env.MCP_ACCESS_TOKEN = agentToken;
    try {
      // The seed's code as written, with this server's /mcp for http://localhost:3100/mcp.
      const { Client } = await import('@modelcontextprotocol/sdk/client/index.js');
      const { StreamableHTTPClientTransport } =
        await import('@modelcontextprotocol/sdk/client/streamableHttp.js');
      const client = new Client({ name: 'WorthPath client', version: '1.0.0' });
      const transport = new StreamableHTTPClientTransport(new URL(server.url), {
        requestInit: { headers: { Authorization: 'Bearer ' + process.env.MCP_ACCESS_TOKEN } },
      });
      await client.connect(transport);
      const listed = await client.listTools();
      expect(transport.protocolVersion).toBe('2025-11-25');
      const names = listed.tools.map((t) => t.name);
      expect(names).toHaveLength(16);
      expect(names).toEqual(
        expect.arrayContaining(['state_get', 'confirm_booking', 'cancel_booking', 'operation_get']),
      );
      for (const tool of listed.tools) expect(tool.inputSchema.type, tool.name).toBe('object');
      const read = (await client.callTool({ name: 'state_get', arguments: { bookingId: booking.id } })) as {
        structuredContent?: { ok: boolean; data: { state: string } };
      };
      expect(read.structuredContent?.ok).toBe(true);
      const drafted = (await client.callTool({
        name: 'confirm_booking',
        arguments: {
          bookingId: booking.id,
          expectedState: read.structuredContent!.data.state,
          idempotencyKey: randomUUID(),
        },
      })) as { structuredContent?: { data: { status: string; confirmationUrl: string } } };
      expect(drafted.structuredContent?.data.status).toBe('pending');
      expect(drafted.structuredContent?.data.confirmationUrl).toMatch(/\/console\/approvals\//);
      await client.close();
    } finally {
      delete process.env.MCP_ACCESS_TOKEN;
    }
  });

  it('[004-writes-12] state_get answers the booking id, its status and version and the state as a digest, nothing of the customer or the payment', async () => {
    const booking = (
      await ok(setup.agent, 'hold_slot', {
        calendarIds: [setup.paid],
        start: futureHour(9, 1),
        end: futureHour(9, 2),
        customer: { name: 'Zhao Min', email: 'zhao.min@example.com', phone: '+86 21 5555 0199' },
        idempotencyKey: randomUUID(),
      })
    ).booking as { id: string; version: number };
    const answer = await ok(agent, 'state_get', { bookingId: booking.id });
    expect(Object.keys(answer).sort()).toEqual(['bookingId', 'state', 'status', 'version']);
    expect(answer).toMatchObject({ bookingId: booking.id, status: 'HELD', version: booking.version });
    expect(answer.state).toMatch(/^st_[0-9a-f]{64}$/);
    const text = JSON.stringify(answer);
    for (const hidden of ['Zhao', 'zhao.min', '5555', '500.00', 'CNY', 'PENDING'])
      expect(text).not.toContain(hidden);
  });

  it('[004-writes-1] a readonly connection is refused every write, with draft and with write', async () => {
    const { client: reader } = await connectAs('readonly', 'read,draft,write', 'readonly');
    try {
      const booking = await held();
      const { state } = await ok(reader, 'state_get', { bookingId: booking.id });
      const writes: [string, Record<string, unknown>][] = [
        [
          'hold_slot',
          {
            calendarIds: [setup.room],
            start: futureHour(10),
            end: futureHour(10, 1),
            idempotencyKey: randomUUID(),
          },
        ],
        ['confirm_booking', { bookingId: booking.id, expectedState: state, idempotencyKey: randomUUID() }],
        ['cancel_booking', { bookingId: booking.id, expectedState: state, idempotencyKey: randomUUID() }],
      ];
      for (const [tool, args] of writes)
        expect((await call(reader, tool, args)).error, tool).toMatchObject({
          code: 'FORBIDDEN',
          details: { writePolicy: 'readonly' },
        });
      expect(snapshot(booking.id).approvals).toEqual([]);
    } finally {
      await reader.close();
    }
  });

  it('[004-writes-2 004-writes-3] draft with write, and direct with draft, save pending operations and change nothing', async () => {
    for (const [scopes, policy] of [
      ['read,draft,write', 'draft'],
      ['read,draft', 'direct'],
    ] as const) {
      const { client: writer } = await connectAs(`${policy} ${scopes}`, scopes, policy);
      try {
        const booking = await held();
        const pending = await setup.draft('confirm_booking', booking.id, writer);
        expect(pending.status, `${policy} ${scopes}`).toBe('pending');
        expect(snapshot(booking.id).booking, `${policy} ${scopes}`).toMatchObject({ status: 'HELD' });
      } finally {
        await writer.close();
      }
    }
  });

  it('[004-writes-3a 004-writes-9 004-writes-11] direct with write runs the write at once: completed, and operation_get says so; the same key replays it; a stale state or an unpaid price changes nothing', async () => {
    const { client: writer } = await connectAs('direct writer', 'read,draft,write', 'direct');
    try {
      const booking = await held();
      const { state } = await ok(writer, 'state_get', { bookingId: booking.id });
      const args = { bookingId: booking.id, expectedState: state, idempotencyKey: randomUUID() };
      const done = await ok(writer, 'confirm_booking', args);
      expect(done).toMatchObject({
        status: 'completed',
        confirmationUrl: null,
        booking: { status: 'CONFIRMED' },
      });
      const confirmed = snapshot(booking.id).booking;
      expect(confirmed).toMatchObject({ status: 'CONFIRMED' });
      expect(await ok(writer, 'operation_get', { operationId: done.operationId })).toMatchObject({
        status: 'completed',
        booking: { status: 'CONFIRMED' },
      });
      // A network retry: the same answer, nothing booked twice.
      const again = await ok(writer, 'confirm_booking', args);
      expect(again).toMatchObject({ status: 'completed', operationId: done.operationId });
      expect((await call(writer, 'confirm_booking', args)).meta.idempotentReplay).toBe(true);
      expect(snapshot(booking.id).booking).toEqual(confirmed);
      // Cancelling it likewise, with the state read now; the old state is refused first.
      const stale = await call(writer, 'cancel_booking', { ...args, idempotencyKey: randomUUID() });
      expect(stale.error?.code).toBe('VERSION_CONFLICT');
      expect(snapshot(booking.id).booking).toMatchObject({ status: 'CONFIRMED' });
      const now = await ok(writer, 'state_get', { bookingId: booking.id });
      const cancelled = await ok(writer, 'cancel_booking', {
        bookingId: booking.id,
        expectedState: now.state,
        idempotencyKey: randomUUID(),
      });
      expect(cancelled).toMatchObject({ status: 'completed', booking: { status: 'CANCELLED' } });
      // A priced hold not paid yet: the write fails, its operation is cancelled with the reason, the hold stays.
      const priced = await held(setup.paid);
      const pricedState = await ok(writer, 'state_get', { bookingId: priced.id });
      const pricedArgs = {
        bookingId: priced.id,
        expectedState: pricedState.state,
        idempotencyKey: randomUUID(),
      };
      const unpaid = await call(writer, 'confirm_booking', pricedArgs);
      expect(unpaid.ok).toBe(false);
      expect(snapshot(priced.id).booking).toMatchObject({ status: 'HELD' });
      const operations = snapshot(priced.id).approvals as { status: string; last_failure: string | null }[];
      expect(operations.map((o) => o.status)).toEqual(['DENIED']);
      expect((await call(writer, 'confirm_booking', pricedArgs)).error?.code).toBe('INVALID_STATE');
      expect(snapshot(priced.id).booking).toMatchObject({ status: 'HELD' });
    } finally {
      await writer.close();
    }
  });

  it('[004-writes-5] a draft is stored with the person, the connection, the exact intent, its digest and its status', async () => {
    const { id: tokenId, client: writer } = await connectAs('recorded', 'read,draft');
    try {
      const booking = await held();
      const pending = await setup.draft('confirm_booking', booking.id, writer);
      const db = new Database(server.dbPath, { readonly: true });
      try {
        const stored = db
          .prepare(
            'SELECT subject, client_id, action, booking_id, intent, intent_hash, status FROM approvals WHERE id = ?',
          )
          .get(pending.operationId) as Record<string, string>;
        const person = db.prepare('SELECT id FROM people WHERE email = ?').get(server.agent.email) as {
          id: string;
        };
        expect(stored).toMatchObject({
          subject: person.id,
          action: 'confirm_booking',
          booking_id: booking.id,
          status: 'PENDING',
        });
        expect(stored.client_id).toContain(tokenId);
        expect(JSON.parse(stored.intent!)).toMatchObject({
          bookingId: booking.id,
          calendarIds: [setup.room],
          version: booking.version,
        });
        expect(stored.intent_hash).toMatch(/^sha256:[0-9a-f]{64}$/);
      } finally {
        db.close();
      }
    } finally {
      await writer.close();
    }
  });

  it('[004-writes-8 004-writes-9] three simultaneous drafts with one key make one operation', async () => {
    const booking = await held();
    const { state } = await ok(agent, 'state_get', { bookingId: booking.id });
    const args = { bookingId: booking.id, expectedState: state, idempotencyKey: randomUUID() };
    const answers = await Promise.all([1, 2, 3].map(() => call(agent, 'confirm_booking', args)));
    expect(answers.every((a) => a.ok)).toBe(true);
    expect(new Set(answers.map((a) => a.data?.operationId)).size).toBe(1);
    expect(snapshot(booking.id).approvals).toHaveLength(1);
  });

  it('[004-writes-11 004-writes-6] a change between the draft and the person’s confirmation fails the run: nothing is confirmed; release_hold names the version it read', async () => {
    const booking = await held();
    const pending = await draft('confirm_booking', booking.id);
    const stale = await call(second, 'release_hold', {
      bookingId: booking.id,
      expectedVersion: booking.version + 1,
      idempotencyKey: randomUUID(),
    });
    expect(stale.error?.code).toBe('VERSION_CONFLICT');
    // Another connection of the person gives the hold back meanwhile.
    expect(
      (
        await call(second, 'release_hold', {
          bookingId: booking.id,
          expectedVersion: booking.version,
          idempotencyKey: randomUUID(),
        })
      ).ok,
    ).toBe(true);
    const decided = await personDecides(pending.operationId, 'approve');
    expect(decided.location).not.toContain('decided=done');
    const after = await ok(agent, 'operation_get', { operationId: pending.operationId });
    expect(after.status).not.toBe('completed');
    expect(snapshot(booking.id).booking).toMatchObject({ status: 'RELEASED' });
  });

  it('[004-start-3] a drafted operation is listed on the console’s Approvals page', async () => {
    const pending = await draft('confirm_booking', (await held()).id);
    const cookie = await signIn(new URL(server.url).origin, server.agent.email, server.agent.password);
    const page = await fetch(new URL('/console/approvals', server.url), { headers: { cookie } });
    expect(await page.text()).toContain(pending.operationId);
  });

  it('[004-service-6 004-writes-13] two tenants’ agents calling at once each act as themselves', async () => {
    const [mine, theirs] = await Promise.all([
      held(),
      ok(stranger, 'list_calendars', { limit: 1 }).then(() => undefined),
    ]);
    const answers = await Promise.all([
      call(agent, 'state_get', { bookingId: mine.id }),
      call(stranger, 'state_get', { bookingId: mine.id }),
      call(agent, 'get_booking', { bookingId: mine.id }),
      call(stranger, 'get_booking', { bookingId: mine.id }),
    ]);
    expect(theirs).toBeUndefined();
    expect(answers.map((a) => a.ok)).toEqual([true, false, true, false]);
    expect(answers[1]!.error?.code).toBe('NOT_FOUND');
    expect(answers[3]!.error?.code).toBe('NOT_FOUND');
  });
});

describe('agent-access: a draft ends with the hold it would confirm', () => {
  it('[004-writes-4 004-start-22 004-writes-2 004-writes-6] attack: a draft used after its hold lapsed and the time went to another booker books nothing: 0 of the attacks succeed', async () => {
    // Holds of 4 seconds: the draft of one ends with it.
    const short = await spawnServer(['--no-seed', '--profile', 'agent-access', '--hold-ttl', '4']);
    const owner = await connectHttp(short.url, 'modern');
    try {
      const calendar = { id: await createOpenCalendar(owner, 'Quick room') };
      const time = { calendarIds: [calendar.id], start: futureHour(2), end: futureHour(2, 1) };
      const first = (await ok(owner, 'hold_slot', { ...time, idempotencyKey: randomUUID() })).booking as {
        id: string;
        expiresAt: string;
      };
      const { state } = await ok(owner, 'state_get', { bookingId: first.id });
      const pending = await ok(owner, 'confirm_booking', {
        bookingId: first.id,
        expectedState: state,
        idempotencyKey: randomUUID(),
      });
      expect(Date.parse(pending.expiresAt)).toBe(Date.parse(first.expiresAt));
      await new Promise((resolve) => setTimeout(resolve, Date.parse(first.expiresAt) - Date.now() + 500));
      expect((await ok(owner, 'operation_get', { operationId: pending.operationId })).status).toBe('expired');
      // The time is free again: another booker holds it.
      const other = (await ok(owner, 'hold_slot', { ...time, idempotencyKey: randomUUID() })).booking as {
        id: string;
      };
      const attacks: [string, () => Promise<boolean>][] = [
        [
          'the person approves the lapsed draft',
          async () =>
            (await personDecides(pending.operationId, 'approve', short)).location.includes('decided=done'),
        ],
        [
          'retry it as if its run had failed',
          async () =>
            (await personDecides(pending.operationId, 'retry', short)).location.includes('decided=done'),
        ],
        [
          'draft again with the state read before the lapse',
          async () =>
            (
              await call(owner, 'confirm_booking', {
                bookingId: first.id,
                expectedState: state,
                idempotencyKey: randomUUID(),
              })
            ).ok,
        ],
        [
          'the operation reads completed',
          async () =>
            (await ok(owner, 'operation_get', { operationId: pending.operationId })).status === 'completed',
        ],
      ];
      let succeeded = 0;
      for (const [name, attack] of attacks)
        if (await attack()) {
          succeeded++;
          console.log(`attack succeeded: ${name}`);
        }
      expect(succeeded).toBe(0);
      const db = new Database(short.dbPath, { readonly: true });
      try {
        const active = db
          .prepare('SELECT booking_id FROM allocations WHERE calendar_id = ? AND active = 1')
          .all(calendar.id) as { booking_id: string }[];
        expect(active.map((a) => a.booking_id)).toEqual([other.id]);
        expect(
          (db.prepare('SELECT status FROM bookings WHERE id = ?').get(first.id) as { status: string }).status,
        ).not.toBe('CONFIRMED');
      } finally {
        db.close();
      }
    } finally {
      await owner.close();
      await short.stop();
    }
  }, 60_000);
});

describe('agent-access, attacked by the agent', () => {
  it('[004-start-16 004-writes-7 004-service-6] attack: the agent cannot confirm its own operation, vouch for the person, or read another’s: 0 of the attacks succeed', async () => {
    const booking = await held();
    const pending = await draft('confirm_booking', booking.id);
    const id = pending.operationId as string;
    const url = new URL(`/console/approvals/${id}`, server.url);
    const before = snapshot(booking.id);
    const { state } = await ok(agent, 'state_get', { bookingId: booking.id });
    const bearer = { authorization: `Bearer ${agentToken}` };
    // A decision made redirects to the page with ?decided=…; a refused one does not (sign-in, 403).
    const decides = async (answer: Promise<Response>) =>
      (await answer).headers.get('location')?.includes('decided=') === true;
    const form = (fields: Record<string, string>, headers: Record<string, string> = {}) =>
      fetch(url, {
        method: 'POST',
        redirect: 'manual',
        headers: { 'content-type': 'application/x-www-form-urlencoded', origin: url.origin, ...headers },
        body: new URLSearchParams(fields),
      });
    const attacks: [string, () => Promise<boolean>][] = [
      ['POST the approval with its bearer token', () => decides(form({ decision: 'approve' }, bearer))],
      [
        'POST with a made-up csrf',
        () => decides(form({ decision: 'approve', csrf: 'x'.repeat(43) }, bearer)),
      ],
      ['POST retry', () => decides(form({ decision: 'retry' }, bearer))],
      [
        'GET the page with its bearer token',
        async () => (await fetch(url, { headers: bearer, redirect: 'manual' })).status === 200,
      ],
      [
        'vouch with confirmed: true',
        async () =>
          (
            await call(agent, 'confirm_booking', {
              bookingId: booking.id,
              expectedState: state,
              idempotencyKey: randomUUID(),
              confirmed: true,
            })
          ).ok,
      ],
      [
        'carry the operation as an approval',
        async () =>
          (
            await call(agent, 'confirm_booking', {
              bookingId: booking.id,
              expectedState: state,
              idempotencyKey: randomUUID(),
              approval: { approvalId: id },
            })
          ).ok,
      ],
      [
        'read it from another tenant',
        async () => (await call(stranger, 'operation_get', { operationId: id })).ok,
      ],
      [
        'read another tenant’s booking state',
        async () => (await call(stranger, 'state_get', { bookingId: booking.id })).ok,
      ],
    ];
    let succeeded = 0;
    for (const [name, attack] of attacks)
      if (await attack()) {
        succeeded++;
        console.log(`attack succeeded: ${name}`);
      }
    expect(succeeded).toBe(0);
    const vouched = await call(agent, 'confirm_booking', {
      bookingId: booking.id,
      expectedState: state,
      idempotencyKey: randomUUID(),
      confirmed: true,
    });
    expect(vouched.error?.code).toBe('INVALID_ARGUMENTS');
    expect(JSON.stringify(vouched.error)).toContain('confirmed');
    expect((await ok(agent, 'operation_get', { operationId: id })).status).toBe('pending');
    expect(snapshot(booking.id)).toEqual(before);
  });
});
