import Database from 'better-sqlite3';
import type { Client } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectHttp, connectStdio } from '../support/mcp-clients.js';
import { bearerToolCall } from '../support/net.js';
import { addAgent, identityDeps } from '../support/provision.js';
import type { RunningServer } from '../support/spawn-server.js';
import { ingestSecretFor, runCli, spawnServer } from '../support/spawn-server.js';

/** The reservation-operations contract through the official client against the spawned server. */

interface ContractEnvelope {
  success: boolean;
  request_id: string;
  trace_id: string;
  data: Record<string, any> | null;
  warnings: unknown[];
  error: { code: string; message: string; message_en: string; details: Record<string, unknown> } | null;
}

let server: RunningServer;
let agent: Client;
let ingestSecret: string;
let otherTenantAgent: Client;

async function contract(
  client: Client,
  name: string,
  args: Record<string, unknown>,
): Promise<ContractEnvelope> {
  const result = await client.callTool({ name, arguments: args });
  const envelope = result.structuredContent as unknown as ContractEnvelope;
  expect(Boolean(result.isError)).toBe(!envelope.success);
  expect(Object.keys(envelope).sort()).toEqual([
    'data',
    'error',
    'request_id',
    'success',
    'trace_id',
    'warnings',
  ]);
  return envelope;
}

function ingest(body: unknown, secret = ingestSecret, type = 'application/json') {
  return fetch(new URL('/api/inbox/messages', server.url), {
    method: 'POST',
    headers: { authorization: `Bearer ${secret}`, 'content-type': type },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
}

const at = (minutes: number) => new Date(Date.UTC(2026, 10, 3, 9, minutes)).toISOString();

function mail(id: string, minutes: number, extra: Record<string, unknown> = {}) {
  return {
    external_message_id: id,
    message_id: `<${id}@hotel.example>`,
    subject: 'Group block ACME-0412',
    from: 'Sales <sales@acme.example>',
    cc: ['ops@hotel.example'],
    received_at: at(minutes),
    text_body: `Message ${id}: please hold 12 rooms for group ACME-0412.`,
    html_body: `<p onclick="steal()">Message ${id}<img src="https://tracker.example/p.gif"><script>alert(1)</script></p>`,
    ...extra,
  };
}

/** Rows of every inbox table, read straight from the database file. */
function rowCounts(): Record<string, number> {
  const db = new Database(server.dbPath, { readonly: true });
  try {
    return Object.fromEntries(
      [
        'inbox_messages',
        'inbox_conversations',
        'inbox_batches',
        'inbox_tasks',
        'booking_keys',
        'inbox_body_reads',
      ].map((t) => [t, (db.prepare(`SELECT count(*) AS n FROM ${t}`).get() as { n: number }).n]),
    );
  } finally {
    db.close();
  }
}

const v3 = (sourceMessageId: string, events: unknown[], extra: Record<string, unknown> = {}) => ({
  source_message: {
    source_message_id: sourceMessageId,
    subject: 'Group block ACME-0412',
    from: 'sales@acme.example',
    cc: [],
    received_at: at(0),
    source_channel: 'Email',
  },
  message_events: events,
  case_candidates: [],
  extraction_warnings: [],
  unhandled_current_intents: [],
  ...extra,
});

beforeAll(async () => {
  server = await spawnServer(['--profile', 'hotel-ops']);
  agent = await connectHttp(`${server.url}`, 'modern');
  ingestSecret = await ingestSecretFor(server.dbPath);
  const { deps, close } = await identityDeps(server.dbPath);
  const other = await addAgent(deps, { email: 'mallory@other.example', tenant: 'other' });
  await close();
  otherTenantAgent = await connectHttp(server.url, 'modern', { token: other.token });
}, 60_000);

afterAll(async () => {
  await agent?.close();
  await otherTenantAgent?.close();
  await server?.stop();
});

describe('the hotel-ops profile', () => {
  it('lists the five contract tools with the contract’s schemas beside Holdfast’s own', async () => {
    const { tools } = await agent.listTools();
    const byName = new Map(tools.map((t) => [t.name, t]));
    expect(byName.has('hold_slot')).toBe(true);
    const caseContext = byName.get('th_hotel_query_case_context')!.inputSchema as Record<string, any>;
    expect(caseContext.additionalProperties).toBe(false);
    expect(Object.keys(caseContext.properties).sort()).toEqual(
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
    expect(caseContext.properties.group_code.anyOf).toEqual([{ type: 'string' }, { type: 'null' }]);
    const detail = byName.get('th_hotel_query_object_detail')!.inputSchema as Record<string, any>;
    expect(detail.required).toEqual(['object_id']);
    for (const name of [
      'th_hotel_list_message_conversation_tasks',
      'th_hotel_list_message_conversation_messages',
    ]) {
      const schema = byName.get(name)!.inputSchema as Record<string, any>;
      expect(Object.keys(schema.properties).sort()).toEqual(
        [
          'external_conversation_id',
          'hotel_id',
          'source_channel',
          'source_message_id',
          'source_provider',
        ].sort(),
      );
      expect(schema.additionalProperties).toBe(false);
    }
    const submit = byName.get('th_hotel_submit_task_results')!.inputSchema as Record<string, any>;
    const shapes = byName.get('th_hotel_submit_task_results')!._meta![
      'io.github.holdfast-dev/inputShapes'
    ] as {
      required: string[];
    }[];
    expect(shapes.map((o) => o.required[0])).toEqual([
      'source_message',
      'source_message',
      'source_message_id',
    ]);
    expect(submit.properties.ai_task_results.items.required).toEqual([
      'source_event_index',
      'catalog_code',
      'skill_id',
      'result_type',
      'task_type',
    ]);
  });

  it('ingests by REST: threads by headers, stores a message once, refuses bad credentials and big bodies', async () => {
    expect((await ingest(mail('m-1', 0))).status).toBe(201);
    expect((await ingest(mail('m-2', 5, { in_reply_to: '<m-1@hotel.example>' }))).status).toBe(201);
    expect(
      (await ingest(mail('m-3', 9, { references: ['<m-1@hotel.example>', '<m-2@hotel.example>'] }))).status,
    ).toBe(201);
    const before = rowCounts();
    const again = await ingest(mail('m-1', 0));
    expect(again.status).toBe(200);
    expect(((await again.json()) as { data: { created: boolean } }).data.created).toBe(false);
    expect(rowCounts()).toEqual(before);
    expect(before.inbox_conversations).toBe(1);

    const stranger = await ingest(mail('m-x', 1), 'hf_ing_not-a-token');
    expect(stranger.status).toBe(401);
    expect(((await stranger.json()) as { error: { code: string } }).error.code).toBe('MCP_AUTH_INVALID');
    // A personal access token is an agent's credential, not an ingest token.
    expect((await ingest(mail('m-x', 1), server.agent.token)).status).toBe(401);

    const huge = await ingest(mail('m-big', 1, { text_body: 'x'.repeat(10 * 1024 * 1024 + 10) }));
    expect(huge.status).toBe(413);
    expect(((await huge.json()) as { error: { code: string } }).error.code).toBe(
      'MCP_REQUEST_BODY_TOO_LARGE',
    );
    const unknown = await ingest({ ...mail('m-y', 1), attachments: [] });
    expect(unknown.status).toBe(400);
    expect(((await unknown.json()) as { error: { details: { field: string } } }).error.details.field).toBe(
      'attachments',
    );
    expect(rowCounts()).toEqual(before);
  });

  it('keeps only the text of HTML too big to parse safely, and takes no invisible characters', async () => {
    const answer = await ingest({
      external_message_id: 'm-huge-html',
      subject: 'Ne\u202ewsletter\u200b',
      received_at: at(50),
      text_body: 'Read me\u0007 plainly',
      html_body: '<b>'.repeat(200_000),
    });
    expect(answer.status).toBe(201);
    const listed = await contract(agent, 'th_hotel_list_message_conversation_messages', {
      source_message_id: 'm-huge-html',
    });
    expect(listed.data!.messages[0]).toMatchObject({
      subject: 'Newsletter',
      text_body: 'Read me plainly',
      html_body_sanitized: null,
      html_render_mode: 'NONE',
    });
    const bidiId = await ingest({ external_message_id: 'm-\u202e1', received_at: at(51), text_body: 'x' });
    expect(bidiId.status).toBe(400);
    expect(((await bidiId.json()) as { error: { details: { field: string } } }).error.details.field).toBe(
      'external_message_id',
    );
  });

  it('lists the conversation’s messages in order, text and sanitized HTML only, each read recorded', async () => {
    const reads = rowCounts().inbox_body_reads!;
    const answer = await contract(agent, 'th_hotel_list_message_conversation_messages', {
      source_message_id: 'm-2',
    });
    expect(answer.success).toBe(true);
    expect(answer.data!.message_count).toBe(3);
    const messages = answer.data!.messages as Record<string, string>[];
    expect(messages.map((m) => m.external_source_message_id)).toEqual(['m-1', 'm-2', 'm-3']);
    const text = JSON.stringify(messages);
    for (const banned of [
      '<script',
      'onclick',
      'tracker.example',
      '<img',
      'attachments',
      'inline_images',
      'external_url',
    ])
      expect(text).not.toContain(banned);
    expect(messages[0]!.html_body_sanitized).toContain('Message m-1');
    expect(messages[0]!.text_body).toContain('hold 12 rooms');
    expect(rowCounts().inbox_body_reads).toBe(reads + 3);
    // The internal inbox id is never offered as a source message id.
    expect(text).not.toMatch(/msg_/);
  });

  it('lets only connections that see contact data read mail (scope sensitive)', async () => {
    const made = await runCli([
      'tokens',
      'create',
      server.agent.email,
      '--name',
      'ops without sensitive',
      '--scopes',
      'read,draft',
      '--db',
      server.dbPath,
      '--json',
    ]);
    expect(made.status, made.stderr).toBe(0);
    const narrow = (JSON.parse(made.stdout) as { token: string }).token;
    const reads = rowCounts().inbox_body_reads;
    const narrowAgent = await connectHttp(server.url, 'modern', { token: narrow });
    try {
      // Answered in the contract's envelope, naming the missing scope; no mail, no read recorded.
      const refused = await narrowAgent.callTool({
        name: 'th_hotel_list_message_conversation_messages',
        arguments: { source_message_id: 'm-1' },
      });
      const envelope = refused.structuredContent as unknown as ContractEnvelope;
      expect(envelope.success).toBe(false);
      expect(envelope.error).toMatchObject({
        code: 'MCP_AUTH_INVALID',
        details: { missing_scope: 'sensitive' },
      });
      expect(envelope.error!.message).toContain('缺少权限：sensitive');
      expect(JSON.stringify(refused)).not.toContain('hold 12 rooms');
      expect(rowCounts().inbox_body_reads).toBe(reads);
    } finally {
      await narrowAgent.close();
    }
    // An operations agent's token: the scopes the contract's tools need, sensitive included.
    const ops = await runCli([
      'tokens',
      'create',
      server.agent.email,
      '--name',
      'mail agent',
      '--profile',
      'hotel-ops',
      '--db',
      server.dbPath,
      '--json',
    ]);
    expect(ops.status, ops.stderr).toBe(0);
    expect((JSON.parse(ops.stdout) as { scopes: string[] }).scopes.sort()).toEqual([
      'draft',
      'read',
      'sensitive',
    ]);
    const opsAgent = await connectHttp(server.url, 'modern', {
      token: (JSON.parse(ops.stdout) as { token: string }).token,
    });
    try {
      const read = await contract(opsAgent, 'th_hotel_list_message_conversation_messages', {
        source_message_id: 'm-1',
      });
      expect(read.success).toBe(true);
      // One access record per message it returned.
      expect(rowCounts().inbox_body_reads).toBe(reads! + (read.data!.message_count as number));
    } finally {
      await opsAgent.close();
    }
  });

  it('submits V3 results: event ids become indices in array order, and a replay returns the same batch', async () => {
    const events = [
      {
        event_id: 'E_CHILD_1',
        event_type: 'reservation.create',
        parent_event_id: 'E_PARENT',
        case_keys: { group_code: 'ACME-0412', confirmation_number: null, reservation_no: null },
        booking: { calendar_id: 'cal_x', start: at(0), end: at(30) },
      },
      {
        event_id: 'E_PARENT',
        event_type: 'group.block',
        case_keys: { group_code: 'ACME-0412' },
        related_event_ids: ['E_CHILD_1', 'E_CHILD_2'],
      },
      { event_id: 'E_CHILD_2', event_type: 'reservation.teleport', parent_event_id: 'E_PARENT' },
    ];
    const first = await contract(
      agent,
      'th_hotel_submit_task_results',
      v3('m-1', events, { hotel_id: null }),
    );
    expect(first.success, JSON.stringify(first.error)).toBe(true);
    const data = first.data!;
    expect(data.accepted_count).toBe(3);
    expect(data.idempotent_replay).toBe(false);
    expect(data.mapping_diagnostics.event_id_mapping).toEqual([
      { event_id: 'E_CHILD_1', source_event_index: 1 },
      { event_id: 'E_PARENT', source_event_index: 2 },
      { event_id: 'E_CHILD_2', source_event_index: 3 },
    ]);
    expect(data.mapping_diagnostics.dropped_compatibility_fields).toEqual(['hotel_id']);
    const items = data.items as {
      source_event_index: number;
      transition_kind: string;
      task_id: string | null;
    }[];
    expect(items.map((i) => [i.source_event_index, i.transition_kind])).toEqual([
      [1, 'task'],
      [2, 'task'],
      [3, 'adapter_contract_error'],
    ]);
    expect(items[2]!.task_id).toBeNull();

    const counts = rowCounts();
    const replay = await contract(agent, 'th_hotel_submit_task_results', v3('m-1', events));
    expect(replay.data!.idempotent_replay).toBe(true);
    expect(replay.data!.batch_id).toBe(data.batch_id);
    expect(replay.data!.items).toEqual(data.items);
    expect(rowCounts()).toEqual(counts);
  });

  it('answers in the contract’s words: the Chinese message, the English beside it, a Chinese summary line', async () => {
    const refused = await agent.callTool({ name: 'th_hotel_query_case_context', arguments: {} });
    const envelope = refused.structuredContent as unknown as ContractEnvelope;
    expect(envelope.error).toMatchObject({ code: 'CASE_KEY_REQUIRED', details: { field: 'group_code' } });
    expect(envelope.error!.message).toBe('至少需要一个业务键（团号、确认号或预订号）（字段：group_code）。');
    expect(envelope.error!.message_en).toContain('group_code');
    const [json, summary] = (refused.content as { type: string; text: string }[]).map((c) => c.text);
    expect(JSON.parse(json!)).toEqual(envelope);
    expect(summary).toMatch(/^失败：CASE_KEY_REQUIRED，至少需要一个业务键/);
    const found = await agent.callTool({
      name: 'th_hotel_query_case_context',
      arguments: { group_code: 'NOBODY-1' },
    });
    expect((found.content as { text: string }[])[1]!.text).toMatch(
      /^找到 0 个订单、0 个团组、0 个未完成任务；可以新建。/,
    );
    const badField = await contract(agent, 'th_hotel_query_object_detail', {
      object_id: 'ORDER:x',
      extra: 1,
    });
    expect(badField.error!.code).toBe('MCP_REQUEST_INVALID');
    expect(badField.error!.message).toBe('MCP JSON-RPC 请求体不合法（字段：extra）。');
  });

  it('takes a thread quoted as evidence up to the body limit, and answers a bigger request in the contract’s code', async () => {
    expect((await ingest(mail('m-long', 40))).status).toBe(201);
    // ~360 K characters of quoted mail: past Holdfast's own 256 Ki-character rule, within 10 MB.
    const quote = '前情回顾：请保留 12 间客房。'.repeat(24_000);
    expect(quote.length).toBeGreaterThan(300_000);
    const submitted = await contract(
      agent,
      'th_hotel_submit_task_results',
      v3('m-long', [{ event_id: 'E1', event_type: 'information', summary: 'FYI', evidence: quote }]),
    );
    expect(submitted.success, JSON.stringify(submitted.error)).toBe(true);
    expect(submitted.data!.accepted_count).toBe(1);
    // Past the 10 MB the profile allows, the request is refused before any tool runs.
    const tooBig = await bearerToolCall(
      new URL('/mcp', server.url),
      server.agent.token,
      'th_hotel_submit_task_results',
      {
        ...v3('m-long', [{ event_id: 'E1', event_type: 'information', evidence: 'x'.repeat(10_000_000) }]),
        extraction_warnings: ['y'.repeat(1_000_000)],
      },
    );
    expect(tooBig.status).toBe(413);
    expect(await tooBig.text()).toContain('MCP_REQUEST_BODY_TOO_LARGE');
  });

  it('replaces results nobody acted on when the content changes, and says so', async () => {
    expect((await ingest(mail('m-fix', 41))).status).toBe(201);
    const create = (group: string) => ({
      event_id: 'E1',
      event_type: 'reservation.create',
      case_keys: { group_code: group },
      booking: { calendar_id: 'cal_x', start: at(0), end: at(30) },
    });
    const first = await contract(agent, 'th_hotel_submit_task_results', v3('m-fix', [create('FIX-1')]));
    expect(first.data!.items[0]).toMatchObject({ order_id: null, order_id_reason: 'pending_confirmation' });
    const same = await contract(agent, 'th_hotel_submit_task_results', v3('m-fix', [create('FIX-1')]));
    expect(same.data!.idempotent_replay).toBe(true);
    const fixed = await contract(agent, 'th_hotel_submit_task_results', v3('m-fix', [create('FIX-2')]));
    expect(fixed.data!.idempotent_replay).toBe(false);
    expect(fixed.data!.superseded).toEqual({
      batch_id: first.data!.batch_id,
      withdrawn_task_ids: [first.data!.items[0].task_id],
    });
    const tasks = await contract(agent, 'th_hotel_list_message_conversation_tasks', {
      source_message_id: 'm-fix',
    });
    expect(
      tasks.data!.tasks.map((t: { task_id: string; order_id: null }) => [t.task_id, t.order_id]),
    ).toEqual([[fixed.data!.items[0].task_id, null]]);
  });

  it('accepts the S10 route notice and the V2 shape, keeping V2 items in the order given', async () => {
    const s10 = await contract(agent, 'th_hotel_submit_task_results', {
      source_message: v3('m-2', []).source_message,
      route_code: 'S10',
      handler_type: 'entry_notice',
      result_type: 'informational_message',
      current_or_history: 'current',
      agent_assessment: { summary: 'Thanks note, nothing to do' },
      notification: { title: 'Thank-you mail' },
      manual_review: null,
    });
    expect(s10.success, JSON.stringify(s10.error)).toBe(true);
    expect(s10.data!.items).toHaveLength(1);
    const v2 = await contract(agent, 'th_hotel_submit_task_results', {
      source_message_id: 'm-3',
      source_provider: 'AGENTBUS',
      ai_task_results: [
        {
          source_event_index: '2',
          catalog_code: 'FIT',
          skill_id: 'fit.change',
          result_type: 'normal_task',
          task_type: 'CHANGE',
        },
        {
          source_event_index: 1,
          catalog_code: 'FIT',
          skill_id: 'fit.new',
          result_type: 'manual_review',
          task_type: 'NEW',
        },
      ],
    });
    expect(v2.success, JSON.stringify(v2.error)).toBe(true);
    expect((v2.data!.items as { source_event_index: number }[]).map((i) => i.source_event_index)).toEqual([
      2, 1,
    ]);
    expect(v2.data!.mapping_diagnostics).toBeNull();

    const tasks = await contract(agent, 'th_hotel_list_message_conversation_tasks', {
      source_message_id: 'm-3',
    });
    const listed = tasks.data!.tasks as { external_source_message_id: string; source_event_index: number }[];
    expect(tasks.data!.task_count).toBe(listed.length);
    // Mail order first (m-1, m-2, m-3), then creation order within a mail.
    expect(listed.map((t) => `${t.external_source_message_id}#${t.source_event_index}`)).toEqual([
      'm-1#1',
      'm-1#2',
      'm-1#3',
      'm-2#1',
      'm-3#2',
      'm-3#1',
    ]);
  });

  it('refuses malformed payloads with MCP_SUBMIT_PAYLOAD_INVALID and writes nothing', async () => {
    expect((await ingest(mail('m-4', 20))).status).toBe(201);
    const before = rowCounts();
    const event = { event_id: 'E1', event_type: 'information' };
    const cases: [string, Record<string, unknown>][] = [
      ['unknown field', v3('m-4', [event], { attachments: [] })],
      ['unknown event field', v3('m-4', [{ ...event, mood: 'happy' }])],
      ['duplicate event id', v3('m-4', [event, { ...event }])],
      ['missing event id', v3('m-4', [{ event_type: 'information' }])],
      ['dangling relation', v3('m-4', [{ ...event, related_event_id: 'E9' }])],
      [
        'V2 item without task_type',
        {
          source_message_id: 'm-4',
          ai_task_results: [
            { source_event_index: 1, catalog_code: 'A', skill_id: 'B', result_type: 'normal_task' },
          ],
        },
      ],
    ];
    for (const [what, payload] of cases) {
      const answer = await contract(agent, 'th_hotel_submit_task_results', payload);
      expect(answer.error?.code, what).toBe('MCP_SUBMIT_PAYLOAD_INVALID');
      expect(answer.error?.details.field, what).toBeTruthy();
    }
    expect(rowCounts()).toEqual(before);
  });

  it('answers the business codes: missing id, unknown message, an ambiguous one', async () => {
    const missing = await contract(agent, 'th_hotel_submit_task_results', {
      message_events: [],
      case_candidates: [],
      extraction_warnings: [],
      unhandled_current_intents: [],
    });
    expect(missing.error?.code).toBe('MISSING_SOURCE_MESSAGE_ID');
    const unknown = await contract(agent, 'th_hotel_submit_task_results', v3('nope', []));
    expect(unknown.error?.code).toBe('SOURCE_MESSAGE_NOT_FOUND');
    expect((await ingest({ ...mail('m-dup', 30), provider: 'OUTLOOK' })).status).toBe(201);
    expect(
      (await ingest({ ...mail('m-dup', 30), provider: 'AGENTBUS', message_id: '<other@x>' })).status,
    ).toBe(201);
    const ambiguous = await contract(agent, 'th_hotel_submit_task_results', v3('m-dup', []));
    expect(ambiguous.error?.code).toBe('SOURCE_MESSAGE_AMBIGUOUS');
    const noKey = await contract(agent, 'th_hotel_query_case_context', { group_code: null });
    expect(noKey.error?.code).toBe('CASE_KEY_REQUIRED');
    const extra = await contract(agent, 'th_hotel_query_case_context', { group_code: 'A', guess: 1 });
    expect(extra.error).toMatchObject({ code: 'MCP_REQUEST_INVALID', details: { field: 'guess' } });
  });

  it('finds the group a task result keyed, and nothing of it from another tenant', async () => {
    const found = await contract(agent, 'th_hotel_query_case_context', { group_code: 'ACME-0412' });
    expect(found.success).toBe(true);
    const open = found.data!.pending_or_open_tasks as { external_source_message_id: string }[];
    expect(open.length).toBeGreaterThan(0);
    // An open create task for the same key: a second create would make the booking twice.
    const validation = found.data!.target_object_validation;
    expect(validation.can_create).toBe(false);
    const openTaskIds = (found.data!.pending_or_open_tasks as { task_id: string }[]).map((t) => t.task_id);
    expect(openTaskIds).toContain(validation.open_create_task_id);
    expect(validation.reasons.join(' ')).toContain(validation.open_create_task_id);

    let leaks = 0;
    const attempts: [string, Record<string, unknown>][] = [
      ['th_hotel_query_case_context', { group_code: 'ACME-0412' }],
      ['th_hotel_list_message_conversation_messages', { source_message_id: 'm-1' }],
      ['th_hotel_list_message_conversation_tasks', { source_message_id: 'm-1' }],
      ['th_hotel_submit_task_results', v3('m-4', [{ event_id: 'E1', event_type: 'information' }])],
      ['th_hotel_query_case_context', { group_code: 'ACME-0412', hotel_id: 'local' }],
    ];
    for (const [name, args] of attempts) {
      const answer = await contract(otherTenantAgent, name, args);
      const text = JSON.stringify(answer.data ?? {});
      if (answer.success && (text.includes('m-1') || (answer.data!.pending_or_open_tasks?.length ?? 0) > 0))
        leaks++;
      if (answer.success && name === 'th_hotel_submit_task_results') leaks++;
    }
    expect(leaks).toBe(0);
  });

  it('switches a tool off per tenant: MCP_TOOL_DISABLED, and on again', async () => {
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
    const refused = await contract(agent, 'th_hotel_submit_task_results', v3('m-4', []));
    expect(refused.error?.code).toBe('MCP_TOOL_DISABLED');
    expect((await contract(agent, 'th_hotel_query_case_context', { group_code: 'X' })).success).toBe(true);
    const on = await runCli(['tenants', 'set', 'local', '--disable-tool', 'none', '--db', server.dbPath]);
    expect(on.status, on.stderr).toBe(0);
    expect((await contract(agent, 'th_hotel_submit_task_results', v3('m-4', []))).success).toBe(true);
  });

  it('names MCP-layer failures with the contract’s codes beside the protocol’s', async () => {
    const mcp = new URL('/mcp', server.url);
    const post = (body: string, headers: Record<string, string> = {}) =>
      fetch(mcp, {
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
    /** A case-context call whose group code alone is `bytes` long. */
    const caseContextOf = (bytes: number) =>
      post(
        JSON.stringify({
          jsonrpc: '2.0',
          id: 1,
          method: 'tools/call',
          params: { name: 'th_hotel_query_case_context', arguments: { group_code: 'x'.repeat(bytes) } },
        }),
      );
    /** The JSON-RPC error of an answer, whether it came as JSON or as one server-sent event. */
    const rpcError = async (answer: Response) => {
      const text = await answer.text();
      const json = text.startsWith('{') ? text : /^data: (.*)$/m.exec(text)![1]!;
      return (JSON.parse(json) as { error: { code: number; data: { code: string } } }).error;
    };
    const unknownTool = await rpcError(
      await bearerToolCall(mcp, server.agent.token, 'th_hotel_teleport', {}),
    );
    expect(unknownTool.data.code).toBe('MCP_TOOL_NOT_FOUND');
    const unknownMethod = await rpcError(
      await post(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'nope/x' })),
    );
    expect(unknownMethod).toMatchObject({ code: -32601, data: { code: 'MCP_METHOD_NOT_FOUND' } });
    const broken = await post('{"jsonrpc":"2.0","id":1,"method":');
    expect(broken.status).toBe(400);
    expect((await rpcError(broken)).data.code).toBe('MCP_REQUEST_INVALID');
    const noCredential = await post(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }), {
      authorization: '',
    });
    expect(noCredential.status).toBe(401);
    expect(noCredential.headers.get('www-authenticate')).toContain('resource_metadata=');
    expect(((await noCredential.json()) as { code: string }).code).toBe('MCP_AUTH_INVALID');
    const big = await caseContextOf(11 * 1024 * 1024);
    expect(big.status).toBe(413);
    const bigBody = (await big.json()) as { code?: string; error?: { data?: { code: string } } };
    expect(bigBody.code ?? bigBody.error?.data?.code).toBe('MCP_REQUEST_BODY_TOO_LARGE');
    // Below the 10 MB cap a call goes through to the tool (which bounds its own fields).
    const fiveMb = await caseContextOf(5 * 1024 * 1024);
    expect(fiveMb.status).toBe(200);
    expect(await fiveMb.text()).toContain('MCP_REQUEST_INVALID');
  });

  it('serves the same contract over stdio, for the person the connection acts for', async () => {
    const stdio = await connectStdio(server.dbPath, 'modern', ['--profile', 'hotel-ops']);
    try {
      const names = (await stdio.listTools()).tools.map((t) => t.name);
      expect(names.filter((n) => n.startsWith('th_hotel_')).sort()).toEqual([
        'th_hotel_list_message_conversation_messages',
        'th_hotel_list_message_conversation_tasks',
        'th_hotel_query_case_context',
        'th_hotel_query_object_detail',
        'th_hotel_submit_task_results',
      ]);
      const tasks = await contract(stdio, 'th_hotel_list_message_conversation_tasks', {
        source_message_id: 'm-1',
      });
      expect(tasks.success).toBe(true);
      expect(tasks.data!.task_count).toBeGreaterThan(0);
    } finally {
      await stdio.close();
    }
    // Switched off for the whole server: listed, and refused with the contract's code.
    const off = await connectStdio(server.dbPath, 'modern', [
      '--profile',
      'hotel-ops',
      '--disable-tool',
      'th_hotel_list_message_conversation_messages',
    ]);
    try {
      const refused = await contract(off, 'th_hotel_list_message_conversation_messages', {
        source_message_id: 'm-1',
      });
      expect(refused.error?.code).toBe('MCP_TOOL_DISABLED');
      expect(
        (await contract(off, 'th_hotel_list_message_conversation_tasks', { source_message_id: 'm-1' }))
          .success,
      ).toBe(true);
    } finally {
      await off.close();
    }
    // Without the profile the contract is not offered at all.
    const plain = await connectStdio(server.dbPath, 'modern');
    try {
      expect((await plain.listTools()).tools.some((t) => t.name.startsWith('th_hotel_'))).toBe(false);
    } finally {
      await plain.close();
    }
  });
});
