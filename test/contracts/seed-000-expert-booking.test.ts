import { createHash, generateKeyPairSync, randomBytes, randomUUID } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { request } from 'node:http';
import { dirname, join } from 'node:path';
import { Client } from '@modelcontextprotocol/client';
import Database from 'better-sqlite3';
import canonicalize from 'canonicalize';
import { withClientTiming } from 'holdfast/client-timing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readConfig } from '../../src/main/config/config.js';
import type { HostKey } from '../support/approvals.js';
import { attest, registerHost } from '../support/approvals.js';
import { futureHour, openAllWeek, plusMinutes } from '../support/fixtures.js';
import type { Envelope } from '../support/mcp-clients.js';
import { call, connectHttp, MODERN_META, postJsonRpc } from '../support/mcp-clients.js';
import { startOtlpReceiver } from '../support/otlp-receiver.js';
import { startPaymentStub } from '../support/payment-stub.js';
import { addAgent, identityDeps } from '../support/provision.js';
import type { RunningServer } from '../support/spawn-server.js';
import { CLI, runCli, runProcess, spawnCli, spawnServer, tempDbPath } from '../support/spawn-server.js';
import { insertOverlapDirectly } from '../support/forged-rows.js';

// Seed contract 000, "Expert Booking MCP Server" (/work/shared/seeds/000_dfeeb10d065ff952.txt),
// walked section by section in its own order: one describe per heading, one `it` per checkable
// requirement, numbered within its section. `different:` marks where Holdfast chose otherwise on
// purpose (docs/contracts.md, "Deliberate differences", says why). Everything runs against the
// real entry point started the contract's way: `holdfast serve --profile expert-booking`.

const ROOT = process.cwd();
const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as Record<string, any>;
const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
const CATALOG = ['tool_catalog.call', 'tool_catalog.read', 'tool_catalog.search'];
const PAY_BASE = 'https://pay.example.com/pay/';
const RFC3339 = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:\d\d)$/;
const UUID = /^[\da-f]{8}-[\da-f]{4}-[1-8][\da-f]{3}-[89ab][\da-f]{3}-[\da-f]{12}$/;

interface Booking {
  id: string;
  status: string;
  version: number;
  start: string;
  end: string;
  expiresAt: string | null;
  createdAt: string;
  confirmationIntent: { intent: Record<string, unknown>; intentHash: string } | null;
  [field: string]: any;
}

let stub: Awaited<ReturnType<typeof startPaymentStub>>;
let receiver: Awaited<ReturnType<typeof startOtlpReceiver>>;
/** The contract's server: seeded, catalog, timing contract, 2026-07-28 only, HTTP payments, OTLP export. */
let server: RunningServer;
/** The same with 1-second holds, on a database that outlives a restart. */
let short: RunningServer;
const shortDb = tempDbPath();
let host: HostKey;
let shortHost: HostKey;
let rivalToken: string;
let shortRivalToken: string;
let agent: Client;
let rival: Client;
/** An expert priced 500.00 CNY, and one without a price; open all week, in UTC. */
let priced: string;
let free: string;
let shortRoom: string;
let hour = 0;

const upstreams = () => ({ PAYMENT_QUERY_BASE_URL: stub.baseUrl, HOLDFAST_ALLOW_PRIVATE_UPSTREAMS: '1' });
const startShort = () =>
  spawnServer(['--no-seed', '--profile', 'expert-booking', '--payments', 'http', '--hold-ttl', '1'], {
    env: upstreams(),
    writePolicy: 'attested',
    dbPath: shortDb.path,
  });

/** The official client over Streamable HTTP, every request stamped by Holdfast's client helper. */
const connect = (s: RunningServer, token?: string) =>
  connectHttp(s.url, 'modern', { fetch: withClientTiming(), ...(token ? { token } : {}) });

/** A logical tool through the catalog, as the contract's agents call them. */
const run = <D = Record<string, any>>(client: Client, tool: string, args: Record<string, unknown>) =>
  call<D>(client, 'tool_catalog.call', { tool, arguments: args });

async function must<D = Record<string, any>>(client: Client, tool: string, args: Record<string, unknown>) {
  const answer = await run<D>(client, tool, args);
  if (!answer.ok) throw new Error(`${tool} failed: ${JSON.stringify(answer.error)}`);
  return answer.data!;
}

async function createCalendar(client: Client, name: string, price?: { amount: string; currency: string }) {
  const { calendar } = await must<{ calendar: { id: string } }>(client, 'create_calendar', {
    name,
    timeZone: 'UTC',
    availability: openAllWeek,
    ...(price ? { price } : {}),
    idempotencyKey: randomUUID(),
  });
  return calendar.id;
}

/** A new hour nobody in this file has used. */
function nextSlot(): { start: string; end: string } {
  hour += 1;
  return { start: futureHour(3, hour), end: futureHour(3, hour + 1) };
}

async function hold(client: Client = agent, calendarId = priced, extra: Record<string, unknown> = {}) {
  const { booking } = await must<{ booking: Booking }>(client, 'hold_slot', {
    calendarIds: [calendarId],
    ...nextSlot(),
    idempotencyKey: randomUUID(),
    ...extra,
  });
  return booking;
}

const confirm = (
  client: Client,
  b: { id: string; version: number },
  proof: Record<string, unknown> = {},
  key: string = randomUUID(),
) =>
  run<{ booking: Booking }>(client, 'confirm_booking', {
    bookingId: b.id,
    expectedVersion: b.version,
    idempotencyKey: key,
    ...proof,
  });

/** What a registered host sends once its user said yes to the booking's intent. */
const signed = (b: Booking, key: HostKey = host, options: Parameters<typeof attest>[2] = {}) => ({
  humanApproval: attest(b.confirmationIntent!, key, options),
});

const queriesFor = (bookingId: string) => stub.requests.filter((r) => r.bookingId === bookingId).length;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const hex = (bytes: number) => randomBytes(bytes).toString('hex');

/** Waits until the server's own clock has passed the hold's expiry (plus `extraMs`). */
async function pastExpiry(b: { expiresAt: string | null }, extraMs = 300) {
  const wait = Date.parse(b.expiresAt!) + extraMs - Date.now();
  if (wait > 0) await sleep(wait);
}

async function until<T>(find: () => T | undefined, what: string): Promise<T> {
  for (let i = 0; i < 100; i++) {
    const found = find();
    if (found !== undefined) return found;
    await sleep(50);
  }
  throw new Error(`never came: ${what}`);
}

/** The JSON lines a server wrote to stderr so far. */
function logLines(s: RunningServer): Record<string, any>[] {
  return s.logs
    .join('')
    .split('\n')
    .flatMap((line) => {
      if (!line.startsWith('{')) return [];
      try {
        return [JSON.parse(line) as Record<string, any>];
      } catch {
        return [];
      }
    });
}

/** A request's `x-mcp-client-sent-at` and its `_meta` twin, stamped now. */
function stamp(at = new Date().toISOString()) {
  return { at, headers: { 'x-mcp-client-sent-at': at }, meta: { ...MODERN_META, clientSentAt: at } };
}

/** One stamped tools/list on a connection of its own, with these extra headers (fetch cannot forge Host). */
function rawStatus(headers: Record<string, string>): Promise<number> {
  const sent = stamp();
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: '127.0.0.1',
        port: server.port,
        path: '/mcp',
        method: 'POST',
        agent: false,
        headers: {
          authorization: `Bearer ${server.agent.token}`,
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          'mcp-protocol-version': '2026-07-28',
          'mcp-method': 'tools/list',
          ...sent.headers,
          ...headers,
        },
      },
      (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      },
    );
    req.on('error', reject);
    req.end(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: { _meta: sent.meta } }));
  });
}

/** A tool's fixed schema document, read whole through tool_catalog.read. */
async function schemaOf(tool: string): Promise<Record<string, any>> {
  const read = await call<{ lines: string[] }>(agent, 'tool_catalog.read', { tool, offset: 0, limit: 1000 });
  return JSON.parse(read.data!.lines.join('\n')) as Record<string, any>;
}

/** The first `enum` in a JSON Schema that lists `member`. */
function enumListing(schema: unknown, member: string): string[] | undefined {
  if (!schema || typeof schema !== 'object') return undefined;
  const node = schema as Record<string, unknown>;
  if (Array.isArray(node.enum) && node.enum.includes(member)) return node.enum as string[];
  for (const value of Object.values(node)) {
    const found = enumListing(value, member);
    if (found) return found;
  }
  return undefined;
}

/** Paths of the objects in a JSON Schema that name properties yet accept others. */
function openObjects(schema: unknown, path = ''): string[] {
  if (!schema || typeof schema !== 'object') return [];
  const node = schema as Record<string, unknown>;
  const open = node.type === 'object' && node.properties && node.additionalProperties !== false;
  return [
    ...(open ? [path || '/'] : []),
    ...Object.entries(node).flatMap(([k, v]) => openObjects(v, `${path}/${k}`)),
  ];
}

async function secondPerson(database: string): Promise<string> {
  const { deps, close } = await identityDeps(database);
  try {
    return (await addAgent(deps, { email: 'rival@local.example', writePolicy: 'attested' })).token;
  } finally {
    await close();
  }
}

beforeAll(async () => {
  [stub, receiver] = await Promise.all([startPaymentStub(), startOtlpReceiver()]);
  [server, short] = await Promise.all([
    spawnServer(['--profile', 'expert-booking', '--payments', 'http', '--payment-url-base', PAY_BASE], {
      env: {
        ...upstreams(),
        OTEL_EXPORTER_OTLP_ENDPOINT: receiver.endpoint,
        OTEL_SERVICE_NAME: 'holdfast-seed-000',
        HOLDFAST_TRACE_SYNC: '1',
      },
      writePolicy: 'attested',
    }),
    startShort(),
  ]);
  // Both people's tokens have policy attested: a person may approve in the console (here, the
  // operator's CLI) or a registered host may sign; the model can do neither.
  const people = async (db: string) => [await registerHost(db), await secondPerson(db)] as const;
  const [main, lapsing] = await Promise.all([people(server.dbPath), people(shortDb.path)]);
  [host, rivalToken] = main;
  [shortHost, shortRivalToken] = lapsing;
  agent = await connect(server);
  rival = await connect(server, rivalToken);
  priced = await createCalendar(agent, 'Dr. Ada Chen (expert)', { amount: '500.00', currency: 'CNY' });
  free = await createCalendar(agent, 'Intro call (expert)');
  const shortAgent = await connect(short);
  shortRoom = await createCalendar(shortAgent, 'Short-hold expert', { amount: '500.00', currency: 'CNY' });
  await shortAgent.close();
});

afterAll(async () => {
  await agent?.close();
  await rival?.close();
  await Promise.all([server?.stop(), short?.stop()]);
  shortDb.cleanup();
  await Promise.all([stub?.close(), receiver?.close()]);
});

describe('# Expert Booking MCP Server (opening paragraph)', () => {
  it('1. the default endpoint is Streamable HTTP at /mcp and answers the 2026-07-28 server/discover', async () => {
    expect(new URL(server.url).pathname).toBe('/mcp');
    const sent = stamp();
    const answer = await postJsonRpc(
      server.url,
      server.agent.token,
      { id: 'discover-1', method: 'server/discover', params: { _meta: sent.meta } },
      sent.headers,
    );
    expect(answer.status).toBe(200);
    expect(answer.body.id).toBe('discover-1');
    expect(answer.body.result.supportedVersions).toEqual(['2026-07-28']);
    expect(answer.body.result.capabilities.tools).toBeDefined();
  });

  it('2. tools are discovered progressively: tools/list names the three catalog tools, the catalog holds the rest', async () => {
    const { tools } = await agent.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual(CATALOG);
    const all = await call<{ total: number }>(agent, 'tool_catalog.search', { query: '', limit: 1 });
    expect(all.data!.total).toBeGreaterThan(tools.length);
  });

  it('3. the legacy stateless/SSE fallback is refused outright, not silently downgraded', async () => {
    const legacy = await connectHttp(server.url, 'legacy', { fetch: withClientTiming() }).then(
      async (client) => {
        await client.close();
        return 'connected';
      },
      (error: unknown) => String(error),
    );
    expect(legacy).toMatch(/Unsupported protocol version/);
    expect(legacy).toContain('2026-07-28');
    const sse = await fetch(server.url, {
      headers: {
        authorization: `Bearer ${server.agent.token}`,
        accept: 'text/event-stream',
        ...stamp().headers,
      },
    });
    expect(sse.status).toBe(405);
    expect(sse.headers.get('content-type') ?? '').not.toContain('text/event-stream');
  });
});

describe('## 一条命令验证 (verify with one command)', () => {
  it('1. `npm install && npm test` verifies: the package has its test command and the README names it', () => {
    expect(pkg.scripts.test).toMatch(/scripts\/test\.mjs/);
    expect(existsSync(join(ROOT, 'scripts/test.mjs'))).toBe(true);
    expect(readme).toContain('npm test');
  });

  it('2. the tests start the real Streamable HTTP entry point and drive it with the official client', () => {
    expect(CLI).toBe(join(ROOT, 'dist/bin/holdfast.js'));
    expect(server.process.spawnargs).toContain(CLI);
    expect(agent).toBeInstanceOf(Client);
    expect(agent.getServerVersion()?.name).toBe('holdfast');
    expect(agent.getProtocolEra()).toBe('modern');
  });

  it('3. `npm run demo` is a complete, repeatable demo', () => {
    expect(pkg.scripts.demo).toContain('dist/demo/demo.js');
    expect(existsSync(join(ROOT, 'src/demo/demo.ts'))).toBe(true);
  });

  it('4. `cp .env.example .env; set -a; source .env; set +a` works: .env.example is a shell-sourceable file', async () => {
    const sourced = await runProcess(
      'bash',
      [
        '-c',
        'set -a; source .env.example; set +a; printf "%s %s" "$HOLDFAST_HOST" "$HOLDFAST_HOLD_TTL_SECONDS"',
      ],
      { cwd: ROOT },
    );
    expect(sourced.status, sourced.stderr).toBe(0);
    expect(sourced.stderr).toBe('');
    expect(sourced.stdout).toBe('127.0.0.1 300');
  });

  it('5. `npm run dev` serves MCP at http://127.0.0.1:3000/mcp by default', () => {
    expect(pkg.scripts.dev).toBe('node scripts/dev.mjs');
    const defaults = readConfig(['serve'], {});
    expect(`http://${defaults.host}:${defaults.port}`).toBe('http://127.0.0.1:3000');
    expect(new URL(server.url).pathname).toBe('/mcp');
  });

  it('6. production is `npm run build && npm start`', () => {
    expect(pkg.scripts.build).toContain('tsc');
    expect(pkg.scripts.start).toMatch(/npm run build.*&& node dist\/bin\/holdfast\.js serve/);
  });

  it('7. it binds localhost by default with Host/Origin checks, and will not go remote without authentication', async () => {
    expect(readConfig(['serve'], {}).host).toBe('127.0.0.1');
    expect(await rawStatus({ host: `127.0.0.1:${server.port}` })).toBe(200);
    expect(await rawStatus({ host: 'evil.example' })).toBe(403);
    expect(await rawStatus({ origin: 'https://evil.example' })).toBe(403);
    const db = tempDbPath();
    const remote = await spawnCli(['serve', '--host', '0.0.0.0', '--port', '0', '--db', db.path]);
    db.cleanup();
    expect(remote.status).not.toBe(0);
    expect(remote.stderr).toContain('Refusing to bind 0.0.0.0');
  });

  it('8. the design motives, real risks and what is not covered are written down (NOTES.md’s counterpart: docs/risks.md)', () => {
    const risks = readFileSync(join(ROOT, 'docs/risks.md'), 'utf8');
    expect(risks).toContain('## In scope');
    expect(risks).toContain('## Out of scope');
    expect(risks).toContain('## Risks and what answers them');
    expect(readme).toContain('(docs/risks.md)');
  });
});

describe('## 给本地 Agent 的安装提示词 (the install prompt for a local agent)', () => {
  it('1. Node.js >= 22 with `npm ci`: the engines range admits Node 22 and the lockfile is committed', () => {
    // `^20.11 || ^22 || ^24`: Node 22 is one of the lines named.
    const majors = (pkg.engines.node as string).split('||').map((part) => Number(/\d+/.exec(part)![0]));
    expect(majors).toContain(22);
    const lock = JSON.parse(readFileSync(join(ROOT, 'package-lock.json'), 'utf8')) as {
      lockfileVersion: number;
    };
    expect(lock.lockfileVersion).toBeGreaterThanOrEqual(2);
  });

  it('2. `cp .env.example .env && npm run dev`: with .env.example’s values the server is http://127.0.0.1:3000/mcp', () => {
    const env = Object.fromEntries(
      readFileSync(join(ROOT, '.env.example'), 'utf8')
        .split('\n')
        .filter((line) => /^[A-Z_][A-Z0-9_]*=/.test(line))
        .map((line) => [line.slice(0, line.indexOf('=')), line.slice(line.indexOf('=') + 1)]),
    );
    expect(Object.keys(env).length).toBeGreaterThan(10);
    const config = readConfig(['serve'], env);
    expect([config.host, config.port]).toEqual(['127.0.0.1', 3000]);
  });

  it('3. a Streamable HTTP server whose client stamps each request: holdfast/client-timing is the createTemporalClientFetch of src/temporal-http.ts', async () => {
    expect(pkg.exports['./client-timing'].default).toBe('./dist/bin/client-timing.js');
    expect(existsSync(join(ROOT, 'src/client/client-timing.ts'))).toBe(true);
    const answered: { status: number; body: string }[] = [];
    const recording: typeof fetch = async (input, init) => {
      const response = await fetch(input, init);
      answered.push({ status: response.status, body: await response.clone().text() });
      return response;
    };
    const unstamped = await connectHttp(server.url, 'modern', { fetch: recording }).then(
      async (client) => {
        await client.close();
        return true;
      },
      () => false,
    );
    expect(unstamped).toBe(false);
    expect(answered[0]!.status).toBe(400);
    expect(answered[0]!.body).toContain('MISSING_CLIENT_TIMESTAMP');
    const stamped = await connect(server);
    expect(stamped.getProtocolEra()).toBe('modern');
    await stamped.close();
  });

  it('4. once connected, tools/list finds tool_catalog.search/read/call, and they search, read and call the booking tools', async () => {
    expect((await agent.listTools()).tools.map((t) => t.name).sort()).toEqual(CATALOG);
    const found = await call<{ tools: { name: string }[] }>(agent, 'tool_catalog.search', {
      query: 'booking',
      limit: 20,
    });
    expect(found.data!.tools.map((t) => t.name)).toEqual(
      expect.arrayContaining(['confirm_booking', 'get_booking']),
    );
    expect((await schemaOf('get_booking')).inputSchema.required).toEqual(['bookingId']);
    const held = await hold();
    const read = await run<{ booking: Booking }>(agent, 'get_booking', { bookingId: held.id });
    expect(read.data!.booking).toMatchObject({ id: held.id, status: 'HELD' });
  });

  it('5. the user pays outside the agent: no tool takes a payment; a priced hold points the user at the payment page', async () => {
    const all = await call<{ tools: { name: string; summary: string }[]; total: number }>(
      agent,
      'tool_catalog.search',
      { query: '', limit: 50 },
    );
    expect(all.data!.tools).toHaveLength(all.data!.total);
    expect(all.data!.tools.map((t) => t.name).filter((name) => /pay|charge/i.test(name))).toEqual([]);
    const held = await hold();
    expect(held.paymentUrl).toBe(`${PAY_BASE}${held.id}`);
    expect(held.payment).toMatchObject({ status: 'PENDING', paidAt: null });
  });
});

describe('## Agent 使用流程 (how an agent uses it)', () => {
  it('1. tools/list returns only the three catalog tools, with the same small schemas every time', async () => {
    const first = await agent.listTools();
    const again = await agent.listTools();
    expect(first.tools.map((t) => t.name).sort()).toEqual(CATALOG);
    expect(JSON.stringify(again.tools)).toBe(JSON.stringify(first.tools));
    // Three tools, and in tool_catalog.call's description the booking tools' signatures (about
    // 1.2 KB): a booking needs no search and no read (docs/agent-bench.md measures it).
    expect(JSON.stringify(first.tools).length).toBeLessThan(9_000);
  });

  it('2. tool_catalog.search pre-filters: title, tool:// location, summary, total and nextCursor', async () => {
    const page = await call<{
      tools: { name: string; title: string; location: string; summary: string }[];
      total: number;
      nextCursor: string | null;
    }>(agent, 'tool_catalog.search', { query: 'slot', limit: 2 });
    expect(page.data!.tools).toHaveLength(2);
    expect(page.data!.total).toBeGreaterThan(2);
    expect(page.data!.nextCursor).toEqual(expect.any(String));
    for (const tool of page.data!.tools) {
      expect(tool.location).toBe(`tool://holdfast/${tool.name}`);
      expect(tool.title.length).toBeGreaterThan(0);
      expect(tool.summary.length).toBeGreaterThan(0);
    }
  });

  it('3. tool_catalog.read reads the fixed, complete schema by offset/limit and says what was cut and where to go on', async () => {
    const piece = await call<Record<string, any>>(agent, 'tool_catalog.read', {
      tool: 'tool://holdfast/hold_slot',
      offset: 0,
      limit: 10,
    });
    const d = piece.data!;
    expect(d.lines).toHaveLength(10);
    expect(d.truncated).toBe(true);
    expect(d.omittedLines).toBe(d.totalLines - 10);
    expect(d.next).toEqual({ offset: 10, limit: 10 });
    const whole = await schemaOf('hold_slot');
    expect(Object.keys(whole)).toEqual(
      expect.arrayContaining(['name', 'description', 'inputSchema', 'outputSchema', 'annotations']),
    );
  });

  it('4. tool_catalog.call hands the arguments over untouched: values come back as given, nothing is coerced', async () => {
    const customer = { name: '  Lin  Wei ', email: 'Lin.Wei@Example.COM', notes: 'Prefers Mandarin\tplease' };
    const held = await hold(agent, priced, { customer });
    expect(held.customer).toEqual(customer);
    const coerced = await run(agent, 'find_slots', {
      calendarIds: [priced],
      ...(({ start, end }) => ({ from: start, to: end }))(nextSlot()),
      durationMinutes: '60',
      limit: 1,
    });
    expect(coerced.error).toMatchObject({ code: 'INVALID_ARGUMENTS', details: { field: 'durationMinutes' } });
  });

  it('5. different: the catalog holds Holdfast’s own tools at tool://holdfast/NAME, not booking.search_available_slots, booking.hold_slot, booking.confirm_booking, booking.get_booking', async () => {
    const all = await call<{ tools: { name: string }[] }>(agent, 'tool_catalog.search', {
      query: '',
      limit: 50,
    });
    expect(all.data!.tools.map((t) => t.name)).toEqual(
      expect.arrayContaining(['find_slots', 'hold_slot', 'confirm_booking', 'get_booking']),
    );
    for (const name of ['booking.search_available_slots', 'booking.hold_slot', 'booking.get_booking']) {
      const read = await call(agent, 'tool_catalog.read', { tool: name, offset: 0, limit: 5 });
      expect(read.error, name).toMatchObject({ code: 'NOT_FOUND', details: { field: 'tool' } });
      const called = await run(agent, name, {});
      expect(called.error, name).toMatchObject({ code: 'NOT_FOUND', details: { field: 'tool' } });
    }
  });

  it('6. slot search takes an explicit limit, a time window and a cursor; answers structured slots, total and nextCursor', async () => {
    hour += 4;
    const from = futureHour(3, hour - 3);
    const query = { calendarIds: [free], from, to: plusMinutes(from, 180), durationMinutes: 60 };
    const noLimit = await run(agent, 'find_slots', query);
    expect(noLimit.error).toMatchObject({ code: 'INVALID_ARGUMENTS', details: { field: 'limit' } });
    const page1 = await must(agent, 'find_slots', { ...query, limit: 3 });
    expect(page1.slots).toHaveLength(3);
    expect(page1.total).toBeGreaterThan(3);
    for (const slot of page1.slots) expect(Date.parse(slot.end) - Date.parse(slot.start)).toBe(3_600_000);
    const page2 = await must(agent, 'find_slots', { ...query, limit: 3, cursor: page1.nextCursor });
    expect(Date.parse(page2.slots[0].start)).toBeGreaterThan(Date.parse(page1.slots[2].start));
  });

  it('6b. slot search by need: a query of words (a specialty) instead of ids finds the matching experts’ free times, each naming its expert, paged', async () => {
    const word = `derm${randomBytes(4).toString('hex')}`;
    const { calendar } = await must<{ calendar: { id: string } }>(agent, 'create_calendar', {
      name: 'Dr. Query',
      timeZone: 'UTC',
      availability: openAllWeek,
      description: 'Skin and allergies',
      tags: [word, 'French'],
      idempotencyKey: randomUUID(),
    });
    hour += 4;
    const from = futureHour(3, hour - 3);
    const search = {
      query: `${word.toUpperCase()} french`,
      from,
      to: plusMinutes(from, 180),
      durationMinutes: 60,
    };
    const page1 = await must(agent, 'find_slots', { ...search, limit: 2 });
    expect(page1.calendarsMatched).toBe(1);
    expect(page1.slots.map((s: { calendarId: string }) => s.calendarId)).toEqual([calendar.id, calendar.id]);
    const page2 = await must(agent, 'find_slots', { ...search, limit: 2, cursor: page1.nextCursor });
    expect(Date.parse(page2.slots[0].start)).toBeGreaterThan(Date.parse(page1.slots[1].start));
    const none = await must(agent, 'find_slots', { ...search, query: `${word} german`, limit: 2 });
    expect(none).toMatchObject({ slots: [], calendarsMatched: 0 });
  });

  it('7. different: hold_slot takes calendarIds + start + end (what find_slots answers), not a slotId', async () => {
    const slot = nextSlot();
    const bySlotId = await run(agent, 'hold_slot', {
      slotId: 'slot-ai-001',
      calendarIds: [free],
      ...slot,
      idempotencyKey: randomUUID(),
    });
    expect(bySlotId.error).toMatchObject({ code: 'INVALID_ARGUMENTS', details: { field: 'slotId' } });
    const byTime = await run<{ booking: Booking }>(agent, 'hold_slot', {
      calendarIds: [free],
      ...slot,
      idempotencyKey: randomUUID(),
    });
    expect(byTime.data!.booking.status).toBe('HELD');
  });

  it('8. hold_slot, with a UUID key, gives a five-minute exclusive hold, the payment page, the full snapshot and a server-issued confirmationIntent', async () => {
    const slot = nextSlot();
    const notUuid = await run(agent, 'hold_slot', {
      calendarIds: [priced],
      ...slot,
      idempotencyKey: 'retry-1',
    });
    expect(notUuid.error).toMatchObject({ code: 'INVALID_ARGUMENTS', details: { field: 'idempotencyKey' } });
    const held = await must<{ booking: Booking }>(agent, 'hold_slot', {
      calendarIds: [priced],
      ...slot,
      idempotencyKey: randomUUID(),
    });
    const b = held.booking;
    expect(Date.parse(b.expiresAt!) - Date.parse(b.createdAt)).toBe(300_000);
    expect(b.paymentUrl).toBe(`${PAY_BASE}${b.id}`);
    expect(b).toMatchObject({ status: 'HELD', version: 1, price: { amount: '500.00', currency: 'CNY' } });
    expect(b.confirmationIntent!.intent).toMatchObject({ bookingId: b.id, version: 1, amount: '500.00' });
    const taken = await run(rival, 'hold_slot', {
      calendarIds: [priced],
      ...slot,
      idempotencyKey: randomUUID(),
    });
    expect(taken.error!.code).toBe('SLOT_UNAVAILABLE');
  });

  it('9. different: confirm_booking takes bookingId, expectedVersion, a UUID key and a person’s approval from the console (or a host’s signature), not a copied humanApproval; then checks payment and answers the full confirmed snapshot', async () => {
    const b = await hold();
    stub.paid(b.id);
    const asked = await confirm(agent, b);
    expect(asked.error!.code).toBe('APPROVAL_REQUIRED');
    const approvalId = asked.error!.details.approvalId as string;
    expect(asked.error!.details.approveUrl).toMatch(new RegExp(`/console/approvals/${approvalId}$`));
    expect((await runCli(['approvals', 'approve', approvalId, '--db', server.dbPath])).status).toBe(0);
    const done = await confirm(agent, b, { approval: { approvalId } });
    expect(done.data!.booking).toMatchObject({
      id: b.id,
      status: 'CONFIRMED',
      version: 2,
      expiresAt: null,
      payment: { status: 'PAID' },
      confirmationIntent: null,
      price: { amount: '500.00', currency: 'CNY' },
    });
  });

  it('10. get_booking returns the booking’s current full snapshot', async () => {
    const b = await hold(agent, free);
    const released = await must<{ booking: Booking }>(agent, 'release_hold', {
      bookingId: b.id,
      expectedVersion: 1,
      idempotencyKey: randomUUID(),
    });
    const read = await must<{ booking: Booking }>(agent, 'get_booking', { bookingId: b.id });
    expect(read.booking).toEqual(released.booking);
    expect(read.booking).toMatchObject({ status: 'RELEASED', version: 2 });
  });

  it('11. the suggested trajectory discover → tools/list → search → read → call is what the server’s instructions say, and read answers stay byte-identical for prefix caching', async () => {
    const instructions = agent.getInstructions() ?? '';
    for (const tool of CATALOG) expect(instructions).toContain(tool);
    const once = await agent.callTool({
      name: 'tool_catalog.read',
      arguments: { tool: 'find_slots', offset: 0, limit: 40 },
    });
    const twice = await agent.callTool({
      name: 'tool_catalog.read',
      arguments: { tool: 'find_slots', offset: 0, limit: 40 },
    });
    expect(JSON.stringify(twice.content)).toBe(JSON.stringify(once.content));
    expect(JSON.stringify(twice.structuredContent)).toBe(JSON.stringify(once.structuredContent));
  });
});

describe('## 状态机与事务 (state machine and transactions)', () => {
  it('1. the storage engine keeps at most one HELD/CONFIRMED booking on a time: concurrent holds, one wins; a forged row is refused by the database itself', async () => {
    const slot = nextSlot();
    const attempts = await Promise.all(
      [agent, rival, agent, rival].map((client) =>
        run<{ booking: Booking }>(client, 'hold_slot', {
          calendarIds: [priced],
          ...slot,
          idempotencyKey: randomUUID(),
        }),
      ),
    );
    const won = attempts.filter((a) => a.ok);
    expect(won).toHaveLength(1);
    for (const lost of attempts.filter((a) => !a.ok)) expect(lost.error!.code).toBe('SLOT_UNAVAILABLE');
    expect(insertOverlapDirectly(server.dbPath, won[0]!.data!.booking.id)).toContain('HOLDFAST_OVERLAP');
  });

  it('2. a hold expires five minutes after it was placed (expiresAt = heldAt + 5 min)', async () => {
    const b = await hold(agent, free);
    expect(Date.parse(b.expiresAt!) - Date.parse(b.createdAt)).toBe(5 * 60_000);
  });

  it('3. different: a hold waiting for a person’s decision is kept for the tenant’s approval window (30 min by default), not only 5 minutes', async () => {
    const b = await hold();
    const asked = await confirm(agent, b);
    expect(asked.error!.code).toBe('APPROVAL_REQUIRED');
    const read = await must<{ booking: Booking }>(agent, 'get_booking', { bookingId: b.id });
    expect(read.booking.version).toBe(1);
    expect(read.booking.expiresAt).toBe(asked.error!.details.expiresAt);
    expect(Date.parse(read.booking.expiresAt!) - Date.now()).toBeGreaterThan(25 * 60_000);
  });

  it('4. an expired hold is released by what is stored, so a process restart loses no release', async () => {
    const before = await connect(short);
    const b = await hold(before, shortRoom);
    await before.close();
    await short.stop();
    await pastExpiry(b);
    short = await startShort();
    const after = await connect(short);
    const read = await must<{ booking: Booking }>(after, 'get_booking', { bookingId: b.id });
    expect(read.booking.status).toBe('EXPIRED');
    const again = await must<{ booking: Booking }>(after, 'hold_slot', {
      calendarIds: [shortRoom],
      start: b.start,
      end: b.end,
      idempotencyKey: randomUUID(),
    });
    expect(again.booking.status).toBe('HELD');
    await after.close();
  });

  it('5. the payment query runs outside any transaction: while the provider is slow, other bookings are written', async () => {
    const slow = await hold();
    stub.payments.set(slow.id, {
      status: 'PENDING',
      amount: null,
      currency: null,
      paidAt: null,
      delayMs: 1_500,
    });
    const started = Date.now();
    const confirming = confirm(agent, slow, signed(slow)).then((answer) => ({
      answer,
      ms: Date.now() - started,
    }));
    await sleep(200);
    const other = await run(rival, 'hold_slot', {
      calendarIds: [priced],
      ...nextSlot(),
      idempotencyKey: randomUUID(),
    });
    const otherMs = Date.now() - started;
    const { answer, ms } = await confirming;
    expect(other.ok).toBe(true);
    expect(answer.error!.code).toBe('PAYMENT_PENDING');
    expect(ms).toBeGreaterThanOrEqual(1_400);
    expect(otherMs).toBeLessThan(ms);
  });

  it('6. payment starts PENDING; the booking id is the payment’s query id, asked again on each confirm; only HELD/PENDING → CONFIRMED/PAID, once', async () => {
    const b = await hold();
    expect(b.payment).toMatchObject({ status: 'PENDING', paidAt: null });
    const pending = await confirm(agent, b, signed(b));
    expect(pending.error!.code).toBe('PAYMENT_PENDING');
    stub.paid(b.id);
    const done = await confirm(agent, b, signed(b));
    expect(done.data!.booking).toMatchObject({
      status: 'CONFIRMED',
      version: 2,
      payment: { status: 'PAID' },
    });
    expect(queriesFor(b.id)).toBe(2);
    const twice = await confirm(agent, done.data!.booking);
    expect(twice.error!.code).toBe('INVALID_STATE');
    expect(queriesFor(b.id)).toBe(2);
  });

  it('7. expectedVersion guards changes; confirm takes a UUID key: the same key and arguments replay, other arguments are IDEMPOTENCY_CONFLICT', async () => {
    const b = await hold(agent, free);
    const stale = await confirm(agent, { id: b.id, version: 5 }, signed(b));
    expect(stale.error).toMatchObject({ code: 'VERSION_CONFLICT', details: { currentVersion: 1 } });
    const notUuid = await confirm(agent, b, signed(b), 'not-a-uuid');
    expect(notUuid.error).toMatchObject({ code: 'INVALID_ARGUMENTS', details: { field: 'idempotencyKey' } });
    const key = randomUUID();
    const proof = signed(b);
    const first = await confirm(agent, b, proof, key);
    expect(first.data!.booking.status).toBe('CONFIRMED');
    const replay = await confirm(agent, b, proof, key);
    expect(replay.meta.idempotentReplay).toBe(true);
    expect(replay.data!.booking).toMatchObject({ id: b.id, status: 'CONFIRMED', version: 2 });
    const drift = await confirm(agent, { id: b.id, version: 2 }, proof, key);
    expect(drift.error!.code).toBe('IDEMPOTENCY_CONFLICT');
  });

  it('8. FAILED and CLOSED release the time in the same step (PAYMENT_FAILED, PAYMENT_CLOSED)', async () => {
    for (const status of ['FAILED', 'CLOSED'] as const) {
      const b = await hold();
      stub.payments.set(b.id, { status, amount: null, currency: null, paidAt: null });
      const refused = await confirm(agent, b, signed(b));
      expect(refused.error!.code).toBe('PAYMENT_FAILED');
      const read = await must<{ booking: Booking }>(agent, 'get_booking', { bookingId: b.id });
      expect(read.booking.status).toBe(`PAYMENT_${status}`);
      const retaken = await run(rival, 'hold_slot', {
        calendarIds: [priced],
        start: b.start,
        end: b.end,
        idempotencyKey: randomUUID(),
      });
      expect(retaken.ok, status).toBe(true);
    }
  });

  it('9. money that arrives after the hold lapsed is never confirmed; the booking is flagged for people to reconcile', async () => {
    const client = await connect(short);
    const b = await hold(client, shortRoom);
    await pastExpiry(b);
    stub.paid(b.id);
    const late = await confirm(client, b, signed(b, shortHost));
    expect(late.error!.code).toBe('HOLD_EXPIRED');
    expect(late.error!.details.reconciliationRequired).toBe(true);
    const read = await must<{ booking: Booking }>(client, 'get_booking', { bookingId: b.id });
    expect(read.booking).toMatchObject({
      status: 'EXPIRED',
      payment: { status: 'PAID', reconciliationRequired: true },
    });
    expect((await runCli(['reconciliation', '--db', shortDb.path])).stdout).toContain(b.id);
    await client.close();
  });
});

describe('## 参数保真与错误契约 (argument fidelity and the error contract)', () => {
  it('1. validation is strict: every object schema is closed, nothing is coerced, unknown fields are refused, an e-mail keeps its case', async () => {
    for (const tool of ['find_slots', 'hold_slot', 'confirm_booking', 'get_booking'])
      expect(openObjects((await schemaOf(tool)).inputSchema), tool).toEqual([]);
    const unknown = await run(agent, 'hold_slot', {
      calendarIds: [free],
      ...nextSlot(),
      idempotencyKey: randomUUID(),
      force: true,
    });
    expect(unknown.error).toMatchObject({ code: 'INVALID_ARGUMENTS', details: { field: 'force' } });
    const numeric = await run(agent, 'get_booking', { bookingId: 12345 });
    expect(numeric.error).toMatchObject({ code: 'INVALID_ARGUMENTS', details: { field: 'bookingId' } });
    const held = await hold(agent, free, { customer: { email: 'MiXeD.Case@Example.ORG' } });
    expect(held.customer.email).toBe('MiXeD.Case@Example.ORG');
  });

  it('2. business arguments and call context travel apart: trace context goes in _meta; as an argument it is an unknown field', async () => {
    const traceId = hex(16);
    const traceparent = `00-${traceId}-${hex(8)}-01`;
    const asArgument = await run(agent, 'get_booking', { bookingId: 'bk_x', traceparent });
    expect(asArgument.error).toMatchObject({ code: 'INVALID_ARGUMENTS', details: { field: 'traceparent' } });
    const inMeta = await agent.callTool({
      name: 'tool_catalog.call',
      arguments: { tool: 'list_calendars', arguments: {} },
      _meta: { traceparent },
    });
    expect((inMeta.structuredContent as unknown as Envelope).meta.traceId).toBe(traceId);
  });

  it('3. every result is a machine-readable envelope; a write answers the whole changed booking, not an empty OK', async () => {
    const b = await hold(agent, free);
    const released = await run<{ booking: Booking }>(agent, 'release_hold', {
      bookingId: b.id,
      expectedVersion: 1,
      idempotencyKey: randomUUID(),
    });
    expect(released.data!.booking).toMatchObject({
      id: b.id,
      status: 'RELEASED',
      version: 2,
      start: b.start,
    });
    const meta = released.meta as unknown as Record<string, string>;
    expect(meta.traceId).toMatch(/^[\da-f]{32}$/);
    expect(meta.spanId).toMatch(/^[\da-f]{16}$/);
    expect(meta.operationId).toMatch(UUID);
    for (const time of ['clientSentAt', 'serverReceivedAt', 'serverResultCreatedAt'])
      expect(meta[time], time).toMatch(RFC3339);
    const refused = await run(agent, 'release_hold', {
      bookingId: b.id,
      expectedVersion: 2,
      idempotencyKey: randomUUID(),
    });
    expect(refused.ok).toBe(false);
    expect(Object.keys(refused.error!).sort()).toEqual([
      'code',
      'details',
      'message',
      'recovery',
      'retryable',
    ]);
    expect(refused.error!.recovery.action.length).toBeGreaterThan(0);
    expect(typeof refused.error!.retryable).toBe('boolean');
  });

  it('4. a schema error is INVALID_ARGUMENTS naming the field; an expected business error carries no stack trace', async () => {
    const bad = await run(agent, 'find_slots', { calendarIds: [free], from: 'soon', to: 'later', limit: 1 });
    expect(bad.error!.code).toBe('INVALID_ARGUMENTS');
    expect(bad.error!.details.field).toEqual(expect.any(String));
    const missing = await agent.callTool({
      name: 'tool_catalog.call',
      arguments: { tool: 'get_booking', arguments: { bookingId: 'bk_does_not_exist' } },
    });
    const text = JSON.stringify(missing);
    expect((missing.structuredContent as unknown as Envelope).error!.code).toBe('NOT_FOUND');
    expect(text).not.toMatch(/\n\s+at |\.ts:\d+|\.js:\d+|Error:/);
  });

  it('5. SLOT_UNAVAILABLE, VERSION_CONFLICT, PAYMENT_PENDING, PAYMENT_MISMATCH and IDEMPOTENCY_CONFLICT are codes of the published closed set', async () => {
    const codes = enumListing((await schemaOf('confirm_booking')).outputSchema, 'SLOT_UNAVAILABLE');
    expect(codes).toEqual(
      expect.arrayContaining([
        'SLOT_UNAVAILABLE',
        'VERSION_CONFLICT',
        'PAYMENT_PENDING',
        'PAYMENT_MISMATCH',
        'IDEMPOTENCY_CONFLICT',
      ]),
    );
  });

  it('6. different: HOLD_EXPIRED, APPROVAL_EXPIRED and APPROVAL_MISMATCH stand for BOOKING_EXPIRED, HUMAN_APPROVAL_EXPIRED and APPROVAL_INTENT_(HASH_)MISMATCH', async () => {
    const codes = enumListing((await schemaOf('confirm_booking')).outputSchema, 'SLOT_UNAVAILABLE')!;
    expect(codes).toEqual(expect.arrayContaining(['HOLD_EXPIRED', 'APPROVAL_EXPIRED', 'APPROVAL_MISMATCH']));
    for (const theirs of [
      'BOOKING_EXPIRED',
      'HUMAN_APPROVAL_EXPIRED',
      'APPROVAL_INTENT_HASH_MISMATCH',
      'APPROVAL_INTENT_MISMATCH',
    ])
      expect(codes).not.toContain(theirs);
    const b = await hold(agent, free);
    const old = await confirm(agent, b, signed(b, host, { approvedAt: new Date(Date.now() - 180_000) }));
    expect(old.error!.code).toBe('APPROVAL_EXPIRED');
    const otherHash = await confirm(agent, b, signed(b, host, { intentHash: `sha256:${'0'.repeat(64)}` }));
    expect(otherHash.error!.code).toBe('APPROVAL_MISMATCH');
  });
});

describe('## Human in the loop', () => {
  it('1. a hold needs no approval (even for a token that must attest confirmations), retries safely and lapses by itself', async () => {
    const args = { calendarIds: [priced], ...nextSlot(), idempotencyKey: randomUUID() };
    const first = await run<{ booking: Booking }>(agent, 'hold_slot', args);
    expect(first.data!.booking.status).toBe('HELD');
    const retried = await run<{ booking: Booking }>(agent, 'hold_slot', args);
    expect(retried.meta.idempotentReplay).toBe(true);
    expect(retried.data!.booking.id).toBe(first.data!.booking.id);
    expect(first.data!.booking.expiresAt).toEqual(expect.stringMatching(RFC3339));
  });

  it('2. different: the contract’s humanApproval copied by the agent is refused; a person decides in the console, or a registered host signs', async () => {
    const b = await hold();
    stub.paid(b.id);
    const copied = {
      approvalId: randomUUID(),
      decision: 'APPROVE',
      approvedAt: new Date().toISOString(),
      intent: b.confirmationIntent!.intent,
      intentHash: b.confirmationIntent!.intentHash,
    };
    const refused = await confirm(agent, b, { humanApproval: copied });
    expect(refused.error!.code).toBe('INVALID_ARGUMENTS');
    expect(queriesFor(b.id)).toBe(0);
    const done = await confirm(agent, b, signed(b));
    expect(done.data!.booking.status).toBe('CONFIRMED');
  });

  it('3. hold_slot and get_booking of a HELD/PENDING booking carry confirmationIntent { intent, intentHash }', async () => {
    const b = await hold();
    expect(b.confirmationIntent).toEqual({ intent: expect.any(Object), intentHash: expect.any(String) });
    const read = await must<{ booking: Booking }>(agent, 'get_booking', { bookingId: b.id });
    expect(read.booking).toMatchObject({ status: 'HELD', payment: { status: 'PENDING' } });
    expect(read.booking.confirmationIntent).toEqual(b.confirmationIntent);
  });

  it('4. the person is shown booking, expert, time, amount, currency and version; the server recomputes and compares, and a mismatch asks the payment provider nothing', async () => {
    const b = await hold();
    const asked = await confirm(agent, b);
    const summary = asked.error!.details.summary as Record<string, any>;
    expect(summary).toMatchObject({
      reference: b.reference,
      startUtc: b.start,
      endUtc: b.end,
      amount: '500.00',
      currency: 'CNY',
      version: 1,
    });
    expect(summary.calendars[0].name).toBe('Dr. Ada Chen (expert)');
    const cheaper = { ...b.confirmationIntent!.intent, amount: '1.00' };
    const hash = `sha256:${createHash('sha256').update(canonicalize(cheaper)!).digest('hex')}`;
    const tampered = await confirm(agent, b, signed(b, host, { intentHash: hash }));
    expect(tampered.error!.code).toBe('APPROVAL_MISMATCH');
    expect(queriesFor(b.id)).toBe(0);
  });

  it('5. different: the intent is Holdfast’s (action, bookingId, calendarIds, start, end, amount, currency, version) as RFC 8785 canonical JSON; intentHash is sha256: + 64 lowercase hex of it', async () => {
    const b = await hold();
    const { intent, intentHash } = b.confirmationIntent!;
    expect(Object.keys(intent).sort()).toEqual(
      ['action', 'amount', 'bookingId', 'calendarIds', 'currency', 'end', 'start', 'version'].sort(),
    );
    expect(intentHash).toMatch(/^sha256:[\da-f]{64}$/);
    const bytes = canonicalize(intent)!;
    expect(bytes).not.toMatch(/\s/);
    expect(intentHash).toBe(`sha256:${createHash('sha256').update(bytes, 'utf8').digest('hex')}`);
  });

  it('6. the upgrade the contract recommends against untrusted hosts: an attestation counts only when signed by a host key registered with the server', async () => {
    const b = await hold(agent, free);
    const unregistered = generateKeyPairSync('ed25519').privateKey.export({ type: 'pkcs8', format: 'der' });
    const stranger = { id: host.id, privateKey: unregistered.toString('base64url') };
    const forged = await confirm(agent, b, signed(b, stranger));
    expect(forged.error!.code).toBe('APPROVAL_MISMATCH');
    const genuine = await confirm(agent, b, signed(b));
    expect(genuine.data!.booking.status).toBe('CONFIRMED');
  });

  it('7. an approval is good for 120 s with 5 s of clock skew; missing, expired, future, unbound or mismatched proofs ask no payment and confirm nothing', async () => {
    const b = await hold();
    stub.paid(b.id);
    const ago = (seconds: number) => new Date(Date.now() - seconds * 1000);
    const unbound = signed(b);
    delete (unbound.humanApproval as Partial<typeof unbound.humanApproval>).intentHash;
    const refusals: [string, Record<string, unknown>, string][] = [
      ['missing', {}, 'APPROVAL_REQUIRED'],
      ['125 s old', signed(b, host, { approvedAt: ago(125) }), 'APPROVAL_EXPIRED'],
      ['30 s in the future', signed(b, host, { approvedAt: ago(-30) }), 'APPROVAL_MISMATCH'],
      ['no intentHash', unbound, 'INVALID_ARGUMENTS'],
      ['another intent', signed(b, host, { intentHash: `sha256:${'a'.repeat(64)}` }), 'APPROVAL_MISMATCH'],
    ];
    for (const [name, proof, code] of refusals) {
      const answer = await confirm(agent, b, proof);
      expect(answer.error?.code, name).toBe(code);
    }
    expect(queriesFor(b.id)).toBe(0);
    expect((await must<{ booking: Booking }>(agent, 'get_booking', { bookingId: b.id })).booking.status).toBe(
      'HELD',
    );
    // Within the window, and within the skew: both count.
    const skewed = await hold(agent, free);
    expect((await confirm(agent, skewed, signed(skewed, host, { approvedAt: ago(-3) }))).ok).toBe(true);
    const done = await confirm(agent, b, signed(b, host, { approvedAt: ago(100) }));
    expect(done.data!.booking.status).toBe('CONFIRMED');
  });

  it('8. once confirmed, confirmationIntent is null, so the old intent cannot be approved again', async () => {
    const b = await hold(agent, free);
    const done = await confirm(agent, b, signed(b));
    expect(done.data!.booking.confirmationIntent).toBeNull();
    const read = await must<{ booking: Booking }>(agent, 'get_booking', { bookingId: b.id });
    expect(read.booking.confirmationIntent).toBeNull();
  });
});

describe('## 支付依赖 seam (the payment seam)', () => {
  it('1. the booking code depends on a read-only payment port: queryPayment(bookingId, trace) and nothing else', () => {
    const port = readFileSync(join(ROOT, 'src/ports/payment-query.ts'), 'utf8');
    const body = /export interface PaymentQuery \{([\s\S]*?)\n\}/.exec(port)![1]!;
    const members = body.replace(/\/\*\*[\s\S]*?\*\//g, '').match(/^\s+(\w+)\(/gm) ?? [];
    expect(members.map((m) => m.trim().replace('(', ''))).toEqual(['queryPayment']);
    expect(body).toMatch(/queryPayment\(bookingId: string, trace: /);
  });

  it('2. the HTTP adapter GETs PAYMENT_QUERY_BASE_URL/payments/{bookingId} with traceparent, and gives up after 3 s', async () => {
    const b = await hold();
    stub.payments.set(b.id, {
      status: 'PAID',
      amount: '500.00',
      currency: 'CNY',
      paidAt: null,
      delayMs: 6_000,
    });
    const started = Date.now();
    const slow = await confirm(agent, b, signed(b));
    const elapsed = Date.now() - started;
    expect(slow.error).toMatchObject({ code: 'PAYMENT_UNAVAILABLE', retryable: true });
    expect(elapsed).toBeGreaterThanOrEqual(2_900);
    expect(elapsed).toBeLessThan(6_000);
    const asked = stub.requests.filter((r) => r.bookingId === b.id);
    expect(asked).toHaveLength(1);
    expect(asked[0]!.traceparent).toMatch(new RegExp(`^00-${slow.meta.traceId}-[\\da-f]{16}-0[01]$`));
    expect(
      (await must<{ booking: Booking }>(agent, 'get_booking', { bookingId: b.id })).booking,
    ).toMatchObject({
      status: 'HELD',
      version: 1,
    });
  });

  it('3. the repository implements no payment: no tool pays; the development payment form and the payment simulator refuse to run in production', async () => {
    const all = await call<{ tools: { name: string; summary: string }[] }>(agent, 'tool_catalog.search', {
      query: '',
      limit: 50,
    });
    expect(all.data!.tools.filter((t) => /\bpay(s|ment)?\b/i.test(t.name))).toEqual([]);
    const db = tempDbPath();
    const production = await spawnCli(['serve', '--production', '--dev', '--port', '0', '--db', db.path]);
    // Nor does the payment simulator: production asks a provider, or nothing (priced bookings wait).
    const simulated = await spawnCli([
      'serve',
      '--production',
      '--payments',
      'simulator',
      '--port',
      '0',
      '--db',
      db.path,
    ]);
    db.cleanup();
    expect(production.status).toBe(2);
    expect(production.stderr).toContain('cannot run in production');
    expect(simulated.status).toBe(2);
    expect(simulated.stderr).toContain('--payments simulator (development) cannot run in production');
  });

  it('4. PAID counts only with the exact booking id, amount string, currency and a paidAt; otherwise nothing changes', async () => {
    const cases: [string, Record<string, unknown>, string][] = [
      ['amount "500" for "500.00"', { amount: '500' }, 'PAYMENT_MISMATCH'],
      ['currency', { currency: 'EUR' }, 'PAYMENT_MISMATCH'],
      ['booking id', { bookingId: 'bk_someone_else' }, 'PAYMENT_MISMATCH'],
      ['no paidAt', { paidAt: null }, 'PAYMENT_UNAVAILABLE'],
    ];
    for (const [name, change, code] of cases) {
      const b = await hold();
      stub.payments.set(b.id, {
        status: 'PAID',
        amount: '500.00',
        currency: 'CNY',
        paidAt: new Date().toISOString(),
        ...change,
      });
      const refused = await confirm(agent, b, signed(b));
      expect(refused.error!.code, name).toBe(code);
      const read = await must<{ booking: Booking }>(agent, 'get_booking', { bookingId: b.id });
      expect(read.booking, name).toMatchObject({
        status: 'HELD',
        version: 1,
        payment: { status: 'PENDING' },
      });
    }
  });
});

describe('## 按需加载、分页与缓存 (loading on demand, paging and caching)', () => {
  it('1. tool search and slot search return structured candidates, not concatenated text', async () => {
    const tools = await agent.callTool({
      name: 'tool_catalog.search',
      arguments: { query: 'slot', limit: 3 },
    });
    const found = (tools.structuredContent as { data: { tools: Record<string, unknown>[] } }).data.tools;
    for (const tool of found)
      expect(Object.keys(tool).sort()).toEqual(['location', 'name', 'summary', 'title']);
    const { start } = nextSlot();
    const slots = await must(agent, 'find_slots', {
      calendarIds: [free],
      from: start,
      to: plusMinutes(start, 60),
      durationMinutes: 30,
      limit: 5,
    });
    for (const slot of slots.slots)
      expect(slot).toEqual({ start: expect.any(String), end: expect.any(String), local: expect.any(Object) });
  });

  it('2. cursors are opaque and bound to their query: reused with another query they are INVALID_CURSOR', async () => {
    const page = await call<{ nextCursor: string }>(agent, 'tool_catalog.search', { query: '', limit: 2 });
    const misused = await call(agent, 'tool_catalog.search', {
      query: 'booking',
      limit: 2,
      cursor: page.data!.nextCursor,
    });
    expect(misused.error!.code).toBe('INVALID_CURSOR');
    hour += 3;
    const from = futureHour(3, hour - 2);
    const query = { calendarIds: [free], from, to: plusMinutes(from, 120), durationMinutes: 30, limit: 1 };
    const slots = await must(agent, 'find_slots', query);
    const elsewhere = await run(agent, 'find_slots', {
      ...query,
      durationMinutes: 60,
      cursor: slots.nextCursor,
    });
    expect(elsewhere.error!.code).toBe('INVALID_CURSOR');
  });

  it('3. tool_catalog.read takes a 0-based offset and an explicit limit; answers totalLines, truncated, omittedLines, next and how to go on', async () => {
    const noLimit = await call(agent, 'tool_catalog.read', { tool: 'get_booking', offset: 0 });
    expect(noLimit.error).toMatchObject({ code: 'INVALID_ARGUMENTS', details: { field: 'limit' } });
    const middle = await call<Record<string, any>>(agent, 'tool_catalog.read', {
      tool: 'get_booking',
      offset: 3,
      limit: 4,
    });
    const d = middle.data!;
    expect(d.offset).toBe(3);
    expect(d.lines).toHaveLength(4);
    expect(d.omittedLines).toBe(d.totalLines - 7);
    expect(d.truncated).toBe(true);
    expect(d.next).toEqual({ offset: 7, limit: 4 });
    expect(d.continueWith).toBe(
      `${d.totalLines - 7} more lines: call tool_catalog.read with tool "get_booking", offset 7, limit 4.`,
    );
  });

  it('4. catalog search and read answers never change: byte-identical and marked cacheable (public, 24 h)', async () => {
    for (const [name, args] of [
      ['tool_catalog.search', { query: 'hold', limit: 3 }],
      ['tool_catalog.read', { tool: 'hold_slot', offset: 0, limit: 20 }],
    ] as const) {
      const first = await agent.callTool({ name, arguments: args });
      const again = await agent.callTool({ name, arguments: args });
      expect(JSON.stringify(again.structuredContent), name).toBe(JSON.stringify(first.structuredContent));
      expect(JSON.stringify(again.content), name).toBe(JSON.stringify(first.content));
      expect(first._meta, name).toMatchObject({ ttlMs: 86_400_000, cacheScope: 'public' });
    }
  });

  it('5. different: free slots are cached for at most 2 s, not 5 s; a write on one of the calendars drops them at once, a lapsed hold shows free within the 2 s', async () => {
    const client = await connect(short);
    hour += 3;
    const from = futureHour(3, hour - 2);
    const query = {
      calendarIds: [shortRoom],
      from,
      to: plusMinutes(from, 180),
      durationMinutes: 60,
      limit: 100,
    };
    const starts = (e: Envelope<{ slots: { start: string }[] }>) =>
      e.data!.slots.map((s) => Date.parse(s.start));
    expect((await run(client, 'find_slots', query)).meta.cache).toBe('MISS');
    const cached = await run<{ slots: { start: string }[] }>(client, 'find_slots', query);
    expect(cached.meta.cache).toBe('HIT');
    expect(starts(cached)).toContain(Date.parse(from));
    const held = await must<{ booking: Booking }>(client, 'hold_slot', {
      calendarIds: [shortRoom],
      start: from,
      end: plusMinutes(from, 60),
      idempotencyKey: randomUUID(),
    });
    const afterWrite = await run<{ slots: { start: string }[] }>(client, 'find_slots', query);
    expect(afterWrite.meta.cache).toBe('MISS');
    expect(starts(afterWrite)).not.toContain(Date.parse(from));
    await pastExpiry(held.booking, 2_100);
    const afterLapse = await run<{ slots: { start: string }[] }>(client, 'find_slots', query);
    expect(afterLapse.meta.cache).toBe('MISS');
    expect(starts(afterLapse)).toContain(Date.parse(from));
    await client.close();
  });

  it('6. SQLite runs in WAL: many reads at once all answer; writes are serialised by the database', async () => {
    const db = new Database(server.dbPath, { readonly: true });
    const journal = db.pragma('journal_mode', { simple: true });
    db.close();
    expect(journal).toBe('wal');
    const b = await hold(agent, free);
    const reads = await Promise.all(
      Array.from({ length: 8 }, (_, i) =>
        i % 2 === 0
          ? run(rival, 'list_calendars', { limit: 5 })
          : run(agent, 'get_booking', { bookingId: b.id }),
      ),
    );
    expect(reads.every((r) => r.ok)).toBe(true);
  });
});

describe('## 可观测性 (observability)', () => {
  it('1. each catalog action and each logical tool call logs a JSON line to stderr: source, RFC 3339 time, caller, action, duration, trace_id, span_id, operation_id', async () => {
    const search = await agent.callTool({
      name: 'tool_catalog.search',
      arguments: { query: 'slot', limit: 2 },
    });
    const listed = await run(agent, 'list_calendars', { limit: 1 });
    const actions: [string, string][] = [
      [(search._meta as { traceId: string }).traceId, 'tool_catalog.search'],
      [listed.meta.traceId, 'list_calendars'],
    ];
    for (const [traceId, action] of actions) {
      const line = await until(
        () => logLines(server).find((l) => l.trace_id === traceId && l.message === 'tool call'),
        `the log line of ${action}`,
      );
      expect(line).toMatchObject({
        tool: action,
        caller: { person: expect.any(String), connection: expect.any(String), tenant: 'local' },
        source: { transport: 'http', client: expect.any(String) },
        ms: expect.any(Number),
      });
      expect(line.time).toMatch(RFC3339);
      expect(line.span_id).toMatch(/^[\da-f]{16}$/);
      expect(line.operation_id).toMatch(UUID);
    }
  });

  it('2. the payment query is a child span of the call, and its W3C traceparent goes to the provider', async () => {
    const b = await hold();
    const traceId = hex(16);
    const answer = await agent.callTool({
      name: 'tool_catalog.call',
      arguments: {
        tool: 'confirm_booking',
        arguments: { bookingId: b.id, expectedVersion: 1, idempotencyKey: randomUUID(), ...signed(b) },
      },
      _meta: { traceparent: `00-${traceId}-${hex(8)}-01` },
    });
    const envelope = answer.structuredContent as unknown as Envelope;
    expect(envelope.error!.code).toBe('PAYMENT_PENDING');
    expect(envelope.meta.traceId).toBe(traceId);
    const payment = await until(
      () => receiver.spans.find((s) => s.traceId === traceId && s.name === 'payment.query'),
      'the payment span',
    );
    const asked = stub.requests.filter((r) => r.bookingId === b.id);
    expect(asked.at(-1)!.traceparent).toBe(`00-${traceId}-${payment.spanId}-01`);
    const parent = await until(
      () => receiver.spans.find((s) => s.spanId === payment.parentSpanId),
      'the payment span’s parent',
    );
    expect(parent.traceId).toBe(traceId);
  });

  it('3. different: the caller passes a W3C traceparent (in _meta or the HTTP header) instead of a UUID requestSpanId; its trace id is kept and every action gets a new 64-bit span id', async () => {
    const traceId = hex(16);
    const callerSpan = hex(8);
    const answers = [];
    for (let i = 0; i < 2; i++) {
      const result = await agent.callTool({
        name: 'tool_catalog.call',
        arguments: { tool: 'list_calendars', arguments: { limit: 1 } },
        _meta: { traceparent: `00-${traceId}-${callerSpan}-01` },
      });
      answers.push(
        (result.structuredContent as unknown as Envelope).meta as unknown as Record<string, string>,
      );
    }
    expect(answers.map((m) => m.traceId)).toEqual([traceId, traceId]);
    for (const meta of answers) expect(meta.spanId).toMatch(/^[\da-f]{16}$/);
    expect(new Set([callerSpan, ...answers.map((m) => m.spanId)]).size).toBe(3);
  });

  it('4. operation_id is a UUID of its own per action; span ids are not dressed up as UUIDs', async () => {
    const [a, b] = await Promise.all([run(agent, 'list_calendars', {}), run(rival, 'list_calendars', {})]);
    expect(a.meta.operationId).toMatch(UUID);
    expect(b.meta.operationId).toMatch(UUID);
    expect(a.meta.operationId).not.toBe(b.meta.operationId);
    expect((a.meta as unknown as { spanId: string }).spanId).not.toMatch(UUID);
  });

  it('5. the code speaks the OpenTelemetry API and the deployer’s exporter receives it (OTEL_EXPORTER_OTLP_ENDPOINT)', async () => {
    const traceId = hex(16);
    await agent.callTool({
      name: 'tool_catalog.call',
      arguments: { tool: 'list_calendars', arguments: {} },
      _meta: { traceparent: `00-${traceId}-${hex(8)}-01` },
    });
    const exported = await until(() => {
      const spans = receiver.spans.filter((s) => s.traceId === traceId);
      return spans.some((s) => s.name.startsWith('tool ')) ? spans : undefined;
    }, 'exported spans');
    expect(exported.length).toBeGreaterThan(1);
    expect(pkg.dependencies['@opentelemetry/api']).toBeDefined();
  });

  it('6. the client adapter stamps x-mcp-client-sent-at at the moment of sending and the same value in params._meta; the server never makes it up', async () => {
    const seen: { header: string | null; meta: unknown; before: number }[] = [];
    const recording: typeof fetch = (input, init) => {
      const body = JSON.parse(String(init?.body)) as { params?: { _meta?: Record<string, unknown> } };
      seen.push({
        header: new Headers(init?.headers).get('x-mcp-client-sent-at'),
        meta: body.params?._meta?.clientSentAt,
        before: Date.now(),
      });
      return fetch(input, init);
    };
    const client = await connectHttp(server.url, 'modern', { fetch: withClientTiming(recording) });
    await client.listTools();
    await client.close();
    expect(seen.length).toBeGreaterThanOrEqual(2);
    for (const request of seen) {
      expect(request.header).toMatch(RFC3339);
      expect(request.meta).toBe(request.header);
      expect(Date.parse(request.header!)).toBeLessThanOrEqual(request.before);
      expect(request.before - Date.parse(request.header!)).toBeLessThan(1_000);
    }
  });

  it('7. the server adds x-mcp-server-received-at and x-mcp-server-responded-at, repeats all three in result._meta, and the chain clientSentAt ≤ received ≤ resultCreated ≤ responded ≤ clientReceived holds', async () => {
    const sent = stamp();
    const answer = await postJsonRpc(
      server.url,
      server.agent.token,
      {
        id: 77,
        method: 'tools/call',
        params: {
          name: 'tool_catalog.call',
          arguments: { tool: 'list_calendars', arguments: {} },
          _meta: sent.meta,
        },
      },
      { ...sent.headers, 'mcp-name': 'tool_catalog.call' },
    );
    const clientReceived = Date.now();
    expect(answer.status).toBe(200);
    const received = answer.headers.get('x-mcp-server-received-at')!;
    const responded = answer.headers.get('x-mcp-server-responded-at')!;
    expect(answer.body.result._meta).toMatchObject({
      clientSentAt: sent.at,
      serverReceivedAt: received,
      serverRespondedAt: responded,
    });
    const created = answer.body.result.structuredContent.meta.serverResultCreatedAt as string;
    const chain = [sent.at, received, created, responded].map(Date.parse);
    expect([...chain, clientReceived]).toEqual([...chain, clientReceived].sort((x, y) => x - y));
  });

  it('8. a missing or malformed client time is HTTP 400 MISSING_CLIENT_TIMESTAMP, echoing the JSON-RPC id and inventing no client time', async () => {
    for (const [id, at] of [
      [41, undefined],
      ['not-a-time', 'yesterday'],
    ] as const) {
      const answer = await postJsonRpc(
        server.url,
        server.agent.token,
        {
          id,
          method: 'tools/list',
          params: { _meta: { ...MODERN_META, ...(at ? { clientSentAt: at } : {}) } },
        },
        at ? { 'x-mcp-client-sent-at': at } : {},
      );
      expect(answer.status).toBe(400);
      expect(answer.body.id).toBe(id);
      expect(answer.body.error.data).toEqual({ code: 'MISSING_CLIENT_TIMESTAMP' });
      expect(JSON.stringify(answer.body)).not.toContain('clientSentAt');
    }
  });

  it('9. the payment GET carries x-mcp-server-request-sent-at; the provider’s sending time and the local receipt time are logged', async () => {
    const b = await hold();
    const pending = await confirm(agent, b, signed(b));
    expect(pending.error!.code).toBe('PAYMENT_PENDING');
    const asked = stub.requests.filter((r) => r.bookingId === b.id).at(-1)!;
    expect(asked.sentAt).toMatch(RFC3339);
    expect(Math.abs(Date.parse(asked.sentAt!) - Date.now())).toBeLessThan(60_000);
    const line = await until(
      () =>
        logLines(server).find(
          (l) => l.message === 'payment provider answered' && l.trace_id === pending.meta.traceId,
        ),
      'the payment log line',
    );
    expect(line.received_at).toMatch(RFC3339);
    expect('provider_responded_at' in line).toBe(true);
  });

  it('10. tool answers are plain JSON, not an SSE stream', async () => {
    const sent = stamp();
    const answer = await postJsonRpc(
      server.url,
      server.agent.token,
      {
        id: 9,
        method: 'tools/call',
        params: { name: 'tool_catalog.search', arguments: { query: '', limit: 1 }, _meta: sent.meta },
      },
      { ...sent.headers, 'mcp-name': 'tool_catalog.search' },
    );
    expect(answer.status).toBe(200);
    expect(answer.headers.get('content-type')).toContain('application/json');
    expect(answer.body.result.structuredContent.ok).toBe(true);
  });
});

describe('## 最重要的测试场景 (the most important test scenarios)', () => {
  it('1. contention and release on expiry: of two people racing, one holds; once the hold lapses the other can', async () => {
    const mine = await connect(short);
    const theirs = await connect(short, shortRivalToken);
    const slot = nextSlot();
    const args = () => ({ calendarIds: [shortRoom], ...slot, idempotencyKey: randomUUID() });
    const [a, b] = await Promise.all([
      run<{ booking: Booking }>(mine, 'hold_slot', args()),
      run<{ booking: Booking }>(theirs, 'hold_slot', args()),
    ]);
    expect([a.ok, b.ok].filter(Boolean)).toHaveLength(1);
    const [winner, loser, loserClient] = a.ok ? [a, b, theirs] : [b, a, mine];
    expect(loser.error!.code).toBe('SLOT_UNAVAILABLE');
    await pastExpiry(winner.data!.booking);
    const later = await run<{ booking: Booking }>(loserClient, 'hold_slot', args());
    expect(later.data!.booking.status).toBe('HELD');
    await mine.close();
    await theirs.close();
  });

  it('2. query, then act: PENDING leaves the hold as it was; then PAID for the same query id confirms exactly once, even when two confirmations race', async () => {
    const b = await hold();
    const pending = await confirm(agent, b, signed(b));
    expect(pending.error!.code).toBe('PAYMENT_PENDING');
    expect(
      (await must<{ booking: Booking }>(agent, 'get_booking', { bookingId: b.id })).booking,
    ).toMatchObject({
      status: 'HELD',
      version: 1,
      payment: { status: 'PENDING' },
    });
    stub.paid(b.id);
    const raced = await Promise.all([confirm(agent, b, signed(b)), confirm(agent, b, signed(b))]);
    expect(raced.filter((r) => r.ok)).toHaveLength(1);
    expect(['VERSION_CONFLICT', 'INVALID_STATE']).toContain(raced.find((r) => !r.ok)!.error!.code);
    expect(new Set(stub.requests.filter((r) => r.bookingId === b.id).map((r) => r.bookingId))).toEqual(
      new Set([b.id]),
    );
    expect(
      (await must<{ booking: Booking }>(agent, 'get_booking', { bookingId: b.id })).booking,
    ).toMatchObject({
      status: 'CONFIRMED',
      version: 2,
      payment: { status: 'PAID' },
    });
  });

  it('3. a wrong amount rolls nothing forward: PAID for another amount leaves HELD / PENDING / version 1', async () => {
    const b = await hold();
    stub.paid(b.id, '499.99');
    const refused = await confirm(agent, b, signed(b));
    expect(refused.error!.code).toBe('PAYMENT_MISMATCH');
    expect(
      (await must<{ booking: Booking }>(agent, 'get_booking', { bookingId: b.id })).booking,
    ).toMatchObject({
      status: 'HELD',
      version: 1,
      payment: { status: 'PENDING' },
    });
  });

  it('4. idempotent replay and drifting arguments: the same key and arguments give the same booking, even at once; other arguments conflict', async () => {
    const slot = nextSlot();
    const args = { calendarIds: [free], ...slot, idempotencyKey: randomUUID() };
    const answers = await Promise.all(
      [1, 2, 3].map(() => run<{ booking: Booking }>(agent, 'hold_slot', args)),
    );
    expect(new Set(answers.map((a) => a.data!.booking.id)).size).toBe(1);
    expect(answers.filter((a) => a.meta.idempotentReplay)).toHaveLength(2);
    const drift = await run(agent, 'hold_slot', { ...args, end: plusMinutes(slot.end, 30) });
    expect(drift.error!.code).toBe('IDEMPOTENCY_CONFLICT');
    const listed = await must(agent, 'list_bookings', {
      calendarId: free,
      from: slot.start,
      to: slot.end,
      limit: 10,
    });
    expect(listed.total).toBe(1);
  });

  it('5. an approval past its time never reaches the payment provider', async () => {
    const b = await hold();
    stub.paid(b.id);
    const stale = await confirm(agent, b, signed(b, host, { approvedAt: new Date(Date.now() - 121_000) }));
    expect(stale.error!.code).toBe('APPROVAL_EXPIRED');
    expect(queriesFor(b.id)).toBe(0);
  });

  it('6. real modern discovery: the official client negotiates 2026-07-28 over Streamable HTTP, finds three tools, searches and calls a logical tool', async () => {
    const client = await connect(server);
    expect(client.getProtocolEra()).toBe('modern');
    expect((await client.listTools()).tools.map((t) => t.name).sort()).toEqual(CATALOG);
    const found = await call<{ tools: { name: string }[] }>(client, 'tool_catalog.search', {
      query: 'free slots',
      limit: 5,
    });
    expect(found.data!.tools.map((t) => t.name)).toContain('find_slots');
    const { start } = nextSlot();
    const slots = await run(client, 'find_slots', {
      calendarIds: [free],
      from: start,
      to: plusMinutes(start, 60),
      durationMinutes: 60,
      limit: 1,
    });
    expect(slots.data!.slots).toHaveLength(1);
    await client.close();
  });

  it('7. a black box in its own process: the built entry point is spawned, wire and log times are in order, and the process and its database are gone afterwards', async () => {
    expect(existsSync(CLI)).toBe(true);
    const own = await spawnServer(['--no-seed', '--profile', 'expert-booking']);
    const client = await connect(own);
    const sent = Date.now();
    const answer = await client.callTool({ name: 'tool_catalog.search', arguments: { query: '', limit: 1 } });
    const received = Date.now();
    const meta = answer._meta as Record<string, string>;
    const times = ['clientSentAt', 'serverReceivedAt', 'serverResultCreatedAt', 'serverRespondedAt'].map(
      (k) => Date.parse(meta[k]!),
    );
    expect([sent - 1, ...times, received]).toEqual([sent - 1, ...times, received].sort((x, y) => x - y));
    const line = await until(
      () => logLines(own).find((l) => l.trace_id === meta.traceId && l.message === 'tool call'),
      'the log line',
    );
    expect(Date.parse(line.time)).toBeGreaterThanOrEqual(times[1]!);
    expect(Date.parse(line.time)).toBeLessThanOrEqual(times[3]!);
    await client.close();
    await own.stop();
    expect(own.process.exitCode !== null || own.process.signalCode !== null).toBe(true);
    expect(existsSync(dirname(own.dbPath))).toBe(false);
  });
});

describe('## 假设与范围 (assumptions and scope)', () => {
  it('1. different: an empty database gets a demo tenant of three calendars (two people, one room priced 500.00 CNY, weekday hours) instead of three experts with six 2030 slots; calendars are managed with create_calendar and set_availability', async () => {
    const { calendars } = await must<{ calendars: { name: string; price: unknown; availability: any }[] }>(
      agent,
      'list_calendars',
      { limit: 100 },
    );
    const seeded = calendars.filter((c) => /\((consultant|physiotherapist|meeting room)\)$/.test(c.name));
    expect(seeded).toHaveLength(3);
    expect(seeded.filter((c) => c.price !== null)).toEqual([
      expect.objectContaining({ price: { amount: '500.00', currency: 'CNY' } }),
    ]);
    for (const c of seeded) expect(c.availability.weekly.mon).toHaveLength(1);
    const all = await call<{ tools: { name: string }[] }>(agent, 'tool_catalog.search', {
      query: '',
      limit: 50,
    });
    expect(all.data!.tools.map((t) => t.name)).toEqual(
      expect.arrayContaining(['create_calendar', 'set_availability']),
    );
  });

  it('2. times travel as RFC 3339 and are kept in UTC; a time without an offset, or epoch milliseconds, is refused rather than converted', async () => {
    const slot = nextSlot();
    const naive = await run(agent, 'hold_slot', {
      calendarIds: [free],
      start: slot.start.replace(/(\.000)?Z$/, ''),
      end: slot.end,
      idempotencyKey: randomUUID(),
    });
    expect(naive.error).toMatchObject({ code: 'INVALID_ARGUMENTS', details: { field: 'start' } });
    const epoch = await run(agent, 'hold_slot', {
      calendarIds: [free],
      start: Date.parse(slot.start),
      end: slot.end,
      idempotencyKey: randomUUID(),
    });
    expect(epoch.error).toMatchObject({ code: 'INVALID_ARGUMENTS', details: { field: 'start' } });
    const shanghai = new Date(Date.parse(slot.start) + 8 * 3_600_000)
      .toISOString()
      .replace(/\.000Z$/, '+08:00');
    const held = await must<{ booking: Booking }>(agent, 'hold_slot', {
      calendarIds: [free],
      start: shanghai,
      end: slot.end,
      idempotencyKey: randomUUID(),
    });
    expect(held.booking.start).toMatch(/Z$/);
    expect(Date.parse(held.booking.start)).toBe(Date.parse(slot.start));
  });

  it('3. the server never rewrites the caller’s clock: a client time 90 s behind is repeated as sent', async () => {
    const sent = stamp(new Date(Date.now() - 90_000).toISOString());
    const answer = await postJsonRpc(
      server.url,
      server.agent.token,
      {
        id: 3,
        method: 'tools/call',
        params: {
          name: 'tool_catalog.call',
          arguments: { tool: 'list_calendars', arguments: {} },
          _meta: sent.meta,
        },
      },
      { ...sent.headers, 'mcp-name': 'tool_catalog.call' },
    );
    expect(answer.status).toBe(200);
    expect(answer.body.result._meta.clientSentAt).toBe(sent.at);
    expect(answer.body.result.structuredContent.meta.clientSentAt).toBe(sent.at);
  });

  it('4. different: amounts are decimal strings (0–4 decimals: "500", "500.00", JPY "5"), never numbers; currencies three upper-case letters', async () => {
    const made = async (price: Record<string, unknown>) =>
      run(agent, 'create_calendar', {
        name: 'Priced',
        timeZone: 'UTC',
        availability: openAllWeek,
        price,
        idempotencyKey: randomUUID(),
      });
    expect((await made({ amount: '500.00', currency: 'CNY' })).ok).toBe(true);
    expect((await made({ amount: '5', currency: 'JPY' })).ok).toBe(true);
    expect((await made({ amount: 500, currency: 'CNY' })).error).toMatchObject({
      details: { field: 'price.amount' },
    });
    expect((await made({ amount: '5.00001', currency: 'CNY' })).error).toMatchObject({
      details: { field: 'price.amount' },
    });
    expect((await made({ amount: '500.00', currency: 'cny' })).error).toMatchObject({
      details: { field: 'price.currency' },
    });
  });

  it('5. callers are authenticated before the MCP handler and read only their own bookings; booking ids are unguessable', async () => {
    // One stamp for header and _meta: two calls of the clock may fall in different milliseconds.
    const sent = stamp();
    const anonymous = await fetch(server.url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        ...sent.headers,
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: { _meta: sent.meta } }),
    });
    expect(anonymous.status).toBe(401);
    const mine = await hold(agent, free);
    const theirs = await run(rival, 'get_booking', { bookingId: mine.id });
    expect(theirs.error!.code).toBe('NOT_FOUND');
    const other = await hold(agent, free);
    for (const id of [mine.id, other.id]) expect(id).toMatch(/^bk_[\w-]{20,}$/);
    expect(mine.id).not.toBe(other.id);
  });

  it('6. the payment page URL is the configured base and the booking id; Holdfast serves no payment page of its own', async () => {
    const b = await hold();
    expect(b.paymentUrl).toBe(`${PAY_BASE}${b.id}`);
    expect((await fetch(new URL(`/pay/${b.id}`, server.url))).status).toBe(404);
  });

  it('7. different: refunds, reconciliation and a back office are in scope: a cancelled paid booking owes a refund that a person settles (or asks the provider for), late money is flagged, and people work in a console', async () => {
    const b = await hold();
    stub.paid(b.id);
    const done = await confirm(agent, b, signed(b));
    const asked = await run(agent, 'cancel_booking', {
      bookingId: b.id,
      expectedVersion: done.data!.booking.version,
      idempotencyKey: randomUUID(),
    });
    expect(asked.error!.code).toBe('APPROVAL_REQUIRED');
    const approvalId = asked.error!.details.approvalId as string;
    expect((await runCli(['approvals', 'approve', approvalId, '--db', server.dbPath])).status).toBe(0);
    const cancelled = await must<{ booking: Booking }>(agent, 'cancel_booking', {
      bookingId: b.id,
      expectedVersion: done.data!.booking.version,
      idempotencyKey: randomUUID(),
      approval: { approvalId },
    });
    expect(cancelled.booking).toMatchObject({
      status: 'CANCELLED',
      payment: { refund: { status: 'DUE', amount: '500.00', currency: 'CNY' } },
    });
    const refund = await runCli(['payments', 'refund', b.id, '--db', server.dbPath, '--payments', 'http'], {
      env: { ...process.env, ...upstreams() },
    });
    expect(refund.status, refund.stderr).toBe(0);
    expect([...stub.refunds.values()].map((r) => r.bookingId)).toContain(b.id);
    const console = await fetch(new URL('/console', server.url), { redirect: 'manual' });
    expect(console.status).toBe(303);
    expect(console.headers.get('location')).toContain('/login');
  });
});

describe('## 项目结构 (project layout)', () => {
  it('1. each part of the contract’s layout has its Holdfast counterpart (layered, docs/architecture.md)', () => {
    const counterparts: [string, string][] = [
      ['src/booking-service.ts', 'src/app/booking/gated-booking.ts'],
      ['src/database.ts', 'src/adapters/storage/sqlite/migrations.ts'],
      ['src/tool-catalog.ts', 'src/adapters/mcp/catalog/catalog-tools.ts'],
      ['src/mcp-server.ts', 'src/adapters/mcp/server-factory.ts'],
      ['src/payment.ts', 'src/adapters/payment/http-payments.ts'],
      ['src/observability.ts', 'src/adapters/telemetry/trace-export.ts'],
      ['src/temporal-http.ts', 'src/client/client-timing.ts'],
      ['test/', 'test/e2e'],
      ['scripts/demo.ts', 'src/demo/demo.ts'],
      ['NOTES.md', 'docs/risks.md'],
    ];
    const missing = counterparts.filter(([, ours]) => !existsSync(join(ROOT, ours)));
    expect(missing).toEqual([]);
    expect(existsSync(join(ROOT, 'docs/architecture.md'))).toBe(true);
  });

  it('2. it is built on the official MCP TypeScript SDK (server, Node HTTP transport, client)', () => {
    for (const name of [
      '@modelcontextprotocol/server',
      '@modelcontextprotocol/node',
      '@modelcontextprotocol/client',
    ])
      expect(pkg.dependencies[name], name).toBeDefined();
  });
});
