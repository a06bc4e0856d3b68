import { randomUUID } from 'node:crypto';
import { withClientTiming } from 'holdfast/client-timing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { futureHour, openAllWeek } from '../support/fixtures.js';
import type { Era } from '../support/mcp-clients.js';
import { connectHttp, MODERN_META, ok, postJsonRpc } from '../support/mcp-clients.js';
import type { RunningServer } from '../support/spawn-server.js';
import { spawnServer } from '../support/spawn-server.js';

// The wire timing contract (--timing-contract) through the spawned server: a request that does
// not say when it was sent is refused with 400 MISSING_CLIENT_TIMESTAMP echoing its id; with the
// client helper (holdfast/client-timing) wrapping the official client's fetch, every answer
// orders clientSentAt <= serverReceivedAt <= serverResultCreatedAt <= serverRespondedAt <= received.

let server: RunningServer;

beforeAll(async () => {
  server = await spawnServer(['--no-seed', '--timing-contract']);
});
afterAll(() => server?.stop());

const META = MODERN_META;

const post = (
  message: { id?: unknown; method: string; params?: Record<string, unknown> },
  headers: Record<string, string>,
) => postJsonRpc(server.url, server.agent.token, message, headers);

describe('requests that do not say when they were sent', () => {
  it('are refused with 400 MISSING_CLIENT_TIMESTAMP, the JSON-RPC id echoed, nothing run', async () => {
    const now = new Date().toISOString();
    const cases: [
      string,
      { id: unknown; method: string; params: Record<string, unknown> },
      Record<string, string>,
    ][] = [
      ['no header', { id: 42, method: 'tools/list', params: { _meta: META } }, {}],
      [
        'not RFC 3339',
        { id: 'abc', method: 'tools/list', params: { _meta: { ...META, clientSentAt: 'yesterday' } } },
        { 'x-mcp-client-sent-at': 'yesterday' },
      ],
      [
        'no _meta twin',
        { id: 7, method: 'tools/list', params: { _meta: META } },
        { 'x-mcp-client-sent-at': now },
      ],
      [
        'a different _meta twin',
        { id: 8, method: 'tools/list', params: { _meta: { ...META, clientSentAt: '2020-01-01T00:00:00Z' } } },
        { 'x-mcp-client-sent-at': now },
      ],
      [
        'an impossible date',
        { id: 9, method: 'tools/list', params: { _meta: { ...META, clientSentAt: '2026-02-30T00:00:00Z' } } },
        { 'x-mcp-client-sent-at': '2026-02-30T00:00:00Z' },
      ],
    ];
    for (const [label, message, headers] of cases) {
      const answer = await post(message, headers);
      expect(answer.status, label).toBe(400);
      expect(answer.body.id, label).toBe(message.id);
      expect(answer.body.error.message, label).toMatch(/^MISSING_CLIENT_TIMESTAMP: /);
      expect(answer.body.error.data, label).toEqual({ code: 'MISSING_CLIENT_TIMESTAMP' });
      expect(answer.body.result, label).toBeUndefined();
      expect(answer.headers.get('x-mcp-server-received-at'), label).toBeTruthy();
    }
    // A hold without the stamp is refused before it runs: the slot stays free.
    const start = futureHour(3);
    const refused = await post(
      {
        id: 10,
        method: 'tools/call',
        params: {
          name: 'hold_slot',
          arguments: { calendarIds: ['cal_x'], start, end: futureHour(3, 1), idempotencyKey: randomUUID() },
          _meta: META,
        },
      },
      {},
    );
    expect(refused.status).toBe(400);
    expect(refused.body.id).toBe(10);
  });

  // Past the 256 KiB limit (by a little, so the upload finishes before the early answer).
  it('odd bodies are answered, not crashed on; a body past the limit is 400 or 413, never parsed', async () => {
    const now = new Date().toISOString();
    const send = (body: string, headers: Record<string, string> = {}) =>
      fetch(server.url, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          ...headers,
        },
        body,
      });
    for (const body of ['[null]', '[1, "x", null]', 'null', '[]', '{"id":{"a":1}}'])
      expect([400, 401], body).toContain((await send(body, { 'x-mcp-client-sent-at': now })).status);
    const huge = JSON.stringify({
      jsonrpc: '2.0',
      id: 'x'.repeat(1000),
      method: 'tools/list',
      pad: 'C'.repeat(300_000),
    });
    // Without a credential nothing of the body is read: 401 from the headers alone.
    const anonymous = await send(huge);
    expect(anonymous.status).toBe(401);
    const token = { authorization: `Bearer ${server.agent.token}` };
    // With one, the body is read up to the limit and no further: 413 whether stamped or not,
    // never parsed (so never asked for its stamp).
    for (const headers of [token, { ...token, 'x-mcp-client-sent-at': now }]) {
      const refused = await send(huge, headers);
      expect(refused.status).toBe(413);
      expect(((await refused.json()) as { error: { message: string } }).error.message).toMatch(
        /^Payload Too Large/,
      );
    }
  });
});

interface Exchange {
  readonly sentAt: string;
  readonly receivedAt: string | null;
  readonly respondedAt: string | null;
  readonly clientReceivedAt: number;
  readonly body: unknown;
}

/** A JSON answer, or the last JSON event of an SSE answer (2025-era POSTs). */
function bodyOf(text: string, type: string): unknown {
  if (!text) return null;
  if (type.includes('json')) return JSON.parse(text);
  const events = text.split('\n').filter((l) => l.startsWith('data:'));
  return events.length > 0 ? JSON.parse(events.at(-1)!.slice(5)) : null;
}

/** The official client over the helper's fetch, remembering each exchange as the wire saw it. */
async function timedClient(era: Era) {
  const exchanges: Exchange[] = [];
  const recording: typeof fetch = async (input, init) => {
    const sentAt = new Headers(init?.headers).get('x-mcp-client-sent-at')!;
    const body = JSON.parse(String(init?.body)) as { params?: { _meta?: Record<string, unknown> } };
    expect(body.params?._meta?.clientSentAt).toBe(sentAt);
    const response = await fetch(input, init);
    const clientReceivedAt = Date.now();
    const text = await response.clone().text();
    exchanges.push({
      sentAt,
      receivedAt: response.headers.get('x-mcp-server-received-at'),
      respondedAt: response.headers.get('x-mcp-server-responded-at'),
      clientReceivedAt,
      body: bodyOf(text, response.headers.get('content-type') ?? ''),
    });
    return response;
  };
  const client = await connectHttp(server.url, era, { fetch: withClientTiming(recording) });
  return { client, exchanges };
}

describe.each<Era>(['modern', 'legacy'])('with the client helper, %s era', (era) => {
  it('every answer carries the instants in order, in headers and in result._meta', async () => {
    const { client, exchanges } = await timedClient(era);
    const room = await ok<{ calendar: { id: string } }>(client, 'create_calendar', {
      name: `Timed ${era}`,
      timeZone: 'UTC',
      availability: openAllWeek,
      idempotencyKey: randomUUID(),
    });
    await ok(client, 'hold_slot', {
      calendarIds: [room.calendar.id],
      start: futureHour(2),
      end: futureHour(2, 1),
      idempotencyKey: randomUUID(),
    });
    await client.listTools();
    await client.close();

    expect(exchanges.length).toBeGreaterThanOrEqual(3);
    let toolAnswers = 0;
    for (const exchange of exchanges) {
      const sent = Date.parse(exchange.sentAt);
      const received = Date.parse(exchange.receivedAt!);
      const responded = Date.parse(exchange.respondedAt!);
      expect(sent).toBeLessThanOrEqual(received);
      expect(received).toBeLessThanOrEqual(responded);
      expect(responded).toBeLessThanOrEqual(exchange.clientReceivedAt);
      const result = (exchange.body as { result?: Record<string, any> } | null)?.result;
      if (!result) continue;
      expect(result._meta).toMatchObject({
        clientSentAt: exchange.sentAt,
        serverReceivedAt: exchange.receivedAt,
        serverRespondedAt: exchange.respondedAt,
      });
      const created = result.structuredContent?.meta?.serverResultCreatedAt;
      if (created === undefined) continue;
      toolAnswers++;
      expect(received).toBeLessThanOrEqual(Date.parse(created));
      expect(Date.parse(created)).toBeLessThanOrEqual(responded);
    }
    expect(toolAnswers).toBe(2);
  });
});
