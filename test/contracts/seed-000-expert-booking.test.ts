import { createHash, generateKeyPairSync, randomBytes, randomUUID } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import Database from 'better-sqlite3';
import canonicalize from 'canonicalize';
import { createTemporalClientFetch, withClientTiming } from 'holdfast/client-timing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readConfig } from '../../src/main/config/config.js';
import { DEFAULT_BOOKING_RULES } from '../../src/domain/availability/booking-rules.js';
import type { HostKey } from '../support/approvals.js';
import { attest, registerHost } from '../support/approvals.js';
import { futureHour, openAllWeek } from '../support/fixtures.js';
import { MODERN_META, postJsonRpc } from '../support/mcp-clients.js';
import { startOtlpReceiver } from '../support/otlp-receiver.js';
import { startPaymentStub } from '../support/payment-stub.js';
import { addAgent, identityDeps } from '../support/provision.js';
import type { RunningServer } from '../support/spawn-server.js';
import { CLI, runCli, runProcess, spawnCli, spawnServer, tempDbPath } from '../support/spawn-server.js';
import { insertOverlapDirectly } from '../support/forged-rows.js';

// Seed 000, "Expert Booking MCP Server" (docs/contracts/seeds/000_dfeeb10d065ff952.txt), served
// as itself by `holdfast serve --profile expert-booking`: the catalog of its four logical tools,
// its slotId, humanApproval and v1 intent, its codes, its 5-minute hold and 120 s + 5 s approval,
// its 5 s slot cache, its wire timing contract. Walked section by section in the seed's order;
// each `it` names the inventory rows it proves (docs/contracts/000-expert-booking.md). The one
// difference: an approval must be a person's recorded decision or a registered host's signature
// over the same v1 intent — an agent's copied object never confirms (the attack tests).

const ROOT = process.cwd();
const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as Record<string, any>;
const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
const CATALOG = ['tool_catalog.search', 'tool_catalog.read', 'tool_catalog.call'];
const LOGICAL = [
  'booking.confirm_booking',
  'booking.get_booking',
  'booking.hold_slot',
  'booking.search_available_slots',
];
const PAY_BASE = 'https://pay.example.com/pay/';
const RFC3339 = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:\d\d)$/;
const UUID = /^[\da-f]{8}-[\da-f]{4}-[1-8][\da-f]{3}-[89ab][\da-f]{3}-[\da-f]{12}$/;
const HEX32 = /^[\da-f]{32}$/;
const HEX16 = /^[\da-f]{16}$/;
/** A word only this file's experts carry, so their slots are told apart from the seeded ones. */
const WORD = `exp${randomBytes(3).toString('hex')}`;

interface Intent {
  amount: string | null;
  bookingId: string;
  currency: string | null;
  slotId: string;
  startsAt: string;
  version: number;
}

interface Booking {
  bookingId: string;
  slotId: string;
  expert: { expertId: string; name: string };
  startsAt: string;
  endsAt: string;
  status: string;
  version: number;
  customer: Record<string, unknown> | null;
  amount: string | null;
  currency: string | null;
  payment: { status: string; queryId: string; paidAt: string | null } | null;
  paymentUrl: string | null;
  heldAt: string;
  expiresAt: string | null;
  updatedAt: string;
  confirmationIntent: { intent: Intent; intentHash: string } | null;
}

interface Answer<D = Record<string, any>> {
  ok: boolean;
  data?: D;
  error?: {
    code: string;
    message: string;
    retryable: boolean;
    details: Record<string, any>;
    recovery: { action: string };
  };
  meta: Record<string, string>;
}

interface Slot {
  slotId: string;
  expert: { expertId: string; name: string; specialty: string | null };
  startsAt: string;
  endsAt: string;
  amount: string | null;
  currency: string | null;
}

let stub: Awaited<ReturnType<typeof startPaymentStub>>;
let receiver: Awaited<ReturnType<typeof startOtlpReceiver>>;
/** The contract's server: seeded experts, HTTP payments, OTLP export, policy attested. */
let server: RunningServer;
/** The same with 1-second holds, on a database that outlives a restart. */
let short: RunningServer;
const shortDb = tempDbPath();
/** The same with a clock the test moves (--dev-clock): the 120 s window and the 5 s cache. */
let clocked: RunningServer;
const clockDir = mkdtempSync(join(tmpdir(), 'holdfast-seed-000-clock-'));
const clockFile = join(clockDir, 'offset');
let host: HostKey;
let shortHost: HostKey;
let rivalToken: string;
let agent: Client;
let rival: Client;
let hour = 0;

const upstreams = () => ({ PAYMENT_QUERY_BASE_URL: stub.baseUrl, HOLDFAST_ALLOW_PRIVATE_UPSTREAMS: '1' });
const startShort = () =>
  spawnServer(['--no-seed', '--profile', 'expert-booking', '--payments', 'http', '--hold-ttl', '1'], {
    env: upstreams(),
    writePolicy: 'attested',
    dbPath: shortDb.path,
  });

/** The official client as the seed's host connects it: Streamable HTTP, createTemporalClientFetch. */
async function connect(s: RunningServer, token = s.agent.token): Promise<Client> {
  const client = new Client(
    { name: 'expert-host', version: '1.0.0' },
    { versionNegotiation: { mode: 'auto' } },
  );
  await client.connect(
    new StreamableHTTPClientTransport(new URL(s.url), {
      fetch: createTemporalClientFetch(),
      requestInit: { headers: { Authorization: `Bearer ${token}` } },
    }),
  );
  return client;
}

/** One MCP tool's answer: the envelope, checked against the text content and isError. */
async function tool<D = Record<string, any>>(
  client: Client,
  name: string,
  args: Record<string, unknown>,
  meta?: Record<string, unknown>,
): Promise<Answer<D>> {
  const result = (await client.callTool({ name, arguments: args, ...(meta ? { _meta: meta } : {}) })) as {
    isError?: boolean;
    content: { type: string; text: string }[];
    structuredContent: Answer<D>;
  };
  expect(Boolean(result.isError)).toBe(!result.structuredContent.ok);
  return result.structuredContent;
}

/** A logical tool through tool_catalog.call, as the seed's agents call them. */
const run = <D = Record<string, any>>(
  client: Client,
  name: string,
  args: Record<string, unknown>,
  meta?: Record<string, unknown>,
) => tool<D>(client, 'tool_catalog.call', { tool: name, arguments: args }, meta);

async function must<D = Record<string, any>>(client: Client, name: string, args: Record<string, unknown>) {
  const answer = await run<D>(client, name, args);
  if (!answer.ok) throw new Error(`${name} failed: ${JSON.stringify(answer.error)}`);
  return answer.data!;
}

/** An expert of this file's own, open all week in hour slots (an operator adds them; no tool does). */
async function addExpert(
  db: string,
  name: string,
  tags: string[],
  price: { amount: string; currency: string } | null,
) {
  const { deps, close } = await identityDeps(db);
  try {
    const id = `cal_${randomBytes(12).toString('base64url')}`;
    await deps.store.write((tx) =>
      tx.calendars.insert({
        id,
        tenantId: 'local',
        name,
        timeZone: 'UTC',
        price,
        availability: openAllWeek,
        description: `Expert of the seed-000 contract tests (${WORD}).`,
        tags,
        rules: {
          ...DEFAULT_BOOKING_RULES,
          allowedDurationsMinutes: [60],
          slotStepMinutes: 60,
          maximumHorizonDays: 60,
        },
        createdAt: Date.now(),
        version: 1,
      }),
    );
    return id;
  } finally {
    await close();
  }
}

/** The slot of `expertWord` that starts `h` hours after the hour three days from now. */
async function slotAt(client: Client, expertWord: string, h: number, offsetMs = 0): Promise<Slot> {
  // A moved clock moves the window by whole hours, so the window still holds one slot.
  const from = new Date(
    Date.parse(futureHour(3, h)) + Math.ceil(offsetMs / 3_600_000) * 3_600_000,
  ).toISOString();
  const found = await must<{ slots: Slot[] }>(client, 'booking.search_available_slots', {
    query: `${WORD} ${expertWord}`,
    limit: 1,
    from,
    to: new Date(Date.parse(from) + 3_600_000).toISOString(),
  });
  if (found.slots.length !== 1) throw new Error(`no slot of ${expertWord} at +${h} h`);
  return found.slots[0]!;
}

/** A slot nobody in this file has used yet, of the priced expert unless told. */
async function nextSlot(client: Client = agent, expertWord = 'ai', offsetMs = 0): Promise<Slot> {
  hour += 1;
  return slotAt(client, expertWord, hour, offsetMs);
}

const customer = { name: 'Lin Wei', email: 'Lin.Wei@Example.COM' };

async function hold(client: Client = agent, expertWord = 'ai', offsetMs = 0): Promise<Booking> {
  const slot = await nextSlot(client, expertWord, offsetMs);
  const { booking } = await must<{ booking: Booking }>(client, 'booking.hold_slot', {
    slotId: slot.slotId,
    customer,
    idempotencyKey: randomUUID(),
  });
  return booking;
}

/** The seed's humanApproval, intent and hash copied from confirmationIntent, approvedAt now. */
function approvalOf(b: Booking, approvalId: string = randomUUID(), approvedAt = new Date()) {
  return {
    approvalId,
    decision: 'APPROVE',
    approvedAt: approvedAt.toISOString(),
    intent: b.confirmationIntent!.intent,
    intentHash: b.confirmationIntent!.intentHash,
  };
}

/** The same, signed by a registered host (policy attested): what its application sends. */
function signedBy(b: Booking, key: HostKey | null = host, options: Parameters<typeof attest>[2] = {}) {
  const signed = attest(b.confirmationIntent!, key, options);
  return {
    ...approvalOf(b, signed.approvalId, new Date(signed.approvedAt)),
    intentHash: options.intentHash ?? b.confirmationIntent!.intentHash,
    hostId: signed.hostId,
    signature: signed.signature,
  };
}

const confirm = (
  client: Client,
  b: { bookingId: string; version: number },
  humanApproval: Record<string, unknown>,
  key: string = randomUUID(),
) =>
  run<{ booking: Booking }>(client, 'booking.confirm_booking', {
    bookingId: b.bookingId,
    expectedVersion: b.version,
    idempotencyKey: key,
    humanApproval,
  });

/** The person's way: the agent asks, the person approves (the operator's CLI here), the approval id. */
async function personApproves(
  client: Client,
  b: Booking,
  s: RunningServer = server,
  env = {},
): Promise<string> {
  const asked = await confirm(
    client,
    b,
    approvalOf(b, randomUUID(), s === clocked ? clockedNow() : new Date()),
  );
  expect(asked.error?.code).toBe('APPROVAL_REQUIRED');
  const approvalId = asked.error!.details.approvalId as string;
  const approved = await runCli(['approvals', 'approve', approvalId, '--db', s.dbPath], {
    env: { ...process.env, ...env },
  });
  expect(approved.status, approved.stderr).toBe(0);
  return approvalId;
}

const queriesFor = (bookingId: string) => stub.requests.filter((r) => r.bookingId === bookingId).length;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const hex = (bytes: number) => randomBytes(bytes).toString('hex');
const v1Hash = (intent: unknown) =>
  `sha256:${createHash('sha256').update(canonicalize(intent)!, 'utf8').digest('hex')}`;

/** Waits until the server's own clock has passed the hold's expiry (plus `extraMs`). */
async function pastExpiry(b: { expiresAt: string | null }, extraMs = 300) {
  const wait = Date.parse(b.expiresAt!) + extraMs - Date.now();
  if (wait > 0) await sleep(wait);
}

/** Moves the clocked server's time (and its CLI's) this far from the real time. */
let offsetMs = 0;
const moveClock = (ms: number) => {
  offsetMs += ms;
  writeFileSync(clockFile, String(offsetMs));
};
const clockedNow = () => new Date(Date.now() + offsetMs);

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

/** A logical tool's fixed schema document, read whole through tool_catalog.read. */
async function schemaOf(name: string): Promise<Record<string, any>> {
  const read = await tool<{ lines: string[] }>(agent, 'tool_catalog.read', {
    tool: name,
    offset: 0,
    limit: 1000,
  });
  return JSON.parse(read.data!.lines.join('\n')) as Record<string, any>;
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
  writeFileSync(clockFile, '0');
  [stub, receiver] = await Promise.all([startPaymentStub(), startOtlpReceiver()]);
  [server, short, clocked] = await Promise.all([
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
    spawnServer(
      ['--no-seed', '--profile', 'expert-booking', '--payments', 'http', '--dev-clock', clockFile],
      {
        env: upstreams(),
        writePolicy: 'attested',
      },
    ),
  ]);
  // Every token has policy attested: a person may approve (in the console; here the operator's
  // CLI) or a registered host may sign; the model can do neither.
  const people = async (db: string) => [await registerHost(db), await secondPerson(db)] as const;
  const [main, lapsing] = await Promise.all([people(server.dbPath), people(shortDb.path)]);
  [host, rivalToken] = main;
  [shortHost] = lapsing;
  for (const s of [server, short, clocked]) {
    await addExpert(s.dbPath, 'Dr. Ada Chen', ['ai', WORD], { amount: '500.00', currency: 'CNY' });
    await addExpert(s.dbPath, 'Ravi Patel', ['intro', WORD], null);
  }
  agent = await connect(server);
  rival = await connect(server, rivalToken);
});

afterAll(async () => {
  await agent?.close();
  await rival?.close();
  await Promise.all([server?.stop(), short?.stop(), clocked?.stop()]);
  shortDb.cleanup();
  rmSync(clockDir, { recursive: true, force: true });
  await Promise.all([stub?.close(), receiver?.close()]);
});

describe('# Expert Booking MCP Server (opening paragraph)', () => {
  it('[000-intro-1 000-intro-2 000-intro-3 000-intro-4] an expert-booking server with progressive discovery: Streamable HTTP at /mcp, the 2026-07-28 server/discover, named Expert Booking MCP Server', async () => {
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
    // 2026-07-28 names the server in every result's _meta (it left DiscoverResult).
    expect(answer.body.result._meta['io.modelcontextprotocol/serverInfo']).toMatchObject({
      name: 'expert-booking-mcp',
      title: 'Expert Booking MCP Server',
    });
    // Progressive: tools/list is the catalog; the booking tools are found through it.
    expect((await agent.listTools()).tools.map((t) => t.name).sort()).toEqual([...CATALOG].sort());
  });

  it('[000-intro-5 000-intro-6] the legacy stateless/SSE fallback is refused outright, never silently downgraded, so every answer carries its times', async () => {
    const legacy = await new Client({ name: 'old', version: '1' })
      .connect(
        new StreamableHTTPClientTransport(new URL(server.url), {
          fetch: withClientTiming(),
          requestInit: { headers: { Authorization: `Bearer ${server.agent.token}` } },
        }),
      )
      .then(
        () => 'connected',
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
  it('[000-verify-1] `npm install && npm test` verifies: the package has its test command and the README names it', () => {
    expect(pkg.scripts.test).toMatch(/scripts\/test\.mjs/);
    expect(existsSync(join(ROOT, 'scripts/test.mjs'))).toBe(true);
    expect(readme).toContain('npm test');
  });

  it('[000-verify-2 000-verify-3 000-verify-4] the tests start the real Streamable HTTP entry point and drive it with the official client, state machine included', async () => {
    expect(CLI).toBe(join(ROOT, 'dist/bin/holdfast.js'));
    expect(server.process.spawnargs).toContain(CLI);
    expect(server.process.spawnargs).toEqual(
      expect.arrayContaining(['serve', '--profile', 'expert-booking']),
    );
    expect(agent).toBeInstanceOf(Client);
    expect(agent.getProtocolEra()).toBe('modern');
    // The state machine's transitions are exercised below (状态机与事务); here one HELD → CONFIRMED.
    const b = await hold(agent, 'intro');
    const done = await confirm(agent, b, signedBy(b));
    expect(done.data!.booking.status).toBe('CONFIRMED');
  });

  it('[000-verify-5 000-verify-6 000-install-prompt-8] `npm run demo -- --profile expert-booking` is a complete, repeatable demo of the seed’s flow', async () => {
    expect(pkg.scripts.demo).toContain('dist/demo/demo.js');
    const demo = await runProcess(
      process.execPath,
      [join(ROOT, 'dist/demo/demo.js'), '--profile', 'expert-booking'],
      {
        cwd: ROOT,
      },
    );
    expect(demo.status, demo.stderr).toBe(0);
    for (const step of [
      'booking.search_available_slots',
      'booking.hold_slot',
      'APPROVAL_REQUIRED',
      'PAYMENT_PENDING',
      'CONFIRMED',
    ])
      expect(demo.stdout, step).toContain(step);
    const again = await runProcess(
      process.execPath,
      [join(ROOT, 'dist/demo/demo.js'), '--profile', 'expert-booking'],
      {
        cwd: ROOT,
      },
    );
    expect(again.status).toBe(0);
    const steps = (out: string) => out.split('\n').filter((l) => /^\s*\d+\. /.test(l));
    expect(steps(again.stdout)).toEqual(steps(demo.stdout));
  });

  it('[000-verify-7 000-verify-8 000-verify-9 000-verify-10 000-verify-11] `cp .env.example .env; set -a; source .env; set +a; npm run dev` serves the profile, persistently, at http://127.0.0.1:3000/mcp', async () => {
    const sourced = await runProcess(
      'bash',
      [
        '-c',
        'set -a; source .env.example; set +a; printf "%s %s %s" "$HOLDFAST_HOST" "${HOLDFAST_PORT:-3000}" "$HOLDFAST_DB"',
      ],
      { cwd: ROOT },
    );
    expect(sourced.status, sourced.stderr).toBe(0);
    expect(sourced.stderr).toBe('');
    expect(sourced.stdout).toBe('127.0.0.1 3000 ./data/holdfast.db');
    expect(pkg.scripts.dev).toBe('node scripts/dev.mjs');
    // The variables (not a file the server reads itself) choose the profile, and the data lives on disk.
    const config = readConfig(['serve'], { HOLDFAST_PROFILE: 'expert-booking' });
    expect([config.profile, config.host, config.port, config.database]).toEqual([
      'expert-booking',
      '127.0.0.1',
      3000,
      'data/holdfast.db',
    ]);
    expect(readFileSync(join(ROOT, '.env.example'), 'utf8')).toMatch(/expert-booking/);
  });

  it('[000-verify-12] production is `npm run build && npm start`', () => {
    expect(pkg.scripts.build).toContain('tsc');
    expect(pkg.scripts.start).toMatch(/npm run build.*&& node dist\/bin\/holdfast\.js serve/);
  });

  it('[000-verify-13 000-verify-14] it binds localhost by default, with Host/Origin checks', async () => {
    expect(readConfig(['serve'], {}).host).toBe('127.0.0.1');
    expect(await rawStatus({ host: `127.0.0.1:${server.port}` })).toBe(200);
    expect(await rawStatus({ host: 'evil.example' })).toBe(403);
    expect(await rawStatus({ origin: 'https://evil.example' })).toBe(403);
  });

  it('[000-verify-15 000-scope-10 000-scope-12] attack: no credential, or another person’s, reads and writes nothing — where the seed has no account authentication', async () => {
    const db = tempDbPath();
    const remote = await spawnCli(['serve', '--host', '0.0.0.0', '--port', '0', '--db', db.path]);
    db.cleanup();
    expect(remote.status).not.toBe(0);
    expect(remote.stderr).toContain('Refusing to bind 0.0.0.0');
    const mine = await hold(agent, 'intro');
    let succeeded = 0;
    for (const token of ['', 'hf_pat_guessed', server.agent.token.slice(0, -2) + 'xx']) {
      const sent = stamp();
      const res = await fetch(server.url, {
        method: 'POST',
        headers: {
          ...(token ? { authorization: `Bearer ${token}` } : {}),
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          'mcp-protocol-version': '2026-07-28',
          'mcp-method': 'tools/call',
          'mcp-name': 'tool_catalog.call',
          ...sent.headers,
        },
        body: JSON.stringify({
          jsonrpc: '2.0',
          id: 1,
          method: 'tools/call',
          params: {
            name: 'tool_catalog.call',
            arguments: { tool: 'booking.get_booking', arguments: { bookingId: mine.bookingId } },
            _meta: sent.meta,
          },
        }),
      });
      if (res.status === 200) succeeded++;
      expect(res.status).toBe(401);
    }
    // Another person's agent: the booking is as if it did not exist, and it cannot be confirmed.
    const read = await run(rival, 'booking.get_booking', { bookingId: mine.bookingId });
    const taken = await confirm(rival, mine, signedBy(mine));
    for (const answer of [read, taken]) if (answer.ok) succeeded++;
    expect(read.error!.code).toBe('NOT_FOUND');
    expect(taken.error!.code).toBe('NOT_FOUND');
    expect(succeeded).toBe(0);
  });

  it('[000-verify-16 000-structure-10] the design motives, real risks and what is not covered are written down (NOTES.md’s counterpart: docs/risks.md)', () => {
    const risks = readFileSync(join(ROOT, 'docs/risks.md'), 'utf8');
    expect(risks).toContain('## In scope');
    expect(risks).toContain('## Out of scope');
    expect(risks).toContain('## Risks and what answers them');
    expect(readme).toContain('(docs/risks.md)');
  });
});

describe('## 给本地 Agent 的安装提示词 (the install prompt for a local agent)', () => {
  it('[000-install-prompt-1] the server the agent installs and connects names itself expert-booking-mcp', () => {
    expect(agent.getServerVersion()).toMatchObject({
      name: 'expert-booking-mcp',
      title: 'Expert Booking MCP Server',
    });
  });

  it('[000-install-prompt-2] Node.js >= 22 with `npm ci`: the engines range admits Node 22 and 24, and the lockfile is committed', () => {
    const majors = (pkg.engines.node as string).split('||').map((part) => Number(/\d+/.exec(part)![0]));
    expect(majors).toEqual(expect.arrayContaining([22, 24]));
    const lock = JSON.parse(readFileSync(join(ROOT, 'package-lock.json'), 'utf8')) as {
      lockfileVersion: number;
    };
    expect(lock.lockfileVersion).toBeGreaterThanOrEqual(2);
  });

  it('[000-install-prompt-3] `cp .env.example .env && npm run dev`: with .env.example’s values and the profile the server is http://127.0.0.1:3000/mcp', () => {
    const env = Object.fromEntries(
      readFileSync(join(ROOT, '.env.example'), 'utf8')
        .split('\n')
        .filter((line) => /^[A-Z_][A-Z0-9_]*=/.test(line))
        .map((line) => [line.slice(0, line.indexOf('=')), line.slice(line.indexOf('=') + 1)]),
    );
    expect(Object.keys(env).length).toBeGreaterThan(10);
    const config = readConfig(['serve'], { ...env, HOLDFAST_PROFILE: 'expert-booking' });
    expect([config.host, config.port, config.profile, config.timingContract]).toEqual([
      '127.0.0.1',
      3000,
      'expert-booking',
      true,
    ]);
  });

  it('[000-install-prompt-4] a Streamable HTTP server: the profile answers at /mcp; nothing in its setup needs stdio', async () => {
    expect(server.process.spawnargs).toContain('serve');
    expect((await fetch(new URL('/mcp', server.url), { method: 'POST' })).status).not.toBe(404);
  });

  it('[000-install-prompt-5] the client reuses createTemporalClientFetch (holdfast/temporal-http, holdfast/client-timing) to send the times the server requires', async () => {
    for (const entry of ['./client-timing', './temporal-http'])
      expect(pkg.exports[entry].default, entry).toBe('./dist/bin/client-timing.js');
    const exported = (await import('holdfast/temporal-http')) as Record<string, unknown>;
    expect(exported.createTemporalClientFetch).toBe(createTemporalClientFetch);
    const answered: number[] = [];
    const recording: typeof fetch = async (input, init) => {
      const response = await fetch(input, init);
      answered.push(response.status);
      return response;
    };
    const unstamped = await new Client(
      { name: 'bare', version: '1' },
      { versionNegotiation: { mode: 'auto' } },
    )
      .connect(
        new StreamableHTTPClientTransport(new URL(server.url), {
          fetch: recording,
          requestInit: { headers: { Authorization: `Bearer ${server.agent.token}` } },
        }),
      )
      .then(
        () => true,
        () => false,
      );
    expect(unstamped).toBe(false);
    expect(answered[0]).toBe(400);
    const stamped = await connect(server);
    expect(stamped.getProtocolEra()).toBe('modern');
    await stamped.close();
  });

  it('[000-install-prompt-6 000-install-prompt-7] once connected, tools/list finds tool_catalog.search, read and call, and through them the booking tools are searched, read and called', async () => {
    expect((await agent.listTools()).tools.map((t) => t.name).sort()).toEqual([...CATALOG].sort());
    const found = await tool<{ tools: { name: string }[] }>(agent, 'tool_catalog.search', {
      query: 'booking',
      limit: 10,
    });
    expect(found.data!.tools.map((t) => t.name).sort()).toEqual(LOGICAL);
    expect((await schemaOf('booking.get_booking')).inputSchema.required).toEqual(['bookingId']);
    const b = await hold(agent, 'intro');
    const read = await run<{ booking: Booking }>(agent, 'booking.get_booking', { bookingId: b.bookingId });
    expect(read.data!.booking).toMatchObject({ bookingId: b.bookingId, status: 'HELD' });
    // Called by name instead, a logical tool is not an MCP tool.
    await expect(
      agent.callTool({ name: 'booking.get_booking', arguments: { bookingId: b.bookingId } }),
    ).rejects.toThrow(/not found/);
  });

  it('[000-install-prompt-9 000-payment-seam-7] the user pays outside the agent: no tool pays; a priced hold points the user at the payment page', async () => {
    const all = await tool<{ tools: { name: string }[]; total: number }>(agent, 'tool_catalog.search', {
      query: '',
      limit: 50,
    });
    expect(all.data!.tools).toHaveLength(all.data!.total);
    expect(all.data!.tools.map((t) => t.name).filter((name) => /pay|charge|refund/i.test(name))).toEqual([]);
    const b = await hold();
    expect(b.paymentUrl).toBe(`${PAY_BASE}${b.bookingId}`);
    expect(b.payment).toMatchObject({ status: 'PENDING', paidAt: null });
  });

  it('[000-install-prompt-10] argument, client-time and Host/Origin checks cannot be switched off: no option or variable turns them off under the profile', () => {
    const off = readConfig(['serve'], { HOLDFAST_PROFILE: 'expert-booking', HOLDFAST_TIMING_CONTRACT: '0' });
    expect(off.timingContract).toBe(true);
    const help = readFileSync(join(ROOT, 'docs/cli.md'), 'utf8');
    expect(help).not.toMatch(/--no-(validation|host-check|origin-check|timing)/);
    // --allowed-host adds names to the check; it never removes the check.
    const allowed = readConfig(['serve', '--allowed-host', 'booking.example.com'], {});
    expect(allowed.allowedHosts).toEqual(['booking.example.com']);
  });
});

describe('## Agent 使用流程 (how an agent uses it)', () => {
  it('[000-agent-flow-1 000-agent-flow-16] tools/list returns only the three catalog tools, small and the same every time', async () => {
    const first = await agent.listTools();
    const again = await agent.listTools();
    expect(first.tools.map((t) => t.name).sort()).toEqual([...CATALOG].sort());
    expect(JSON.stringify(again.tools)).toBe(JSON.stringify(first.tools));
    // Small: under 8 KB (about 2,000 tokens) however many logical tools there are.
    expect(JSON.stringify(first.tools).length).toBeLessThan(8_000);
  });

  it('[000-agent-flow-2 000-agent-flow-3 000-agent-flow-17] tool_catalog.search pre-filters: title, tool:// location, summary, total and nextCursor; the host keeps only the names', async () => {
    const page = await tool<{
      tools: { name: string; title: string; location: string; summary: string }[];
      total: number;
      nextCursor: string | null;
    }>(agent, 'tool_catalog.search', { query: 'booking', limit: 2 });
    expect(page.data!.tools).toHaveLength(2);
    expect(page.data!.total).toBe(4);
    expect(page.data!.nextCursor).toEqual(expect.any(String));
    for (const found of page.data!.tools) {
      expect(Object.keys(found).sort()).toEqual(['location', 'name', 'summary', 'title']);
      expect(found.location).toBe(`tool://holdfast/${found.name}`);
      expect(found.title.length).toBeGreaterThan(0);
      expect(found.summary.length).toBeGreaterThan(0);
    }
    const rest = await tool<{ tools: { name: string }[]; nextCursor: string | null }>(
      agent,
      'tool_catalog.search',
      {
        query: 'booking',
        limit: 2,
        cursor: page.data!.nextCursor,
      },
    );
    expect([...page.data!.tools, ...rest.data!.tools].map((t) => t.name).sort()).toEqual(LOGICAL);
    expect(rest.data!.nextCursor).toBeNull();
    const slots = await tool<{ tools: { name: string }[] }>(agent, 'tool_catalog.search', {
      query: 'slot',
      limit: 10,
    });
    expect(slots.data!.tools.map((t) => t.name)).toEqual([
      'booking.hold_slot',
      'booking.search_available_slots',
    ]);
  });

  it('[000-agent-flow-4 000-agent-flow-5] tool_catalog.read reads the fixed, complete schema by offset/limit and says what was cut and where to go on', async () => {
    const piece = await tool<Record<string, any>>(agent, 'tool_catalog.read', {
      tool: 'tool://holdfast/booking.hold_slot',
      offset: 0,
      limit: 10,
    });
    const d = piece.data!;
    expect(d.lines).toHaveLength(10);
    expect(d.truncated).toBe(true);
    expect(d.omittedLines).toBe(d.totalLines - 10);
    expect(d.next).toEqual({ offset: 10, limit: 10 });
    const whole = await schemaOf('booking.hold_slot');
    expect(Object.keys(whole)).toEqual(
      expect.arrayContaining(['name', 'description', 'inputSchema', 'outputSchema', 'annotations']),
    );
    expect(whole.inputSchema.required.sort()).toEqual(['customer', 'idempotencyKey', 'slotId']);
  });

  it('[000-agent-flow-6 000-agent-flow-19] tool_catalog.call hands the arguments over untouched: values come back as given, nothing is coerced', async () => {
    const given = { name: '  Lin  Wei ', email: 'Lin.Wei@Example.COM', notes: 'Prefers Mandarin\tplease' };
    const slot = await nextSlot();
    const { booking } = await must<{ booking: Booking }>(agent, 'booking.hold_slot', {
      slotId: slot.slotId,
      customer: given,
      idempotencyKey: randomUUID(),
    });
    expect(booking.customer).toEqual(given);
    const coerced = await run(agent, 'booking.search_available_slots', { query: WORD, limit: '1' });
    expect(coerced.error).toMatchObject({ code: 'INVALID_ARGUMENTS', details: { field: 'limit' } });
  });

  it('[000-agent-flow-7] the catalog holds exactly the four fixed logical tools', async () => {
    const all = await tool<{ tools: { name: string }[]; total: number }>(agent, 'tool_catalog.search', {
      query: '',
      limit: 50,
    });
    expect(all.data!.total).toBe(4);
    expect(all.data!.tools.map((t) => t.name).sort()).toEqual(LOGICAL);
    for (const holdfasts of ['find_slots', 'hold_slot', 'confirm_booking', 'create_calendar']) {
      const read = await tool(agent, 'tool_catalog.read', { tool: holdfasts, offset: 0, limit: 5 });
      expect(read.error, holdfasts).toMatchObject({ code: 'NOT_FOUND', details: { field: 'tool' } });
    }
  });

  it('[000-agent-flow-8 000-agent-flow-9] booking.search_available_slots takes query, an explicit limit, optional time and specialty filters and a cursor; answers structured candidates, total and nextCursor', async () => {
    const schema = (await schemaOf('booking.search_available_slots')).inputSchema;
    expect(schema.required.sort()).toEqual(['limit', 'query']);
    expect(Object.keys(schema.properties).sort()).toEqual([
      'cursor',
      'from',
      'limit',
      'query',
      'specialty',
      'to',
    ]);
    const noLimit = await run(agent, 'booking.search_available_slots', { query: WORD });
    expect(noLimit.error).toMatchObject({ code: 'INVALID_ARGUMENTS', details: { field: 'limit' } });
    hour += 4;
    const from = futureHour(3, hour - 3);
    const window = { query: WORD, from, to: new Date(Date.parse(from) + 3 * 3_600_000).toISOString() };
    const page1 = await must<{ slots: Slot[]; total: number; nextCursor: string }>(
      agent,
      'booking.search_available_slots',
      {
        ...window,
        limit: 4,
      },
    );
    // Two experts of this file, three free hours each.
    expect(page1.total).toBe(6);
    expect(page1.slots).toHaveLength(4);
    for (const slot of page1.slots) {
      expect(Object.keys(slot).sort()).toEqual([
        'amount',
        'currency',
        'endsAt',
        'expert',
        'slotId',
        'startsAt',
      ]);
      expect(Date.parse(slot.endsAt) - Date.parse(slot.startsAt)).toBe(3_600_000);
      expect(slot.slotId).toMatch(/^slot_[\w-]+$/);
    }
    const page2 = await must<{ slots: Slot[]; nextCursor: string | null }>(
      agent,
      'booking.search_available_slots',
      {
        ...window,
        limit: 4,
        cursor: page1.nextCursor,
      },
    );
    expect(page2.slots).toHaveLength(2);
    expect(page2.nextCursor).toBeNull();
    expect(new Set([...page1.slots, ...page2.slots].map((s) => s.slotId)).size).toBe(6);
    const ai = await must<{ slots: Slot[]; total: number }>(agent, 'booking.search_available_slots', {
      ...window,
      specialty: 'AI',
      limit: 10,
    });
    expect(ai.total).toBe(3);
    expect(new Set(ai.slots.map((s) => s.expert.name))).toEqual(new Set(['Dr. Ada Chen']));
    expect(ai.slots[0]).toMatchObject({ amount: '500.00', currency: 'CNY', expert: { specialty: 'ai' } });
  });

  it('[000-agent-flow-10 000-agent-flow-11] booking.hold_slot takes the slotId, the customer as given and a UUID key; answers a five-minute exclusive hold, the payment page, the whole snapshot and the server’s confirmationIntent', async () => {
    const slot = await nextSlot();
    const notUuid = await run(agent, 'booking.hold_slot', {
      slotId: slot.slotId,
      customer,
      idempotencyKey: 'retry-1',
    });
    expect(notUuid.error).toMatchObject({ code: 'INVALID_ARGUMENTS', details: { field: 'idempotencyKey' } });
    const forged = await run(agent, 'booking.hold_slot', {
      slotId: 'slot-ai-001',
      customer,
      idempotencyKey: randomUUID(),
    });
    expect(forged.error).toMatchObject({ code: 'INVALID_ARGUMENTS', details: { field: 'slotId' } });
    const { booking: b } = await must<{ booking: Booking }>(agent, 'booking.hold_slot', {
      slotId: slot.slotId,
      customer,
      idempotencyKey: randomUUID(),
    });
    expect(Date.parse(b.expiresAt!) - Date.parse(b.heldAt)).toBe(300_000);
    expect(b).toMatchObject({
      slotId: slot.slotId,
      expert: { expertId: slot.expert.expertId, name: 'Dr. Ada Chen' },
      startsAt: slot.startsAt,
      endsAt: slot.endsAt,
      status: 'HELD',
      version: 1,
      customer,
      amount: '500.00',
      currency: 'CNY',
      payment: { status: 'PENDING', queryId: b.bookingId, paidAt: null },
      paymentUrl: `${PAY_BASE}${b.bookingId}`,
    });
    expect(b.confirmationIntent).toEqual({
      intent: {
        amount: '500.00',
        bookingId: b.bookingId,
        currency: 'CNY',
        slotId: slot.slotId,
        startsAt: slot.startsAt,
        version: 1,
      },
      intentHash: v1Hash(b.confirmationIntent!.intent),
    });
    const taken = await run(rival, 'booking.hold_slot', {
      slotId: slot.slotId,
      customer,
      idempotencyKey: randomUUID(),
    });
    expect(taken.error!.code).toBe('SLOT_UNAVAILABLE');
  });

  it('[000-agent-flow-12 000-agent-flow-13] booking.confirm_booking takes bookingId, expectedVersion, a UUID key and an approval bound to the intent within two minutes; answers the whole confirmed snapshot only after the intent and the payment checks', async () => {
    const schema = (await schemaOf('booking.confirm_booking')).inputSchema;
    expect(schema.required.sort()).toEqual([
      'bookingId',
      'expectedVersion',
      'humanApproval',
      'idempotencyKey',
    ]);
    const b = await hold();
    const approvalId = await personApproves(agent, b);
    // Approved, but not paid: the payment check holds it back.
    const unpaid = await confirm(agent, b, approvalOf(b, approvalId));
    expect(unpaid.error!.code).toBe('PAYMENT_PENDING');
    stub.paid(b.bookingId);
    const done = await confirm(agent, b, approvalOf(b, approvalId));
    expect(done.data!.booking).toMatchObject({
      bookingId: b.bookingId,
      status: 'CONFIRMED',
      version: 2,
      expiresAt: null,
      payment: { status: 'PAID', queryId: b.bookingId, paidAt: expect.stringMatching(RFC3339) },
      confirmationIntent: null,
      amount: '500.00',
      currency: 'CNY',
      customer,
    });
  });

  it('[000-agent-flow-14] booking.get_booking returns the booking’s current whole snapshot', async () => {
    const b = await hold(agent, 'intro');
    const done = await confirm(agent, b, signedBy(b));
    const read = await must<{ booking: Booking }>(agent, 'booking.get_booking', { bookingId: b.bookingId });
    expect(read.booking).toEqual({ ...done.data!.booking, updatedAt: read.booking.updatedAt });
    expect(read.booking).toMatchObject({ status: 'CONFIRMED', version: 2, confirmationIntent: null });
  });

  it('[000-agent-flow-15 000-agent-flow-18 000-agent-flow-20 000-agent-flow-21] the trajectory discover → tools/list → search → read → call is what the instructions say; schemas and pages stay byte-identical where the host puts them', async () => {
    const instructions = agent.getInstructions() ?? '';
    for (const name of CATALOG) expect(instructions).toContain(name);
    expect(instructions).toContain('booking.search_available_slots');
    expect(instructions).toContain('humanApproval');
    const args = { tool: 'booking.search_available_slots', offset: 0, limit: 40 };
    const once = await agent.callTool({ name: 'tool_catalog.read', arguments: args });
    const twice = await agent.callTool({ name: 'tool_catalog.read', arguments: args });
    expect(JSON.stringify(twice.content)).toBe(JSON.stringify(once.content));
    expect(JSON.stringify(twice.structuredContent)).toBe(JSON.stringify(once.structuredContent));
    const read = once.structuredContent as {
      data: { totalLines: number; truncated: boolean; next: unknown };
    };
    expect(read.data).toMatchObject({ totalLines: expect.any(Number), truncated: expect.any(Boolean) });
  });
});

describe('## 状态机与事务 (state machine and transactions)', () => {
  it('[000-state-machine-1 000-state-machine-3 000-state-machine-4 000-state-machine-10] AVAILABLE → HELD with payment PENDING, expiresAt = heldAt + 5 min; at expiresAt it is EXPIRED and the slot is offered again', async () => {
    const b = await hold();
    expect(b).toMatchObject({ status: 'HELD', payment: { status: 'PENDING' } });
    expect(Date.parse(b.expiresAt!) - Date.parse(b.heldAt)).toBe(5 * 60_000);
    const client = await connect(short);
    const slot = await nextSlot(client);
    const { booking } = await must<{ booking: Booking }>(client, 'booking.hold_slot', {
      slotId: slot.slotId,
      customer,
      idempotencyKey: randomUUID(),
    });
    const search = () => slotAt(client, 'ai', hour).catch(() => null);
    expect(await search()).toBeNull();
    await pastExpiry(booking);
    expect(
      (await must<{ booking: Booking }>(client, 'booking.get_booking', { bookingId: booking.bookingId }))
        .booking.status,
    ).toBe('EXPIRED');
    expect((await search())?.slotId).toBe(slot.slotId);
    await client.close();
  });

  it('[000-state-machine-2 000-state-machine-9 000-state-machine-13 000-paging-cache-13] the storage engine keeps at most one HELD/CONFIRMED booking on a slot: of concurrent holds one wins, a row forged behind the server is refused by the database itself', async () => {
    const slot = await nextSlot();
    const attempts = await Promise.all(
      [agent, rival, agent, rival].map((client) =>
        run<{ booking: Booking }>(client, 'booking.hold_slot', {
          slotId: slot.slotId,
          customer,
          idempotencyKey: randomUUID(),
        }),
      ),
    );
    const won = attempts.filter((a) => a.ok);
    expect(won).toHaveLength(1);
    for (const lost of attempts.filter((a) => !a.ok)) expect(lost.error!.code).toBe('SLOT_UNAVAILABLE');
    expect(insertOverlapDirectly(server.dbPath, won[0]!.data!.booking.bookingId)).toContain(
      'HOLDFAST_OVERLAP',
    );
  });

  it('[000-state-machine-11 000-state-machine-12] an expired hold is released by what is stored: across a restart nothing is lost, and the slot can be held again', async () => {
    const before = await connect(short);
    const b = await hold(before);
    await before.close();
    await short.stop();
    await pastExpiry(b);
    short = await startShort();
    const after = await connect(short);
    const read = await must<{ booking: Booking }>(after, 'booking.get_booking', { bookingId: b.bookingId });
    expect(read.booking.status).toBe('EXPIRED');
    const again = await must<{ booking: Booking }>(after, 'booking.hold_slot', {
      slotId: b.slotId,
      customer,
      idempotencyKey: randomUUID(),
    });
    expect(again.booking).toMatchObject({ status: 'HELD', slotId: b.slotId });
    await after.close();
  });

  it('[000-state-machine-14] the payment query runs outside any transaction: while the provider is slow, other bookings are written', async () => {
    const slow = await hold();
    stub.payments.set(slow.bookingId, {
      status: 'PENDING',
      amount: null,
      currency: null,
      paidAt: null,
      delayMs: 1_500,
    });
    const started = Date.now();
    const confirming = confirm(agent, slow, signedBy(slow)).then((answer) => ({
      answer,
      ms: Date.now() - started,
    }));
    await sleep(200);
    const other = await hold(rival, 'intro');
    const otherMs = Date.now() - started;
    const { answer, ms } = await confirming;
    expect(other.status).toBe('HELD');
    expect(answer.error!.code).toBe('PAYMENT_PENDING');
    expect(ms).toBeGreaterThanOrEqual(1_400);
    expect(otherMs).toBeLessThan(ms);
  });

  it('[000-state-machine-15 000-state-machine-16 000-state-machine-17 000-state-machine-18] payment starts PENDING; its queryId is the booking id, asked again on each confirm; only PENDING → PAID, once', async () => {
    const b = await hold();
    expect(b.payment).toEqual({ status: 'PENDING', queryId: b.bookingId, paidAt: null });
    const pending = await confirm(agent, b, signedBy(b));
    expect(pending.error!.code).toBe('PAYMENT_PENDING');
    stub.paid(b.bookingId);
    const done = await confirm(agent, b, signedBy(b));
    expect(done.data!.booking).toMatchObject({
      status: 'CONFIRMED',
      version: 2,
      payment: { status: 'PAID', queryId: b.bookingId },
    });
    expect(queriesFor(b.bookingId)).toBe(2);
    expect(new Set(stub.requests.filter((r) => r.bookingId === b.bookingId).map((r) => r.bookingId))).toEqual(
      new Set([b.bookingId]),
    );
    const twice = await confirm(agent, done.data!.booking, signedBy(b));
    expect(twice.ok).toBe(false);
    expect(queriesFor(b.bookingId)).toBe(2);
  });

  it('[000-state-machine-19 000-state-machine-20 000-state-machine-21 000-state-machine-22] expectedVersion guards changes; hold and confirm each take a UUID key: the same key and arguments answer the first result, other arguments IDEMPOTENCY_CONFLICT', async () => {
    const b = await hold(agent, 'intro');
    const stale = await confirm(agent, { bookingId: b.bookingId, version: 5 }, signedBy(b));
    expect(stale.error).toMatchObject({ code: 'VERSION_CONFLICT', details: { currentVersion: 1 } });
    const notUuid = await confirm(agent, b, signedBy(b), 'not-a-uuid');
    expect(notUuid.error).toMatchObject({ code: 'INVALID_ARGUMENTS', details: { field: 'idempotencyKey' } });
    const key = randomUUID();
    const proof = signedBy(b);
    const first = await confirm(agent, b, proof, key);
    expect(first.data!.booking.status).toBe('CONFIRMED');
    const replay = await confirm(agent, b, proof, key);
    expect(replay.data).toEqual(first.data);
    const drift = await confirm(agent, { bookingId: b.bookingId, version: 2 }, proof, key);
    expect(drift.error!.code).toBe('IDEMPOTENCY_CONFLICT');
    const slot = await nextSlot(agent, 'intro');
    const holdKey = randomUUID();
    const held = await must<{ booking: Booking }>(agent, 'booking.hold_slot', {
      slotId: slot.slotId,
      customer,
      idempotencyKey: holdKey,
    });
    const heldAgain = await must<{ booking: Booking }>(agent, 'booking.hold_slot', {
      slotId: slot.slotId,
      customer,
      idempotencyKey: holdKey,
    });
    expect(heldAgain.booking.bookingId).toBe(held.booking.bookingId);
    const otherCustomer = await run(agent, 'booking.hold_slot', {
      slotId: slot.slotId,
      customer: { name: 'Somebody Else' },
      idempotencyKey: holdKey,
    });
    expect(otherCustomer.error!.code).toBe('IDEMPOTENCY_CONFLICT');
  });

  it('[000-state-machine-5 000-state-machine-6 000-state-machine-7 000-state-machine-23] PENDING keeps the hold; FAILED and CLOSED end it (PAYMENT_FAILED, PAYMENT_CLOSED) and release the slot in the same step', async () => {
    const kept = await hold();
    expect((await confirm(agent, kept, signedBy(kept))).error!.code).toBe('PAYMENT_PENDING');
    expect(
      (await must<{ booking: Booking }>(agent, 'booking.get_booking', { bookingId: kept.bookingId })).booking
        .status,
    ).toBe('HELD');
    for (const status of ['FAILED', 'CLOSED'] as const) {
      const b = await hold();
      stub.payments.set(b.bookingId, { status, amount: null, currency: null, paidAt: null });
      const refused = await confirm(agent, b, signedBy(b));
      expect(refused.error!.code).toBe('PAYMENT_FAILED');
      const read = await must<{ booking: Booking }>(agent, 'booking.get_booking', { bookingId: b.bookingId });
      expect(read.booking.status).toBe(`PAYMENT_${status}`);
      const retaken = await run(rival, 'booking.hold_slot', {
        slotId: b.slotId,
        customer,
        idempotencyKey: randomUUID(),
      });
      expect(retaken.ok, status).toBe(true);
    }
  });

  it('[000-state-machine-8] only a fresh approval and an exact PAID confirm: paid without approval, or approved without payment, stays HELD', async () => {
    const b = await hold();
    stub.paid(b.bookingId);
    const unapproved = await confirm(agent, b, approvalOf(b));
    expect(unapproved.error!.code).toBe('APPROVAL_REQUIRED');
    expect(queriesFor(b.bookingId)).toBe(0);
    const other = await hold();
    const approvalId = await personApproves(agent, other);
    expect((await confirm(agent, other, approvalOf(other, approvalId))).error!.code).toBe('PAYMENT_PENDING');
    for (const held of [b, other])
      expect(
        (await must<{ booking: Booking }>(agent, 'booking.get_booking', { bookingId: held.bookingId }))
          .booking,
      ).toMatchObject({
        status: 'HELD',
        version: 1,
      });
    const approvedB = await personApproves(agent, b);
    expect((await confirm(agent, b, approvalOf(b, approvedB))).data!.booking.status).toBe('CONFIRMED');
  });

  it('[000-state-machine-24 000-state-machine-25] money that arrives after the hold lapsed is never confirmed; the booking is flagged for people to reconcile', async () => {
    const client = await connect(short);
    const b = await hold(client);
    await pastExpiry(b);
    stub.paid(b.bookingId);
    const late = await confirm(client, b, signedBy(b, shortHost));
    expect(late.error!.code).toBe('BOOKING_EXPIRED');
    expect(late.error!.details.reconciliationRequired).toBe(true);
    const read = await must<{ booking: Booking }>(client, 'booking.get_booking', { bookingId: b.bookingId });
    expect(read.booking).toMatchObject({ status: 'EXPIRED', payment: { status: 'PAID' } });
    expect((await runCli(['reconciliation', '--db', shortDb.path])).stdout).toContain(b.bookingId);
    await client.close();
  });
});

describe('## 参数保真与错误契约 (argument fidelity and the error contract)', () => {
  it('[000-fidelity-errors-1 000-fidelity-errors-2 000-fidelity-errors-3 000-fidelity-errors-4 000-fidelity-errors-5 000-fidelity-errors-7 000-fidelity-errors-8] validation is strict: every object closed, no defaults filled in, nothing coerced, unknown fields refused', async () => {
    for (const name of LOGICAL) {
      const { inputSchema } = await schemaOf(name);
      expect(openObjects(inputSchema), name).toEqual([]);
      expect(JSON.stringify(inputSchema), name).not.toContain('"default"');
    }
    const slot = await nextSlot(agent, 'intro');
    const unknown = await run(agent, 'booking.hold_slot', {
      slotId: slot.slotId,
      customer,
      idempotencyKey: randomUUID(),
      force: true,
    });
    expect(unknown.error).toMatchObject({ code: 'INVALID_ARGUMENTS', details: { field: 'force' } });
    const numeric = await run(agent, 'booking.get_booking', { bookingId: 12345 });
    expect(numeric.error).toMatchObject({ code: 'INVALID_ARGUMENTS', details: { field: 'bookingId' } });
    const versionText = await run(agent, 'booking.confirm_booking', {
      bookingId: 'bk_x',
      expectedVersion: '1',
      idempotencyKey: randomUUID(),
      humanApproval: approvalOf(await hold(agent, 'intro')),
    });
    expect(versionText.error).toMatchObject({
      code: 'INVALID_ARGUMENTS',
      details: { field: 'expectedVersion' },
    });
    const extraCustomerField = await run(agent, 'booking.hold_slot', {
      slotId: slot.slotId,
      customer: { ...customer, vip: true },
      idempotencyKey: randomUUID(),
    });
    expect(extraCustomerField.error).toMatchObject({
      code: 'INVALID_ARGUMENTS',
      details: { field: 'customer.vip' },
    });
  });

  it('[000-fidelity-errors-6] an e-mail keeps its case, stored and answered exactly as given', async () => {
    const slot = await nextSlot(agent, 'intro');
    const { booking } = await must<{ booking: Booking }>(agent, 'booking.hold_slot', {
      slotId: slot.slotId,
      customer: { email: 'MiXeD.Case@Example.ORG' },
      idempotencyKey: randomUUID(),
    });
    expect(booking.customer).toEqual({ email: 'MiXeD.Case@Example.ORG' });
    expect(
      (await must<{ booking: Booking }>(agent, 'booking.get_booking', { bookingId: booking.bookingId }))
        .booking.customer,
    ).toEqual({
      email: 'MiXeD.Case@Example.ORG',
    });
  });

  it('[000-fidelity-errors-9] business arguments and call context travel apart: trace context goes in _meta; as an argument it is an unknown field', async () => {
    const traceId = hex(16);
    const traceparent = `00-${traceId}-${hex(8)}-01`;
    for (const [field, value] of [
      ['traceparent', traceparent],
      ['requestSpanId', randomUUID()],
    ] as const) {
      const asArgument = await run(agent, 'booking.get_booking', { bookingId: 'bk_x', [field]: value });
      expect(asArgument.error).toMatchObject({ code: 'INVALID_ARGUMENTS', details: { field } });
    }
    const inMeta = await run(
      agent,
      'booking.search_available_slots',
      { query: WORD, limit: 1 },
      { traceparent },
    );
    expect(inMeta.meta.traceId).toBe(traceId);
  });

  it('[000-fidelity-errors-10 000-fidelity-errors-11 000-fidelity-errors-12 000-fidelity-errors-13 000-fidelity-errors-14 000-fidelity-errors-15 000-fidelity-errors-16 000-fidelity-errors-17 000-fidelity-errors-18 000-fidelity-errors-19 000-fidelity-errors-20 000-fidelity-errors-21 000-fidelity-errors-22 000-fidelity-errors-23 000-fidelity-errors-24] every result is the seed’s envelope; its PAYMENT_PENDING example, field by field', async () => {
    const b = await hold();
    const refused = await confirm(agent, b, signedBy(b));
    // The seed's JSON example (its ids and times are examples; their forms are checked).
    expect(refused).toEqual({
      ok: false,
      error: {
        code: 'PAYMENT_PENDING',
        message: 'Payment has not completed; the booking remains held until expiresAt.',
        retryable: true,
        details: expect.objectContaining({ bookingId: b.bookingId }),
        recovery: { action: 'Ask the user to finish payment, then retry confirmation before expiry.' },
      },
      meta: {
        traceId: expect.stringMatching(HEX32),
        spanId: expect.stringMatching(HEX16),
        operationId: expect.stringMatching(UUID),
        clientSentAt: expect.stringMatching(RFC3339),
        serverReceivedAt: expect.stringMatching(RFC3339),
        serverResultCreatedAt: expect.stringMatching(RFC3339),
        cache: 'BYPASS',
      },
    });
    expect(b.bookingId).toMatch(/^bk_[\w-]{20,}$/);
    // A write answers the whole changed booking, not an empty OK.
    const done = await confirm(agent, b, signedBy(b));
    expect(done.ok).toBe(false);
    stub.paid(b.bookingId);
    const confirmed = await confirm(agent, b, signedBy(b));
    expect(Object.keys(confirmed)).toEqual(['ok', 'data', 'meta']);
    expect(Object.keys(confirmed.data!.booking).length).toBeGreaterThan(10);
    expect(confirmed.meta.cache).toBe('BYPASS');
  });

  it('[000-fidelity-errors-25 000-fidelity-errors-26] a schema error is INVALID_ARGUMENTS naming the field; an expected business error carries no stack trace', async () => {
    const bad = await run(agent, 'booking.search_available_slots', { query: WORD, limit: 1, from: 'soon' });
    expect(bad.error).toMatchObject({ code: 'INVALID_ARGUMENTS', details: { field: 'from' } });
    const missing = await agent.callTool({
      name: 'tool_catalog.call',
      arguments: { tool: 'booking.get_booking', arguments: { bookingId: 'bk_does_not_exist' } },
    });
    expect((missing.structuredContent as unknown as Answer).error!.code).toBe('NOT_FOUND');
    expect(JSON.stringify(missing)).not.toMatch(/\n\s+at |\.ts:\d+|\.js:\d+|Error:/);
  });

  it('[000-fidelity-errors-27 000-fidelity-errors-28 000-fidelity-errors-29 000-fidelity-errors-30 000-fidelity-errors-31 000-fidelity-errors-32 000-fidelity-errors-33 000-fidelity-errors-34 000-fidelity-errors-35] each of the seed’s codes, from the situation it names', async () => {
    const seen = new Map<string, Answer>();
    const b = await hold();
    seen.set(
      'SLOT_UNAVAILABLE',
      await run(rival, 'booking.hold_slot', { slotId: b.slotId, customer, idempotencyKey: randomUUID() }),
    );
    seen.set('VERSION_CONFLICT', await confirm(agent, { bookingId: b.bookingId, version: 9 }, signedBy(b)));
    seen.set('PAYMENT_PENDING', await confirm(agent, b, signedBy(b)));
    seen.set(
      'HUMAN_APPROVAL_EXPIRED',
      await confirm(agent, b, signedBy(b, host, { approvedAt: new Date(Date.now() - 180_000) })),
    );
    seen.set(
      'APPROVAL_INTENT_HASH_MISMATCH',
      await confirm(agent, b, { ...signedBy(b), intentHash: v1Hash({ other: 1 }) }),
    );
    const cheaper = { ...b.confirmationIntent!.intent, amount: '1.00' };
    seen.set(
      'APPROVAL_INTENT_MISMATCH',
      await confirm(agent, b, { ...approvalOf(b), intent: cheaper, intentHash: v1Hash(cheaper) }),
    );
    stub.paid(b.bookingId, '499.99');
    seen.set('PAYMENT_MISMATCH', await confirm(agent, b, signedBy(b)));
    const key = randomUUID();
    const paid = await hold(agent, 'intro');
    await confirm(agent, paid, signedBy(paid), key);
    seen.set(
      'IDEMPOTENCY_CONFLICT',
      await confirm(agent, { bookingId: paid.bookingId, version: 2 }, signedBy(paid), key),
    );
    const client = await connect(short);
    const lapsing = await hold(client, 'intro');
    await pastExpiry(lapsing);
    seen.set('BOOKING_EXPIRED', await confirm(client, lapsing, signedBy(lapsing, shortHost)));
    await client.close();
    for (const [code, answer] of seen) expect(answer.error?.code, code).toBe(code);
  });
});

describe('## Human in the loop', () => {
  it('[000-hitl-1] a hold needs no approval (even for a token that must attest confirmations), retries safely and lapses by itself', async () => {
    const slot = await nextSlot();
    const args = { slotId: slot.slotId, customer, idempotencyKey: randomUUID() };
    const first = await must<{ booking: Booking }>(agent, 'booking.hold_slot', args);
    expect(first.booking.status).toBe('HELD');
    const retried = await must<{ booking: Booking }>(agent, 'booking.hold_slot', args);
    expect(retried.booking.bookingId).toBe(first.booking.bookingId);
    expect(first.booking.expiresAt).toEqual(expect.stringMatching(RFC3339));
  });

  it('[000-hitl-2 000-hitl-3 000-hitl-4 000-hitl-5 000-hitl-6 000-hitl-7 000-hitl-8 000-hitl-9 000-hitl-10 000-hitl-11 000-hitl-12] confirmation carries the seed’s humanApproval: the example object, with this booking’s intent, confirms once the person approved it; each field is required and checked', async () => {
    const b = await hold();
    stub.paid(b.bookingId);
    const approvalId = await personApproves(agent, b);
    // The seed's example, its values for this booking: the intent and hash copied unchanged.
    const example = {
      approvalId,
      decision: 'APPROVE',
      approvedAt: new Date().toISOString(),
      intent: {
        bookingId: b.bookingId,
        slotId: b.slotId,
        startsAt: b.startsAt,
        amount: '500.00',
        currency: 'CNY',
        version: 1,
      },
      intentHash: b.confirmationIntent!.intentHash,
    };
    expect(example.intent).toEqual(b.confirmationIntent!.intent);
    expect(example.intent.startsAt).toMatch(/^\d{4}-\d\d-\d\dT\d\d:00:00\.000Z$/);
    expect(example.intentHash).toMatch(/^sha256:[\da-f]{64}$/);
    const schema = (await schemaOf('booking.confirm_booking')).inputSchema.properties.humanApproval;
    expect(schema.required.sort()).toEqual(['approvalId', 'approvedAt', 'decision', 'intent', 'intentHash']);
    for (const field of ['approvalId', 'decision', 'approvedAt', 'intent', 'intentHash'] as const) {
      const { [field]: _left, ...without } = example;
      const refused = await confirm(agent, b, without);
      expect(refused.error, field).toMatchObject({
        code: 'INVALID_ARGUMENTS',
        details: { field: `humanApproval.${field}` },
      });
    }
    for (const [field, wrong] of [
      ['approvalId', 'approval-1'],
      ['decision', 'DENY'],
      ['approvedAt', '2026-08-26 09:30'],
      ['intentHash', 'sha256:XYZ'],
    ] as const) {
      const refused = await confirm(agent, b, { ...example, [field]: wrong });
      expect(refused.error, field).toMatchObject({
        code: 'INVALID_ARGUMENTS',
        details: { field: `humanApproval.${field}` },
      });
    }
    expect(queriesFor(b.bookingId)).toBe(0);
    const done = await confirm(agent, b, example);
    expect(done.data!.booking).toMatchObject({ status: 'CONFIRMED', confirmationIntent: null });
  });

  it('[000-hitl-13 000-hitl-14 000-hitl-15 000-hitl-21] hold_slot and get_booking of a HELD/PENDING booking carry confirmationIntent; with the snapshot it says booking, expert, time, amount, currency and version for the host to show', async () => {
    const b = await hold();
    expect(b.confirmationIntent).toEqual({
      intent: expect.any(Object),
      intentHash: expect.stringMatching(/^sha256:/),
    });
    const read = await must<{ booking: Booking }>(agent, 'booking.get_booking', { bookingId: b.bookingId });
    expect(read.booking).toMatchObject({ status: 'HELD', payment: { status: 'PENDING' } });
    expect(read.booking.confirmationIntent).toEqual(b.confirmationIntent);
    expect(read.booking).toMatchObject({
      bookingId: b.confirmationIntent!.intent.bookingId,
      expert: { name: 'Dr. Ada Chen' },
      startsAt: b.confirmationIntent!.intent.startsAt,
      amount: b.confirmationIntent!.intent.amount,
      currency: b.confirmationIntent!.intent.currency,
      version: b.confirmationIntent!.intent.version,
    });
    // The person, asked, sees the same in words: names, time with its zone, money.
    const asked = await confirm(agent, b, approvalOf(b));
    const summary = asked.error!.details.summary as Record<string, any>;
    expect(summary).toMatchObject({ amount: '500.00', currency: 'CNY', version: 1 });
    expect(summary.calendars[0]).toMatchObject({ name: 'Dr. Ada Chen', timeZone: 'UTC' });
    expect(asked.error!.details.approveUrl).toMatch(/\/console\/approvals\/[\da-f-]{36}$/);
  });

  it('[000-hitl-16 000-hitl-17 000-hitl-18] the server recomputes the hash, then compares the six fields with the booking as it is; any mismatch asks the payment provider nothing', async () => {
    const b = await hold();
    stub.paid(b.bookingId);
    const intent = b.confirmationIntent!.intent;
    const attempts: [string, Record<string, unknown>, string][] = [
      [
        'hash of another intent',
        { ...signedBy(b), intentHash: v1Hash({ ...intent, amount: '1.00' }) },
        'APPROVAL_INTENT_HASH_MISMATCH',
      ],
    ];
    const otherwise = {
      amount: '1.00',
      bookingId: `${intent.bookingId}x`,
      currency: 'USD',
      slotId: `${intent.slotId}x`,
      startsAt: new Date(Date.parse(intent.startsAt) + 3_600_000).toISOString(),
    };
    for (const field of Object.keys(otherwise) as (keyof typeof otherwise)[]) {
      const changed = { ...intent, [field]: otherwise[field] };
      attempts.push([
        field,
        { ...approvalOf(b), intent: changed, intentHash: v1Hash(changed) },
        'APPROVAL_INTENT_MISMATCH',
      ]);
    }
    const later = { ...intent, version: 2 };
    attempts.push([
      'version',
      { ...approvalOf(b), intent: later, intentHash: v1Hash(later) },
      'APPROVAL_INTENT_MISMATCH',
    ]);
    for (const [name, humanApproval, code] of attempts) {
      const refused = await confirm(agent, b, humanApproval);
      expect(refused.error?.code, name).toBe(code);
    }
    expect(queriesFor(b.bookingId)).toBe(0);
    expect(
      (await must<{ booking: Booking }>(agent, 'booking.get_booking', { bookingId: b.bookingId })).booking,
    ).toMatchObject({
      status: 'HELD',
      version: 1,
    });
  });

  it('[000-hitl-19 000-hitl-20] the v1 intent is key-sorted, whitespace-free UTF-8 JSON of amount, bookingId, currency, slotId, startsAt, version; intentHash is sha256: and its 64 lowercase hex', async () => {
    const b = await hold();
    const { intent, intentHash } = b.confirmationIntent!;
    expect(Object.keys(intent)).toEqual(['amount', 'bookingId', 'currency', 'slotId', 'startsAt', 'version']);
    const bytes = `{"amount":${JSON.stringify(intent.amount)},"bookingId":${JSON.stringify(intent.bookingId)},"currency":${JSON.stringify(intent.currency)},"slotId":${JSON.stringify(intent.slotId)},"startsAt":${JSON.stringify(intent.startsAt)},"version":${intent.version}}`;
    expect(canonicalize(intent)).toBe(bytes);
    expect(intentHash).toBe(
      `sha256:${createHash('sha256').update(Buffer.from(bytes, 'utf8')).digest('hex')}`,
    );
  });

  it('[000-hitl-22] attack: the agent writes the seed’s humanApproval itself — right intent, right hash, a fresh approvedAt, a made-up approvalId or a forged signature — and confirms nothing, asks no payment', async () => {
    const b = await hold();
    stub.paid(b.bookingId);
    const unregistered = generateKeyPairSync('ed25519').privateKey.export({ type: 'pkcs8', format: 'der' });
    const stranger = { id: host.id, privateKey: unregistered.toString('base64url') };
    const other = await hold(rival);
    const othersApproval = await personApproves(rival, other);
    const attacks: Record<string, unknown>[] = [
      approvalOf(b),
      approvalOf(b, randomUUID(), new Date(Date.now() + 4_000)),
      signedBy(b, stranger),
      { ...signedBy(b), signature: signedBy(b).signature.replace(/^./, (c) => (c === 'A' ? 'B' : 'A')) },
      approvalOf(b, othersApproval),
    ];
    let confirmed = 0;
    for (const humanApproval of attacks) {
      const answer = await confirm(agent, b, humanApproval);
      if (answer.ok) confirmed++;
      expect(['APPROVAL_REQUIRED', 'NOT_FOUND', 'APPROVAL_INTENT_MISMATCH']).toContain(answer.error!.code);
    }
    // Nor can it approve its own approval: the page wants a signed-in person, the decision a session.
    const asked = await confirm(agent, b, approvalOf(b));
    const page = await fetch(asked.error!.details.approveUrl as string, { redirect: 'manual' });
    const decide = await fetch(`${asked.error!.details.approveUrl as string}/approve`, {
      method: 'POST',
      redirect: 'manual',
      headers: {
        authorization: `Bearer ${server.agent.token}`,
        'content-type': 'application/x-www-form-urlencoded',
      },
      body: 'decision=approve',
    });
    expect([page.status, decide.status].every((s) => s === 303 || s === 401 || s === 403 || s === 404)).toBe(
      true,
    );
    const after = await confirm(agent, b, approvalOf(b, asked.error!.details.approvalId as string));
    if (after.ok) confirmed++;
    expect(after.error!.code).toBe('APPROVAL_PENDING');
    expect(confirmed).toBe(0);
    expect(queriesFor(b.bookingId)).toBe(0);
    expect(
      (await must<{ booking: Booking }>(agent, 'booking.get_booking', { bookingId: b.bookingId })).booking
        .status,
    ).toBe('HELD');
  });

  it('[000-hitl-23] the upgrade the seed recommends against untrusted hosts: a signature by a host key registered with the server (holdfast hosts add) over the v1 intentHash', async () => {
    const b = await hold(agent, 'intro');
    const genuine = await confirm(agent, b, signedBy(b));
    expect(genuine.data!.booking.status).toBe('CONFIRMED');
    const revoked = await runCli(['hosts', 'revoke', host.id, '--db', server.dbPath]);
    expect(revoked.status, revoked.stderr).toBe(0);
    const next = await hold(agent, 'intro');
    expect((await confirm(agent, next, signedBy(next))).error!.code).toBe('APPROVAL_INTENT_MISMATCH');
    host = await registerHost(server.dbPath);
    expect((await confirm(agent, next, signedBy(next))).data!.booking.status).toBe('CONFIRMED');
  });

  it('[000-hitl-24 000-hitl-25 000-hitl-26 000-hitl-27 000-hitl-28 000-hitl-29 000-hitl-30] an approval counts for 120 s with 5 s of skew: missing, expired, future, unbound or mismatched — no payment is asked and nothing is confirmed', async () => {
    const b = await hold();
    stub.paid(b.bookingId);
    const ago = (seconds: number) => new Date(Date.now() - seconds * 1000);
    const { intentHash: _hash, ...unbound } = signedBy(b);
    const { intent: _intent, ...noIntent } = signedBy(b);
    const refusals: [string, Record<string, unknown> | undefined, string][] = [
      ['missing', undefined, 'INVALID_ARGUMENTS'],
      ['126 s old', signedBy(b, host, { approvedAt: ago(126) }), 'HUMAN_APPROVAL_EXPIRED'],
      ['6 s in the future', signedBy(b, host, { approvedAt: ago(-6) }), 'HUMAN_APPROVAL_EXPIRED'],
      ['no intentHash', unbound, 'INVALID_ARGUMENTS'],
      ['no intent', noIntent, 'INVALID_ARGUMENTS'],
      [
        'another intent',
        { ...signedBy(b), intentHash: `sha256:${'a'.repeat(64)}` },
        'APPROVAL_INTENT_HASH_MISMATCH',
      ],
    ];
    for (const [name, proof, code] of refusals) {
      const answer = await run(agent, 'booking.confirm_booking', {
        bookingId: b.bookingId,
        expectedVersion: 1,
        idempotencyKey: randomUUID(),
        ...(proof ? { humanApproval: proof } : {}),
      });
      expect(answer.error?.code, name).toBe(code);
    }
    expect(queriesFor(b.bookingId)).toBe(0);
    expect(
      (await must<{ booking: Booking }>(agent, 'booking.get_booking', { bookingId: b.bookingId })).booking
        .status,
    ).toBe('HELD');
    // Within the window, and within the skew: both count.
    const skewed = await hold(agent, 'intro');
    expect((await confirm(agent, skewed, signedBy(skewed, host, { approvedAt: ago(-4) }))).ok).toBe(true);
    const done = await confirm(agent, b, signedBy(b, host, { approvedAt: ago(110) }));
    expect(done.data!.booking.status).toBe('CONFIRMED');
  });

  it('[000-hitl-24 000-hitl-27] a person’s decision counts for 120 s + 5 s too (moved clock): after that it is HUMAN_APPROVAL_EXPIRED and a new approval is asked', async () => {
    const client = await connect(clocked);
    const env = { HOLDFAST_DEV_CLOCK: clockFile };
    const b = await hold(client, 'ai', offsetMs);
    stub.paid(b.bookingId);
    const approvalId = await personApproves(client, b, clocked, env);
    moveClock(126_000);
    const stale = await confirm(client, b, approvalOf(b, approvalId, clockedNow()));
    expect(stale.error!.code).toBe('HUMAN_APPROVAL_EXPIRED');
    expect(queriesFor(b.bookingId)).toBe(0);
    const again = await personApproves(client, b, clocked, env);
    moveClock(100_000);
    const done = await confirm(client, b, approvalOf(b, again, clockedNow()));
    expect(done.data!.booking.status).toBe('CONFIRMED');
    await client.close();
  });

  it('[000-hitl-31] once confirmed, confirmationIntent is null, so the old intent is no challenge to approve again', async () => {
    const b = await hold(agent, 'intro');
    const done = await confirm(agent, b, signedBy(b));
    expect(done.data!.booking.confirmationIntent).toBeNull();
    const read = await must<{ booking: Booking }>(agent, 'booking.get_booking', { bookingId: b.bookingId });
    expect(read.booking.confirmationIntent).toBeNull();
    expect((await confirm(agent, b, signedBy(b))).ok).toBe(false);
  });
});

describe('## 支付依赖 seam (the payment seam)', () => {
  it('[000-payment-seam-1 000-payment-seam-2] the booking code depends on a read-only payment port: queryPayment(bookingId, trace) and nothing else', () => {
    const port = readFileSync(join(ROOT, 'src/ports/payment-query.ts'), 'utf8');
    const body = /export interface PaymentQuery \{([\s\S]*?)\n\}/.exec(port)![1]!;
    const members = body.replace(/\/\*\*[\s\S]*?\*\//g, '').match(/^\s+(\w+)\(/gm) ?? [];
    expect(members.map((m) => m.trim().replace('(', ''))).toEqual(['queryPayment']);
    expect(body).toMatch(/queryPayment\(bookingId: string, trace: /);
  });

  it('[000-payment-seam-3 000-payment-seam-4 000-payment-seam-5 000-install-prompt-11] the HTTP adapter GETs PAYMENT_QUERY_BASE_URL/payments/{bookingId} with traceparent and gives up after 3 s; the failure is said as it is, the booking untouched', async () => {
    const b = await hold();
    stub.payments.set(b.bookingId, {
      status: 'PAID',
      amount: '500.00',
      currency: 'CNY',
      paidAt: null,
      delayMs: 6_000,
    });
    const started = Date.now();
    const slow = await confirm(agent, b, signedBy(b));
    const elapsed = Date.now() - started;
    expect(slow.error).toMatchObject({ code: 'PAYMENT_UNAVAILABLE', retryable: true });
    expect(slow.error!.message).toMatch(/payment provider/i);
    expect(elapsed).toBeGreaterThanOrEqual(2_900);
    expect(elapsed).toBeLessThan(6_000);
    const asked = stub.requests.filter((r) => r.bookingId === b.bookingId);
    expect(asked).toHaveLength(1);
    expect(asked[0]!.traceparent).toMatch(new RegExp(`^00-${slow.meta.traceId}-[\\da-f]{16}-0[01]$`));
    expect(
      (await must<{ booking: Booking }>(agent, 'booking.get_booking', { bookingId: b.bookingId })).booking,
    ).toMatchObject({
      status: 'HELD',
      version: 1,
    });
  });

  it('[000-payment-seam-6] tests run the real adapter against a stub provider; the demo injects the development payment simulator; neither runs in production', async () => {
    expect(server.process.spawnargs).toEqual(expect.arrayContaining(['--payments', 'http']));
    expect(stub.requests.length).toBeGreaterThan(0);
    const db = tempDbPath();
    const production = await spawnCli(['serve', '--production', '--dev', '--port', '0', '--db', db.path]);
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

  it('[000-payment-seam-8 000-payment-seam-9] PAID counts only with the exact booking id, amount string, currency and a paidAt; otherwise nothing changes', async () => {
    const cases: [string, Record<string, unknown>, string][] = [
      ['amount "500" for "500.00"', { amount: '500' }, 'PAYMENT_MISMATCH'],
      ['currency', { currency: 'EUR' }, 'PAYMENT_MISMATCH'],
      ['booking id', { bookingId: 'bk_someone_else' }, 'PAYMENT_MISMATCH'],
      ['no paidAt', { paidAt: null }, 'PAYMENT_UNAVAILABLE'],
    ];
    for (const [name, change, code] of cases) {
      const b = await hold();
      stub.payments.set(b.bookingId, {
        status: 'PAID',
        amount: '500.00',
        currency: 'CNY',
        paidAt: new Date().toISOString(),
        ...change,
      });
      const refused = await confirm(agent, b, signedBy(b));
      expect(refused.error!.code, name).toBe(code);
      const read = await must<{ booking: Booking }>(agent, 'booking.get_booking', { bookingId: b.bookingId });
      expect(read.booking, name).toMatchObject({
        status: 'HELD',
        version: 1,
        payment: { status: 'PENDING' },
      });
    }
  });
});

describe('## 按需加载、分页与缓存 (loading on demand, paging and caching)', () => {
  it('[000-paging-cache-1] tool search and slot search return structured candidates, not concatenated text', async () => {
    const tools = await agent.callTool({
      name: 'tool_catalog.search',
      arguments: { query: 'booking', limit: 4 },
    });
    const found = (tools.structuredContent as { data: { tools: Record<string, unknown>[] } }).data.tools;
    expect(found).toHaveLength(4);
    for (const entry of found)
      expect(Object.keys(entry).sort()).toEqual(['location', 'name', 'summary', 'title']);
    const slots = await must<{ slots: Slot[] }>(agent, 'booking.search_available_slots', {
      query: WORD,
      limit: 3,
    });
    for (const slot of slots.slots) expect(typeof slot.slotId).toBe('string');
  });

  it('[000-paging-cache-2 000-paging-cache-3] cursors are opaque and bound to their query: reused with another query they are INVALID_CURSOR', async () => {
    const page = await tool<{ nextCursor: string }>(agent, 'tool_catalog.search', { query: '', limit: 2 });
    const misused = await tool(agent, 'tool_catalog.search', {
      query: 'booking',
      limit: 2,
      cursor: page.data!.nextCursor,
    });
    expect(misused.error!.code).toBe('INVALID_CURSOR');
    const slots = await must<{ nextCursor: string }>(agent, 'booking.search_available_slots', {
      query: WORD,
      limit: 1,
    });
    expect(slots.nextCursor).toEqual(expect.any(String));
    const elsewhere = await run(agent, 'booking.search_available_slots', {
      query: WORD,
      specialty: 'intro',
      limit: 1,
      cursor: slots.nextCursor,
    });
    expect(elsewhere.error).toMatchObject({ code: 'INVALID_CURSOR', details: { field: 'cursor' } });
    const garbage = await run(agent, 'booking.search_available_slots', {
      query: WORD,
      limit: 1,
      cursor: 'eyJub3QiOiJpdCJ9',
    });
    expect(garbage.error!.code).toBe('INVALID_CURSOR');
  });

  it('[000-paging-cache-4 000-paging-cache-5 000-paging-cache-6 000-paging-cache-7 000-paging-cache-8] tool_catalog.read takes a 0-based offset and an explicit limit; answers totalLines, truncated, omittedLines, next and how to go on', async () => {
    const noLimit = await tool(agent, 'tool_catalog.read', { tool: 'booking.get_booking', offset: 0 });
    expect(noLimit.error).toMatchObject({ code: 'INVALID_ARGUMENTS', details: { field: 'limit' } });
    const middle = await tool<Record<string, any>>(agent, 'tool_catalog.read', {
      tool: 'booking.get_booking',
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
      `${d.totalLines - 7} more lines: call tool_catalog.read with tool "booking.get_booking", offset 7, limit 4.`,
    );
  });

  it('[000-paging-cache-9] catalog search and read answers never change: byte-identical and marked cacheable (public, 24 h)', async () => {
    for (const [name, args] of [
      ['tool_catalog.search', { query: 'booking', limit: 3 }],
      ['tool_catalog.read', { tool: 'booking.hold_slot', offset: 0, limit: 20 }],
    ] as const) {
      const first = await agent.callTool({ name, arguments: args });
      const again = await agent.callTool({ name, arguments: args });
      expect(JSON.stringify(again.structuredContent), name).toBe(JSON.stringify(first.structuredContent));
      expect(JSON.stringify(again.content), name).toBe(JSON.stringify(first.content));
      expect(first._meta, name).toMatchObject({ ttlMs: 86_400_000, cacheScope: 'public' });
    }
  });

  it('[000-paging-cache-10 000-paging-cache-11] free slots are cached for 5 s (moved clock); a booking write drops them at once, and so does the release of an expired hold', async () => {
    const client = await connect(clocked);
    hour += 3;
    const from = new Date(Date.parse(futureHour(3, hour - 2)) + offsetMs).toISOString();
    const query = {
      query: `${WORD} ai`,
      from,
      to: new Date(Date.parse(from) + 3 * 3_600_000).toISOString(),
      limit: 10,
    };
    const search = () => run<{ slots: Slot[] }>(client, 'booking.search_available_slots', query);
    const starts = (a: Answer<{ slots: Slot[] }>) => a.data!.slots.map((s) => s.startsAt);
    expect((await search()).meta.cache).toBe('MISS');
    moveClock(4_000);
    const cached = await search();
    expect(cached.meta.cache).toBe('HIT');
    moveClock(1_500);
    expect((await search()).meta.cache).toBe('MISS');
    expect((await search()).meta.cache).toBe('HIT');
    const { booking } = await must<{ booking: Booking }>(client, 'booking.hold_slot', {
      slotId: cached.data!.slots[0]!.slotId,
      customer,
      idempotencyKey: randomUUID(),
    });
    const afterWrite = await search();
    expect(afterWrite.meta.cache).toBe('MISS');
    expect(starts(afterWrite)).not.toContain(booking.startsAt);
    expect((await search()).meta.cache).toBe('HIT');
    // Two seconds before the hold lapses, a fresh answer is cached; 2.5 s later (well within its
    // 5 s) the hold has lapsed, and the cached answer is not served past that moment.
    moveClock(Date.parse(booking.expiresAt!) - 2_000 - clockedNow().getTime());
    expect((await search()).meta.cache).toBe('MISS');
    expect((await search()).meta.cache).toBe('HIT');
    moveClock(2_500);
    const afterLapse = await search();
    expect(afterLapse.meta.cache).toBe('MISS');
    expect(starts(afterLapse)).toContain(booking.startsAt);
    await client.close();
  });

  it('[000-paging-cache-12] SQLite runs in WAL: many reads at once all answer', async () => {
    const db = new Database(server.dbPath, { readonly: true });
    const journal = db.pragma('journal_mode', { simple: true });
    db.close();
    expect(journal).toBe('wal');
    const b = await hold(agent, 'intro');
    const reads = await Promise.all(
      Array.from({ length: 8 }, (_, i) =>
        i % 2 === 0
          ? run(rival, 'booking.search_available_slots', { query: WORD, limit: 5 })
          : run(agent, 'booking.get_booking', { bookingId: b.bookingId }),
      ),
    );
    expect(reads.every((r) => r.ok)).toBe(true);
  });
});

describe('## 可观测性 (observability)', () => {
  it('[000-observability-1 000-observability-2] each catalog action and each logical tool call logs a JSON line to stderr: source, RFC 3339 timestamp, caller, action, durationMs, trace_id, span_id, operation_id', async () => {
    const search = await agent.callTool({
      name: 'tool_catalog.search',
      arguments: { query: 'slot', limit: 2 },
    });
    const read = await run(agent, 'booking.get_booking', { bookingId: 'bk_nobody' });
    const actions: [string, string][] = [
      [(search._meta as { traceId: string }).traceId, 'tool_catalog.search'],
      [read.meta.traceId!, 'booking.get_booking'],
    ];
    for (const [traceId, action] of actions) {
      const line = await until(
        () => logLines(server).find((l) => l.trace_id === traceId && l.message === 'tool call'),
        `the log line of ${action}`,
      );
      expect(line).toMatchObject({
        action,
        caller: { person: expect.any(String), connection: expect.any(String), tenant: 'local' },
        source: { transport: 'http', client: expect.stringContaining('expert-host') },
        durationMs: expect.any(Number),
        operation_id: expect.stringMatching(UUID),
        span_id: expect.stringMatching(HEX16),
      });
      expect(line.timestamp).toMatch(RFC3339);
    }
  });

  it('[000-observability-3] the payment query is a child span of the call, and its W3C traceparent goes to the provider', async () => {
    const b = await hold();
    const traceId = hex(16);
    const answer = await run(
      agent,
      'booking.confirm_booking',
      {
        bookingId: b.bookingId,
        expectedVersion: 1,
        idempotencyKey: randomUUID(),
        humanApproval: signedBy(b),
      },
      { traceparent: `00-${traceId}-${hex(8)}-01` },
    );
    expect(answer.error!.code).toBe('PAYMENT_PENDING');
    expect(answer.meta.traceId).toBe(traceId);
    const payment = await until(
      () => receiver.spans.find((s) => s.traceId === traceId && s.name === 'payment.query'),
      'the payment span',
    );
    const asked = stub.requests.filter((r) => r.bookingId === b.bookingId);
    expect(asked.at(-1)!.traceparent).toBe(`00-${traceId}-${payment.spanId}-01`);
    const parent = await until(
      () => receiver.spans.find((s) => s.spanId === payment.parentSpanId),
      'its parent',
    );
    expect(parent.traceId).toBe(traceId);
  });

  it('[000-observability-4 000-observability-5 000-observability-6] the caller’s UUID requestSpanId gives the same 128-bit trace_id every time; each action gets a new 64-bit span_id', async () => {
    const requestSpanId = randomUUID();
    const metas = [];
    for (let i = 0; i < 2; i++)
      metas.push(
        (await run(agent, 'booking.search_available_slots', { query: WORD, limit: 1 }, { requestSpanId }))
          .meta,
      );
    const derived = requestSpanId.replace(/-/g, '');
    expect(metas.map((m) => m.traceId)).toEqual([derived, derived]);
    for (const meta of metas) expect(meta.spanId).toMatch(HEX16);
    expect(metas[0]!.spanId).not.toBe(metas[1]!.spanId);
    const line = await until(
      () => logLines(server).find((l) => l.trace_id === derived && l.message === 'tool call'),
      'the log line under the derived trace',
    );
    expect(line.action).toBe('booking.search_available_slots');
    // Not a UUID: no trace is derived from it.
    const other = await run(
      agent,
      'booking.search_available_slots',
      { query: WORD, limit: 1 },
      { requestSpanId: 'span-1' },
    );
    expect(other.meta.traceId).toMatch(HEX32);
  });

  it('[000-observability-7 000-observability-8] operation_id is a UUID of its own per action; span ids are not dressed up as UUIDs', async () => {
    const [a, b] = await Promise.all([
      run(agent, 'booking.search_available_slots', { query: WORD, limit: 1 }),
      run(rival, 'booking.search_available_slots', { query: WORD, limit: 1 }),
    ]);
    expect(a.meta.operationId).toMatch(UUID);
    expect(b.meta.operationId).toMatch(UUID);
    expect(a.meta.operationId).not.toBe(b.meta.operationId);
    expect(a.meta.spanId).not.toMatch(UUID);
  });

  it('[000-observability-9] the code speaks the OpenTelemetry API and the deployer’s exporter receives it (OTEL_EXPORTER_OTLP_ENDPOINT)', async () => {
    const traceId = hex(16);
    await run(
      agent,
      'booking.search_available_slots',
      { query: WORD, limit: 1 },
      { traceparent: `00-${traceId}-${hex(8)}-01` },
    );
    const exported = await until(() => {
      const spans = receiver.spans.filter((s) => s.traceId === traceId);
      return spans.some((s) => s.name.startsWith('tool ')) ? spans : undefined;
    }, 'exported spans');
    expect(exported.length).toBeGreaterThan(1);
    expect(pkg.dependencies['@opentelemetry/api']).toBeDefined();
  });

  it('[000-observability-10 000-observability-11 000-observability-12] the client adapter stamps x-mcp-client-sent-at at the moment of sending and the same value in params._meta; the server never makes it up', async () => {
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
    const client = new Client({ name: 'recorder', version: '1' }, { versionNegotiation: { mode: 'auto' } });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(server.url), {
        fetch: createTemporalClientFetch(recording),
        requestInit: { headers: { Authorization: `Bearer ${server.agent.token}` } },
      }),
    );
    await client.listTools();
    await client.close();
    expect(seen.length).toBeGreaterThanOrEqual(2);
    for (const sent of seen) {
      expect(sent.header).toMatch(RFC3339);
      expect(sent.meta).toBe(sent.header);
      expect(Date.parse(sent.header!)).toBeLessThanOrEqual(sent.before);
      expect(sent.before - Date.parse(sent.header!)).toBeLessThan(1_000);
    }
  });

  it('[000-observability-13 000-observability-14 000-observability-15 000-observability-16] the server adds x-mcp-server-received-at and -responded-at, repeats all three in result._meta; clientSentAt ≤ received ≤ resultCreated ≤ responded ≤ clientReceived', async () => {
    const sent = stamp();
    const answer = await postJsonRpc(
      server.url,
      server.agent.token,
      {
        id: 77,
        method: 'tools/call',
        params: {
          name: 'tool_catalog.call',
          arguments: { tool: 'booking.search_available_slots', arguments: { query: WORD, limit: 1 } },
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

  it('[000-observability-17 000-observability-18 000-observability-19] a missing or malformed client time is HTTP 400 MISSING_CLIENT_TIMESTAMP, echoing the JSON-RPC id and inventing no client time', async () => {
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

  it('[000-observability-20 000-observability-21] the payment GET carries x-mcp-server-request-sent-at; the provider’s sending time and the local receipt time are logged', async () => {
    const b = await hold();
    const pending = await confirm(agent, b, signedBy(b));
    expect(pending.error!.code).toBe('PAYMENT_PENDING');
    const asked = stub.requests.filter((r) => r.bookingId === b.bookingId).at(-1)!;
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

  it('[000-observability-22 000-observability-23] tool answers are plain JSON, not an SSE stream', async () => {
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
  it('[000-tests-1 000-tests-2 000-tests-3] contention and release on expiry: of two people racing one holds; once the clock passes five minutes the other can', async () => {
    const mine = await connect(clocked);
    const theirs = await connect(clocked, (await secondPersonOn(clocked)).token);
    const slot = await nextSlot(mine, 'ai', offsetMs);
    const args = () => ({ slotId: slot.slotId, customer, idempotencyKey: randomUUID() });
    const [a, b] = await Promise.all([
      run<{ booking: Booking }>(mine, 'booking.hold_slot', args()),
      run<{ booking: Booking }>(theirs, 'booking.hold_slot', args()),
    ]);
    expect([a.ok, b.ok].filter(Boolean)).toHaveLength(1);
    const [loser, loserClient] = a.ok ? [b, theirs] : [a, mine];
    expect(loser.error!.code).toBe('SLOT_UNAVAILABLE');
    moveClock(4 * 60_000);
    expect((await run(loserClient, 'booking.hold_slot', args())).error!.code).toBe('SLOT_UNAVAILABLE');
    moveClock(61_000);
    const later = await run<{ booking: Booking }>(loserClient, 'booking.hold_slot', args());
    expect(later.data!.booking.status).toBe('HELD');
    await mine.close();
    await theirs.close();
  });

  it('[000-tests-4 000-tests-5] query, then act: PENDING leaves the hold as it was; then PAID for the same query id confirms exactly once, even when two confirmations race', async () => {
    const b = await hold();
    const pending = await confirm(agent, b, signedBy(b));
    expect(pending.error!.code).toBe('PAYMENT_PENDING');
    expect(
      (await must<{ booking: Booking }>(agent, 'booking.get_booking', { bookingId: b.bookingId })).booking,
    ).toMatchObject({
      status: 'HELD',
      version: 1,
      payment: { status: 'PENDING' },
    });
    stub.paid(b.bookingId);
    const raced = await Promise.all([confirm(agent, b, signedBy(b)), confirm(agent, b, signedBy(b))]);
    expect(raced.filter((r) => r.ok)).toHaveLength(1);
    expect(['VERSION_CONFLICT', 'INVALID_STATE', 'APPROVAL_INTENT_MISMATCH']).toContain(
      raced.find((r) => !r.ok)!.error!.code,
    );
    expect(
      (await must<{ booking: Booking }>(agent, 'booking.get_booking', { bookingId: b.bookingId })).booking,
    ).toMatchObject({
      status: 'CONFIRMED',
      version: 2,
      payment: { status: 'PAID', queryId: b.bookingId },
    });
  });

  it('[000-tests-6] a wrong amount rolls nothing forward: PAID for another amount leaves HELD / PENDING / version 1', async () => {
    const b = await hold();
    stub.paid(b.bookingId, '499.99');
    const refused = await confirm(agent, b, signedBy(b));
    expect(refused.error!.code).toBe('PAYMENT_MISMATCH');
    expect(
      (await must<{ booking: Booking }>(agent, 'booking.get_booking', { bookingId: b.bookingId })).booking,
    ).toMatchObject({
      status: 'HELD',
      version: 1,
      payment: { status: 'PENDING' },
    });
  });

  it('[000-tests-7 000-tests-8] idempotent replay and drifting arguments: the same key and arguments give the same booking, even at once; other arguments conflict', async () => {
    const slot = await nextSlot(agent, 'intro');
    const args = { slotId: slot.slotId, customer, idempotencyKey: randomUUID() };
    const answers = await Promise.all(
      [1, 2, 3].map(() => run<{ booking: Booking }>(agent, 'booking.hold_slot', args)),
    );
    expect(answers.every((a) => a.ok)).toBe(true);
    expect(new Set(answers.map((a) => a.data!.booking.bookingId)).size).toBe(1);
    const other = await nextSlot(agent, 'intro');
    const drift = await run(agent, 'booking.hold_slot', { ...args, slotId: other.slotId });
    expect(drift.error!.code).toBe('IDEMPOTENCY_CONFLICT');
    expect(await slotAt(agent, 'intro', hour).then(() => 'free')).toBe('free');
  });

  it('[000-tests-9] an approval past its time never reaches the payment provider', async () => {
    const b = await hold();
    stub.paid(b.bookingId);
    const stale = await confirm(agent, b, signedBy(b, host, { approvedAt: new Date(Date.now() - 126_000) }));
    expect(stale.error!.code).toBe('HUMAN_APPROVAL_EXPIRED');
    expect(queriesFor(b.bookingId)).toBe(0);
  });

  it('[000-tests-10 000-tests-11] real modern discovery: the official client negotiates 2026-07-28 over Streamable HTTP, finds the three tools, searches and calls a logical tool', async () => {
    const client = await connect(server);
    expect(client.getProtocolEra()).toBe('modern');
    expect((await client.listTools()).tools.map((t) => t.name).sort()).toEqual([...CATALOG].sort());
    const found = await tool<{ tools: { name: string }[] }>(client, 'tool_catalog.search', {
      query: 'available slots',
      limit: 5,
    });
    expect(found.data!.tools[0]!.name).toBe('booking.search_available_slots');
    const slots = await run<{ slots: Slot[] }>(client, 'booking.search_available_slots', {
      query: WORD,
      limit: 1,
    });
    expect(slots.data!.slots).toHaveLength(1);
    await client.close();
  });

  it('[000-tests-12 000-tests-13 000-tests-14] a black box in its own process: the built entry point is spawned, wire and log times are in order, and the process and its database are gone afterwards', async () => {
    expect(existsSync(CLI)).toBe(true);
    const own = await spawnServer(['--profile', 'expert-booking']);
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
    expect(Date.parse(line.timestamp)).toBeGreaterThanOrEqual(times[1]!);
    expect(Date.parse(line.timestamp)).toBeLessThanOrEqual(times[3]!);
    await client.close();
    await own.stop();
    expect(own.process.exitCode !== null || own.process.signalCode !== null).toBe(true);
    expect(existsSync(dirname(own.dbPath))).toBe(false);
  });
});

/** A second person on a server's database, with a token of their own. */
async function secondPersonOn(s: RunningServer) {
  const { deps, close } = await identityDeps(s.dbPath);
  try {
    return await addAgent(deps, { email: `p${hex(3)}@local.example`, writePolicy: 'attested' });
  } finally {
    await close();
  }
}

describe('## 假设与范围 (assumptions and scope)', () => {
  it('[000-scope-1 000-scope-2] an empty database gets the three experts and six 2030 UTC slots; the seed’s example slot (AI, 2030-09-02T02:00:00.000Z, 500.00 CNY) is one; no tool manages experts', async () => {
    const found = await must<{ slots: Slot[]; total: number }>(agent, 'booking.search_available_slots', {
      query: '',
      limit: 50,
      from: '2030-01-01T00:00:00Z',
      to: '2031-01-01T00:00:00Z',
    });
    const seeded = found.slots.filter(
      (s) => !s.expert.name.startsWith('Dr. Ada') && s.expert.name !== 'Ravi Patel',
    );
    expect(seeded).toHaveLength(6);
    expect(new Set(seeded.map((s) => s.expert.expertId)).size).toBe(3);
    for (const slot of seeded) expect(slot.startsAt).toMatch(/^2030-\d\d-\d\dT\d\d:00:00\.000Z$/);
    expect(seeded[0]).toMatchObject({
      startsAt: '2030-09-02T02:00:00.000Z',
      endsAt: '2030-09-02T03:00:00.000Z',
      amount: '500.00',
      currency: 'CNY',
      expert: { specialty: 'ai' },
    });
    const { booking } = await must<{ booking: Booking }>(agent, 'booking.hold_slot', {
      slotId: seeded[0]!.slotId,
      customer,
      idempotencyKey: randomUUID(),
    });
    expect(booking.confirmationIntent!.intent).toMatchObject({
      startsAt: '2030-09-02T02:00:00.000Z',
      amount: '500.00',
      currency: 'CNY',
      version: 1,
    });
    const all = await tool<{ tools: { name: string }[] }>(agent, 'tool_catalog.search', {
      query: '',
      limit: 50,
    });
    expect(all.data!.tools.filter((t) => /calendar|expert|availability/.test(t.name))).toEqual([]);
  });

  it('[000-scope-3 000-scope-4] times travel as RFC 3339 and answer in UTC; a time without an offset, or epoch milliseconds, is refused rather than converted', async () => {
    for (const from of ['2030-09-02T02:00:00', 1914544800000]) {
      const refused = await run(agent, 'booking.search_available_slots', { query: '', limit: 1, from });
      expect(refused.error).toMatchObject({ code: 'INVALID_ARGUMENTS', details: { field: 'from' } });
    }
    const shanghai = await must<{ slots: Slot[] }>(agent, 'booking.search_available_slots', {
      query: 'law',
      limit: 1,
      from: '2030-09-02T14:00:00+08:00',
      to: '2030-09-02T15:00:00+08:00',
    });
    expect(shanghai.slots.map((s) => s.startsAt)).toEqual(['2030-09-02T06:00:00.000Z']);
  });

  it('[000-scope-5 000-scope-6 000-scope-7] the server never rewrites the caller’s clock: a client time 90 s behind is repeated as sent', async () => {
    const sent = stamp(new Date(Date.now() - 90_000).toISOString());
    const answer = await postJsonRpc(
      server.url,
      server.agent.token,
      {
        id: 3,
        method: 'tools/call',
        params: {
          name: 'tool_catalog.call',
          arguments: { tool: 'booking.search_available_slots', arguments: { query: WORD, limit: 1 } },
          _meta: sent.meta,
        },
      },
      { ...sent.headers, 'mcp-name': 'tool_catalog.call' },
    );
    expect(answer.status).toBe(200);
    expect(answer.body.result._meta.clientSentAt).toBe(sent.at);
    expect(answer.body.result.structuredContent.meta.clientSentAt).toBe(sent.at);
    expect(readFileSync(join(ROOT, 'docs/profiles.md'), 'utf8')).toMatch(/NTP/);
  });

  it('[000-scope-8 000-scope-9] amounts are two-decimal strings, currencies three upper-case letters, in every slot, snapshot and intent', async () => {
    const found = await must<{ slots: Slot[] }>(agent, 'booking.search_available_slots', {
      query: '',
      limit: 50,
      from: '2030-01-01T00:00:00Z',
    });
    const priced = found.slots.filter((s) => s.amount !== null);
    expect(priced.length).toBeGreaterThan(0);
    for (const slot of priced) {
      expect(slot.amount).toMatch(/^\d+\.\d{2}$/);
      expect(slot.currency).toMatch(/^[A-Z]{3}$/);
    }
    const b = await hold();
    expect(b.confirmationIntent!.intent.amount).toMatch(/^\d+\.\d{2}$/);
    expect(typeof b.amount).toBe('string');
  });

  it('[000-scope-11] booking ids are unguessable', async () => {
    const ids = [(await hold(agent, 'intro')).bookingId, (await hold(agent, 'intro')).bookingId];
    for (const id of ids) expect(id).toMatch(/^bk_[\w-]{22}$/);
    expect(ids[0]).not.toBe(ids[1]);
  });

  it('[000-scope-13 000-scope-14] the payment page URL is the configured base and the booking id; Holdfast serves no payment page of its own', async () => {
    const b = await hold();
    expect(b.paymentUrl).toBe(`${PAY_BASE}${b.bookingId}`);
    expect((await fetch(new URL(`/pay/${b.bookingId}`, server.url))).status).toBe(404);
  });

  it('[000-scope-15] refunds, reconciliation and a back office stay outside the seed’s flow: none is a tool; late money is listed for people (holdfast reconciliation)', async () => {
    const all = await tool<{ tools: { name: string }[] }>(agent, 'tool_catalog.search', {
      query: '',
      limit: 50,
    });
    expect(all.data!.tools.map((t) => t.name).sort()).toEqual(LOGICAL);
    const listed = await runCli(['reconciliation', '--db', server.dbPath]);
    expect(listed.status, listed.stderr).toBe(0);
    const console = await fetch(new URL('/console', server.url), { redirect: 'manual' });
    expect(console.status).toBe(303);
    expect(console.headers.get('location')).toContain('/login');
  });
});

describe('## 项目结构 (project layout)', () => {
  it('[000-structure-1 000-structure-2 000-structure-3 000-structure-4 000-structure-5 000-structure-6 000-structure-7 000-structure-8 000-structure-9] each part of the seed’s layout has its Holdfast counterpart (layered, docs/architecture.md)', () => {
    const counterparts: [string, string][] = [
      ['src/booking-service.ts', 'src/app/booking/gated-booking.ts'],
      ['src/database.ts', 'src/main/runtime/seed-experts.ts'],
      ['src/tool-catalog.ts', 'src/adapters/mcp/profiles/expert-booking/tools.ts'],
      ['src/mcp-server.ts', 'src/adapters/mcp/profiles/expert-booking/surface.ts'],
      ['src/payment.ts', 'src/adapters/payment/http-payments.ts'],
      ['src/observability.ts', 'src/adapters/telemetry/trace-export.ts'],
      ['src/temporal-http.ts', 'src/client/client-timing.ts'],
      ['test/', 'test/contracts/seed-000-expert-booking.test.ts'],
      ['scripts/demo.ts', 'src/demo/expert-demo.ts'],
    ];
    expect(counterparts.filter(([, ours]) => !existsSync(join(ROOT, ours)))).toEqual([]);
    expect(readFileSync(join(ROOT, 'docs/architecture.md'), 'utf8')).toContain('profiles/');
  });

  it('[000-structure-11 000-structure-12 000-structure-13] it is built on the official MCP TypeScript SDK and serves Streamable HTTP 2026-07-28 with cursor pagination', async () => {
    for (const name of [
      '@modelcontextprotocol/server',
      '@modelcontextprotocol/node',
      '@modelcontextprotocol/client',
    ])
      expect(pkg.dependencies[name], name).toBeDefined();
    expect(agent.getProtocolEra()).toBe('modern');
    const page = await tool<{ nextCursor: string | null }>(agent, 'tool_catalog.search', {
      query: '',
      limit: 3,
    });
    expect(page.data!.nextCursor).toEqual(expect.any(String));
  });
});
