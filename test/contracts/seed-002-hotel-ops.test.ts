import { randomBytes, randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import Database from 'better-sqlite3';
import type { Client } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { toContractError } from '../../src/adapters/mcp/hotel-ops/contract-errors.js';
import { setKeysAs } from '../../src/app/inbox/business-keys.js';
import { personByEmail } from '../../src/app/identity/people.js';
import { createOpenCalendar, futureHour } from '../support/fixtures.js';
import { connectHttp, ok } from '../support/mcp-clients.js';
import { bearerToolCall } from '../support/net.js';
import { signIn } from '../support/person.js';
import { addAgent, identityDeps } from '../support/provision.js';
import type { RunningServer } from '../support/spawn-server.js';
import { ingestSecretFor, runCli, spawnServer } from '../support/spawn-server.js';

/**
 * Contract 002, "TH Hotel SuperAgent MCP Tools 契约" (/work/shared/seeds/002_136fcada35f9e42e.txt),
 * served with `holdfast serve --profile hotel-ops`, walked section by section in its own order
 * (its numbered headings; requirements inside a heading numbered 1, 2, 3 … as they appear).
 * `different:` pins what Holdfast does instead, for the reason in docs/contracts.md.
 */

interface ContractEnvelope {
  success: boolean;
  request_id: string;
  trace_id: string;
  data: Record<string, any> | null;
  warnings: unknown[];
  error: { code: string; message: string; message_en: string; details: Record<string, any> } | null;
}

const ENVELOPE_KEYS = ['data', 'error', 'request_id', 'success', 'trace_id', 'warnings'];
const TOOLS = [
  'th_hotel_query_case_context',
  'th_hotel_query_object_detail',
  'th_hotel_list_message_conversation_tasks',
  'th_hotel_list_message_conversation_messages',
  'th_hotel_submit_task_results',
];

let server: RunningServer;
let agent: Client;
let otherHotel: Client;
let ingestSecret: string;
let room: string;
/** A booking a person gave the keys CN-1001, GRP-A and RES-9001 (as on its console page). */
let keyed: { id: string };

/** Calls a contract tool; checks the answer is the contract's envelope, agreeing with isError. */
async function contract(
  client: Client,
  name: string,
  args: Record<string, unknown>,
  meta?: Record<string, unknown>,
): Promise<ContractEnvelope & { content: { text: string }[] }> {
  const result = await client.callTool({ name, arguments: args, ...(meta ? { _meta: meta } : {}) });
  const envelope = result.structuredContent as unknown as ContractEnvelope;
  expect(Object.keys(envelope).sort()).toEqual(ENVELOPE_KEYS);
  expect(Boolean(result.isError)).toBe(!envelope.success);
  return { ...envelope, content: result.content as { text: string }[] };
}

const at = (minutes: number) => new Date(Date.UTC(2026, 10, 3, 9, minutes)).toISOString();

function mail(id: string, minutes: number, extra: Record<string, unknown> = {}) {
  return {
    external_message_id: id,
    message_id: `<${id}@hotel.example>`,
    subject: `Reservation mail ${id}`,
    from: 'Sales <sales@acme.example>',
    cc: ['ops@hotel.example'],
    received_at: at(minutes),
    text_body: `Message ${id}: please hold 12 rooms for group ACME-0412.`,
    html_body:
      `<p onclick="steal()">Message ${id} <a href="https://files.example/${id}.pdf">attachment</a>` +
      `<img src="https://tracker.example/${id}.gif"><img src="cid:logo@acme"></p><script>alert(1)</script>`,
    ...extra,
  };
}

async function ingest(body: Record<string, unknown>) {
  const answer = await fetch(new URL('/api/inbox/messages', server.url), {
    method: 'POST',
    headers: { authorization: `Bearer ${ingestSecret}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  expect(answer.status, await answer.clone().text()).toBe(201);
}

const sourceMessage = (id: string) => ({
  source_message_id: id,
  subject: `Reservation mail ${id}`,
  from: 'sales@acme.example',
  cc: [],
  received_at: at(0),
  source_channel: 'Email',
});

const v3 = (id: string, events: unknown[], extra: Record<string, unknown> = {}) => ({
  source_message: sourceMessage(id),
  message_events: events,
  case_candidates: [],
  extraction_warnings: [],
  unhandled_current_intents: [],
  ...extra,
});

const information = (eventId = 'E1') => ({ event_id: eventId, event_type: 'information', summary: 'FYI' });

function rows(sql: string, ...params: unknown[]): Record<string, any>[] {
  const db = new Database(server.dbPath, { readonly: true });
  try {
    return db.prepare(sql).all(...params) as Record<string, any>[];
  } finally {
    db.close();
  }
}

const count = (table: string) => (rows(`SELECT count(*) AS n FROM ${table}`)[0]!.n as number) ?? 0;
const inboxCounts = () =>
  Object.fromEntries(['inbox_batches', 'inbox_tasks', 'booking_keys'].map((t) => [t, count(t)]));

async function toolsByName() {
  return new Map((await agent.listTools()).tools.map((t) => [t.name, t]));
}

/** A JSON-RPC POST to /mcp with the owner's token, and its JSON-RPC error if any. */
async function rpc(body: string, headers: Record<string, string> = {}) {
  const answer = await fetch(new URL('/mcp', server.url), {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': '2025-06-18',
      authorization: `Bearer ${server.agent.token}`,
      ...headers,
    },
    body,
  });
  const text = await answer.text();
  const json = text.startsWith('{') ? text : (/^data: (.*)$/m.exec(text)?.[1] ?? '{}');
  return { status: answer.status, headers: answer.headers, body: JSON.parse(json) as Record<string, any> };
}

/** A POST to the contract's REST interface of a tool, with the owner's token unless told. */
async function rest(path: string, body: unknown, token: string | null = server.agent.token) {
  const answer = await fetch(new URL(path, server.url), {
    method: 'POST',
    headers: { ...(token ? { authorization: `Bearer ${token}` } : {}), 'content-type': 'application/json' },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
  return { status: answer.status, body: (await answer.json()) as ContractEnvelope & { code?: string } };
}

/**
 * The REST interface answers what its tool answers: the same envelope, the same data, field by
 * field (each call its own request id); no credential is 401 MCP_AUTH_INVALID, and a body that is
 * not JSON is the envelope's MCP_REQUEST_INVALID. Returns the REST answer.
 */
async function sameAsTool(path: string, tool: string, args: Record<string, unknown>) {
  const byTool = await contract(agent, tool, args);
  const byRest = await rest(path, args);
  expect(byRest.status, path).toBe(200);
  expect(Object.keys(byRest.body).sort()).toEqual(ENVELOPE_KEYS);
  expect(byRest.body.request_id).not.toBe(byTool.request_id);
  expect({ ...byRest.body, request_id: '', trace_id: '' }).toEqual({
    success: byTool.success,
    request_id: '',
    trace_id: '',
    data: byTool.data,
    warnings: byTool.warnings,
    error: byTool.error,
  });
  const anonymous = await rest(path, args, null);
  expect(anonymous.status).toBe(401);
  expect(anonymous.body.code).toBe('MCP_AUTH_INVALID');
  const garbled = await rest(path, '{"object_id": ');
  expect(garbled.body.success).toBe(false);
  expect(garbled.body.error?.code).toBe('MCP_REQUEST_INVALID');
  return byRest.body;
}

beforeAll(async () => {
  server = await spawnServer(['--profile', 'hotel-ops']);
  agent = await connectHttp(server.url, 'modern');
  ingestSecret = await ingestSecretFor(server.dbPath);

  // One thread of three mails (threaded by headers), a second one named by its provider, one
  // mail whose real channel is OUTLOOK, and one external id under two providers.
  await ingest(mail('m-1', 0));
  await ingest(mail('m-2', 5, { in_reply_to: '<m-1@hotel.example>' }));
  await ingest(mail('m-3', 9, { references: ['<m-1@hotel.example>', '<m-2@hotel.example>'] }));
  await ingest(mail('b-1', 1, { external_conversation_id: 'conv-B' }));
  await ingest(mail('o-1', 2, { provider: 'OUTLOOK', channel: 'OUTLOOK' }));
  await ingest(mail('dup', 3, { provider: 'OUTLOOK' }));
  await ingest(mail('dup', 3, { provider: 'AGENTBUS', message_id: '<dup-2@hotel.example>' }));
  for (const id of ['s-1', 's-2', 's-3', 's-4', 's-5', 's-6', 's-7', 's-8', 's-9', 's-10'])
    await ingest(mail(id, 20));

  room = await createOpenCalendar(agent, 'Harbour room');
  const held = await ok(agent, 'hold_slot', {
    calendarIds: [room],
    start: futureHour(3),
    end: futureHour(3, 1),
    idempotencyKey: randomUUID(),
  });
  const { deps, close } = await identityDeps(server.dbPath);
  try {
    const person = await personByEmail(deps, server.agent.email);
    await setKeysAs(
      deps,
      person,
      held.booking.id as string,
      { confirmationNumber: 'CN-1001', groupCode: 'GRP-A', externalReservationNumber: 'RES-9001' },
      held.booking.version as number,
    );
    const other = await addAgent(deps, { email: 'mallory@other.example', tenant: 'other' });
    otherHotel = await connectHttp(server.url, 'modern', { token: other.token });
  } finally {
    await close();
  }
  keyed = { id: held.booking.id as string };
}, 60_000);

afterAll(async () => {
  await Promise.all([agent?.close(), otherHotel?.close()]);
  await server?.stop();
});

describe('§1 文档信息 (document information)', () => {
  it('[002-1-1] Holdfast names the contract and the version it serves: "SuperAgent MCP Tools", draft 0.1', () => {
    expect(readFileSync('docs/hotel-ops.md', 'utf8')).toContain('("SuperAgent MCP Tools", draft 0.1)');
  });

  it('[002-1-2] scope: the MCP tools SuperAgent calls are offered under their exact names', async () => {
    const names = [...(await toolsByName()).keys()];
    expect(names.filter((n) => n.startsWith('th_hotel_')).sort()).toEqual([...TOOLS].sort());
  });
});

describe('§2 通用约定 (common conventions)', () => {
  it('[002-2-1] one embedded MCP endpoint exposes the tools beside the business’s own, in the same process', async () => {
    const names = [...(await toolsByName()).keys()];
    expect(names).toEqual(expect.arrayContaining([...TOOLS, 'hold_slot', 'get_booking']));
    const found = await contract(agent, 'th_hotel_query_case_context', { confirmation_number: 'CN-1001' });
    expect(found.data!.matched_order_records[0].order_id).toBe(keyed.id);
  });

  it('[002-2-2] hotel_id is resolved by the server: left out it works; given, it must be this hotel', async () => {
    expect((await contract(agent, 'th_hotel_query_case_context', { group_code: 'GRP-A' })).success).toBe(
      true,
    );
    const same = await contract(agent, 'th_hotel_query_case_context', {
      group_code: 'GRP-A',
      hotel_id: 'local',
    });
    expect(same.success).toBe(true);
    const other = await contract(agent, 'th_hotel_query_case_context', {
      group_code: 'GRP-A',
      hotel_id: 'another-hotel',
    });
    expect(other.error).toMatchObject({ code: 'MCP_REQUEST_INVALID', details: { field: 'hotel_id' } });
  });

  it('[002-2-3] source_provider is usually left out; a query tool may isolate by it; the write tool does not need it', async () => {
    const byProvider = (provider: string) =>
      contract(agent, 'th_hotel_list_message_conversation_tasks', {
        source_message_id: 'm-1',
        source_provider: provider,
      });
    expect((await byProvider('AGENTBUS')).success).toBe(true);
    expect((await byProvider('OUTLOOK')).error?.code).toBe('SOURCE_MESSAGE_NOT_FOUND');
    const submitted = await contract(agent, 'th_hotel_submit_task_results', v3('s-1', [information()]));
    expect(submitted.success, JSON.stringify(submitted.error)).toBe(true);
  });

  it('[002-2-4] source_channel likewise: a query may isolate by it; mail whose real channel is OUTLOOK is still found without it', async () => {
    const byChannel = (channel: string) =>
      contract(agent, 'th_hotel_list_message_conversation_tasks', {
        source_message_id: 'o-1',
        source_channel: channel,
      });
    expect((await byChannel('OUTLOOK')).success).toBe(true);
    expect((await byChannel('EMAIL')).error?.code).toBe('SOURCE_MESSAGE_NOT_FOUND');
    const plain = await contract(agent, 'th_hotel_list_message_conversation_tasks', {
      source_message_id: 'o-1',
    });
    expect(plain.data!.source_channel).toBe('OUTLOOK');
  });

  it('[002-2-5] every answer is the envelope { success, request_id, trace_id, data, warnings, error }', async () => {
    const good = await contract(agent, 'th_hotel_query_case_context', { group_code: 'GRP-A' });
    expect(good).toMatchObject({ success: true, error: null, warnings: expect.any(Array) });
    expect(good.request_id).toMatch(/^[0-9a-f-]{36}$/);
    const bad = await contract(agent, 'th_hotel_query_case_context', {});
    expect(bad).toMatchObject({ success: false, data: null, warnings: [] });
    expect(bad.request_id).not.toBe(good.request_id);
  });

  it('[002-2-6] without a trace_id of the caller’s own, trace_id is the W3C trace id of the request’s traceparent (a free string there is not a trace id)', async () => {
    let traceparent = '';
    const traced = await connectHttp(server.url, 'modern', {
      fetch: (input, init) => {
        const headers = new Headers(init?.headers);
        headers.set('traceparent', traceparent);
        return fetch(input, { ...init, headers });
      },
    });
    try {
      const traceId = randomBytes(16).toString('hex');
      traceparent = `00-${traceId}-${randomBytes(8).toString('hex')}-01`;
      const answer = await contract(traced, 'th_hotel_query_case_context', { group_code: 'GRP-A' });
      expect(answer.trace_id).toBe(traceId);
      traceparent = 'trace-from-superagent';
      const free = await contract(traced, 'th_hotel_query_case_context', { group_code: 'GRP-A' });
      expect(free.trace_id).toMatch(/^[0-9a-f]{32}$/);
      expect(free.trace_id).not.toBe(traceId);
    } finally {
      await traced.close();
    }
    // A 2026-07-28 client carries the trace in the message's _meta instead: the same trace id.
    const metaTrace = randomBytes(16).toString('hex');
    const viaMeta = await contract(
      agent,
      'th_hotel_query_case_context',
      { group_code: 'GRP-A' },
      {
        traceparent: `00-${metaTrace}-${randomBytes(8).toString('hex')}-01`,
      },
    );
    expect(viaMeta.trace_id).toBe(metaTrace);
  });

  it('[002-2-6] the caller’s own trace_id (the call’s _meta.trace_id) is echoed as sent; one that is not printable ASCII of at most 128 characters is not', async () => {
    const own = await contract(
      agent,
      'th_hotel_query_case_context',
      { group_code: 'GRP-A' },
      { trace_id: 'trace-from-superagent' },
    );
    expect(own.trace_id).toBe('trace-from-superagent');
    const failed = await contract(agent, 'th_hotel_query_case_context', {}, { trace_id: 'trace-001' });
    expect([failed.success, failed.trace_id]).toEqual([false, 'trace-001']);
    for (const hostile of ['line\nbreak', 'x'.repeat(129), '', 'träce']) {
      const answer = await contract(
        agent,
        'th_hotel_query_case_context',
        { group_code: 'GRP-A' },
        { trace_id: hostile },
      );
      expect(answer.trace_id).toMatch(/^[0-9a-f]{32}$/);
    }
  });

  it('[002-2-7] read tools keep the query answer inside the envelope', async () => {
    const answer = await contract(agent, 'th_hotel_query_object_detail', { object_id: `ORDER:${keyed.id}` });
    expect(answer.success).toBe(true);
    expect(answer.data).toMatchObject({ object_id: `ORDER:${keyed.id}`, order_id: keyed.id });
  });

  it('[002-2-8] the write tool keeps the task result’s business fields', async () => {
    const answer = await contract(agent, 'th_hotel_submit_task_results', v3('s-2', [information()]));
    expect(Object.keys(answer.data!)).toEqual(
      expect.arrayContaining([
        'batch_id',
        'idempotent_replay',
        'accepted_count',
        'items',
        'mapping_diagnostics',
      ]),
    );
  });

  it('[002-2-9] the result carries the machine-readable data and a short Chinese summary', async () => {
    const answer = await contract(agent, 'th_hotel_query_case_context', { group_code: 'GRP-A' });
    const [json, summary] = answer.content.map((c) => c.text);
    const { content: _content, ...structured } = answer;
    expect(JSON.parse(json!)).toEqual(structured);
    expect(summary).toMatch(/^找到 1 个订单、1 个团组、\d+ 个未完成任务；/);
    expect(summary!.length).toBeLessThan(120);
  });

  it('[002-2-10] a controlled business error keeps its code and a Chinese message in the structured result', async () => {
    const refused = await contract(agent, 'th_hotel_query_object_detail', { object_id: 'ORDER:bk_nobody' });
    expect(refused.error).toMatchObject({ code: 'OBJECT_NOT_FOUND', message: '找不到该对象。' });
    expect(refused.content[1]!.text).toMatch(/^失败：OBJECT_NOT_FOUND，找不到该对象/);
  });
});

describe('§3 Tool: th_hotel_query_case_context', () => {
  it('[002-3.1-1] tells whether a group, confirmation or reservation key exists, its open tasks, and whether a new task may be created', async () => {
    const taken = await contract(agent, 'th_hotel_query_case_context', { confirmation_number: 'CN-1001' });
    expect(taken.data!.matched_order_records.map((o: { order_id: string }) => o.order_id)).toEqual([
      keyed.id,
    ]);
    expect(taken.data!.pending_or_open_tasks).toEqual(expect.any(Array));
    expect(taken.data!.target_object_validation.can_create).toBe(false);
    const free = await contract(agent, 'th_hotel_query_case_context', { confirmation_number: 'CN-FREE-1' });
    expect(free.data!.matched_order_records).toEqual([]);
    expect(free.data!.target_object_validation.can_create).toBe(true);
  });

  it('[002-3.2-1 002-3.2-2] when to use: the description tells the agent to use it with group_code, confirmation_number or reservation_no, to decide create, update or cancel', async () => {
    const description = (await toolsByName()).get('th_hotel_query_case_context')!.description!;
    for (const word of ['group_code', 'confirmation_number', 'reservation_no', 'create, update, cancel'])
      expect(description, word).toContain(word);
  });

  it('[002-3.3-1] it is not a full-text search: only exact keys match', async () => {
    for (const partial of ['CN-100', 'cn-1001', 'GRP']) {
      const answer = await contract(agent, 'th_hotel_query_case_context', {
        confirmation_number: partial.startsWith('GRP') ? null : partial,
        group_code: partial.startsWith('GRP') ? partial : null,
      });
      expect(answer.data!.matched_order_records, partial).toEqual([]);
    }
    expect((await toolsByName()).get('th_hotel_query_case_context')!.description).toContain(
      'not a full-text search',
    );
  });

  it('[002-3.3-2] keys from earlier mail in the thread are evidence only: nothing may be created, updated or cancelled on them', async () => {
    for (const marker of [
      { body_thread_used_only_as_evidence: true },
      { target_key_source: 'body_thread_evidence' },
    ]) {
      const answer = await contract(agent, 'th_hotel_query_case_context', {
        confirmation_number: 'CN-1001',
        ...marker,
      });
      expect(answer.data!.target_object_validation, JSON.stringify(marker)).toMatchObject({
        can_create: false,
        can_update: false,
        can_cancel: false,
      });
      expect(answer.warnings).toContain('KEY_FROM_THREAD_HISTORY_IS_EVIDENCE_ONLY');
    }
  });

  it('[002-3.4-1] the input schema is the contract’s: seven nullable fields and a boolean, no others, none required', async () => {
    const schema = (await toolsByName()).get('th_hotel_query_case_context')!.inputSchema as Record<
      string,
      any
    >;
    expect(schema).toMatchObject({ type: 'object', additionalProperties: false, required: [] });
    expect(Object.keys(schema.properties).sort()).toEqual(
      [
        'body_thread_used_only_as_evidence',
        'confirmation_number',
        'group_code',
        'hotel_id',
        'object_type_hint',
        'reservation_no',
        'target_key_source',
      ].sort(),
    );
    for (const field of [
      'hotel_id',
      'group_code',
      'confirmation_number',
      'reservation_no',
      'object_type_hint',
    ])
      expect(schema.properties[field].anyOf, field).toEqual([{ type: 'string' }, { type: 'null' }]);
    expect(schema.properties.body_thread_used_only_as_evidence.type).toBe('boolean');
    const extra = await contract(agent, 'th_hotel_query_case_context', { group_code: 'GRP-A', guess: 1 });
    expect(extra.error).toMatchObject({ code: 'MCP_REQUEST_INVALID', details: { field: 'guess' } });
  });

  it('[002-3.4-2] at least one of group_code, confirmation_number, reservation_no must be non-empty', async () => {
    for (const args of [
      {},
      { group_code: null, confirmation_number: null, reservation_no: null },
      { group_code: '  ' },
    ]) {
      const answer = await contract(agent, 'th_hotel_query_case_context', args);
      expect(answer.error?.code, JSON.stringify(args)).toBe('CASE_KEY_REQUIRED');
      expect(answer.error?.details, JSON.stringify(args)).toMatchObject({ field: 'group_code' });
    }
    expect(
      (await contract(agent, 'th_hotel_query_case_context', { reservation_no: 'RES-9001' })).success,
    ).toBe(true);
  });

  it('[002-3.5-1] POST /api/ai-query/v1/case-context answers what the tool answers, field by field', async () => {
    const answer = await sameAsTool('/api/ai-query/v1/case-context', 'th_hotel_query_case_context', {
      group_code: 'GRP-A',
    });
    expect(answer.data!.matched_order_records).toHaveLength(1);
  });

  it('[002-3.5-2 002-3.5-3 002-3.5-4 002-3.5-5] answers matched_order_records[], pending_or_open_tasks[], target_object_validation (create, update, cancel, attach evidence) and warnings[]', async () => {
    const created = await contract(
      agent,
      'th_hotel_submit_task_results',
      v3('s-3', [
        {
          event_id: 'E1',
          event_type: 'reservation.create',
          case_keys: { group_code: 'GRP-OPEN' },
          booking: { calendar_id: room, start: futureHour(5), end: futureHour(5, 1) },
        },
      ]),
    );
    const taskId = created.data!.items[0].task_id as string;
    const answer = await contract(agent, 'th_hotel_query_case_context', { group_code: 'GRP-OPEN' });
    expect(answer.data!.matched_order_records).toEqual([]);
    expect(answer.data!.pending_or_open_tasks.map((t: { task_id: string }) => t.task_id)).toEqual([taskId]);
    expect(answer.data!.target_object_validation).toMatchObject({
      can_create: false,
      can_update: false,
      can_cancel: false,
      can_attach_evidence: false,
      open_create_task_id: taskId,
    });
    expect(answer.data!.warnings).toContain('OPEN_TASKS_EXIST');
    const onBooking = await contract(agent, 'th_hotel_query_case_context', { reservation_no: 'RES-9001' });
    expect(onBooking.data!.target_object_validation).toMatchObject({
      can_update: true,
      can_cancel: true,
      can_attach_evidence: true,
      target_object_id: `ORDER:${keyed.id}`,
    });
  });
});

describe('§4 Tool: th_hotel_query_object_detail', () => {
  it('[002-4.1-1] reads an ORDER:{order_id} object', async () => {
    const answer = await contract(agent, 'th_hotel_query_object_detail', { object_id: `ORDER:${keyed.id}` });
    expect(answer.data).toMatchObject({ object_type: 'ORDER', order_id: keyed.id });
  });

  it('[002-4.2-1 002-4.2-2] the object_id the case context gave reads the order’s status, keys and what may be done', async () => {
    const context = await contract(agent, 'th_hotel_query_case_context', { confirmation_number: 'CN-1001' });
    const objectId = context.data!.target_object_validation.target_object_id as string;
    const detail = await contract(agent, 'th_hotel_query_object_detail', { object_id: objectId });
    expect(detail.data).toMatchObject({ status: 'HELD', confirmation_number: 'CN-1001', can_update: true });
  });

  it('[002-4.3-1] the input schema is the contract’s: object_id required, hotel_id and object_type nullable, no others', async () => {
    const schema = (await toolsByName()).get('th_hotel_query_object_detail')!.inputSchema as Record<
      string,
      any
    >;
    expect(schema).toMatchObject({ additionalProperties: false, required: ['object_id'] });
    expect(Object.keys(schema.properties).sort()).toEqual(['hotel_id', 'object_id', 'object_type']);
    expect(schema.properties.object_id.type).toBe('string');
    expect(schema.properties.object_type.anyOf).toEqual([{ type: 'string' }, { type: 'null' }]);
    expect((await contract(agent, 'th_hotel_query_object_detail', {})).error).toMatchObject({
      code: 'MCP_REQUEST_INVALID',
      details: { field: 'object_id' },
    });
    expect((await contract(agent, 'th_hotel_query_object_detail', { object_id: 'ORDER' })).error?.code).toBe(
      'INVALID_OBJECT_ID',
    );
  });

  it('[002-4.4-1] POST /api/ai-query/v1/object-detail answers what the tool answers, field by field', async () => {
    const answer = await sameAsTool('/api/ai-query/v1/object-detail', 'th_hotel_query_object_detail', {
      object_id: `ORDER:${keyed.id}`,
    });
    expect(answer.data!.order_id).toBe(keyed.id);
  });

  it('[002-4.4-2 002-4.4-3 002-4.4-4 002-4.4-5 002-4.4-6 002-4.4-7] answers object_id, order_id, group_code, confirmation_number, reservation_no, status, can_update, can_cancel, hard_validation_warnings[]', async () => {
    const answer = await contract(agent, 'th_hotel_query_object_detail', { object_id: `ORDER:${keyed.id}` });
    expect(answer.data).toMatchObject({
      object_id: `ORDER:${keyed.id}`,
      order_id: keyed.id,
      group_code: 'GRP-A',
      confirmation_number: 'CN-1001',
      reservation_no: 'RES-9001',
      status: 'HELD',
      can_update: true,
      can_cancel: true,
      hard_validation_warnings: [],
    });
  });

  it('[002-4.4-8] no internal inbox id is ever returned; external_source_message_ids names the provider ids of the mail its tasks came from', async () => {
    const update = await contract(
      agent,
      'th_hotel_submit_task_results',
      v3('s-4', [
        {
          event_id: 'E1',
          event_type: 'reservation.update',
          case_keys: { confirmation_number: 'CN-1001' },
          target_object_id: `ORDER:${keyed.id}`,
          summary: 'Late arrival',
        },
      ]),
    );
    expect(update.success, JSON.stringify(update.error)).toBe(true);
    const detail = await contract(agent, 'th_hotel_query_object_detail', { object_id: `ORDER:${keyed.id}` });
    expect(detail.data!.external_source_message_ids).toContain('s-4');
    expect(detail.data).not.toHaveProperty('source_message_id');
    const internal = rows('SELECT id FROM inbox_messages WHERE external_id = ?', 's-4')[0]!.id as string;
    expect(JSON.stringify(detail)).not.toContain(internal);
  });
});

describe('§5 Tool: th_hotel_list_message_conversation_tasks', () => {
  it('[002-5.1-1 002-5.2-1] lists every task already made from a mail conversation', async () => {
    const first = await contract(
      agent,
      'th_hotel_submit_task_results',
      v3('m-1', [information('E1'), information('E2')]),
    );
    const second = await contract(agent, 'th_hotel_submit_task_results', v3('m-2', [information()]));
    const listed = await contract(agent, 'th_hotel_list_message_conversation_tasks', {
      source_message_id: 'm-3',
    });
    const ids = listed.data!.tasks.map((t: { task_id: string }) => t.task_id);
    const made = [...first.data!.items, ...second.data!.items].map((i: { task_id: string }) => i.task_id);
    expect(ids).toEqual(expect.arrayContaining(made));
  });

  it('[002-5.2-1 002-5.2-2 002-5.2-3] when to use: the description says to check it before splitting the same mail into tasks again', async () => {
    expect((await toolsByName()).get('th_hotel_list_message_conversation_tasks')!.description).toContain(
      'before splitting the same mail into tasks again',
    );
  });

  it('[002-5.3-1] the input schema is the contract’s: five nullable fields, no others, none required', async () => {
    const schema = (await toolsByName()).get('th_hotel_list_message_conversation_tasks')!
      .inputSchema as Record<string, any>;
    expect(schema).toMatchObject({ additionalProperties: false, required: [] });
    expect(Object.keys(schema.properties).sort()).toEqual(
      [
        'external_conversation_id',
        'hotel_id',
        'source_channel',
        'source_message_id',
        'source_provider',
      ].sort(),
    );
    for (const property of Object.values(schema.properties) as { anyOf: unknown }[])
      expect(property.anyOf).toEqual([{ type: 'string' }, { type: 'null' }]);
  });

  it('[002-5.3-2] external_conversation_id or source_message_id must be given', async () => {
    for (const args of [{}, { external_conversation_id: null, source_message_id: '' }]) {
      const answer = await contract(agent, 'th_hotel_list_message_conversation_tasks', args);
      expect(answer.error?.code, JSON.stringify(args)).toBe('CONVERSATION_KEY_REQUIRED');
      expect(answer.error?.details, JSON.stringify(args)).toMatchObject({
        field: 'external_conversation_id',
      });
    }
  });

  it('[002-5.3-3] with both, the conversation id wins', async () => {
    const answer = await contract(agent, 'th_hotel_list_message_conversation_tasks', {
      external_conversation_id: 'conv-B',
      source_message_id: 'm-1',
    });
    expect(answer.data!.external_conversation_id).toBe('conv-B');
  });

  it('[002-5.3-4] isolated by the hotel, provider, channel and conversation: another hotel and another provider find nothing', async () => {
    const foreign = await contract(otherHotel, 'th_hotel_list_message_conversation_tasks', {
      external_conversation_id: 'conv-B',
    });
    expect(foreign.error?.code).toBe('CONVERSATION_NOT_FOUND');
    const foreignMessage = await contract(otherHotel, 'th_hotel_list_message_conversation_tasks', {
      source_message_id: 'm-1',
    });
    expect(foreignMessage.error?.code).toBe('SOURCE_MESSAGE_NOT_FOUND');
    const otherProvider = await contract(agent, 'th_hotel_list_message_conversation_tasks', {
      external_conversation_id: 'conv-B',
      source_provider: 'OUTLOOK',
    });
    expect(otherProvider.error?.code).toBe('CONVERSATION_NOT_FOUND');
  });

  it('[002-5.3-5 002-5.3-6] source_provider and source_channel left out are any of the hotel’s (mail posted without them is AGENTBUS/EMAIL); attack: an OUTLOOK mail already split, which the seed’s defaults (AGENTBUS/EMAIL) would report as unknown, is seen before it is split again, and its resubmission adds 0 tasks', async () => {
    const outlook = await contract(agent, 'th_hotel_list_message_conversation_tasks', {
      source_message_id: 'o-1',
    });
    expect(outlook.data).toMatchObject({ source_provider: 'OUTLOOK', source_channel: 'OUTLOOK' });
    const plain = await contract(agent, 'th_hotel_list_message_conversation_tasks', {
      source_message_id: 'b-1',
    });
    expect(plain.data).toMatchObject({ source_provider: 'AGENTBUS', source_channel: 'EMAIL' });
    const twice = await contract(agent, 'th_hotel_list_message_conversation_tasks', {
      source_message_id: 'dup',
    });
    expect(twice.error?.code).toBe('SOURCE_MESSAGE_AMBIGUOUS');
    // The harm the seed's defaults would do: an OUTLOOK mail already split into tasks, checked
    // before splitting it again without naming provider or channel. Here its task is seen; the
    // agent's second submission of the same mail is a replay and adds no task.
    await ingest(mail('o-2', 4, { provider: 'OUTLOOK', channel: 'OUTLOOK' }));
    const split = v3('o-2', [
      {
        event_id: 'E1',
        event_type: 'reservation.create',
        case_keys: { group_code: 'GRP-O2' },
        summary: '12 rooms',
      },
    ]);
    expect((await contract(agent, 'th_hotel_submit_task_results', split)).success).toBe(true);
    const seen = await contract(agent, 'th_hotel_list_message_conversation_tasks', {
      source_message_id: 'o-2',
    });
    expect(seen.data!.task_count).toBe(1);
    // With the seed's defaults named, as its schema would fill them in, the same check finds
    // nothing: the agent would be told the mail has no tasks.
    const defaulted = await contract(agent, 'th_hotel_list_message_conversation_tasks', {
      source_message_id: 'o-2',
      source_provider: 'AGENTBUS',
      source_channel: 'EMAIL',
    });
    expect(defaulted.error?.code).toBe('SOURCE_MESSAGE_NOT_FOUND');
    const tasks = count('inbox_tasks');
    const again = await contract(agent, 'th_hotel_submit_task_results', split);
    expect(again.data).toMatchObject({ idempotent_replay: true });
    expect(count('inbox_tasks') - tasks).toBe(0);
  });

  it('[002-5.4-1] POST /api/ai-query/v1/message-conversation/tasks answers what the tool answers, field by field', async () => {
    const answer = await sameAsTool(
      '/api/ai-query/v1/message-conversation/tasks',
      'th_hotel_list_message_conversation_tasks',
      { source_message_id: 'm-2' },
    );
    expect(answer.success).toBe(true);
  });

  it('[002-5.2-3 002-5.4-2 002-5.4-3 002-5.4-4] ordered by mail received time, then task created time, then task id', async () => {
    await contract(agent, 'th_hotel_submit_task_results', {
      source_message_id: 'm-3',
      ai_task_results: [
        {
          source_event_index: 2,
          catalog_code: 'FIT',
          skill_id: 'fit.change',
          result_type: 'normal_task',
          task_type: 'CHANGE',
        },
        {
          source_event_index: 1,
          catalog_code: 'FIT',
          skill_id: 'fit.new',
          result_type: 'normal_task',
          task_type: 'NEW',
        },
      ],
    });
    const listed = await contract(agent, 'th_hotel_list_message_conversation_tasks', {
      source_message_id: 'm-1',
    });
    const tasks = listed.data!.tasks as {
      received_at: string;
      task_created_at: string;
      task_id: string;
      external_source_message_id: string;
      source_event_index: number;
    }[];
    const key = (t: (typeof tasks)[number]) => [t.received_at, t.task_created_at, t.task_id].join(' ');
    expect(tasks.map(key)).toEqual([...tasks.map(key)].sort());
    expect(
      tasks.filter((t) => t.external_source_message_id === 'm-3').map((t) => t.source_event_index),
    ).toEqual([2, 1]);
  });

  it('[002-5.4-5 002-5.4-6 002-5.4-7 002-5.4-8 002-5.4-9 002-5.4-10] answers task_count and, per task, external_source_message_id, task_id, task_status, system_task_type, task_created_at', async () => {
    const listed = await contract(agent, 'th_hotel_list_message_conversation_tasks', {
      source_message_id: 'm-3',
    });
    expect(listed.data!.task_count).toBe(listed.data!.tasks.length);
    expect(listed.data!.task_count).toBeGreaterThan(0);
    for (const task of listed.data!.tasks as Record<string, unknown>[])
      expect(task).toMatchObject({
        external_source_message_id: expect.stringMatching(/^m-[123]$/),
        task_id: expect.any(String),
        task_status: 'PENDING_CONFIRMATION',
        system_task_type: expect.any(String),
        task_created_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
      });
  });
});

describe('§6 Tool: th_hotel_list_message_conversation_messages', () => {
  const read = () =>
    contract(agent, 'th_hotel_list_message_conversation_messages', { source_message_id: 'm-2' });

  it('[002-6.1-1 002-6.2-2 002-6.2-3] reads every controlled body of the conversation', async () => {
    const answer = await read();
    expect(answer.data!.message_count).toBe(3);
    expect(answer.data!.messages.map((m: { text_body: string }) => m.text_body)).toEqual(
      ['m-1', 'm-2', 'm-3'].map((id) => `Message ${id}: please hold 12 rooms for group ACME-0412.`),
    );
  });

  it('[002-6.2-1 002-6.2-3] when to use: the description offers the history in received order', async () => {
    expect((await toolsByName()).get('th_hotel_list_message_conversation_messages')!.description).toContain(
      'in received order',
    );
    const answer = await read();
    const received = answer.data!.messages.map((m: { received_at: string }) => m.received_at);
    expect(received).toEqual([...received].sort());
  });

  it('[002-6.3-1] no raw, unsanitized HTML', async () => {
    const text = JSON.stringify((await read()).data);
    for (const raw of ['<script', 'onclick', 'alert(1)']) expect(text, raw).not.toContain(raw);
  });

  it('[002-6.3-2] no attachment URL', async () => {
    expect(JSON.stringify((await read()).data)).not.toContain('files.example');
  });

  it('[002-6.3-3] no inline image URL', async () => {
    const text = JSON.stringify((await read()).data);
    for (const image of ['tracker.example', 'cid:logo', '<img']) expect(text, image).not.toContain(image);
  });

  it('[002-6.3-4] no attachments, inline_images or external_url fields', async () => {
    for (const message of (await read()).data!.messages as Record<string, unknown>[])
      for (const field of ['attachments', 'inline_images', 'external_url'])
        expect(message).not.toHaveProperty(field);
  });

  it('[002-6.3-5] no href or src attributes in the HTML', async () => {
    for (const message of (await read()).data!.messages as { html_body_sanitized: string }[]) {
      expect(message.html_body_sanitized).toContain('attachment');
      expect(message.html_body_sanitized).not.toMatch(/\s(href|src)\s*=/i);
    }
  });

  it('[002-6.3-6] every read of a body is recorded (source message access audit)', async () => {
    const before = count('inbox_body_reads');
    const answer = await read();
    expect(count('inbox_body_reads')).toBe(before + (answer.data!.message_count as number));
  });

  it('[002-6.4-1] the input is the same as th_hotel_list_message_conversation_tasks’s', async () => {
    const tools = await toolsByName();
    expect(tools.get('th_hotel_list_message_conversation_messages')!.inputSchema).toEqual(
      tools.get('th_hotel_list_message_conversation_tasks')!.inputSchema,
    );
  });

  it('[002-6.5-1] POST /api/ai-query/v1/message-conversation/messages answers what the tool answers, field by field', async () => {
    const answer = await sameAsTool(
      '/api/ai-query/v1/message-conversation/messages',
      'th_hotel_list_message_conversation_messages',
      { source_message_id: 'm-2' },
    );
    expect(answer.data!.message_count).toBe(3);
  });

  it('[002-6.5-2 002-6.5-3 002-6.5-4 002-6.5-5 002-6.5-6 002-6.5-7] answers message_count and, per mail, external_source_message_id, received_at, text_body, html_body_sanitized, html_render_mode', async () => {
    const answer = await read();
    expect(answer.data!.message_count).toBe(answer.data!.messages.length);
    expect(answer.data!.messages[0]).toMatchObject({
      external_source_message_id: 'm-1',
      received_at: '2026-11-03T09:00:00Z',
      text_body: expect.stringContaining('12 rooms'),
      html_body_sanitized: expect.stringContaining('Message m-1'),
      html_render_mode: 'SANITIZED_NO_EXTERNAL',
    });
  });
});

describe('§7 Tool: th_hotel_submit_task_results', () => {
  it('[002-7.1-1 002-7.1-2] submits the results of one external source message: transitions and tasks are written', async () => {
    const answer = await contract(
      agent,
      'th_hotel_submit_task_results',
      v3('s-5', [information('E1'), information('E2')]),
    );
    expect(answer.data!.accepted_count).toBe(2);
    const transitions = answer.data!.items.map((i: { ai_transition_id: string }) => i.ai_transition_id);
    expect(
      rows('SELECT transition_id FROM inbox_tasks WHERE batch_id = ?', answer.data!.batch_id)
        .map((r) => r.transition_id)
        .sort(),
    ).toEqual([...transitions].sort());
  });

  it('[002-7.1-2] the task cards: every task written is a card a person of the hotel confirms on, saying the room, the time with its zone and what confirming does', async () => {
    await ingest(mail('card-1', 30));
    const start = futureHour(6);
    const answer = await contract(
      agent,
      'th_hotel_submit_task_results',
      v3('card-1', [
        {
          event_id: 'E1',
          event_type: 'reservation.create',
          summary: 'Ms Rivera, harbour room, one night',
          case_keys: { group_code: 'GRP-CARD' },
          booking: { calendar_id: room, start, end: futureHour(6, 1) },
        },
        information('E2'),
      ]),
    );
    const taskIds = answer.data!.items.map((i: { task_id: string }) => i.task_id as string);
    const conversation = rows(
      'SELECT conversation_id FROM inbox_messages WHERE external_id = ?',
      'card-1',
    )[0]!.conversation_id as string;
    const cookie = await signIn(new URL(server.url).origin, server.agent.email, server.agent.password);
    const page = await fetch(new URL(`/console/inbox/${conversation}`, server.url), { headers: { cookie } });
    expect(page.status).toBe(200);
    const html = await page.text();
    for (const id of taskIds) expect(html).toContain(`data-task="${id}" data-status="PENDING_CONFIRMATION"`);
    expect(html).toContain('Harbour room');
    expect(html).toContain('(UTC)');
    expect(html).toContain('Confirming holds this time as you and asks for an approval');
    expect(html).toContain('Confirming records that a person has seen to it; nothing else changes.');
    // The agent's own token is no way onto the cards.
    const asAgent = await fetch(new URL(`/console/inbox/${conversation}`, server.url), {
      headers: { authorization: `Bearer ${server.agent.token}` },
      redirect: 'manual',
    });
    expect(asAgent.status).not.toBe(200);
  });

  it('[002-7.1-2] no order is written at submission — order_id stays null (pending_confirmation) until a person confirms; attack: the agent’s submissions, however worded, book 0', async () => {
    const bookings = count('bookings');
    const answer = await contract(
      agent,
      'th_hotel_submit_task_results',
      v3('s-6', [
        {
          event_id: 'E1',
          event_type: 'reservation.create',
          case_keys: { confirmation_number: 'CN-NEW-6' },
          booking: { calendar_id: room, start: futureHour(6), end: futureHour(6, 1) },
        },
      ]),
    );
    expect(answer.data!.items[0]).toMatchObject({ order_id: null, order_id_reason: 'pending_confirmation' });
    expect(count('bookings')).toBe(bookings);
    // However the agent words it, its submission books nothing: a create with the time, one
    // claiming the guest confirmed, a V2 normal task.
    await ingest(mail('s-6b', 26));
    const attempts = [
      v3('s-6b', [
        {
          event_id: 'E1',
          event_type: 'reservation.create',
          summary: 'Guest confirmed by phone: book it now',
          case_keys: { confirmation_number: 'CN-NEW-6B' },
          booking: { calendar_id: room, start: futureHour(7), end: futureHour(7, 1) },
        },
      ]),
      {
        source_message_id: 's-6b',
        ai_task_results: [
          {
            source_event_index: 1,
            catalog_code: 'RESERVATION',
            skill_id: 'create',
            result_type: 'normal_task',
            task_type: 'reservation.create',
          },
        ],
      },
    ];
    let booked = 0;
    for (const attempt of attempts) {
      const before = count('bookings');
      await contract(agent, 'th_hotel_submit_task_results', attempt);
      booked += count('bookings') - before;
    }
    expect(booked).toBe(0);
  });

  it('[002-7.2-4] the results go to people to confirm: every task waits as PENDING_CONFIRMATION', async () => {
    const answer = await contract(agent, 'th_hotel_submit_task_results', v3('s-7', [information()]));
    expect(answer.data!.items.map((i: { task_status: string }) => i.task_status)).toEqual([
      'PENDING_CONFIRMATION',
    ]);
  });

  it('[002-2-4 002-7.2-2 002-7.2-3] no hotel_id, source_provider or source_channel needed: the mail is matched by the hotel and its external id (its real channel is OUTLOOK)', async () => {
    const answer = await contract(agent, 'th_hotel_submit_task_results', v3('o-1', [information()]));
    expect(answer.success, JSON.stringify(answer.error)).toBe(true);
  });

  it('[002-7.2-1 002-7.3-1] not while probing or drafting: the description says so', async () => {
    expect((await toolsByName()).get('th_hotel_submit_task_results')!.description).toContain(
      'Never call while still drafting',
    );
  });

  it('[002-7.3-2] not with a history mail’s id as the current one: the description asks for ONE current source mail', async () => {
    expect((await toolsByName()).get('th_hotel_submit_task_results')!.description).toContain(
      'ONE current source mail',
    );
  });

  it('[002-7.3-3] not without source_message_id: MISSING_SOURCE_MESSAGE_ID', async () => {
    const answer = await contract(agent, 'th_hotel_submit_task_results', {
      source_message_id: '',
      ai_task_results: [],
    });
    expect(answer.error?.code).toBe('MISSING_SOURCE_MESSAGE_ID');
  });

  it('[002-7.4-1 002-7.4-2 002-7.4-3 002-7.4-4 002-7.4-20] three input shapes, machine-readable in tools/list: V3 business root, V3 S10/S99 notice, V2 task results', async () => {
    // In the tool's _meta: a root oneOf is refused by model APIs (test/e2e/portable-schemas.test.ts).
    const tool = (await toolsByName()).get('th_hotel_submit_task_results')!;
    const shapes = tool._meta!['io.github.holdfast-dev/inputShapes'] as { required: string[] }[];
    expect((tool.inputSchema as Record<string, unknown>).oneOf).toBeUndefined();
    expect(shapes.map((o: { required: string[] }) => o.required)).toEqual([
      [
        'source_message',
        'message_events',
        'case_candidates',
        'extraction_warnings',
        'unhandled_current_intents',
      ],
      [
        'source_message',
        'route_code',
        'handler_type',
        'result_type',
        'current_or_history',
        'agent_assessment',
        'notification',
        'manual_review',
      ],
      ['source_message_id', 'ai_task_results'],
    ]);
    const s10 = await contract(agent, 'th_hotel_submit_task_results', {
      source_message: sourceMessage('s-8'),
      route_code: 'S10',
      handler_type: 'entry_notice',
      result_type: 'informational_message',
      current_or_history: 'current',
      agent_assessment: { summary: 'Thank-you note' },
      notification: { title: 'Thanks' },
      manual_review: null,
    });
    expect(s10.success, JSON.stringify(s10.error)).toBe(true);
    expect(s10.data!.items[0]).toMatchObject({ transition_kind: 'task' });
  });

  it('[002-7.4-5 002-7.4-6 002-7.4-7] agent event ids (E1, E_PARENT, E_CHILD_1) become one-based source_event_index in array order, relations mapped; no agent id reaches the business layer', async () => {
    const answer = await contract(
      agent,
      'th_hotel_submit_task_results',
      v3('s-9', [
        { event_id: 'E_CHILD_1', event_type: 'information', parent_event_id: 'E_PARENT' },
        { event_id: 'E_PARENT', event_type: 'information', related_event_ids: ['E_CHILD_1', 'E1'] },
        { event_id: 'E1', event_type: 'information', related_event_id: 'E_PARENT' },
      ]),
    );
    expect(answer.data!.mapping_diagnostics.event_id_mapping).toEqual([
      { event_id: 'E_CHILD_1', source_event_index: 1 },
      { event_id: 'E_PARENT', source_event_index: 2 },
      { event_id: 'E1', source_event_index: 3 },
    ]);
    const details = rows(
      'SELECT source_event_index, detail FROM inbox_tasks WHERE batch_id = ? ORDER BY source_event_index',
      answer.data!.batch_id,
    );
    const parsed = details.map((r) => JSON.parse(r.detail as string) as Record<string, unknown>);
    expect(
      parsed.map((d) => [
        d.parent_source_event_index,
        d.related_source_event_indices,
        d.related_source_event_index,
      ]),
    ).toEqual([
      [2, [], null],
      [null, [1, 3], null],
      [null, [], 2],
    ]);
    for (const d of details) expect(d.detail as string).not.toMatch(/E_PARENT|E_CHILD_1|"E1"/);
  });

  it('[002-7.4-8] hotel_id, source_provider and source_channel are accepted and removed before the business layer', async () => {
    const answer = await contract(
      agent,
      'th_hotel_submit_task_results',
      v3('s-10', [information()], { hotel_id: null, source_provider: 'AGENTBUS', source_channel: 'EMAIL' }),
    );
    expect(answer.data!.mapping_diagnostics.dropped_compatibility_fields.sort()).toEqual(
      ['hotel_id', 'source_channel', 'source_provider'].sort(),
    );
    const detail = rows('SELECT detail FROM inbox_tasks WHERE batch_id = ?', answer.data!.batch_id)[0]!
      .detail as string;
    expect(detail).not.toMatch(/hotel_id|source_provider|source_channel/);
  });

  it('[002-7.4-9] a missing source_message.source_message_id, or no source_message at all, is MISSING_SOURCE_MESSAGE_ID', async () => {
    const { source_message_id: _id, ...withoutId } = sourceMessage('x');
    const cases = [
      { ...v3('x', [information()]), source_message: withoutId },
      {
        message_events: [information()],
        case_candidates: [],
        extraction_warnings: [],
        unhandled_current_intents: [],
      },
    ];
    for (const payload of cases) {
      const answer = await contract(agent, 'th_hotel_submit_task_results', payload);
      expect(answer.error?.code).toBe('MISSING_SOURCE_MESSAGE_ID');
    }
  });

  it('[002-7.4-10 002-7.4-20] business problems in events are kept as adapter_contract_error transitions, not refused', async () => {
    await ingest(mail('s-11', 21));
    const answer = await contract(
      agent,
      'th_hotel_submit_task_results',
      v3('s-11', [
        { event_id: 'E1', event_type: 'reservation.teleport' },
        { event_id: 'E2', event_type: 'reservation.update' },
        {
          event_id: 'E3',
          event_type: 'information',
          result_type: 'manual_review',
          manual_review: { questions: [] },
        },
        information('E4'),
      ]),
    );
    expect(answer.data!.items.map((i: { transition_kind: string }) => i.transition_kind)).toEqual([
      'adapter_contract_error',
      'adapter_contract_error',
      'adapter_contract_error',
      'task',
    ]);
    expect(answer.data!.items[0]).toMatchObject({ task_id: null, order_id_reason: 'contract_error' });
    // An S99 notice must carry a complete manual review: without its reason it is kept the same way.
    await ingest(mail('s-11b', 21));
    const s99 = await contract(agent, 'th_hotel_submit_task_results', {
      source_message: sourceMessage('s-11b'),
      route_code: 'S99',
      handler_type: 'entry_notice',
      result_type: 'manual_review',
      current_or_history: 'current',
      agent_assessment: { summary: 'Dispute' },
      notification: { title: 'Dispute' },
      manual_review: { questions: ['Waive the fee?'] },
    });
    expect(s99.data!.items.map((i: { transition_kind: string }) => i.transition_kind)).toEqual([
      'adapter_contract_error',
    ]);
  });

  it('[002-7.4-5 002-7.4-11] transport problems are refused with MCP_SUBMIT_PAYLOAD_INVALID: unknown fields, missing or duplicate event ids, dangling or duplicate relations', async () => {
    await ingest(mail('s-12', 22));
    const event = information();
    const cases: [string, Record<string, unknown>][] = [
      ['unknown field', v3('s-12', [event], { attachments: [] })],
      ['unknown event field', v3('s-12', [{ ...event, mood: 'happy' }])],
      ['missing event id', v3('s-12', [{ event_type: 'information' }])],
      ['duplicate event id', v3('s-12', [event, { ...event }])],
      ['dangling relation', v3('s-12', [{ ...event, related_event_id: 'E9' }])],
      ['duplicate relation', v3('s-12', [{ ...event, related_event_ids: ['E2', 'E2'] }, information('E2')])],
    ];
    for (const [what, payload] of cases) {
      const answer = await contract(agent, 'th_hotel_submit_task_results', payload);
      expect(answer.error?.code, what).toBe('MCP_SUBMIT_PAYLOAD_INVALID');
      expect(answer.error?.details.field, what).toEqual(expect.any(String));
    }
  });

  it('[002-7.4-12] V2 ai_task_results items are checked in full: source_event_index, catalog_code, skill_id, result_type, task_type', async () => {
    await ingest(mail('s-13', 23));
    const item = {
      source_event_index: 1,
      catalog_code: 'FIT',
      skill_id: 'fit.new',
      result_type: 'normal_task',
      task_type: 'NEW',
    };
    for (const field of Object.keys(item)) {
      const { [field]: _gone, ...partial } = item as Record<string, unknown>;
      const answer = await contract(agent, 'th_hotel_submit_task_results', {
        source_message_id: 's-13',
        ai_task_results: [partial],
      });
      expect(answer.error?.code, field).toBe('MCP_SUBMIT_PAYLOAD_INVALID');
    }
    const badType = await contract(agent, 'th_hotel_submit_task_results', {
      source_message_id: 's-13',
      ai_task_results: [{ ...item, result_type: 'guess' }],
    });
    expect(badType.error?.code).toBe('MCP_SUBMIT_PAYLOAD_INVALID');
  });

  it('[002-7.4-13 002-7.4-14 002-7.4-15] the published schema carries the contract’s details: source_message’s six required fields, source_channel "Email", the V2 item strict', async () => {
    const schema = (await toolsByName()).get('th_hotel_submit_task_results')!.inputSchema as Record<
      string,
      any
    >;
    expect(schema.additionalProperties).toBe(false);
    expect(schema.properties.source_message.required).toEqual([
      'source_message_id',
      'subject',
      'from',
      'cc',
      'received_at',
      'source_channel',
    ]);
    expect(schema.properties.source_message.properties.source_channel.enum).toEqual(['Email']);
    const v2Item = schema.properties.ai_task_results.items;
    expect(v2Item.additionalProperties).toBe(false);
    expect(v2Item.properties.result_type.enum).toEqual([
      'normal_task',
      'manual_review',
      'informational_message',
    ]);
    expect(v2Item.properties.source_event_index.anyOf).toEqual([{ type: 'integer' }, { type: 'string' }]);
  });

  it('[002-7.4-16 002-7.4-2 002-7.4-4] the server reorders neither V2 ai_task_results nor V3 message_events', async () => {
    await ingest(mail('s-14', 24));
    await ingest(mail('s-15', 25));
    const v2 = await contract(agent, 'th_hotel_submit_task_results', {
      source_message_id: 's-14',
      ai_task_results: [3, 1, 2].map((n) => ({
        source_event_index: n,
        catalog_code: 'FIT',
        skill_id: `skill.${n}`,
        result_type: 'informational_message',
        task_type: 'INFO',
      })),
    });
    expect(v2.data!.items.map((i: { source_event_index: number }) => i.source_event_index)).toEqual([
      3, 1, 2,
    ]);
    const events = ['E_C', 'E_A', 'E_B'].map((id) => information(id));
    const v3Answer = await contract(agent, 'th_hotel_submit_task_results', v3('s-15', events));
    expect(
      v3Answer.data!.mapping_diagnostics.event_id_mapping.map((m: { event_id: string }) => m.event_id),
    ).toEqual(['E_C', 'E_A', 'E_B']);
  });

  it('[002-7.4-17] source_message_id is the provider’s external id, never the internal inbox id', async () => {
    const internal = rows('SELECT id FROM inbox_messages WHERE external_id = ?', 'b-1')[0]!.id as string;
    const answer = await contract(agent, 'th_hotel_submit_task_results', v3(internal, [information()]));
    expect(answer.error?.code).toBe('SOURCE_MESSAGE_NOT_FOUND');
  });

  it('[002-7.4-18] an external id matching several mails of the hotel is SOURCE_MESSAGE_AMBIGUOUS, code and message kept', async () => {
    const answer = await contract(agent, 'th_hotel_submit_task_results', v3('dup', [information()]));
    expect(answer.error).toMatchObject({
      code: 'SOURCE_MESSAGE_AMBIGUOUS',
      message: expect.stringContaining('来源邮件 ID 对应多封邮件'),
      message_en: expect.stringContaining('matches 2 inbox messages'),
    });
  });

  it('[002-7.4-21 002-7.4-22 002-2-2] extraction_warnings may come with V3 and V2 and left out is none; case_candidates and unhandled_current_intents are [] when there are none (the V3 root needs them); a hotel_id not this hotel’s is refused on the write too, nothing written', async () => {
    await ingest(mail('s-21', 26));
    await ingest(mail('s-22', 26));
    const item = {
      source_event_index: 1,
      catalog_code: 'FIT',
      skill_id: 'fit.new',
      result_type: 'informational_message',
      task_type: 'INFO',
    };
    const withoutWarnings = await contract(agent, 'th_hotel_submit_task_results', {
      source_message_id: 's-21',
      ai_task_results: [item],
    });
    expect(withoutWarnings.success, JSON.stringify(withoutWarnings.error)).toBe(true);
    const withWarnings = await contract(
      agent,
      'th_hotel_submit_task_results',
      v3('s-22', [information()], { extraction_warnings: [{ code: 'LOW_CONFIDENCE', detail: 'a guess' }] }),
    );
    expect(withWarnings.success, JSON.stringify(withWarnings.error)).toBe(true);
    const { case_candidates: _c, ...noCandidates } = v3('s-22', [information('E9')]);
    expect((await contract(agent, 'th_hotel_submit_task_results', noCandidates)).error?.code).toBe(
      'MCP_SUBMIT_PAYLOAD_INVALID',
    );
    const before = inboxCounts();
    const wrongHotel = await contract(agent, 'th_hotel_submit_task_results', {
      ...v3('s-22', [information('E8')]),
      hotel_id: 'another-hotel',
    });
    expect(wrongHotel.error).toMatchObject({ code: 'MCP_REQUEST_INVALID', details: { field: 'hotel_id' } });
    expect(inboxCounts()).toEqual(before);
  });

  it('[002-7.4-19] a payload the adapter refuses writes nothing', async () => {
    await ingest(mail('s-16', 26));
    const before = inboxCounts();
    const answer = await contract(
      agent,
      'th_hotel_submit_task_results',
      v3('s-16', [information()], { extra: 1 }),
    );
    expect(answer.error?.code).toBe('MCP_SUBMIT_PAYLOAD_INVALID');
    expect(inboxCounts()).toEqual(before);
    // Nothing tries it again: the description tells the agent to fix it rather than retry as is.
    expect((await toolsByName()).get('th_hotel_submit_task_results')!.description).toContain(
      'fix the payload, do not retry as is',
    );
  });

  it('[002-7.5-1] POST /api/integrations/superagent/task-results submits as the tool does: the same batch replayed by the tool, and no wider than the token (attack: a read-only token writes nothing through it)', async () => {
    const path = '/api/integrations/superagent/task-results';
    await ingest(mail('r-1', 29));
    const payload = v3('r-1', [information()]);
    const before = inboxCounts();
    const made = await rest(path, payload);
    expect(made.status).toBe(200);
    expect(made.body).toMatchObject({ success: true, data: { idempotent_replay: false, accepted_count: 1 } });
    // The tool, given the same submission, replays the batch the REST call wrote.
    const replay = await contract(agent, 'th_hotel_submit_task_results', payload);
    expect(replay.data).toMatchObject({ idempotent_replay: true, batch_id: made.body.data!.batch_id });
    const written = inboxCounts();
    expect(written.inbox_batches).toBe(before.inbox_batches! + 1);
    // A token without draft: every REST submission is refused in the envelope, nothing written.
    const narrow = await runCli([
      'tokens',
      'create',
      server.agent.email,
      '--scopes',
      'read',
      '--db',
      server.dbPath,
      '--json',
    ]);
    const readOnly = (JSON.parse(narrow.stdout) as { token: string }).token;
    let succeeded = 0;
    for (const attempt of [v3('r-1', [information('E2')]), payload, { ...payload, hotel_id: 'local' }]) {
      const refused = await rest(path, attempt, readOnly);
      if (refused.body.success) succeeded++;
      expect(refused.body.error?.code).toBe('MCP_AUTH_INVALID');
    }
    expect(succeeded).toBe(0);
    expect(inboxCounts()).toEqual(written);
  });

  it('[002-7.5-2 002-7.5-3 002-7.5-4 002-7.5-5 002-7.5-6 002-7.5-7 002-7.5-8 002-7.5-9] answers batch_id, idempotent_replay, accepted_count, items[] (ai_transition_id, order_id, task_id, task_status) and mapping_diagnostics only for the V3 root', async () => {
    await ingest(mail('s-17', 27));
    await ingest(mail('s-18', 28));
    const root = await contract(agent, 'th_hotel_submit_task_results', v3('s-17', [information()]));
    expect(root.data).toMatchObject({
      batch_id: expect.any(String),
      idempotent_replay: false,
      accepted_count: 1,
      mapping_diagnostics: { event_id_mapping: [{ event_id: 'E1', source_event_index: 1 }] },
    });
    expect(root.data!.items[0]).toMatchObject({
      ai_transition_id: expect.any(String),
      order_id: null,
      task_id: expect.any(String),
      task_status: 'PENDING_CONFIRMATION',
    });
    const replay = await contract(agent, 'th_hotel_submit_task_results', v3('s-17', [information()]));
    expect(replay.data).toMatchObject({ idempotent_replay: true, batch_id: root.data!.batch_id });
    const v2 = await contract(agent, 'th_hotel_submit_task_results', {
      source_message_id: 's-18',
      ai_task_results: [
        {
          source_event_index: 1,
          catalog_code: 'FIT',
          skill_id: 'fit.new',
          result_type: 'normal_task',
          task_type: 'NEW',
        },
      ],
    });
    expect(v2.data!.mapping_diagnostics).toBeNull();
  });
});

describe('§8 错误处理约定 (error handling)', () => {
  it('[002-8-1] business errors are kept in the envelope: success false, request_id, trace_id, data null, warnings [], error { code, message, details }', async () => {
    const answer = await contract(agent, 'th_hotel_submit_task_results', v3('no-such-mail', [information()]));
    expect(answer).toMatchObject({ success: false, data: null, warnings: [] });
    expect(answer.request_id).toEqual(expect.any(String));
    expect(answer.trace_id).toMatch(/^[0-9a-f]{32}$/);
    expect(answer.error).toMatchObject({
      code: 'SOURCE_MESSAGE_NOT_FOUND',
      message: expect.stringMatching(/^找不到该来源邮件/),
      details: { field: 'source_message_id' },
    });
  });

  it('[002-8-2] MCP_AUTH_INVALID: no credential (HTTP 401), or a credential without the tool’s scope (in the envelope)', async () => {
    const anonymous = await rpc(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }), {
      authorization: '',
    });
    expect(anonymous.status).toBe(401);
    expect(anonymous.body.code).toBe('MCP_AUTH_INVALID');
    const made = await runCli([
      'tokens',
      'create',
      server.agent.email,
      '--scopes',
      'read',
      '--db',
      server.dbPath,
      '--json',
    ]);
    const narrow = await connectHttp(server.url, 'modern', {
      token: (JSON.parse(made.stdout) as { token: string }).token,
    });
    try {
      const refused = await contract(narrow, 'th_hotel_list_message_conversation_messages', {
        source_message_id: 'm-1',
      });
      expect(refused.error).toMatchObject({
        code: 'MCP_AUTH_INVALID',
        message: expect.stringMatching(/^MCP 层访问凭证缺失或无效/),
        details: { missing_scope: 'sensitive' },
      });
    } finally {
      await narrow.close();
    }
  });

  it('[002-8-3] MCP_TOOL_DISABLED: a tool switched off (say, writes in production) answers it', async () => {
    const off = await runCli([
      'tenants',
      'set',
      'local',
      '--disable-tool',
      'th_hotel_submit_task_results',
      '--db',
      server.dbPath,
    ]);
    expect(off.status, off.stderr).toBe(0);
    try {
      const refused = await contract(agent, 'th_hotel_submit_task_results', v3('s-1', [information()]));
      expect(refused.error).toMatchObject({
        code: 'MCP_TOOL_DISABLED',
        message: expect.stringMatching(/^工具未启用/),
      });
    } finally {
      const on = await runCli(['tenants', 'set', 'local', '--disable-tool', 'none', '--db', server.dbPath]);
      expect(on.status, on.stderr).toBe(0);
    }
  });

  it('[002-8-4] MCP_REQUEST_INVALID: a body that is not JSON-RPC, or arguments the schema refuses', async () => {
    const broken = await rpc('{"jsonrpc":"2.0","id":1,"method":');
    expect(broken.status).toBe(400);
    expect(broken.body.error.data.code).toBe('MCP_REQUEST_INVALID');
    const field = await contract(agent, 'th_hotel_query_object_detail', { object_id: 'ORDER:x', extra: 1 });
    expect(field.error).toMatchObject({
      code: 'MCP_REQUEST_INVALID',
      message: 'MCP JSON-RPC 请求体不合法（字段：extra）。',
    });
  });

  it('[002-8-5] MCP_REQUEST_BODY_TOO_LARGE: over the 10 MB default (HTTP 413); under it the call goes through', async () => {
    const call = (bytes: number) =>
      rpc(
        JSON.stringify({
          jsonrpc: '2.0',
          id: 1,
          method: 'tools/call',
          params: { name: 'th_hotel_query_case_context', arguments: { group_code: 'x'.repeat(bytes) } },
        }),
      );
    const big = await call(10 * 1024 * 1024 + 1024);
    expect(big.status).toBe(413);
    expect(big.body.code ?? big.body.error?.data?.code).toBe('MCP_REQUEST_BODY_TOO_LARGE');
    expect((await call(2 * 1024 * 1024)).status).toBe(200);
  });

  it('[002-8-5] MCP_REQUEST_BODY_TOO_LARGE follows the configured limit (HOLDFAST_MAX_BODY_MB)', async () => {
    const small = await spawnServer(['--profile', 'hotel-ops', '--no-seed'], {
      env: { HOLDFAST_MAX_BODY_MB: '1' },
    });
    try {
      const answer = await bearerToolCall(
        new URL('/mcp', small.url),
        small.agent.token,
        'th_hotel_query_case_context',
        {
          group_code: 'x'.repeat(1024 * 1024 + 1024),
        },
      );
      expect(answer.status).toBe(413);
      expect(await answer.text()).toContain('MCP_REQUEST_BODY_TOO_LARGE');
    } finally {
      await small.stop();
    }
  });

  it('[002-8-6] MCP_METHOD_NOT_FOUND: a method that does not exist', async () => {
    const answer = await rpc(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'nope/x' }));
    expect(answer.body.error).toMatchObject({ code: -32601, data: { code: 'MCP_METHOD_NOT_FOUND' } });
  });

  it('[002-8-7] MCP_TOOL_NOT_FOUND: a tool that does not exist', async () => {
    const answer = await bearerToolCall(
      new URL('/mcp', server.url),
      server.agent.token,
      'th_hotel_teleport',
      {},
    );
    const text = await answer.text();
    const json = text.startsWith('{') ? text : /^data: (.*)$/m.exec(text)![1]!;
    expect((JSON.parse(json) as { error: { data: { code: string } } }).error.data.code).toBe(
      'MCP_TOOL_NOT_FOUND',
    );
  });

  it('[002-8-8] MCP_SUBMIT_PAYLOAD_INVALID: a payload the adapter refuses, in the table’s words', async () => {
    const answer = await contract(
      agent,
      'th_hotel_submit_task_results',
      v3('s-16', [information(), information()]),
    );
    expect(answer.error).toMatchObject({
      code: 'MCP_SUBMIT_PAYLOAD_INVALID',
      message: expect.stringMatching(/^写入工具 payload 未通过 MCP adapter 提交前校验/),
    });
  });

  it('[002-8-9] MCP_INTERNAL_ERROR: an unexpected failure maps to it, and nothing internal leaks', () => {
    const mapped = toContractError(new Error('SQLITE_CORRUPT at /srv/holdfast/data/holdfast.db'));
    expect(mapped).toMatchObject({
      code: 'MCP_INTERNAL_ERROR',
      message: 'MCP endpoint 内部异常。',
      details: {},
    });
    expect(JSON.stringify(mapped)).not.toMatch(/SQLITE|\/srv/);
  });

  it('[002-8-9] MCP_INTERNAL_ERROR through /mcp: a table gone from under the running server is that code in the envelope, no stack, and the server answers again once it is back', async () => {
    const broken = await spawnServer(['--profile', 'hotel-ops', '--no-seed']);
    const client = await connectHttp(broken.url, 'modern');
    const rename = (from: string, to: string) => {
      const db = new Database(broken.dbPath);
      try {
        db.exec(`ALTER TABLE ${from} RENAME TO ${to}`);
      } finally {
        db.close();
      }
    };
    try {
      expect((await contract(client, 'th_hotel_query_case_context', { group_code: 'GRP-A' })).success).toBe(
        true,
      );
      rename('inbox_tasks', 'inbox_tasks_away');
      const failed = await contract(client, 'th_hotel_query_case_context', { group_code: 'GRP-A' });
      expect(failed.error).toEqual({
        code: 'MCP_INTERNAL_ERROR',
        message: 'MCP endpoint 内部异常。',
        message_en: expect.any(String),
        details: {},
      });
      expect(JSON.stringify(failed)).not.toMatch(/inbox_tasks|SQLITE|no such table|\s+at\s/i);
      expect(failed.content.map((c) => c.text).join('')).not.toMatch(/inbox_tasks|SQLITE|\s+at\s/i);
      rename('inbox_tasks_away', 'inbox_tasks');
      expect((await contract(client, 'th_hotel_query_case_context', { group_code: 'GRP-A' })).success).toBe(
        true,
      );
    } finally {
      await client.close();
      await broken.stop();
    }
  });
});
