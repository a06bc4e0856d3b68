import { randomBytes, randomUUID } from 'node:crypto';
import type { Client } from '@modelcontextprotocol/client';
import parsePrometheus from 'parse-prometheus-text-format';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createOpenCalendar, futureHour } from '../support/fixtures.js';
import type { Envelope } from '../support/mcp-clients.js';
import { connectHttp } from '../support/mcp-clients.js';
import { startOtlpReceiver } from '../support/otlp-receiver.js';
import { startPaymentStub } from '../support/payment-stub.js';
import { addAgent, identityDeps } from '../support/provision.js';
import type { RunningServer } from '../support/spawn-server.js';
import { spawnServer } from '../support/spawn-server.js';

// The real entry point with OTLP export to a local receiver (the standard OTEL_* variables) and
// an HTTP payment provider stub: one trace per call continuing the caller's traceparent, the
// expected children (store transactions, the payment query), log lines with the same ids, the
// provider asked with that trace's context; and /metrics, parsed, moving as calls are made.

let receiver: Awaited<ReturnType<typeof startOtlpReceiver>>;
let stub: Awaited<ReturnType<typeof startPaymentStub>>;
let server: RunningServer;
let agent: Client;
let room: string;

const hex = (bytes: number) => randomBytes(bytes).toString('hex');

beforeAll(async () => {
  [receiver, stub] = await Promise.all([startOtlpReceiver(), startPaymentStub()]);
  server = await spawnServer(['--no-seed', '--payments', 'http'], {
    env: {
      PAYMENT_QUERY_BASE_URL: stub.baseUrl,
      HOLDFAST_ALLOW_PRIVATE_UPSTREAMS: '1',
      OTEL_EXPORTER_OTLP_ENDPOINT: receiver.endpoint,
      OTEL_SERVICE_NAME: 'holdfast-under-test',
      HOLDFAST_TRACE_SYNC: '1',
    },
    writePolicy: 'direct',
  });
  agent = await connectHttp(server.url, 'modern');
  room = await createOpenCalendar(agent, 'Traced room', { amount: '20.00', currency: 'EUR' });
});
afterAll(async () => {
  await agent?.close();
  await server?.stop();
  await Promise.all([receiver?.close(), stub?.close()]);
});

async function until<T>(find: () => T | undefined, what: string): Promise<T> {
  for (let i = 0; i < 100; i++) {
    const found = find();
    if (found !== undefined) return found;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`never came: ${what}`);
}

/** The server's JSON log line with this message in this trace, once it was written. */
const logLine = (message: string, traceId: string) =>
  server.logs
    .flatMap((chunk) => chunk.split('\n'))
    .filter((l) => l.startsWith('{'))
    .map((l) => JSON.parse(l) as Record<string, unknown>)
    .find((l) => l.message === message && l.trace_id === traceId);

describe('traces and logs', () => {
  it('a call continues the caller’s trace: HTTP span, tool span, store and payment children, same ids in the logs', async () => {
    const traceId = hex(16);
    const callerSpan = hex(8);
    const clientSentAt = new Date(Date.now() - 5).toISOString();
    const hold = await agent.callTool({
      name: 'hold_slot',
      arguments: {
        calendarIds: [room],
        start: futureHour(2),
        end: futureHour(2, 1),
        idempotencyKey: randomUUID(),
      },
      _meta: { traceparent: `00-${traceId}-${callerSpan}-01`, clientSentAt },
    });
    const held = hold.structuredContent as unknown as Envelope<{ booking: { id: string } }>;
    expect(held.meta.traceId).toBe(traceId);
    // The envelope's meta: a UUID per operation, and the times in order wherever they are known.
    const times = held.meta as unknown as Record<string, string>;
    expect(times.operationId).toMatch(/^[\da-f]{8}-[\da-f]{4}-4[\da-f]{3}-[89ab][\da-f]{3}-[\da-f]{12}$/);
    expect(times.clientSentAt).toBe(clientSentAt);
    expect(Date.parse(times.clientSentAt!)).toBeLessThanOrEqual(Date.parse(times.serverReceivedAt!));
    expect(Date.parse(times.serverReceivedAt!)).toBeLessThanOrEqual(Date.parse(times.serverResultCreatedAt!));
    // What is not an RFC 3339 time is not echoed: the server never repeats a client's guess.
    for (const bogus of ['yesterday', '2026-12-03T09:00:00Z\u0000<script>', 12345]) {
      const listed = await agent.callTool({
        name: 'list_calendars',
        arguments: {},
        _meta: { clientSentAt: bogus },
      });
      expect((listed.structuredContent as { meta: Record<string, unknown> }).meta).not.toHaveProperty(
        'clientSentAt',
      );
    }
    const bookingId = held.data!.booking.id;

    const tool = await until(
      () => receiver.spans.find((s) => s.traceId === traceId && s.name === 'tool hold_slot'),
      'the tool span',
    );
    expect(tool.parentSpanId).toBe(callerSpan);
    expect(tool.spanId).toBe((held.meta as { spanId?: string }).spanId);
    const writes = await until(() => {
      const found = receiver.spans.filter(
        (s) => s.parentSpanId === tool.spanId && s.name.startsWith('store.'),
      );
      return found.length > 0 ? found : undefined;
    }, 'store spans');
    for (const w of writes) expect(w.traceId).toBe(traceId);
    expect(writes.map((w) => w.attributes['db.system.name'])).toContain('sqlite');

    // The log line of the call carries the same trace, the tool span, and the operation id.
    const line = await until(() => logLine('tool call', traceId), 'the log line');
    expect(line).toMatchObject({
      span_id: tool.spanId,
      operation_id: held.meta.operationId,
      action: 'hold_slot',
      // Who called and from where, on every tool-call line.
      caller: { person: expect.any(String), connection: expect.any(String), tenant: 'local' },
      source: { transport: 'http', client: expect.any(String) },
    });
    expect(line.span_id).toMatch(/^[\da-f]{16}$/);

    // Confirming asks the provider: a payment span in the same trace, its context on the wire.
    const before = stub.requests.length;
    const confirm = await agent.callTool({
      name: 'confirm_booking',
      arguments: { bookingId, expectedVersion: 1, idempotencyKey: randomUUID() },
      _meta: { traceparent: `00-${traceId}-${hex(8)}-01` },
    });
    expect((confirm.structuredContent as unknown as Envelope).error?.code).toBe('PAYMENT_PENDING');
    const asked = stub.requests.slice(before);
    expect(asked).toHaveLength(1);
    const payment = await until(
      () => receiver.spans.find((s) => s.traceId === traceId && s.name === 'payment.query'),
      'the payment span',
    );
    expect(asked[0]!.traceparent).toBe(`00-${traceId}-${payment.spanId}-01`);
    expect(Date.parse(asked[0]!.sentAt!)).toBeGreaterThan(Date.now() - 60_000);
    const confirmSpan = await until(
      () => receiver.spans.find((s) => s.spanId === payment.parentSpanId),
      'the confirm span',
    );
    expect(confirmSpan.name).toBe('tool confirm_booking');
    // The provider's answer is logged with its response time and the local receive time.
    const answered = await until(() => logLine('payment provider answered', traceId), 'the payment log line');
    expect(answered).toMatchObject({ call: 'query', status: 200, ms: expect.any(Number) });
    expect(Date.parse(answered.received_at as string)).toBeGreaterThan(Date.now() - 60_000);
    expect('provider_responded_at' in answered).toBe(true);
  });

  it('without a traceparent in _meta, the HTTP request’s header starts the trace; every request gets a server span', async () => {
    const traceId = hex(16);
    const headerSpan = hex(8);
    const traced = await connectHttp(server.url, 'modern', {
      fetch: (input, init) => {
        const headers = new Headers(init?.headers);
        headers.set('traceparent', `00-${traceId}-${headerSpan}-01`);
        return fetch(input, { ...init, headers });
      },
    });
    await traced.callTool({ name: 'list_calendars', arguments: {} });
    await traced.close();
    const tool = await until(
      () => receiver.spans.find((s) => s.traceId === traceId && s.name === 'tool list_calendars'),
      'the tool span',
    );
    // The client also lists tools first: each request is its own server span under the header's.
    const http = await until(
      () => receiver.spans.find((s) => s.spanId === tool.parentSpanId),
      'the HTTP span',
    );
    expect(http).toMatchObject({ name: 'POST /mcp', kind: 2, parentSpanId: headerSpan, traceId });
  });
});

async function scrape(headers: Record<string, string> = {}) {
  const response = await fetch(new URL('/metrics', server.url), { headers });
  return { status: response.status, text: await response.text() };
}

function sampleOf(text: string, name: string, labels: Record<string, string> = {}): number {
  const family = parsePrometheus(text).find((f) => f.name === name);
  const sample = family?.metrics.find((m) => Object.entries(labels).every(([k, v]) => m.labels?.[k] === v));
  return sample ? Number(sample.value) : 0;
}

/** A histogram's observation count (the parser drops a labelled histogram's labels and count). */
function countOf(text: string, name: string, labels: Record<string, string> = {}): number {
  const wanted = Object.entries(labels).map(([k, v]) => `${k}="${v}"`);
  const line = text
    .split('\n')
    .find((l) => l.startsWith(`${name}_count`) && wanted.every((w) => l.includes(w)));
  return line ? Number(line.split(' ').at(-1)) : 0;
}

describe('/metrics', () => {
  it('parses as Prometheus text; counters and gauges move as calls are made', async () => {
    const before = (await scrape()).text;
    const start = futureHour(4);
    const end = futureHour(4, 1);
    const hold = () =>
      agent.callTool({
        name: 'hold_slot',
        arguments: { calendarIds: [room], start, end, idempotencyKey: randomUUID() },
      });
    await hold();
    await hold(); // the same time again: SLOT_UNAVAILABLE
    const after = await scrape();
    expect(after.status).toBe(200);
    const moved = (name: string, labels?: Record<string, string>) =>
      sampleOf(after.text, name, labels) - sampleOf(before, name, labels);
    expect(moved('holdfast_tool_calls_total', { tool: 'hold_slot', outcome: 'ok' })).toBe(1);
    expect(moved('holdfast_tool_calls_total', { tool: 'hold_slot', outcome: 'SLOT_UNAVAILABLE' })).toBe(1);
    expect(moved('holdfast_conflicts_total', { code: 'SLOT_UNAVAILABLE' })).toBe(1);
    expect(
      countOf(after.text, 'holdfast_tool_call_duration_seconds', { tool: 'hold_slot' }) -
        countOf(before, 'holdfast_tool_call_duration_seconds', { tool: 'hold_slot' }),
    ).toBe(2);
    expect(moved('holdfast_holds_active')).toBe(1);
    expect(
      sampleOf(after.text, 'holdfast_payment_outcomes_total', { outcome: 'PENDING' }),
    ).toBeGreaterThanOrEqual(1);
    expect(countOf(after.text, 'holdfast_audit_append_duration_seconds')).toBeGreaterThan(0);
    for (const family of [
      'holdfast_approvals_pending',
      'holdfast_rate_limit_refusals_total',
      'holdfast_process_cpu_user_seconds_total',
    ])
      expect(
        parsePrometheus(after.text).some((f) => f.name === family),
        family,
      ).toBe(true);
  });

  it('from afar, only an owner’s token scrapes: anything else 401/403, scraped 0', async () => {
    const { deps, close } = await identityDeps(server.dbPath);
    const viewer = await addAgent(deps, { email: 'viewer@local.example', role: 'viewer' });
    const approver = await addAgent(deps, { email: 'approver@local.example', role: 'approver' });
    // An owner, but of another tenant: metrics span every tenant, so they are the operator's.
    const tenantOwner = await addAgent(deps, { email: 'owner@elsewhere.example', tenant: 'elsewhere' });
    await close();
    const forwarded = { 'x-forwarded-for': '203.0.113.9' };
    const attempts: Record<string, string>[] = [
      forwarded,
      { forwarded: 'for=203.0.113.9' },
      { ...forwarded, authorization: `Bearer ${viewer.token}` },
      { ...forwarded, authorization: `Bearer ${approver.token}` },
      { ...forwarded, authorization: 'Bearer hf_at_forged' },
      { ...forwarded, cookie: 'hf_session=anything' },
      { ...forwarded, authorization: `Bearer ${tenantOwner.token}` },
      // Relayed by a proxy that names the client some other way, or not at all.
      { 'x-real-ip': '203.0.113.9' },
      { via: '1.1 proxy' },
      { 'x-forwarded-for': '' },
    ];
    let scraped = 0;
    for (const headers of attempts) {
      const answer = await scrape(headers);
      if (answer.status === 200) scraped++;
      expect([401, 403], JSON.stringify(headers)).toContain(answer.status);
    }
    expect(scraped).toBe(0);
    const owner = await scrape({ ...forwarded, authorization: `Bearer ${server.agent.token}` });
    expect(owner.status).toBe(200);
    expect(owner.text).toContain('holdfast_tool_calls_total');
  });
});

describe('span names', () => {
  it('a path Holdfast does not serve is one span name, whatever it says', async () => {
    const before = receiver.spans.length;
    for (const path of ['/evil-1', `/${'X'.repeat(3000)}`, '/a%0A%7B%22b%22%3A1%7D'])
      expect((await fetch(new URL(path, server.url))).status).toBe(404);
    const named = await until(() => {
      const found = receiver.spans
        .slice(before)
        .filter((s) => s.kind === 2 && s.attributes['http.response.status_code'] === 404);
      return found.length >= 3 ? found : undefined;
    }, 'three server spans');
    expect(new Set(named.map((s) => s.name))).toEqual(new Set(['GET /*']));
    expect(new Set(named.map((s) => s.attributes['url.path']))).toEqual(new Set(['/*']));
  });
});
