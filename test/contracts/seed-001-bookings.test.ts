import { createHash, randomUUID } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import Database from 'better-sqlite3';
import canonicalize from 'canonicalize';
import type { Client } from '@modelcontextprotocol/client';
import { Client as McpClient } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createOpenCalendar, futureHour } from '../support/fixtures.js';
import { call, connectHttp, ok } from '../support/mcp-clients.js';
import { decideOnPage, signIn } from '../support/person.js';
import { addAgent, identityDeps } from '../support/provision.js';
import type { RunningServer } from '../support/spawn-server.js';
import { CLI, runCli, spawnCli, spawnServer, tempDbPath, untilSealed } from '../support/spawn-server.js';

/**
 * Contract 001, "bookings-mcp" (/work/shared/seeds/001_e31d480a59766f8e.txt), walked in its own
 * order. Its sections carry no numbers; they are numbered here as its table of contents lists
 * them (§0 is the introduction above it), and requirements 1, 2, 3 … in the order they appear.
 * `different:` pins what Holdfast does instead, for the reason in docs/contracts.md.
 */

let server: RunningServer;
/** The owner's token: every scope, write policy draft (a person approves confirm and cancel). */
let agent: Client;
/** The same person's token with policy direct: trusted automation, for the store's own rules. */
let direct: Client;
/** Scope read only: what an agent sees without `sensitive`. */
let reader: Client;
let room: string;
let hour = 0;

async function token(...extra: string[]): Promise<string> {
  const made = await runCli([
    'tokens',
    'create',
    server.agent.email,
    ...extra,
    '--db',
    server.dbPath,
    '--json',
  ]);
  expect(made.status, made.stderr).toBe(0);
  return (JSON.parse(made.stdout) as { token: string }).token;
}

/** A fresh hour two days ahead on the shared room. */
function nextHour(): { start: string; end: string } {
  hour += 1;
  return { start: futureHour(2, hour), end: futureHour(2, hour + 1) };
}

async function hold(client: Client = agent, customer?: Record<string, string>) {
  const { booking } = await ok(client, 'hold_slot', {
    calendarIds: [room],
    ...nextHour(),
    ...(customer ? { customer } : {}),
    idempotencyKey: randomUUID(),
  });
  return booking as { id: string; version: number; status: string; [field: string]: any };
}

/** The gate's first answer: APPROVAL_REQUIRED and the approval a person must now decide. */
async function ask(action: 'confirm_booking' | 'cancel_booking', booking: { id: string; version: number }) {
  const asked = await call(agent, action, {
    bookingId: booking.id,
    expectedVersion: booking.version,
    idempotencyKey: randomUUID(),
  });
  expect(asked.error?.code).toBe('APPROVAL_REQUIRED');
  return asked.error!.details.approvalId as string;
}

/** A person approves on the command line, as `details.cli` says. */
async function approve(approvalId: string) {
  const decided = await runCli(['approvals', 'approve', approvalId, '--db', server.dbPath]);
  expect(decided.status, decided.stderr).toBe(0);
}

const act = (
  client: Client,
  action: 'confirm_booking' | 'cancel_booking',
  booking: { id: string; version: number },
  extra: Record<string, unknown> = {},
) =>
  call(client, action, {
    bookingId: booking.id,
    expectedVersion: booking.version,
    idempotencyKey: randomUUID(),
    ...extra,
  });

/** A CONFIRMED booking, made by trusted automation. */
async function confirmed() {
  const held = await hold(direct);
  const done = await ok(direct, 'confirm_booking', {
    bookingId: held.id,
    expectedVersion: held.version,
    idempotencyKey: randomUUID(),
  });
  return done.booking as { id: string; version: number; status: string };
}

/** Sealed audit records, newest last. */
async function auditTail(lines = 200): Promise<Record<string, any>[]> {
  await untilSealed(server.dbPath);
  const tail = await runCli(['audit', 'tail', '-n', String(lines), '--json', '--db', server.dbPath]);
  expect(tail.status, tail.stderr).toBe(0);
  return tail.stdout
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as Record<string, any>);
}

/** A raw JSON-RPC POST to /mcp, as the contract's curl examples send it. */
async function post(body: unknown, headers: Record<string, string> = {}) {
  const answer = await fetch(new URL('/mcp', server.url), {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      authorization: `Bearer ${server.agent.token}`,
      ...headers,
    },
    body: JSON.stringify(body),
  });
  const text = await answer.text();
  const json = text.startsWith('{') ? text : (/^data: (.*)$/m.exec(text)?.[1] ?? 'null');
  return { status: answer.status, headers: answer.headers, body: JSON.parse(json) as Record<string, any> };
}

let serveHelpRun: ReturnType<typeof spawnCli> | undefined;
/** `holdfast serve --help`, run once. */
const serveHelp = async () => (await (serveHelpRun ??= spawnCli(['serve', '--help']))).stdout;

const packageJson = () => JSON.parse(readFileSync('package.json', 'utf8')) as Record<string, any>;

beforeAll(async () => {
  server = await spawnServer([]);
  agent = await connectHttp(server.url, 'modern');
  direct = await connectHttp(server.url, 'modern', { token: await token('--write-policy', 'direct') });
  reader = await connectHttp(server.url, 'modern', { token: await token('--scopes', 'read') });
  room = await createOpenCalendar(agent, 'Consultation room');
});

afterAll(async () => {
  await Promise.all([agent?.close(), direct?.close(), reader?.close()]);
  await server?.stop();
});

describe('§0 bookings-mcp (introduction)', () => {
  it('0-1 an agent reads freely: every read tool answers without any approval', async () => {
    const held = await hold(agent, { name: 'Ada Miranda', email: 'ada@example.com' });
    const { customers } = await ok(agent, 'list_customers', { limit: 10 });
    expect(customers.length).toBeGreaterThan(0);
    expect((await ok(agent, 'get_customer', { customerId: customers[0].id })).customer.id).toBe(
      customers[0].id,
    );
    expect((await ok(agent, 'list_bookings', { limit: 10 })).total).toBeGreaterThan(0);
    expect((await ok(agent, 'get_booking', { bookingId: held.id })).booking.status).toBe('HELD');
    const checked = await ok(agent, 'check_availability', {
      calendarIds: [room],
      date: held.start.slice(0, 10),
      times: ['09:00'],
    });
    expect(checked.times).toHaveLength(1);
  });

  it('0-2 writes stay under human control, enforced by the server: no confirm without a person, and nothing changes', async () => {
    const held = await hold();
    await ask('confirm_booking', held);
    const after = await ok(agent, 'get_booking', { bookingId: held.id });
    expect(after.booking).toMatchObject({ status: 'HELD', version: held.version });
  });
});

describe('§1 Key features', () => {
  it('1-1 read tools carry readOnlyHint: true; write tools make no such claim', async () => {
    const { tools } = await agent.listTools();
    const hint = (name: string) => tools.find((t) => t.name === name)?.annotations?.readOnlyHint;
    for (const name of ['list_customers', 'get_customer', 'list_bookings', 'check_availability'])
      expect(hint(name), name).toBe(true);
    for (const name of ['request_approval', 'hold_slot', 'confirm_booking', 'cancel_booking'])
      expect(hint(name), name).not.toBe(true);
  });

  it('1-2a different: a write without an approval is not a schema failure but APPROVAL_REQUIRED opening an approval for a person; { token, approvedBy } is refused by the strict schema', async () => {
    const held = await hold();
    const asked = await act(agent, 'confirm_booking', held);
    expect(asked.error).toMatchObject({ code: 'APPROVAL_REQUIRED', retryable: true });
    expect(asked.error!.details.approvalId).toMatch(/^[0-9a-f-]{36}$/);
    const forgedShape = await act(agent, 'confirm_booking', held, {
      approval: { token: 'f'.repeat(48), approvedBy: 'elton' },
    });
    expect(forgedShape.error).toMatchObject({ code: 'INVALID_ARGUMENTS' });
    expect(String(forgedShape.error!.details.field)).toMatch(/^approval/);
  });

  it('1-2b a forged approval is blocked by the server and changes nothing', async () => {
    const held = await hold();
    const forged = await act(agent, 'confirm_booking', held, { approval: { approvalId: randomUUID() } });
    expect(forged.error?.code).toBe('NOT_FOUND');
    expect((await ok(agent, 'get_booking', { bookingId: held.id })).booking.status).toBe('HELD');
  });

  it('1-2c a stale approval is blocked too: past its expiry it is APPROVAL_EXPIRED and changes nothing', async () => {
    const held = await hold();
    const approvalId = await ask('confirm_booking', held);
    await approve(approvalId);
    // Time passes: the approval's expiry is moved into the past, as the clock would move it.
    const db = new Database(server.dbPath, { timeout: 5_000 });
    try {
      db.prepare('UPDATE approvals SET expires_at = ? WHERE id = ?').run(Date.now() - 1_000, approvalId);
    } finally {
      db.close();
    }
    const stale = await act(agent, 'confirm_booking', held, { approval: { approvalId } });
    expect(stale.error?.code).toBe('APPROVAL_EXPIRED');
    expect((await ok(agent, 'get_booking', { bookingId: held.id })).booking.status).toBe('HELD');
  });

  it('1-3 an approval is bound to the exact action: used for another booking it is APPROVAL_MISMATCH', async () => {
    const [approved, other] = [await hold(), await hold()];
    const approvalId = await ask('confirm_booking', approved);
    await approve(approvalId);
    const swapped = await act(agent, 'confirm_booking', other, { approval: { approvalId } });
    expect(swapped.error?.code).toBe('APPROVAL_MISMATCH');
    expect((await ok(agent, 'get_booking', { bookingId: other.id })).booking.status).toBe('HELD');
  });

  it('1-4a single use, even when the call fails: a mismatched use burns the approval for its own booking too', async () => {
    const [approved, other] = [await hold(), await hold()];
    const approvalId = await ask('confirm_booking', approved);
    await approve(approvalId);
    expect((await act(agent, 'confirm_booking', other, { approval: { approvalId } })).error?.code).toBe(
      'APPROVAL_MISMATCH',
    );
    const retried = await act(agent, 'confirm_booking', approved, { approval: { approvalId } });
    expect(retried.error?.code).toBe('APPROVAL_USED');
  });

  it('1-4b different: an approval the agent asks for alone lasts as long as its hold; once a person decides, the hold is kept for the tenant’s approval window, 30 minutes by default, not 10', async () => {
    const held = await hold();
    const asked = await ok(agent, 'request_approval', {
      bookingId: held.id,
      action: 'confirm_booking',
      idempotencyKey: randomUUID(),
    });
    expect(Date.parse(asked.expiresAt)).toBe(Date.parse(held.expiresAt));
    const before = Date.now();
    await approve(asked.approvalId);
    const kept = await ok(agent, 'get_booking', { bookingId: held.id });
    const ttl = Date.parse(kept.booking.expiresAt) - before;
    expect(ttl).toBeGreaterThan(29 * 60_000);
    expect(ttl).toBeLessThanOrEqual(30 * 60_000 + 5_000);
  });

  it('1-5 every call — read, write or approval — is audited with time, kind, outcome, an argument preview and the reason of a block', async () => {
    const held = await hold();
    const read = await call(agent, 'get_booking', { bookingId: held.id });
    const approval = await call(agent, 'request_approval', {
      bookingId: held.id,
      action: 'confirm_booking',
      idempotencyKey: randomUUID(),
    });
    const blocked = await act(agent, 'confirm_booking', held);
    const records = await auditTail();
    const byOperation = (operationId: string) => records.find((r) => r.operationId === operationId);
    expect(byOperation(read.meta.operationId)).toMatchObject({
      tool: 'get_booking',
      kind: 'read',
      outcome: 'ok',
    });
    expect(byOperation(approval.meta.operationId)).toMatchObject({
      tool: 'request_approval',
      kind: 'approval',
      outcome: 'ok',
    });
    const write = byOperation(blocked.meta.operationId)!;
    expect(write).toMatchObject({ tool: 'confirm_booking', kind: 'write', outcome: 'error' });
    expect(write.errorCode).toBe('APPROVAL_REQUIRED');
    expect(write.blockedReason).toMatch(/approve/);
    expect(JSON.parse(write.preview as string)).toMatchObject({ bookingId: held.id });
    expect(Date.parse(write.at as string)).toBeGreaterThan(Date.now() - 60_000);
  });

  it('1-6a two transports from one server: stdio for local hosts and stateless Streamable HTTP offer the same tools', async () => {
    const stdio = new McpClient({ name: 'desktop-host', version: '1.0.0' });
    await stdio.connect(
      new StdioClientTransport({
        command: process.execPath,
        args: [CLI, 'stdio', '--db', server.dbPath, '--as', server.agent.email],
        stderr: 'pipe',
      }),
    );
    try {
      const overStdio = (await stdio.listTools()).tools.map((t) => t.name).sort();
      const overHttp = (await agent.listTools()).tools.map((t) => t.name).sort();
      expect(overStdio).toEqual(overHttp);
    } finally {
      await stdio.close();
    }
  });

  it('1-6b different: bearer authentication over HTTP is not optional — a call without a token is 401 with a challenge', async () => {
    const anonymous = await post(
      { jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} },
      { authorization: '', 'mcp-protocol-version': '2025-06-18' },
    );
    expect(anonymous.status).toBe(401);
    expect(anonymous.headers.get('www-authenticate')).toMatch(/^Bearer .*resource_metadata="/);
  });

  it('1-7 different: tested end to end against the spawned server (a process of its own), not over InMemoryTransport', () => {
    expect(server.process.pid).not.toBe(process.pid);
    expect(agent.getServerVersion()?.name).toBe('holdfast');
    expect(packageJson().scripts.test).toEqual(expect.any(String));
  });
});

describe('§2 Tech stack', () => {
  it('2-1 TypeScript, ESM, strict', () => {
    expect(packageJson().type).toBe('module');
    const tsconfig = JSON.parse(readFileSync('tsconfig.json', 'utf8')) as {
      compilerOptions: Record<string, unknown>;
    };
    expect(tsconfig.compilerOptions.strict).toBe(true);
  });

  it('2-2 Node.js 20 or newer', () => {
    // `^20.11 || ^22 || ^24`: the lowest line named.
    const majors = (packageJson().engines.node as string)
      .split('||')
      .map((part) => Number(/\d+/.exec(part)![0]));
    expect(Math.min(...majors)).toBeGreaterThanOrEqual(20);
  });

  it('2-3 different: the official MCP SDK v2 packages (@modelcontextprotocol/server, client), not @modelcontextprotocol/sdk v1', () => {
    const deps = packageJson().dependencies as Record<string, string>;
    expect(deps['@modelcontextprotocol/server']).toMatch(/^\^2\./);
    expect(deps['@modelcontextprotocol/client']).toMatch(/^\^2\./);
    expect(deps).not.toHaveProperty('@modelcontextprotocol/sdk');
  });

  it('2-4 zod 4 validates the tools’ input', () => {
    expect(packageJson().dependencies.zod).toMatch(/^\^4\./);
  });

  it('2-5 different: HTTP is served with Hono, not express', () => {
    const deps = packageJson().dependencies as Record<string, string>;
    expect(deps).toHaveProperty('hono');
    expect(deps).not.toHaveProperty('express');
  });

  it('2-6 vitest 4 runs the tests', () => {
    expect(packageJson().devDependencies.vitest).toMatch(/^\^4\./);
  });

  it('2-7 the build is tsc', () => {
    expect(packageJson().scripts.build).toMatch(/^tsc /);
    expect(existsSync(CLI)).toBe(true);
  });

  it('2-8 different: the dev loop is `npm run dev` (rebuild and restart on change), not tsx', () => {
    const scripts = packageJson().scripts as Record<string, string>;
    expect(scripts.dev).toBe('node scripts/dev.mjs');
    expect(existsSync('scripts/dev.mjs')).toBe(true);
  });
});

describe('§3 Prerequisites', () => {
  it('3-1 runs on Node.js 20 or newer: the CLI answers on this one', async () => {
    expect(Number(process.versions.node.split('.')[0])).toBeGreaterThanOrEqual(20);
    const version = await spawnCli(['--version']);
    expect(version.status).toBe(0);
    expect(version.stdout.trim()).toContain(packageJson().version as string);
  });

  it('3-2 the repository ships a package-lock.json, so `npm ci` works', () => {
    const lock = JSON.parse(readFileSync('package-lock.json', 'utf8')) as Record<string, any>;
    expect(lock.name).toBe('holdfast');
    expect(lock.lockfileVersion).toBeGreaterThanOrEqual(2);
  });
});

describe('§4 Getting started', () => {
  it('4-1 `npm run build`, `npm test` and `npm run typecheck` exist; the build leaves the entry point in dist/', () => {
    const scripts = packageJson().scripts as Record<string, string>;
    for (const name of ['build', 'test', 'typecheck'])
      expect(scripts[name], name).toEqual(expect.any(String));
    expect(packageJson().bin.holdfast).toBe('dist/bin/holdfast.js');
  });

  it('4-2 different: `npm start` serves Streamable HTTP; stdio is its own command (`npm run stdio`, `holdfast stdio`)', () => {
    const scripts = packageJson().scripts as Record<string, string>;
    expect(scripts.start).toMatch(/holdfast\.js serve$/);
    expect(scripts.stdio).toMatch(/holdfast\.js stdio$/);
  });

  it('4-3 different: HTTP listens on port 3000 by default, not 3270; there is no dev:http or test:watch script', async () => {
    expect(await serveHelp()).toMatch(/--port N .*default 3000\)/);
    const scripts = packageJson().scripts as Record<string, string>;
    expect(scripts).not.toHaveProperty('dev:http');
    expect(scripts).not.toHaveProperty('test:watch');
  });

  it('4-4 different: no BOOKINGS_MCP_TOKEN — `holdfast tokens create EMAIL` makes a person’s token, shown once, and HTTP takes it', async () => {
    expect(readFileSync('.env.example', 'utf8')).not.toContain('BOOKINGS_MCP_TOKEN');
    const secret = await token('--name', 'getting started');
    expect(secret).toMatch(/^hf_pat_/);
    const listed = await runCli(['tokens', 'list', '--db', server.dbPath, '--json']);
    expect(listed.stdout).not.toContain(secret);
    const client = await connectHttp(server.url, 'modern', { token: secret });
    try {
      expect((await client.listTools()).tools.length).toBeGreaterThan(0);
    } finally {
      await client.close();
    }
  });

  it('4-5 the start-up banner goes to stderr; stdout stays empty', async () => {
    let stdout = '';
    server.process.stdout!.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    await agent.listTools();
    expect(server.logs.join('')).toMatch(
      /"url":"http:\/\/127\.0\.0\.1:\d+\/mcp".*"message":"holdfast listening"/,
    );
    expect(stdout).toBe('');
  });
});

describe('§5 Connecting an MCP client', () => {
  it('5-1 different: the stdio config runs `node …/dist/bin/holdfast.js stdio` with the database; logs go to stderr and stdout carries protocol only', async () => {
    const readme = readFileSync('README.md', 'utf8');
    expect(readme).toMatch(
      /"args": \[\s*"\/absolute\/path\/to\/holdfast\/dist\/bin\/holdfast\.js",\s*"stdio"/,
    );
    const transport = new StdioClientTransport({
      command: 'node',
      args: [CLI, 'stdio', '--db', server.dbPath, '--as', server.agent.email],
      stderr: 'pipe',
    });
    let stderr = '';
    transport.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const stdio = new McpClient({ name: 'claude-desktop-like', version: '1.0.0' });
    await stdio.connect(transport);
    try {
      expect((await stdio.listTools()).tools.map((t) => t.name)).toContain('list_customers');
      expect(stderr).toContain('"level"');
    } finally {
      await stdio.close();
    }
  });

  it('5-2 the tools appear as list_customers, get_customer, list_bookings, check_availability, request_approval, cancel_booking', async () => {
    const names = (await agent.listTools()).tools.map((t) => t.name);
    for (const name of [
      'list_customers',
      'get_customer',
      'list_bookings',
      'check_availability',
      'request_approval',
      'cancel_booking',
    ])
      expect(names, name).toContain(name);
  });

  it('5-3 different: there is no create_booking; hold_slot then confirm_booking make a booking', async () => {
    const names = (await agent.listTools()).tools.map((t) => t.name);
    expect(names).not.toContain('create_booking');
    expect(names).toEqual(expect.arrayContaining(['hold_slot', 'confirm_booking']));
  });

  it('5-4 Streamable HTTP on POST /mcp is stateless: no session id is issued', async () => {
    const init = await post(
      {
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: {
          protocolVersion: '2025-06-18',
          capabilities: {},
          clientInfo: { name: 'curl', version: '0' },
        },
      },
      { 'mcp-protocol-version': '2025-06-18' },
    );
    expect(init.status).toBe(200);
    expect(init.body.result.serverInfo.name).toBe('holdfast');
    expect(init.headers.get('mcp-session-id')).toBeNull();
  });

  it('5-5 GET and DELETE /mcp answer 405', async () => {
    for (const method of ['GET', 'DELETE']) {
      const answer = await fetch(new URL('/mcp', server.url), {
        method,
        headers: { authorization: `Bearer ${server.agent.token}` },
      });
      expect(answer.status, method).toBe(405);
    }
  });

  it('5-6 the curl initialize with protocolVersion 2025-03-26 is answered in that version', async () => {
    const init = await post({
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
    expect(init.body.result.protocolVersion).toBe('2025-03-26');
    expect(init.body.result.capabilities.tools).toBeDefined();
  });

  it('5-7 the curl tools/list lists the tools', async () => {
    const listed = await post(
      { jsonrpc: '2.0', id: 2, method: 'tools/list', params: {} },
      { 'mcp-protocol-version': '2025-03-26' },
    );
    expect(listed.body.result.tools.map((t: { name: string }) => t.name)).toContain('check_availability');
  });

  it('5-8 different: the curl check_availability call needs calendarIds (refused naming the field); with them it answers each time', async () => {
    const args = { date: futureHour(3).slice(0, 10), times: ['09:00', '11:00', '16:30'] };
    const without = await post(
      {
        jsonrpc: '2.0',
        id: 3,
        method: 'tools/call',
        params: { name: 'check_availability', arguments: args },
      },
      { 'mcp-protocol-version': '2025-03-26' },
    );
    expect(without.body.result.structuredContent.error).toMatchObject({
      code: 'INVALID_ARGUMENTS',
      details: { field: 'calendarIds' },
    });
    const withCalendar = await post(
      {
        jsonrpc: '2.0',
        id: 4,
        method: 'tools/call',
        params: { name: 'check_availability', arguments: { ...args, calendarIds: [room] } },
      },
      { 'mcp-protocol-version': '2025-03-26' },
    );
    const times = withCalendar.body.result.structuredContent.data.times as { time: string }[];
    expect(times.map((t) => t.time)).toEqual(['09:00', '11:00', '16:30']);
  });
});

describe('§6 Tools', () => {
  it('6-1 different: list_customers takes an explicit limit (1-100) and pages; contact details are masked without sensitive', async () => {
    await hold(agent, { name: 'Grace Hopper', email: 'grace@example.com', phone: '+1 555 0100' });
    expect((await call(agent, 'list_customers', {})).error).toMatchObject({
      code: 'INVALID_ARGUMENTS',
      details: { field: 'limit' },
    });
    const page = await ok(agent, 'list_customers', { limit: 100 });
    expect(page.nextCursor).toBeNull();
    const grace = page.customers.find(
      (c: { contact: { name: string } }) => c.contact.name === 'Grace Hopper',
    );
    expect(grace.contact.email).toBe('grace@example.com');
    const masked = (await ok(reader, 'list_customers', { limit: 100 })).customers.find(
      (c: { id: string }) => c.id === grace.id,
    );
    expect(masked.contact.email).not.toBe('grace@example.com');
    expect(masked.contact.email).toMatch(/\*\*\*@example\.com$/);
  });

  it('6-2 different: get_customer takes the customerId list_customers gave (cus_…), not `id`, and answers their bookings', async () => {
    const held = await hold(agent, { name: 'Alan Turing', email: 'alan@example.com' });
    const { customers } = await ok(agent, 'list_customers', { limit: 100 });
    const alan = customers.find(
      (c: { contact: { email: string } }) => c.contact.email === 'alan@example.com',
    );
    expect(alan.id).toMatch(/^cus_/);
    expect((await call(agent, 'get_customer', { id: alan.id })).error?.code).toBe('INVALID_ARGUMENTS');
    const one = await ok(agent, 'get_customer', { customerId: alan.id });
    expect(one.history.map((b: { bookingId: string }) => b.bookingId)).toContain(held.id);
  });

  it('6-3 different: list_bookings pages with an explicit limit and lists the bookings with their status', async () => {
    const held = await hold();
    expect((await call(agent, 'list_bookings', {})).error?.details.field).toBe('limit');
    const listed = await ok(agent, 'list_bookings', { calendarId: room, status: 'HELD', limit: 100 });
    const found = listed.bookings.find((b: { id: string }) => b.id === held.id);
    expect(found.status).toBe('HELD');
  });

  it('6-4a check_availability takes a YYYY-MM-DD date and 1 to 16 times per call, 30-minute slots by default', async () => {
    const date = futureHour(3).slice(0, 10);
    const times = Array.from(
      { length: 16 },
      (_, i) => `${String(8 + Math.floor(i / 2)).padStart(2, '0')}:${i % 2 ? '30' : '00'}`,
    );
    const sixteen = await ok(agent, 'check_availability', { calendarIds: [room], date, times });
    expect(sixteen.times).toHaveLength(16);
    // Half-hour slots unless told otherwise.
    expect(sixteen.durationMinutes).toBe(30);
    expect(Date.parse(sixteen.times[0].end) - Date.parse(sixteen.times[0].start)).toBe(30 * 60_000);
    const tooMany = await call(agent, 'check_availability', {
      calendarIds: [room],
      date,
      times: [...times, '17:00'],
    });
    expect(tooMany.error?.details.field).toBe('times');
    const none = await call(agent, 'check_availability', { calendarIds: [room], date, times: [] });
    expect(none.error?.details.field).toBe('times');
  });

  it('6-4b different: each answer says free or why not (closed, taken, rules, past), with the instant and the calendar’s zone', async () => {
    const taken = await hold();
    const checked = await ok(agent, 'check_availability', {
      calendarIds: [room],
      date: taken.start.slice(0, 10),
      times: [taken.start.slice(11, 16)],
      durationMinutes: 60,
    });
    expect(checked.timeZone).toBe('UTC');
    expect(checked.times[0]).toMatchObject({ free: false, reason: 'taken', start: taken.start });
  });

  it('6-5 request_approval never executes anything: the booking is as it was', async () => {
    const held = await hold();
    const asked = await ok(agent, 'request_approval', {
      bookingId: held.id,
      action: 'confirm_booking',
      idempotencyKey: randomUUID(),
    });
    await approve(asked.approvalId as string);
    const after = await ok(agent, 'get_booking', { bookingId: held.id });
    expect(after.booking).toMatchObject({ status: 'HELD', version: held.version });
  });

  it('6-6 different: a booking for a customer in a free time is hold_slot then confirm_booking (after a person approves)', async () => {
    const held = await hold(agent, { name: 'Ada Miranda', email: 'ada@example.com' });
    expect(held.status).toBe('HELD');
    const approvalId = await ask('confirm_booking', held);
    await approve(approvalId);
    const done = await ok(agent, 'confirm_booking', {
      bookingId: held.id,
      expectedVersion: held.version,
      idempotencyKey: randomUUID(),
      approval: { approvalId },
    });
    expect(done.booking).toMatchObject({ status: 'CONFIRMED', customer: { name: 'Ada Miranda' } });
  });

  it('6-7 cancel_booking cancels a booking by bookingId, behind the approval gate', async () => {
    const booking = await confirmed();
    const approvalId = await ask('cancel_booking', booking);
    await approve(approvalId);
    const cancelled = await act(agent, 'cancel_booking', booking, { approval: { approvalId } });
    expect(cancelled.data?.booking.status).toBe('CANCELLED');
  });

  it('6-8 different: no fixed 09:00–16:30 half-hour grid — a calendar’s own hours on a 5-minute grid', async () => {
    const date = futureHour(12).slice(0, 10);
    const checked = await ok(agent, 'check_availability', {
      calendarIds: [room],
      date,
      times: ['07:15', '18:05'],
    });
    expect(checked.times.map((t: { free: boolean }) => t.free)).toEqual([true, true]);
    const offGrid = await call(agent, 'check_availability', { calendarIds: [room], date, times: ['10:07'] });
    expect(offGrid.error?.details.field).toBe('times[0]');
  });

  it('6-9 dates are YYYY-MM-DD: anything else is refused naming the field', async () => {
    for (const date of ['2030-02-30', '02/11/2030', '2030-11-2']) {
      const refused = await call(agent, 'check_availability', {
        calendarIds: [room],
        date,
        times: ['09:00'],
      });
      expect(refused.error?.details.field, date).toBe('date');
    }
  });

  it('6-10 double-booking a taken time is rejected', async () => {
    const held = await hold();
    const again = await call(direct, 'hold_slot', {
      calendarIds: [room],
      start: held.start,
      end: held.end,
      idempotencyKey: randomUUID(),
    });
    expect(again.error?.code).toBe('SLOT_UNAVAILABLE');
  });

  it('6-11 cancelling twice fails', async () => {
    const booking = await confirmed();
    const first = await ok(direct, 'cancel_booking', {
      bookingId: booking.id,
      expectedVersion: booking.version,
      idempotencyKey: randomUUID(),
    });
    const second = await act(direct, 'cancel_booking', first.booking);
    expect(second.error?.code).toBe('INVALID_STATE');
  });

  it('6-12 different: an empty database is seeded with three demo calendars and no customers or bookings', async () => {
    const db = new Database(server.dbPath, { readonly: true });
    try {
      const demo = db.prepare("SELECT id FROM calendars WHERE name <> 'Consultation room'").all() as {
        id: string;
      }[];
      expect(demo).toHaveLength(3);
      const booked = db
        .prepare(
          `SELECT count(*) AS n FROM allocations WHERE calendar_id IN (${demo.map(() => '?').join(',')})`,
        )
        .get(...demo.map((c) => c.id)) as { n: number };
      expect(booked.n).toBe(0);
    } finally {
      db.close();
    }
    expect(server.logs.join('')).toContain('"created":3,"message":"seeded demo calendars"');
    expect(await serveHelp()).toContain('--no-seed');
  });
});

describe('§7 The approval flow', () => {
  it('7-1 different: request_approval names the booking and the action ({ bookingId, action, idempotencyKey }), not { tool, args, requester_note }', async () => {
    const held = await hold();
    const contractShape = await call(agent, 'request_approval', {
      tool: 'confirm_booking',
      args: { bookingId: held.id },
      requester_note: 'Ada asked for Monday 11:00',
    });
    expect(contractShape.error?.code).toBe('INVALID_ARGUMENTS');
    const asked = await ok(agent, 'request_approval', {
      bookingId: held.id,
      action: 'confirm_booking',
      idempotencyKey: randomUUID(),
    });
    expect(asked.intent).toMatchObject({ action: 'confirm_booking', bookingId: held.id, start: held.start });
  });

  it('7-2 different: the answer is an approval to show a person (approvalId, intent, intentHash, expiresAt, approveUrl) — no token; until they decide it is APPROVAL_PENDING', async () => {
    const held = await hold();
    const asked = await ok(agent, 'request_approval', {
      bookingId: held.id,
      action: 'confirm_booking',
      idempotencyKey: randomUUID(),
    });
    expect(Object.keys(asked).sort()).toEqual(
      ['approvalId', 'approveUrl', 'cli', 'expiresAt', 'intent', 'intentHash', 'summary'].sort(),
    );
    const early = await act(agent, 'confirm_booking', held, { approval: { approvalId: asked.approvalId } });
    expect(early.error?.code).toBe('APPROVAL_PENDING');
  });

  it('7-3 once a person released it, the write tool with unchanged arguments and the approval runs', async () => {
    const held = await hold();
    const approvalId = await ask('confirm_booking', held);
    await approve(approvalId);
    const done = await act(agent, 'confirm_booking', held, { approval: { approvalId } });
    expect(done.ok).toBe(true);
  });

  it('7-4 the gate passes and the booking comes back', async () => {
    const held = await hold();
    const approvalId = await ask('confirm_booking', held);
    await approve(approvalId);
    const done = await ok(agent, 'confirm_booking', {
      bookingId: held.id,
      expectedVersion: held.version,
      idempotencyKey: randomUUID(),
      approval: { approvalId },
    });
    expect(done.booking).toMatchObject({ id: held.id, status: 'CONFIRMED', version: held.version + 1 });
    expect((await ok(agent, 'get_booking', { bookingId: held.id })).booking.status).toBe('CONFIRMED');
  });

  it('7-5 other arguments after approval are blocked with the reason, and the consumed approval cannot be retried with the original ones', async () => {
    const [approved, other] = [await hold(), await hold()];
    const approvalId = await ask('confirm_booking', approved);
    await approve(approvalId);
    const changed = await act(agent, 'confirm_booking', other, { approval: { approvalId } });
    expect(changed.ok).toBe(false);
    expect(changed.error?.code).toBe('APPROVAL_MISMATCH');
    expect(changed.error?.message).toMatch(/approv/i);
    expect((await act(agent, 'confirm_booking', approved, { approval: { approvalId } })).error?.code).toBe(
      'APPROVAL_USED',
    );
  });
});

describe('§8 Security model', () => {
  it('8-1 enforcement lives in the server: neither confirm nor cancel reaches the store without a person’s approval', async () => {
    const held = await hold();
    expect((await act(agent, 'confirm_booking', held)).error?.code).toBe('APPROVAL_REQUIRED');
    const booking = await confirmed();
    expect((await act(agent, 'cancel_booking', booking)).error?.code).toBe('APPROVAL_REQUIRED');
    expect((await ok(agent, 'get_booking', { bookingId: held.id })).booking.status).toBe('HELD');
    expect((await ok(agent, 'get_booking', { bookingId: booking.id })).booking.status).toBe('CONFIRMED');
  });

  it('8-2 an approval is bound to SHA-256 of the canonical (RFC 8785) form of the exact action', async () => {
    const held = await hold();
    const asked = await ok(agent, 'request_approval', {
      bookingId: held.id,
      action: 'confirm_booking',
      idempotencyKey: randomUUID(),
    });
    const digest = createHash('sha256').update(canonicalize(asked.intent)!).digest('hex');
    expect(asked.intentHash).toBe(`sha256:${digest}`);
    expect(asked.intentHash).toBe(held.confirmationIntent.intentHash);
  });

  it('8-3a single use: an approval that confirmed a booking cannot apply twice', async () => {
    const booking = await confirmed();
    const approvalId = await ask('cancel_booking', booking);
    await approve(approvalId);
    const cancelled = await act(agent, 'cancel_booking', booking, { approval: { approvalId } });
    expect(cancelled.ok).toBe(true);
    expect((await call(agent, 'get_approval', { approvalId })).error?.code).toBe('APPROVAL_USED');
  });

  it('8-3b different: another person’s use of an approval neither burns nor reveals it (NOT_FOUND); its owner still uses it', async () => {
    const { deps, close } = await identityDeps(server.dbPath);
    const stranger = await addAgent(deps, {
      email: `bob-${randomUUID()}@local.example`,
    });
    await close();
    const intruder = await connectHttp(server.url, 'modern', { token: stranger.token });
    try {
      const held = await hold();
      const approvalId = await ask('confirm_booking', held);
      await approve(approvalId);
      expect((await act(intruder, 'confirm_booking', held, { approval: { approvalId } })).error?.code).toBe(
        'NOT_FOUND',
      );
      expect((await act(agent, 'confirm_booking', held, { approval: { approvalId } })).ok).toBe(true);
    } finally {
      await intruder.close();
    }
  });

  it('8-4 different: a decided approval keeps its hold for the tenant’s approval window (default 30 min); set to 10 it is the contract’s 10 minutes', async () => {
    const set = await runCli(['tenants', 'set', 'local', '--approval-window', '10', '--db', server.dbPath]);
    expect(set.status, set.stderr).toBe(0);
    try {
      const held = await hold();
      const asked = await ok(agent, 'request_approval', {
        bookingId: held.id,
        action: 'confirm_booking',
        idempotencyKey: randomUUID(),
      });
      const before = Date.now();
      await approve(asked.approvalId);
      const kept = await ok(agent, 'get_booking', { bookingId: held.id });
      const ttl = Date.parse(kept.booking.expiresAt) - before;
      expect(ttl).toBeGreaterThan(9 * 60_000);
      expect(ttl).toBeLessThanOrEqual(10 * 60_000 + 5_000);
    } finally {
      const back = await runCli([
        'tenants',
        'set',
        'local',
        '--approval-window',
        '30',
        '--db',
        server.dbPath,
      ]);
      expect(back.status, back.stderr).toBe(0);
    }
  });

  it('8-5 blocked attempts are audited as failures carrying the gate’s reason', async () => {
    const [approved, other] = [await hold(), await hold()];
    const approvalId = await ask('confirm_booking', approved);
    await approve(approvalId);
    const blocked = await act(agent, 'confirm_booking', other, { approval: { approvalId } });
    const record = (await auditTail()).find((r) => r.operationId === blocked.meta.operationId);
    expect(record).toMatchObject({ outcome: 'error', errorCode: 'APPROVAL_MISMATCH' });
    expect(record!.blockedReason).toMatch(/different action/);
  });

  it('8-6 different: HTTP always needs a person’s token — none or an unknown one is 401 — and the server binds 127.0.0.1', async () => {
    expect(new URL(server.url).hostname).toBe('127.0.0.1');
    for (const authorization of ['', 'Bearer hf_pat_not-a-real-token']) {
      const refused = await post(
        { jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} },
        { authorization, 'mcp-protocol-version': '2025-06-18' },
      );
      expect(refused.status, authorization).toBe(401);
    }
  });
});

describe('§9 Project structure', () => {
  it('9-1 different: Holdfast’s own layout — one entry point with serve and stdio, one server factory, the approval domain, one file per tool, a storage adapter', async () => {
    for (const path of [
      'src/main/cli.ts',
      'src/adapters/mcp/server-factory.ts',
      'src/domain/approval/approval.ts',
      'src/adapters/mcp/tools/customers.ts',
      'src/adapters/mcp/tools/check-availability.ts',
      'src/adapters/mcp/tools/approvals.ts',
      'src/adapters/mcp/tools/gated-booking.ts',
      'src/adapters/storage',
    ])
      expect(existsSync(path), path).toBe(true);
    const help = await spawnCli(['--help']);
    expect(help.stdout).toMatch(/^ {2}serve {2,}/m);
    expect(help.stdout).toMatch(/^ {2}stdio {2,}/m);
  });

  it('9-2 different: the factory with injectable dependencies is createHoldfast, the package’s main export: an application gives it a database and runs the same use cases, no MCP in between', async () => {
    const exported = (packageJson().exports as Record<string, { types: string; default: string }>)['.'];
    expect(exported).toEqual({ types: './types/holdfast.d.ts', default: './dist/bin/embed.js' });
    const { createHoldfast } = await import('../../src/main/embed.js');
    const db = tempDbPath();
    const app = await createHoldfast({ database: db.path, actAs: 'shop@local.example' });
    try {
      await app.createCalendar({ name: 'Shop counter', timeZone: 'UTC' });
      expect((await app.listCalendars()).calendars.map((c) => c.name)).toEqual(['Shop counter']);
    } finally {
      await app.close();
      db.cleanup();
    }
  });
});

describe('§10 Testing', () => {
  it('10-1 different: the gate’s tests spawn the real server and drive it with the official client (no InMemoryTransport)', () => {
    for (const file of [
      'test/e2e/approval-tamper.test.ts',
      'test/e2e/audit.test.ts',
      'test/e2e/booking-flow.test.ts',
    ]) {
      const text = readFileSync(file, 'utf8');
      expect(text, file).toContain('spawnServer(');
      expect(text, file).not.toContain('InMemoryTransport');
    }
    expect(readFileSync('test/support/mcp-clients.ts', 'utf8')).toContain(
      "from '@modelcontextprotocol/client'",
    );
  });
});

describe('§11 Production hardening notes', () => {
  it('11-1 persistence: bookings live in the database (SQLite here, PostgreSQL with --database)', async () => {
    const held = await hold();
    const db = new Database(server.dbPath, { readonly: true });
    try {
      expect(db.prepare('SELECT id FROM bookings WHERE id = ?').get(held.id)).toEqual({ id: held.id });
    } finally {
      db.close();
    }
    expect(await serveHelp()).toMatch(/--database URL +postgres:\/\//);
  });

  it('11-2 a real human surface: approveUrl is a console page a signed-in person decides on', async () => {
    const held = await hold();
    const asked = await act(agent, 'confirm_booking', held);
    const approveUrl = asked.error!.details.approveUrl as string;
    const anonymous = await fetch(approveUrl, { redirect: 'manual' });
    expect(anonymous.status).toBe(303);
    expect(anonymous.headers.get('location')).toMatch(/^\/login\?next=/);
    const cookie = await signIn(server.url, server.agent.email, server.agent.password);
    const decided = await decideOnPage(approveUrl, cookie);
    expect(decided.status).toBe(200);
    const approvalId = asked.error!.details.approvalId as string;
    expect((await act(agent, 'confirm_booking', held, { approval: { approvalId } })).ok).toBe(true);
  });

  it('11-3 shared state over stateless HTTP: what one connection holds, another sees', async () => {
    const held = await hold(agent);
    expect((await ok(direct, 'get_booking', { bookingId: held.id })).booking.status).toBe('HELD');
  });

  it('11-4 auth and TLS: off loopback the server refuses to start without an https public URL behind a TLS proxy', async () => {
    const refused = await spawnCli(['serve', '--host', '0.0.0.0', '--port', '0', '--db', server.dbPath]);
    expect(refused.status).toBe(2);
    expect(refused.stderr).toContain('--public-url https://');
    expect(refused.stderr).toContain('--trust-proxy');
  });

  it('11-5 the audit goes to an append-only, keyed chain that `holdfast audit verify` checks', async () => {
    await untilSealed(server.dbPath);
    const verified = await runCli(['audit', 'verify', '--db', server.dbPath, '--json']);
    expect(verified.status, verified.stdout + verified.stderr).toBe(0);
    expect(JSON.parse(verified.stdout)).toMatchObject({ ok: true });
  });
});

describe('§12 License', () => {
  it('12-1 the package declares the MIT licence, and the README links the LICENSE text', () => {
    expect(packageJson().license).toBe('MIT');
    expect(readFileSync('LICENSE', 'utf8')).toMatch(/^MIT License\n/);
    expect(readFileSync('README.md', 'utf8')).toContain('[MIT](LICENSE)');
  });
});
