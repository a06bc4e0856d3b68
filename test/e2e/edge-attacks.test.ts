import { spawn } from 'node:child_process';
import { request } from 'node:http';
import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { watchMemory } from '../support/process-memory.js';
import type { RunningServer } from '../support/spawn-server.js';
import { CLI, provisionOnce, runCli, spawnServer, tempDbPath } from '../support/spawn-server.js';

// The edges, attacked as an outsider and as an agent would, measured where it hurts: the server's
// resident memory while the attack runs, and whether a normal call still answers in time after.
// A body is read once, as a stream, its bytes counted as they arrive; nothing past a limit is
// held; nobody is read for before their credential is known; slow clients are cut; and many
// connections cannot do together what one cannot. (issue 44)

/** More than this growth of the server's resident memory during one attack is a failure. */
const GROWTH_BOUND_MIB = 48;
const MiB = 1024 * 1024;
/** The hotel-ops profile's body limit. */
const LIMIT_MIB = 10;

let server: RunningServer;
let ingestToken: string;

beforeAll(async () => {
  // The hotel-ops profile: the 10 MB body limit the seed names, and the mail ingestion route.
  server = await spawnServer([
    '--no-seed',
    '--profile',
    'hotel-ops',
    '--body-timeout',
    '2',
    '--headers-timeout',
    '2',
  ]);
  const created = await runCli([
    'inbox',
    'tokens',
    'create',
    '--name',
    'gateway',
    '--json',
    '--db',
    server.dbPath,
  ]);
  expect(created.status, created.stderr).toBe(0);
  ingestToken = (JSON.parse(created.stdout) as { secret: string }).secret;
});
afterAll(() => server?.stop());

interface Answer {
  readonly status: number;
  readonly headers: Record<string, string | string[] | undefined>;
  readonly body: string;
  readonly ms: number;
  /** When the server closed the connection (ms since the request began). */
  readonly closed: Promise<number>;
}

interface Send {
  readonly path?: string;
  readonly headers?: Record<string, string>;
  /** Written first (the start of a JSON-RPC message, say). */
  readonly prefix?: string;
  /** Then about this many bytes of one repeated chunk, chunked (no Content-Length)… */
  readonly bytes?: number;
  readonly chunk?: Buffer;
  /** …and this last. */
  readonly suffix?: string;
  /** Or this, one byte a second, never finished. */
  readonly trickle?: string;
  /** Keep sending after the answer (as an attacker does), until the connection is cut. */
  readonly ignoreAnswer?: boolean;
  readonly localAddress?: string;
}

/** One POST on a connection of its own: resolves with the answer (or the way the connection ended). */
function post(send: Send): Promise<Answer | { error: string; ms: number }> {
  const started = performance.now();
  const ms = () => Math.round(performance.now() - started);
  return new Promise((resolve) => {
    const req = request(
      {
        host: '127.0.0.1',
        port: server.port,
        path: send.path ?? '/mcp',
        method: 'POST',
        agent: false,
        ...(send.localAddress ? { localAddress: send.localAddress } : {}),
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          ...send.headers,
        },
      },
      (res) => {
        // Answered: stop sending (as a client that reads answers does), keep what the body says.
        answered = true;
        const status = res.statusCode ?? 0;
        let body = '';
        const done = () => {
          stop();
          resolve({ status, headers: res.headers, body, ms: ms(), closed });
        };
        res.setEncoding('utf8').on('data', (c: string) => (body += c.slice(0, 4096 - body.length)));
        res.on('end', done);
        res.on('error', done);
        res.on('aborted', done);
      },
    );
    let answered = false;
    const closed = new Promise<number>((settle) =>
      req.on('socket', (socket) => socket.once('close', () => settle(ms()))),
    );
    let timer: NodeJS.Timeout | undefined;
    const stop = () => clearInterval(timer);
    req.on('error', (error: NodeJS.ErrnoException) => {
      if (answered) return;
      stop();
      resolve({ error: error.code ?? error.message, ms: ms() });
    });
    if (send.prefix) req.write(send.prefix);
    if (send.trickle !== undefined) {
      let i = 0;
      req.flushHeaders();
      timer = setInterval(() => {
        if (!req.destroyed) req.write(send.trickle![i++ % send.trickle!.length]!);
      }, 1000);
      return;
    }
    const chunk = send.chunk ?? Buffer.alloc(MiB, 'x');
    let sent = 0;
    const total = send.bytes ?? 0;
    const pump = () => {
      while (sent < total && !req.destroyed && (!answered || send.ignoreAnswer)) {
        sent += chunk.length;
        if (!req.write(chunk)) return void req.once('drain', pump);
      }
      req.end(send.suffix ?? '');
    };
    pump();
  });
}

const statusOf = (answer: Answer | { error: string }) => ('status' in answer ? answer.status : answer.error);

/**
 * A flood is answered `status`, or cut: the server answers at once and closes after half a
 * second of discarding, and a test process busy writing ten floods may not read the answer
 * before the reset. At least one answer must be read, and nothing else may come.
 */
function answeredOrCut(results: (Answer | { error: string })[], status: number): Answer[] {
  for (const result of results) expect([status, 'EPIPE', 'ECONNRESET']).toContain(statusOf(result));
  const answered = results.filter((r): r is Answer => 'status' in r);
  expect(answered.length).toBeGreaterThan(0);
  return answered;
}

/** A normal agent call after the attack: it answers, and in time. */
async function normalCallAnswers(): Promise<number> {
  const started = performance.now();
  const answer = await fetch(server.url, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      authorization: `Bearer ${server.agent.token}`,
    },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' }),
  });
  expect(answer.status).toBe(200);
  await answer.text();
  const ms = performance.now() - started;
  expect(ms).toBeLessThan(5_000);
  return ms;
}

/** Runs an attack under a memory watch: its answers, and how much the server grew at the peak. */
async function measured<T>(attack: () => Promise<T>): Promise<{ result: T; growthMiB: number }> {
  const watch = watchMemory(server.process.pid!);
  const result = await attack();
  const peak = watch.stop();
  const growthMiB = peak - watch.beforeMiB;
  // The figures the closing note reports: memory, and each answer with its time.
  const answers = (Array.isArray(result) ? result : [result]).flat() as (
    Answer | { error: string; ms: number }
  )[];
  const said = answers
    .filter((a) => a && typeof a === 'object' && 'ms' in a)
    .map((a) => `${statusOf(a)} in ${a.ms} ms`);
  const counts = new Map<string, number>();
  for (const s of said)
    counts.set(s.replace(/ in \d+ ms$/, ''), (counts.get(s.replace(/ in \d+ ms$/, '')) ?? 0) + 1);
  const slowest = Math.max(0, ...answers.filter((a) => a && 'ms' in a).map((a) => a.ms));
  console.log(
    `  resident ${watch.beforeMiB.toFixed(1)} MiB before, ${peak.toFixed(1)} MiB at peak; answers ${JSON.stringify(Object.fromEntries(counts))}, the slowest in ${slowest} ms`,
  );
  return { result, growthMiB };
}

const bearer = () => ({ authorization: `Bearer ${server.agent.token}` });
const START =
  '{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"list_calendars","arguments":{"x":"';

describe('bodies without a length, 64 MB each', () => {
  it('without a credential: 401 from the headers, nothing of the body held (one, then ten at once)', async () => {
    for (const parallel of [1, 10]) {
      const { result, growthMiB } = await measured(() =>
        Promise.all(Array.from({ length: parallel }, () => post({ prefix: START, bytes: 64 * MiB }))),
      );
      answeredOrCut(result, 401);
      expect(growthMiB).toBeLessThan(GROWTH_BOUND_MIB);
    }
    await normalCallAnswers();
  });

  it('with a credential: 413 at the limit with the id, then closed; no more than the limit held (one, then ten at once)', async () => {
    for (const parallel of [1, 10]) {
      const { result, growthMiB } = await measured(() =>
        Promise.all(
          Array.from({ length: parallel }, () => post({ prefix: START, bytes: 64 * MiB, headers: bearer() })),
        ),
      );
      for (const { body, ms, closed } of answeredOrCut(result, 413)) {
        // The contract's envelope (hotel-ops profile), with the id that came first.
        expect(JSON.parse(body)).toMatchObject({
          id: 7,
          error: { data: { code: 'MCP_REQUEST_BODY_TOO_LARGE' } },
        });
        // Closed soon after the answer (a lingering close: the rest is discarded for half a second).
        expect((await closed) - ms).toBeLessThan(3_000);
      }
      // Each request holds at most its own limit (10 MiB here), and only while it is read.
      expect(growthMiB).toBeLessThan(parallel * LIMIT_MIB + GROWTH_BOUND_MIB);
    }
    await normalCallAnswers();
  });

  it('every other route that reads a body stops at its own limit: forms, OAuth, the mail ingestion', async () => {
    const routes: [string, Send, number][] = [
      [
        'sign-in form',
        { path: '/login', headers: { 'content-type': 'application/x-www-form-urlencoded' } },
        413,
      ],
      [
        'OAuth token',
        { path: '/oauth/token', headers: { 'content-type': 'application/x-www-form-urlencoded' } },
        400,
      ],
      ['OAuth registration', { path: '/oauth/register' }, 400],
      ['mail ingestion, no token', { path: '/api/inbox/messages' }, 401],
      [
        'mail ingestion, with its token',
        { path: '/api/inbox/messages', headers: { authorization: `Bearer ${ingestToken}` } },
        413,
      ],
    ];
    for (const [name, send, status] of routes) {
      // Twice at each: the answer must be read at least once (see answeredOrCut).
      const { result, growthMiB } = await measured(() =>
        Promise.all([post({ ...send, bytes: 64 * MiB }), post({ ...send, bytes: 64 * MiB })]),
      );
      expect(answeredOrCut(result, status).length, name).toBeGreaterThan(0);
      expect(growthMiB, name).toBeLessThan(GROWTH_BOUND_MIB);
    }
    await normalCallAnswers();
  });
});

describe('multi-byte bodies at the 10 MB limit', () => {
  // Chinese text is three bytes a character in UTF-8: counted in characters, 3.6 million of them
  // would pass a 10 MiB limit at almost 11 MB.
  const chinese = Buffer.from('预订确认房间'.repeat(10_000)); // 180,000 bytes, 60,000 characters

  it('past the limit in bytes (though not in characters): 413; under it: read and answered', async () => {
    const over = await measured(() =>
      post({ prefix: START, chunk: chinese, bytes: 10_800_000, suffix: '"}}}', headers: bearer() }),
    );
    expect(statusOf(over.result)).toBe(413);
    expect(over.growthMiB).toBeLessThan(GROWTH_BOUND_MIB);
    const under = await measured(() =>
      post({ prefix: START, chunk: chinese, bytes: 9_500_000, suffix: '"}}}', headers: bearer() }),
    );
    expect(statusOf(under.result)).toBe(200);
    // Read whole and answered by the tool (its own limits refuse so long an argument), not the edge.
    expect((under.result as Answer).body).toContain('INVALID_ARGUMENTS');
    await normalCallAnswers();
  });
});

describe('slow clients are cut after the stated times (here --body-timeout 2, --headers-timeout 2)', () => {
  it('a body trickled one byte a second: 408 and closed after the body deadline, on /mcp and on a form', async () => {
    const { result } = await measured(() =>
      Promise.all([
        post({ headers: { ...bearer(), 'content-length': '1000' }, trickle: '{"jsonrpc"' }),
        post({
          path: '/login',
          headers: { 'content-type': 'application/x-www-form-urlencoded', 'content-length': '1000' },
          trickle: 'email=a',
        }),
      ]),
    );
    for (const answer of result) {
      expect(statusOf(answer)).toBe(408);
      expect((await (answer as Answer).closed) - answer.ms).toBeLessThan(3_000);
      // Cut at the deadline, not long after (2 s; the machine may be busy).
      expect(answer.ms).toBeGreaterThanOrEqual(1_900);
      expect(answer.ms).toBeLessThan(8_000);
    }
    await normalCallAnswers();
  });

  it('headers that never end: the connection is closed after the headers deadline', async () => {
    const started = performance.now();
    const closedAfter = await new Promise<number>((resolve) => {
      const socket = connect(server.port, '127.0.0.1', () => {
        socket.write(`POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:${server.port}\r\nX-Slow: `);
        const timer = setInterval(() => socket.writable && socket.write('a'), 500);
        socket.on('close', () => {
          clearInterval(timer);
          resolve(performance.now() - started);
        });
      });
      socket.on('data', () => undefined);
      socket.on('error', () => undefined);
    });
    expect(closedAfter).toBeGreaterThanOrEqual(1_900);
    expect(closedAfter).toBeLessThan(8_000);
    await normalCallAnswers();
  });
});

describe('many connections cannot do together what one cannot', () => {
  /** A form trickled from one loopback address: it holds an admission slot until its deadline. */
  const trickleFrom = (localAddress: string) =>
    post({
      path: '/login',
      localAddress,
      headers: { 'content-type': 'application/x-www-form-urlencoded', 'content-length': '1000' },
      trickle: 'e',
    });

  it('at most 16 in flight from one address, 128 in all, before anyone is known; over it, refused at once', async () => {
    const { result, growthMiB } = await measured(async () => {
      const oneAddress = Array.from({ length: 20 }, () => trickleFrom('127.0.0.1'));
      // Nine more addresses, 16 each: 160 in all, past the total of 128.
      const many = Array.from({ length: 144 }, (_, i) => trickleFrom(`127.0.0.${2 + Math.floor(i / 16)}`));
      return Promise.all([Promise.all(oneAddress), Promise.all(many)]);
    });
    const [oneAddress, many] = result;
    const all = [...oneAddress, ...many];
    const count = (answers: (Answer | { error: string })[], status: number) =>
      answers.filter((a) => statusOf(a) === status).length;
    expect(count(oneAddress, 429)).toBe(4);
    expect(count(oneAddress, 408)).toBe(16);
    expect(count(many, 408)).toBe(128 - 16);
    expect(count(many, 503)).toBe(144 - (128 - 16));
    // The refused are refused at once: every refusal came before the first admitted one was cut.
    const refused = all.filter((a) => [429, 503].includes(statusOf(a) as number));
    const cut = all.filter((a) => statusOf(a) === 408);
    expect(Math.max(...refused.map((a) => a.ms))).toBeLessThan(Math.min(...cut.map((a) => a.ms)));
    expect(growthMiB).toBeLessThan(GROWTH_BOUND_MIB);
    await normalCallAnswers();
  });

  it('neither an agent with a token nor a health check is counted: they go through while strangers wait', async () => {
    const strangers = Array.from({ length: 16 }, () => trickleFrom('127.0.0.1'));
    // The address's 16 places are taken (the next stranger is refused) …
    let next: Answer | { error: string } = { error: 'not tried', ms: 0 };
    for (let i = 0; i < 50 && statusOf(next) !== 429; i++) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      next = await post({
        path: '/login',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        bytes: 0,
      });
    }
    expect(statusOf(next)).toBe(429);
    // … and still an agent's call, the health checks and a page answer.
    await normalCallAnswers();
    for (const path of ['/healthz', '/readyz', '/login'])
      expect((await fetch(new URL(path, server.url))).status, path).toBe(200);
    expect((await Promise.all(strangers)).map(statusOf)).toEqual(Array(16).fill(408));
  });

  it('an OAuth request whose body trickles loses its connection at the deadline (the authorization server reads its own)', async () => {
    const answer = await post({
      path: '/oauth/token',
      headers: { 'content-type': 'application/x-www-form-urlencoded', 'content-length': '1000' },
      trickle: 'g',
    });
    expect(answer.ms).toBeGreaterThanOrEqual(1_900);
    expect(answer.ms).toBeLessThan(8_000);
  });
});

describe('an attacker who never stops sending', () => {
  it('keeps writing after the answer: the rest is discarded and the connection cut, nothing held', async () => {
    const routes: Send[] = [
      { path: '/login', headers: { 'content-type': 'application/x-www-form-urlencoded' } },
      { path: '/oauth/token', headers: { 'content-type': 'application/x-www-form-urlencoded' } },
      { prefix: START, headers: bearer() },
      { prefix: START },
    ];
    const { result, growthMiB } = await measured(() =>
      Promise.all(
        routes.flatMap((send) =>
          Array.from({ length: 3 }, () => post({ ...send, bytes: 256 * MiB, ignoreAnswer: true })),
        ),
      ),
    );
    // Every connection ends (answered, then cut while still sending) long before 256 MB went through.
    for (const answer of result)
      expect('closed' in answer ? await answer.closed : answer.ms).toBeLessThan(30_000);
    expect(growthMiB).toBeLessThan(3 * LIMIT_MIB + GROWTH_BOUND_MIB);
    await normalCallAnswers();
  });
});

/**
 * A client that asked for `Connection: close` sends a chunked body a MiB every 5 ms for 200 ms
 * without reading (as a client busy writing does), then reads: what came back.
 */
function busyClient(path: string, headers = ''): Promise<{ status: string; error: string | null }> {
  return new Promise((resolve) => {
    const socket = connect(server.port, '127.0.0.1');
    let got = '';
    let error: string | null = null;
    socket.on('data', (chunk: Buffer) => (got += chunk.toString('latin1', 0, 64)));
    socket.on('error', (e: NodeJS.ErrnoException) => (error = e.code ?? e.message));
    socket.on('close', () => resolve({ status: got.slice(9, 12), error }));
    socket.pause();
    socket.write(
      `POST ${path} HTTP/1.1\r\nHost: 127.0.0.1:${server.port}\r\nContent-Type: application/json\r\n${headers}` +
        'Connection: close\r\nTransfer-Encoding: chunked\r\n\r\n',
    );
    const chunk = `100000\r\n${'x'.repeat(MiB)}\r\n`;
    let sent = 0;
    const timer = setInterval(() => {
      if (socket.destroyed) return clearInterval(timer);
      if (sent++ < 40) return void socket.write(chunk);
      clearInterval(timer);
      socket.resume();
    }, 5);
  });
}

describe('a lingering close', () => {
  it('a client still sending when it is answered reads the answer, not a reset, on every route', async () => {
    const routes: [string, string, string][] = [
      ['/mcp', '', '401'],
      ['/oauth/register', '', '400'],
      ['/api/inbox/messages', '', '401'],
      ['/mcp', `Authorization: Bearer ${server.agent.token}\r\n`, '413'],
    ];
    let cut = 0;
    for (const [path, headers, status] of routes)
      for (let i = 0; i < 3; i++) {
        const answer = await busyClient(path, headers);
        if (answer.status !== status) cut++;
        expect([status, '']).toContain(answer.status);
      }
    expect(cut).toBe(0);
    await normalCallAnswers();
  });
});

describe('stdio, a line past its limit', () => {
  it('a 64 MB line is answered too large and dropped as it arrives; the process stays small and serves on', async () => {
    const db = tempDbPath();
    await provisionOnce(db.path);
    const child = spawn(process.execPath, [CLI, 'stdio', '--db', db.path, '--no-seed'], {
      stdio: ['pipe', 'pipe', 'ignore'],
    });
    try {
      let out = '';
      child.stdout.setEncoding('utf8').on('data', (chunk: string) => (out += chunk));
      const answered = async (id: number) => {
        for (let i = 0; i < 500 && !out.includes(`"id":${id}`); i++)
          await new Promise((r) => setTimeout(r, 20));
        return out.split('\n').find((line) => line.includes(`"id":${id}`));
      };
      child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' })}\n`);
      expect(await answered(1)).toBeDefined();
      const watch = watchMemory(child.pid!);
      child.stdin.write('{"jsonrpc":"2.0","id":2,"method":"ping","params":{"x":"');
      const chunk = Buffer.alloc(MiB, 'x');
      for (let i = 0; i < 64; i++)
        if (!child.stdin.write(chunk)) await new Promise((resolve) => child.stdin.once('drain', resolve));
      child.stdin.write('"}}\n');
      child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', id: 3, method: 'ping' })}\n`);
      expect(await answered(2)).toMatch(/too large/);
      expect(await answered(3)).toContain('"result"');
      const peak = watch.stop();
      console.log(
        `  stdio resident ${watch.beforeMiB.toFixed(1)} MiB before, ${peak.toFixed(1)} MiB at peak`,
      );
      expect(peak - watch.beforeMiB).toBeLessThan(GROWTH_BOUND_MIB);
    } finally {
      child.kill();
      db.cleanup();
    }
  });
});
