import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { SubmitAdapted, SubmitRejected, Transition } from '../../../src/domain/inbox/submit-payload.js';
import { adaptSubmitPayload } from '../../../src/domain/inbox/submit-payload.js';

// ---- realistic payloads -------------------------------------------------------------------------

const sourceMessage = (id = 'AAMkAGI2TG93AAA=') => ({
  source_message_id: id,
  subject: 'Group block: Nordic Pharma Congress, 14-17 Oct',
  from: 'events@nordicpharma.example',
  cc: ['sales@hotel.example'],
  received_at: '2026-07-09T08:14:00Z',
  source_channel: 'Email',
});

/** A group block email: the block, and two rooming-list reservations under it (children first). */
const groupBlock = () => ({
  source_message: sourceMessage(),
  message_events: [
    {
      event_id: 'E_CHILD_1',
      event_type: 'reservation.create',
      catalog_code: 'RES_CREATE',
      skill_id: 'reservation-create',
      task_type: 'create_reservation',
      summary: 'Dr. Lena Berg, superior king, 14-17 Oct, billed to the group master.',
      case_keys: { group_code: 'NPC1410', confirmation_number: null, reservation_no: null },
      booking: {
        calendar_id: 'room_superior_king',
        start: '2026-10-14T14:00:00Z',
        end: '2026-10-17T10:00:00Z',
        customer: { name: 'Lena Berg', email: 'lena.berg@nordicpharma.example' },
        label: 'NPC rooming list',
        group_code: 'NPC1410',
      },
      parent_event_id: 'E_PARENT',
      related_event_id: null,
      evidence: 'Rooming list row 1: Dr. Lena Berg, SK, 14-17/10',
      current_or_history: 'current',
    },
    {
      event_id: 'E_PARENT',
      event_type: 'group.block',
      catalog_code: 'GROUP_BLOCK',
      skill_id: 'group-block',
      task_type: 'create_group_block',
      summary: 'Block 12 superior rooms for Nordic Pharma Congress, 14-17 Oct, cut-off 14 Sep.',
      case_keys: { group_code: 'NPC1410' },
      related_event_ids: ['E_CHILD_1', 'E_CHILD_2'],
      current_or_history: 'current',
    },
    {
      event_id: 'E_CHILD_2',
      event_type: 'reservation.create',
      catalog_code: 'RES_CREATE',
      skill_id: 'reservation-create',
      task_type: 'create_reservation',
      case_keys: { group_code: 'NPC1410' },
      booking: {
        calendar_id: 'room_superior_twin',
        start: '2026-10-14T14:00:00Z',
        end: '2026-10-16T10:00:00Z',
        customer: { name: 'Jonas Lind', phone: '+46 70 123 45 67', notes: 'Late arrival, ~23:00' },
      },
      parent_event_id: 'E_PARENT',
      related_event_id: 'E_CHILD_1',
      current_or_history: 'current',
    },
  ],
  case_candidates: [{ object_id: 'ORDER:bk_8f2k', group_code: 'NPC1410', score: 0.92 }],
  extraction_warnings: [{ code: 'ROOMING_LIST_PARTIAL', message: '10 of 12 names missing' }],
  unhandled_current_intents: [],
});

/** A FIT (individual) booking request. */
const fitCreate = () => ({
  source_message: {
    source_message_id: 'msg-fit-20260709-0001',
    subject: 'Booking request 2-4 August',
    from: 'anna.schmidt@example.de',
    cc: [],
    received_at: '2026-07-09T09:02:11Z',
    source_channel: 'Email',
  },
  message_events: [
    {
      event_id: 'E1',
      event_type: 'reservation.create',
      catalog_code: 'RES_CREATE',
      skill_id: 'reservation-create',
      task_type: 'create_reservation',
      result_type: 'normal_task',
      summary: 'Double room, 2 nights, breakfast included, non-smoking.',
      booking: {
        calendar_id: 'room_double',
        start: '2026-08-02T14:00:00Z',
        end: '2026-08-04T10:00:00Z',
        customer: { name: 'Anna Schmidt', email: 'anna.schmidt@example.de', phone: null, notes: null },
        label: null,
      },
      evidence: '"We would like a double room from 2 to 4 August"',
      current_or_history: 'current',
    },
  ],
  case_candidates: [],
  extraction_warnings: [],
  unhandled_current_intents: [],
});

/** A cancellation quoting the confirmation number. */
const cancellation = () => ({
  source_message: { ...sourceMessage('msg-cxl-77'), subject: 'Cancel HF-7Q2K9M' },
  message_events: [
    {
      event_id: 'E1',
      event_type: 'reservation.cancel',
      catalog_code: 'RES_CANCEL',
      skill_id: 'reservation-cancel',
      task_type: 'cancel_reservation',
      case_keys: { confirmation_number: 'HF-7Q2K9M' },
      target_object_id: null,
      summary: 'Guest cancels; flight was cancelled.',
    },
  ],
  case_candidates: [{ object_id: 'ORDER:bk_3n1x', confirmation_number: 'HF-7Q2K9M' }],
  unhandled_current_intents: [{ intent: 'ask_refund', text: 'Can you refund the deposit?' }],
});

const s10 = () => ({
  source_message: sourceMessage('msg-s10-1'),
  route_code: 'S10',
  handler_type: 'entry_notice',
  result_type: 'informational_message',
  current_or_history: 'current',
  agent_assessment: { reason: 'Newsletter from a booking channel; no reservation intent.', confidence: 0.97 },
  notification: { title: 'Channel newsletter', body: 'No action needed.' },
  manual_review: null,
});

const s99 = () => ({
  source_message: sourceMessage('msg-s99-1'),
  route_code: 'S99',
  handler_type: 'entry_notice',
  result_type: 'manual_review',
  current_or_history: 'current',
  agent_assessment: { reason: 'Guest disputes a no-show charge and threatens a chargeback.' },
  notification: { title: 'Dispute: no-show charge', body: 'Needs a duty manager.' },
  manual_review: {
    reason: 'Payment dispute: policy exception needs a human decision.',
    questions: ['Waive the no-show fee?', 'Offer a credit instead?'],
  },
});

const v2 = () => ({
  source_message_id: 'msg-v2-42',
  hotel_id: 'hotel_main',
  ai_task_results: [
    {
      source_event_index: '3',
      catalog_code: 'RES_UPDATE',
      skill_id: 'res-update',
      result_type: 'normal_task',
      task_type: 'change_dates',
    },
    {
      source_event_index: 1,
      catalog_code: 'INFO',
      skill_id: 'info',
      result_type: 'informational_message',
      task_type: 'note',
    },
    {
      source_event_index: '2',
      catalog_code: 'REVIEW',
      skill_id: 'review',
      result_type: 'manual_review',
      task_type: 'review',
    },
  ],
  extraction_warnings: [{ code: 'LOW_CONFIDENCE', source_event_index: 2 }],
});

// ---- helpers ------------------------------------------------------------------------------------

function accepted(payload: unknown): SubmitAdapted {
  const result = adaptSubmitPayload(payload);
  if (!result.ok) throw new Error(`expected acceptance, got ${result.message}`);
  return result;
}

function refused(payload: unknown): SubmitRejected {
  const result = adaptSubmitPayload(payload);
  if (result.ok) throw new Error('expected a rejection');
  expect(result.code).toBe('MCP_SUBMIT_PAYLOAD_INVALID');
  expect(result.message).toBe(`${result.details.field}: ${result.details.reason}`);
  return result;
}

/** A deep copy of `payload` with `edit` applied, for one-change variations of an example. */
function edited<T>(payload: T, edit: (copy: any) => void): T {
  const copy = structuredClone(payload) as any;
  edit(copy);
  return copy;
}

const t = (result: SubmitAdapted, i: number): Transition => result.transitions[i]!;

// ---- accepted shapes ----------------------------------------------------------------------------

describe('adaptSubmitPayload: V3 business root', () => {
  it('maps a group block: indices follow array order, relations map to indices exactly', () => {
    const result = accepted(groupBlock());
    expect(result.shape).toBe('v3_business');
    expect(result.sourceMessageId).toBe('AAMkAGI2TG93AAA=');
    expect(result.sourceMessage).toEqual({
      subject: 'Group block: Nordic Pharma Congress, 14-17 Oct',
      from: 'events@nordicpharma.example',
      cc: ['sales@hotel.example'],
      receivedAt: '2026-07-09T08:14:00Z',
      channel: 'Email',
    });
    expect(result.diagnostics).toEqual({
      events: [
        { event_id: 'E_CHILD_1', source_event_index: 1 },
        { event_id: 'E_PARENT', source_event_index: 2 },
        { event_id: 'E_CHILD_2', source_event_index: 3 },
      ],
      droppedCompatibilityFields: [],
    });
    expect(
      result.transitions.map((x) => [
        x.sourceEventIndex,
        x.agentEventId,
        x.kind,
        x.parentSourceEventIndex,
        x.relatedSourceEventIndex,
        x.relatedSourceEventIndices,
      ]),
    ).toEqual([
      [1, 'E_CHILD_1', 'task', 2, null, []],
      [2, 'E_PARENT', 'task', null, null, [1, 3]],
      [3, 'E_CHILD_2', 'task', 2, 1, []],
    ]);
    expect(result.caseCandidates).toEqual([
      { object_id: 'ORDER:bk_8f2k', group_code: 'NPC1410', score: 0.92 },
    ]);
    expect(result.extractionWarnings).toEqual([
      { code: 'ROOMING_LIST_PARTIAL', message: '10 of 12 names missing' },
    ]);
    expect(result.unhandledCurrentIntents).toEqual([]);
  });

  it('stores each event with its agent ids replaced by indices, in the agent’s key order', () => {
    const result = accepted(groupBlock());
    expect(t(result, 2).payload).toEqual({
      source_event_index: 3,
      event_type: 'reservation.create',
      catalog_code: 'RES_CREATE',
      skill_id: 'reservation-create',
      task_type: 'create_reservation',
      case_keys: { group_code: 'NPC1410' },
      booking: {
        calendar_id: 'room_superior_twin',
        start: '2026-10-14T14:00:00Z',
        end: '2026-10-16T10:00:00Z',
        customer: { name: 'Jonas Lind', phone: '+46 70 123 45 67', notes: 'Late arrival, ~23:00' },
      },
      parent_source_event_index: 2,
      related_source_event_index: 1,
      current_or_history: 'current',
    });
    expect(Object.keys(t(result, 1).payload)).toEqual([
      'source_event_index',
      'event_type',
      'catalog_code',
      'skill_id',
      'task_type',
      'summary',
      'case_keys',
      'related_source_event_indices',
      'current_or_history',
    ]);
    expect(t(result, 1).payload.related_source_event_indices).toEqual([1, 3]);
    expect(t(result, 0).payload.related_source_event_index).toBeNull();
    for (const x of result.transitions) expect(JSON.stringify(x.payload)).not.toMatch(/E_(PARENT|CHILD)/);
  });

  it('reads the typed fields of a FIT reservation', () => {
    const result = accepted(fitCreate());
    expect(result.transitions).toHaveLength(1);
    expect(t(result, 0)).toMatchObject({
      sourceEventIndex: 1,
      kind: 'task',
      problem: null,
      resultType: 'normal_task',
      eventType: 'reservation.create',
      taskType: 'create_reservation',
      catalogCode: 'RES_CREATE',
      skillId: 'reservation-create',
      summary: 'Double room, 2 nights, breakfast included, non-smoking.',
      caseKeys: { groupCode: null, confirmationNumber: null, reservationNo: null },
      targetObjectId: null,
      booking: {
        calendarId: 'room_double',
        start: '2026-08-02T14:00:00Z',
        end: '2026-08-04T10:00:00Z',
        customer: { name: 'Anna Schmidt', email: 'anna.schmidt@example.de', phone: null, notes: null },
        label: null,
        confirmationNumber: null,
        groupCode: null,
        reservationNo: null,
      },
      relatedSourceEventIndex: null,
      parentSourceEventIndex: null,
      relatedSourceEventIndices: [],
      manualReview: null,
      agentEventId: 'E1',
    });
  });

  it('accepts a cancellation by confirmation number; extraction_warnings may be left out', () => {
    const result = accepted(cancellation());
    expect(t(result, 0)).toMatchObject({
      kind: 'task',
      eventType: 'reservation.cancel',
      resultType: 'normal_task',
      caseKeys: { groupCode: null, confirmationNumber: 'HF-7Q2K9M', reservationNo: null },
    });
    expect(result.extractionWarnings).toEqual([]);
    expect(result.unhandledCurrentIntents).toEqual([
      { intent: 'ask_refund', text: 'Can you refund the deposit?' },
    ]);
  });

  it('a missing source_message, or a missing, null or empty id, is not refused: sourceMessageId is null', () => {
    const noMessage = accepted(edited(fitCreate(), (p) => delete p.source_message));
    expect([noMessage.sourceMessageId, noMessage.sourceMessage]).toEqual([null, null]);
    const noId = accepted(edited(fitCreate(), (p) => delete p.source_message.source_message_id));
    expect(noId.sourceMessageId).toBeNull();
    expect(noId.sourceMessage?.subject).toBe('Booking request 2-4 August');
    const empty = accepted(edited(fitCreate(), (p) => (p.source_message.source_message_id = '')));
    expect(empty.sourceMessageId).toBeNull();
    expect(accepted(edited(fitCreate(), (p) => (p.source_message = null))).sourceMessageId).toBeNull();
    // With its id, the schema's required fields are there; null where their type allows.
    const nulls = { subject: null, from: null, cc: [], received_at: null, source_channel: 'Email' };
    const bare = accepted(
      edited(fitCreate(), (p) => (p.source_message = { source_message_id: 'm1', ...nulls })),
    );
    expect(bare.sourceMessage).toEqual({
      subject: null,
      from: null,
      cc: [],
      receivedAt: null,
      channel: 'Email',
    });
  });

  it('accepts an empty message_events list', () => {
    const result = accepted(edited(fitCreate(), (p) => (p.message_events = [])));
    expect(result.transitions).toEqual([]);
    expect(result.diagnostics?.events).toEqual([]);
  });

  it('never reorders: indices are positions, whatever the ids say', () => {
    const ids = ['E9', 'E1', 'E_B', 'E_A', 'E3'];
    const result = accepted(
      edited(fitCreate(), (p) => {
        p.message_events = ids.map((event_id) => ({ event_id, event_type: 'information' }));
      }),
    );
    expect(result.transitions.map((x) => [x.agentEventId, x.sourceEventIndex])).toEqual(
      ids.map((id, i) => [id, i + 1]),
    );
  });
});

describe('adaptSubmitPayload: compatibility fields', () => {
  it('accepts hotel_id, source_provider and source_channel on every shape, drops and lists them', () => {
    const compat = { hotel_id: 'hotel_main', source_provider: 'AGENTBUS', source_channel: null };
    for (const base of [groupBlock(), s10(), v2()]) {
      const result = accepted({ ...base, ...compat });
      expect(result.droppedCompatibilityFields).toEqual(['hotel_id', 'source_provider', 'source_channel']);
      for (const x of result.transitions)
        for (const key of Object.keys(compat)) expect(x.payload).not.toHaveProperty(key);
    }
    const business = accepted({ ...groupBlock(), source_channel: 'OUTLOOK' });
    expect(business.diagnostics?.droppedCompatibilityFields).toEqual(['source_channel']);
    expect(accepted(v2()).droppedCompatibilityFields).toEqual(['hotel_id']);
    expect(accepted(v2()).diagnostics).toBeNull();
  });

  it('refuses a compatibility field of the wrong type', () => {
    expect(refused({ ...fitCreate(), hotel_id: 42 }).details.field).toBe('hotel_id');
    expect(refused({ ...s10(), source_provider: ['AGENTBUS'] }).details.field).toBe('source_provider');
  });
});

describe('adaptSubmitPayload: V3 route notices', () => {
  it('maps S10 to one informational task with index 1', () => {
    const result = accepted(s10());
    expect(result.shape).toBe('v3_route_notice');
    expect(result.sourceMessageId).toBe('msg-s10-1');
    expect(result.diagnostics).toBeNull();
    expect(result.transitions).toHaveLength(1);
    expect(t(result, 0)).toMatchObject({
      sourceEventIndex: 1,
      kind: 'task',
      problem: null,
      resultType: 'informational_message',
      manualReview: null,
      agentEventId: null,
    });
    expect(t(result, 0).payload).toEqual({
      source_event_index: 1,
      route_code: 'S10',
      handler_type: 'entry_notice',
      result_type: 'informational_message',
      current_or_history: 'current',
      agent_assessment: {
        reason: 'Newsletter from a booking channel; no reservation intent.',
        confidence: 0.97,
      },
      notification: { title: 'Channel newsletter', body: 'No action needed.' },
      manual_review: null,
    });
  });

  it('maps S99 with its manual review to a manual_review task', () => {
    const result = accepted(s99());
    expect(t(result, 0)).toMatchObject({
      sourceEventIndex: 1,
      kind: 'task',
      resultType: 'manual_review',
      manualReview: {
        reason: 'Payment dispute: policy exception needs a human decision.',
        questions: ['Waive the no-show fee?', 'Offer a credit instead?'],
      },
    });
  });

  it('S99 without a complete manual review, or an unknown route code, is a contract error, not a rejection', () => {
    for (const review of [null, {}, { reason: '' }, { questions: ['Why?'] }]) {
      const result = accepted(edited(s99(), (p) => (p.manual_review = review)));
      expect(t(result, 0).kind).toBe('adapter_contract_error');
      expect(t(result, 0).problem).toContain('incomplete manual_review');
    }
    for (const code of ['S42', 's10', null]) {
      const result = accepted(edited(s10(), (p) => (p.route_code = code)));
      expect(result.transitions).toHaveLength(1);
      expect(t(result, 0).kind).toBe('adapter_contract_error');
      expect(t(result, 0).problem).toMatch(/route_code/);
    }
    const mismatch = accepted(edited(s10(), (p) => (p.result_type = 'normal_task')));
    expect(t(mismatch, 0).problem).toMatch(/does not match route_code S10/);
    expect(t(mismatch, 0).resultType).toBe('informational_message');
  });

  it('refuses a route notice missing a required field or with the wrong type', () => {
    const cases: [string, (p: any) => void][] = [
      ['notification', (p) => delete p.notification],
      ['agent_assessment', (p) => (p.agent_assessment = null)],
      ['manual_review', (p) => delete p.manual_review],
      ['handler_type', (p) => delete p.handler_type],
      ['current_or_history', (p) => (p.current_or_history = 3)],
      ['result_type', (p) => (p.result_type = 'urgent')],
      ['manual_review.questions', (p) => (p.manual_review = { reason: 'x', questions: 'Why?' })],
      ['route_code', (p) => (p.route_code = 10)],
    ];
    for (const [field, edit] of cases) expect(refused(edited(s10(), edit)).details.field).toBe(field);
  });
});

describe('adaptSubmitPayload: V2 task results', () => {
  it('keeps array order (not index order) and reads string and integer indices', () => {
    const result = accepted(v2());
    expect(result.shape).toBe('v2_task_results');
    expect(result.sourceMessageId).toBe('msg-v2-42');
    expect(result.sourceMessage).toBeNull();
    expect(result.transitions.map((x) => x.sourceEventIndex)).toEqual([3, 1, 2]);
    expect(result.transitions.map((x) => x.resultType)).toEqual([
      'normal_task',
      'informational_message',
      'manual_review',
    ]);
    expect(t(result, 0)).toMatchObject({
      kind: 'task',
      catalogCode: 'RES_UPDATE',
      skillId: 'res-update',
      taskType: 'change_dates',
      agentEventId: null,
    });
    expect(t(result, 0).payload).toEqual({
      source_event_index: 3,
      catalog_code: 'RES_UPDATE',
      skill_id: 'res-update',
      result_type: 'normal_task',
      task_type: 'change_dates',
    });
    expect(result.extractionWarnings).toEqual([{ code: 'LOW_CONFIDENCE', source_event_index: 2 }]);
  });

  it('a missing or empty source_message_id is left to the business layer', () => {
    const missing = edited(v2(), (p) => delete p.source_message_id);
    expect(accepted(missing).sourceMessageId).toBeNull();
    expect(accepted(edited(v2(), (p) => (p.source_message_id = ''))).sourceMessageId).toBeNull();
  });
});

// ---- business problems: kept, not refused ------------------------------------------------------

describe('adaptSubmitPayload: business problems become adapter_contract_error transitions', () => {
  const one = (event: Record<string, unknown>) =>
    accepted(edited(fitCreate(), (p) => (p.message_events = [{ event_id: 'E1', ...event }])));

  it.each([
    [
      'unsupported event_type',
      { event_type: 'reservation.move' },
      /unsupported event_type "reservation.move"/,
    ],
    ['update without case keys', { event_type: 'reservation.update' }, /incomplete case_keys/],
    [
      'cancel with only blank keys',
      { event_type: 'reservation.cancel', case_keys: { confirmation_number: '  ' } },
      /incomplete case_keys/,
    ],
    ['create without booking', { event_type: 'reservation.create' }, /incomplete booking/],
    [
      'create without an end',
      { event_type: 'reservation.create', booking: { calendar_id: 'room_double', start: '2026-08-02' } },
      /incomplete booking/,
    ],
    [
      'manual review without a reason',
      { event_type: 'information', result_type: 'manual_review', manual_review: { questions: ['?'] } },
      /incomplete manual_review/,
    ],
  ])('%s', (_name, event, problem) => {
    const result = one(event);
    expect(t(result, 0).kind).toBe('adapter_contract_error');
    expect(t(result, 0).problem).toMatch(problem);
    expect(t(result, 0).sourceEventIndex).toBe(1);
  });

  it('an update identified by target_object_id alone is a task', () => {
    const result = one({ event_type: 'reservation.update', target_object_id: 'ORDER:bk_3n1x' });
    expect(t(result, 0)).toMatchObject({ kind: 'task', targetObjectId: 'ORDER:bk_3n1x' });
  });

  it('lists every problem of one event; the other events stay tasks', () => {
    const result = accepted(
      edited(groupBlock(), (p) => {
        p.message_events[0].event_type = 'reservation.upsert';
        p.message_events[0].result_type = 'manual_review';
      }),
    );
    expect(t(result, 0).problem).toBe(
      'unsupported event_type "reservation.upsert" (supported: reservation.create, reservation.update, reservation.cancel, group.block, information); incomplete manual_review: result_type manual_review needs manual_review.reason',
    );
    expect(result.transitions.map((x) => x.kind)).toEqual(['adapter_contract_error', 'task', 'task']);
  });
});

// ---- rejections ---------------------------------------------------------------------------------

describe('adaptSubmitPayload: transport rejections name the field', () => {
  const event = (patch: (e: any) => void, at = 0) => edited(groupBlock(), (p) => patch(p.message_events[at]));

  it.each<[string, unknown, string, RegExp?]>([
    ['unknown top-level field', { ...fitCreate(), priority: 'high' }, 'priority', /unknown field/],
    [
      'unknown event field',
      event((e) => (e.guest_name = 'Lena')),
      'message_events[0].guest_name',
      /unknown field/,
    ],
    ['unknown booking field', event((e) => (e.booking.rate = 189)), 'message_events[0].booking.rate'],
    [
      'unknown customer field',
      event((e) => (e.booking.customer.vip = true)),
      'message_events[0].booking.customer.vip',
    ],
    ['unknown case_keys field', event((e) => (e.case_keys.pnr = 'X'), 1), 'message_events[1].case_keys.pnr'],
    [
      'unknown manual_review field in an event',
      event((e) => (e.manual_review = { reason: 'x', urgency: 'high' })),
      'message_events[0].manual_review.urgency',
    ],
    [
      'unknown source_message field',
      edited(fitCreate(), (p) => (p.source_message.body = 'Dear team')),
      'source_message.body',
    ],
    ['missing event_id', event((e) => delete e.event_id, 1), 'message_events[1].event_id', /^required$/],
    ['empty event_id', event((e) => (e.event_id = '')), 'message_events[0].event_id', /must not be empty/],
    ['non-string event_id', event((e) => (e.event_id = 7)), 'message_events[0].event_id', /got number/],
    ['missing event_type', event((e) => delete e.event_type), 'message_events[0].event_type', /required/],
    [
      'dangling related_event_id',
      event((e) => (e.related_event_id = 'E_CHILD_9'), 2),
      'message_events[2].related_event_id',
      /names no event in this payload: "E_CHILD_9"/,
    ],
    [
      'dangling parent_event_id',
      event((e) => (e.parent_event_id = 'E_GROUP')),
      'message_events[0].parent_event_id',
      /names no event/,
    ],
    [
      'dangling id in related_event_ids',
      event((e) => (e.related_event_ids = ['E_CHILD_1', 'E7']), 1),
      'message_events[1].related_event_ids[1]',
      /names no event in this payload: "E7"/,
    ],
    [
      'self-reference as parent',
      event((e) => (e.parent_event_id = 'E_PARENT'), 1),
      'message_events[1].parent_event_id',
      /refers to the event itself/,
    ],
    [
      'self-reference in related_event_ids',
      event((e) => (e.related_event_ids = ['E_PARENT']), 1),
      'message_events[1].related_event_ids[0]',
      /refers to the event itself/,
    ],
    [
      'duplicate in related_event_ids',
      event((e) => (e.related_event_ids = ['E_CHILD_1', 'E_CHILD_1']), 1),
      'message_events[1].related_event_ids[1]',
      /duplicate id "E_CHILD_1"/,
    ],
    [
      'related_event_ids not a list',
      event((e) => (e.related_event_ids = 'E_CHILD_1'), 1),
      'message_events[1].related_event_ids',
    ],
    ['event not an object', edited(fitCreate(), (p) => (p.message_events = ['E1'])), 'message_events[0]'],
    ['message_events not a list', edited(fitCreate(), (p) => (p.message_events = {})), 'message_events'],
    ['message_events missing', edited(fitCreate(), (p) => delete p.message_events), 'message_events'],
    ['case_candidates missing', edited(fitCreate(), (p) => delete p.case_candidates), 'case_candidates'],
    [
      'unhandled_current_intents missing',
      edited(fitCreate(), (p) => delete p.unhandled_current_intents),
      'unhandled_current_intents',
    ],
    ['case_candidates item not an object', { ...fitCreate(), case_candidates: [1] }, 'case_candidates[0]'],
    ['extraction_warnings not a list', { ...fitCreate(), extraction_warnings: {} }, 'extraction_warnings'],
    ['cc not a list', edited(fitCreate(), (p) => (p.source_message.cc = 'a@b.c')), 'source_message.cc'],
    [
      'source_channel other than Email',
      edited(fitCreate(), (p) => (p.source_message.source_channel = 'OUTLOOK')),
      'source_message.source_channel',
    ],
    [
      'source_message_id not a string',
      edited(fitCreate(), (p) => (p.source_message.source_message_id = 12)),
      'source_message.source_message_id',
    ],
    ['source_message not an object', { ...fitCreate(), source_message: 'msg-1' }, 'source_message'],
    [
      'result_type outside the enum',
      event((e) => (e.result_type = 'urgent')),
      'message_events[0].result_type',
    ],
    [
      'booking.start a number',
      event((e) => (e.booking.start = 1_786_000_000)),
      'message_events[0].booking.start',
    ],
    ['booking a string', event((e) => (e.booking = 'tomorrow')), 'message_events[0].booking'],
    [
      'target_object_id an object',
      event((e) => (e.target_object_id = {})),
      'message_events[0].target_object_id',
    ],
    ...(['subject', 'from', 'cc', 'received_at', 'source_channel'] as const).map(
      (key) =>
        [
          `source_message without its required ${key}`,
          edited(fitCreate(), (p) => delete p.source_message[key]),
          `source_message.${key}`,
          /required/,
        ] as [string, unknown, string, RegExp],
    ),
    ['payload null', null, '$'],
    ['payload an array', [groupBlock()], '$'],
    ['payload a string', JSON.stringify(groupBlock()), '$'],
    ['payload a number', 42, '$'],
  ])('%s', (_name, payload, field, reason) => {
    const result = refused(payload);
    expect(result.details.field).toBe(field);
    if (reason) expect(result.details.reason).toMatch(reason);
  });

  it('names a duplicate event_id in plain English', () => {
    const result = refused(edited(groupBlock(), (p) => (p.message_events[2].event_id = 'E_CHILD_1')));
    expect(result.message).toBe('message_events[2].event_id: duplicate id "E_CHILD_1"');
    expect(result.details).toEqual({
      field: 'message_events[2].event_id',
      reason: 'duplicate id "E_CHILD_1"',
    });
  });

  it.each<[string, (p: any) => void, string, RegExp?]>([
    [
      'missing skill_id',
      (p) => delete p.ai_task_results[0].skill_id,
      'ai_task_results[0].skill_id',
      /required/,
    ],
    [
      'missing source_event_index',
      (p) => delete p.ai_task_results[2].source_event_index,
      'ai_task_results[2].source_event_index',
    ],
    ['null task_type', (p) => (p.ai_task_results[1].task_type = null), 'ai_task_results[1].task_type'],
    ['unknown field', (p) => (p.ai_task_results[1].summary = 'x'), 'ai_task_results[1].summary', /unknown/],
    [
      'duplicate index, as integer and string',
      (p) => (p.ai_task_results[1].source_event_index = '3'),
      'ai_task_results[1].source_event_index',
      /duplicate index 3/,
    ],
    [
      'index 0',
      (p) => (p.ai_task_results[1].source_event_index = 0),
      'ai_task_results[1].source_event_index',
    ],
    [
      'index "0"',
      (p) => (p.ai_task_results[0].source_event_index = '0'),
      'ai_task_results[0].source_event_index',
    ],
    [
      'index -1',
      (p) => (p.ai_task_results[1].source_event_index = -1),
      'ai_task_results[1].source_event_index',
    ],
    [
      'index 1.5',
      (p) => (p.ai_task_results[1].source_event_index = 1.5),
      'ai_task_results[1].source_event_index',
    ],
    [
      'index "2a"',
      (p) => (p.ai_task_results[2].source_event_index = '2a'),
      'ai_task_results[2].source_event_index',
    ],
    [
      'index " 2"',
      (p) => (p.ai_task_results[2].source_event_index = ' 2'),
      'ai_task_results[2].source_event_index',
    ],
    [
      'index ""',
      (p) => (p.ai_task_results[2].source_event_index = ''),
      'ai_task_results[2].source_event_index',
    ],
    [
      'index true',
      (p) => (p.ai_task_results[2].source_event_index = true),
      'ai_task_results[2].source_event_index',
    ],
    [
      'index beyond safe integers',
      (p) => (p.ai_task_results[2].source_event_index = '90071992547409930'),
      'ai_task_results[2].source_event_index',
    ],
    [
      'result_type outside the enum',
      (p) => (p.ai_task_results[0].result_type = 'task'),
      'ai_task_results[0].result_type',
    ],
    ['item not an object', (p) => (p.ai_task_results[0] = 3), 'ai_task_results[0]'],
    ['ai_task_results missing', (p) => delete p.ai_task_results, 'ai_task_results'],
  ])('V2: %s', (_name, edit, field, reason) => {
    const result = refused(edited(v2(), edit));
    expect(result.details.field).toBe(field);
    if (reason) expect(result.details.reason).toMatch(reason);
  });

  it.each<[string, unknown, string]>([
    ['message_events with ai_task_results', { ...v2(), message_events: [] }, 'message_events'],
    ['source_message with a V2 payload', { ...v2(), source_message: sourceMessage() }, 'source_message'],
    ['route_code with message_events', { ...s10(), message_events: [] }, 'message_events'],
    ['route fields without route_code', { ...fitCreate(), handler_type: 'entry_notice' }, 'handler_type'],
    [
      'top-level source_message_id with V3 events',
      { ...fitCreate(), source_message_id: 'm' },
      'source_message',
    ],
  ])('mixed shapes: %s', (_name, payload, field) => {
    const result = refused(payload);
    expect(result.details.field).toBe(field);
    expect(result.details.reason).toMatch(/^mixed shapes: /);
  });
});

// ---- hostile input ------------------------------------------------------------------------------

describe('adaptSubmitPayload: hostile input', () => {
  it('treats __proto__ as an ordinary key: refused where unknown, copied as data where free-form', () => {
    const top = refused(
      JSON.parse(`{"__proto__": {"polluted": true}, ${JSON.stringify(fitCreate()).slice(1)}`),
    );
    expect(top.details.field).toBe('__proto__');
    const inEvent = JSON.parse(
      JSON.stringify(fitCreate()).replace('"event_id":"E1"', '"event_id":"E1","__proto__":{"x":1}'),
    );
    expect(refused(inEvent).details.field).toBe('message_events[0].__proto__');

    const free = JSON.parse(
      JSON.stringify(fitCreate()).replace(
        '"case_candidates":[]',
        '"case_candidates":[{"__proto__":{"polluted":true}}]',
      ),
    );
    const result = accepted(free);
    const candidate = result.caseCandidates[0] as Record<string, unknown>;
    expect(Object.getPrototypeOf(candidate)).toBe(Object.prototype);
    expect(Object.hasOwn(candidate, '__proto__')).toBe(true);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect((candidate as { polluted?: unknown }).polluted).toBeUndefined();
  });

  it('refuses deep nesting and cycles without overflowing the stack', () => {
    let deep: unknown = 'leaf';
    for (let i = 0; i < 100_000; i++) deep = [deep];
    const nested = refused({ ...fitCreate(), case_candidates: [{ nested: deep }] });
    expect(nested.details.field.startsWith('case_candidates[0].nested')).toBe(true);
    expect(nested.details.reason).toMatch(/nested deeper than/);
    const cycle: Record<string, unknown> = { kind: 'loop' };
    cycle.self = cycle;
    expect(refused({ ...fitCreate(), case_candidates: [cycle] }).details.reason).toMatch(/nested deeper/);
  });

  it('refuses values that are not JSON, and never runs a getter twice or throws from one', () => {
    expect(refused({ ...fitCreate(), case_candidates: [{ at: new Date(0) }] }).details.field).toBe(
      'case_candidates[0].at',
    );
    expect(refused({ ...fitCreate(), case_candidates: [{ n: Number.NaN }] }).details.field).toBe(
      'case_candidates[0].n',
    );
    expect(refused({ ...fitCreate(), case_candidates: [{ u: undefined }] }).details.field).toBe(
      'case_candidates[0].u',
    );
    const getter = Object.defineProperty({ ...fitCreate() }, 'case_candidates', {
      enumerable: true,
      get() {
        throw new Error('boom');
      },
    });
    expect(refused(getter).details.field).toBe('case_candidates');
    const trap = new Proxy(
      {},
      {
        ownKeys() {
          throw new Error('trap');
        },
      },
    );
    expect(refused(trap).details).toEqual({
      field: '$',
      reason: 'the payload could not be read as JSON data',
    });
  });

  it('shares nothing with the caller’s objects', () => {
    const payload: any = groupBlock();
    const result = accepted(payload);
    payload.message_events[0].booking.customer.name = 'Changed';
    payload.case_candidates[0].group_code = 'Changed';
    expect(t(result, 0).booking?.customer?.name).toBe('Lena Berg');
    expect((t(result, 0).payload.booking as { customer: { name: string } }).customer.name).toBe('Lena Berg');
    expect((result.caseCandidates[0] as { group_code: string }).group_code).toBe('NPC1410');
    expect(accepted(groupBlock())).toEqual(accepted(groupBlock()));
  });
});

// ---- fuzz ---------------------------------------------------------------------------------------

describe('adaptSubmitPayload: fuzzed input', () => {
  const id = fc.oneof(
    { arbitrary: fc.constantFrom('E1', 'E2', 'E3', 'E_PARENT', 'E_CHILD_1', 'E_CHILD_2'), weight: 12 },
    { arbitrary: fc.constantFrom('', '__proto__', 'constructor'), weight: 1 },
  );
  const text = fc.oneof(fc.string({ maxLength: 12 }), fc.constant(null));
  const junk = fc.oneof(fc.jsonValue({ maxDepth: 3 }), id, text);
  /** Mostly well-typed, sometimes junk: deep enough to reach every check. */
  const mostly = <T>(good: fc.Arbitrary<T>) =>
    fc.oneof({ arbitrary: good, weight: 40 }, { arbitrary: junk, weight: 1 });
  /** Now and then one more key, `__proto__` included, as an own property. */
  const withStray = <T extends object>(value: fc.Arbitrary<T>) =>
    fc
      .tuple(
        value,
        fc.oneof(
          { arbitrary: fc.constant(null), weight: 14 },
          { arbitrary: fc.tuple(fc.constantFrom('extra', '__proto__'), junk), weight: 1 },
        ),
      )
      .map(([v, stray]) => (stray === null ? v : { ...v, [stray[0]]: stray[1] }));
  const relation = fc.oneof({ arbitrary: fc.constant(null), weight: 2 }, { arbitrary: id, weight: 1 });
  const event = withStray(
    fc.record(
      {
        event_id: mostly(id),
        event_type: mostly(
          fc.constantFrom(
            'reservation.create',
            'reservation.update',
            'reservation.cancel',
            'group.block',
            'information',
            'reservation.move',
          ),
        ),
        result_type: mostly(fc.constantFrom('normal_task', 'manual_review', 'informational_message', null)),
        summary: text,
        case_keys: mostly(fc.record({ confirmation_number: text, group_code: text }, { requiredKeys: [] })),
        target_object_id: text,
        booking: mostly(
          fc.record(
            { calendar_id: text, start: text, end: text, customer: fc.constant({ name: 'Guest' }) },
            { requiredKeys: [] },
          ),
        ),
        manual_review: mostly(
          fc.record({ reason: text, questions: fc.array(fc.string()) }, { requiredKeys: [] }),
        ),
        related_event_id: relation,
        parent_event_id: relation,
        related_event_ids: mostly(fc.array(id, { maxLength: 2 })),
      },
      { requiredKeys: ['event_id', 'event_type'] },
    ),
  );
  const events = fc.oneof(
    { arbitrary: fc.uniqueArray(event, { selector: (e) => e.event_id, maxLength: 6 }), weight: 4 },
    { arbitrary: fc.array(event, { maxLength: 4 }), weight: 1 },
  );
  const nearlyValid = withStray(
    fc.record(
      {
        source_message: mostly(fc.constant(sourceMessage())),
        message_events: mostly(events),
        case_candidates: mostly(fc.constant([])),
        unhandled_current_intents: mostly(fc.constant([])),
        extraction_warnings: mostly(fc.constant([{ code: 'W' }])),
        hotel_id: text,
      },
      { requiredKeys: ['message_events', 'case_candidates', 'unhandled_current_intents'] },
    ),
  );
  const anything = fc.anything({
    maxDepth: 4,
    withBigInt: true,
    withBoxedValues: true,
    withDate: true,
    withMap: true,
    withSet: true,
    withNullPrototype: true,
    withObjectString: true,
    withSparseArray: true,
    withTypedArray: true,
  });
  const variants = fc.oneof(
    anything,
    nearlyValid,
    fc
      .constantFrom(groupBlock(), fitCreate(), cancellation(), s10(), s99(), v2())
      .chain((base) =>
        fc
          .tuple(
            fc.constantFrom(...Object.keys(base), 'route_code', 'ai_task_results', 'message_events'),
            junk,
          )
          .map(([key, value]) => ({ ...base, [key]: value })),
      ),
  );

  it('never throws, and always answers one of the two shapes', () => {
    fc.assert(
      fc.property(variants, (payload) => {
        const result = adaptSubmitPayload(payload);
        if (result.ok) {
          expect(['v3_business', 'v3_route_notice', 'v2_task_results']).toContain(result.shape);
          for (const x of result.transitions) {
            expect(Number.isSafeInteger(x.sourceEventIndex) && x.sourceEventIndex >= 1).toBe(true);
            expect(['task', 'adapter_contract_error']).toContain(x.kind);
            expect(x.problem === null).toBe(x.kind === 'task');
          }
          if (result.shape === 'v3_business') {
            const n = result.transitions.length;
            result.transitions.forEach((x, i) => {
              expect(x.sourceEventIndex).toBe(i + 1);
              for (const r of [
                x.relatedSourceEventIndex,
                x.parentSourceEventIndex,
                ...x.relatedSourceEventIndices,
              ])
                if (r !== null) expect(r >= 1 && r <= n && r !== i + 1).toBe(true);
            });
          }
        } else {
          expect(result.code).toBe('MCP_SUBMIT_PAYLOAD_INVALID');
          expect(result.message).toBe(`${result.details.field}: ${result.details.reason}`);
          // The catch-all is for Proxies and throwing getters only, never for a bug on plain data.
          expect(result.details.reason).not.toBe('the payload could not be read as JSON data');
        }
      }),
      { seed: 20260709, numRuns: 5_000 },
    );
  });

  it('maps any valid relation graph exactly: index is position + 1, each relation the named event’s', () => {
    const graph = fc
      .uniqueArray(fc.oneof(fc.string({ minLength: 1, maxLength: 8 }), fc.constant('__proto__')), {
        minLength: 1,
        maxLength: 12,
      })
      .chain((ids) =>
        fc.tuple(
          fc.constant(ids),
          fc.array(
            fc.record({
              related: fc.option(fc.nat()),
              parent: fc.option(fc.nat()),
              list: fc.option(fc.array(fc.nat(), { maxLength: 4 })),
            }),
            { minLength: ids.length, maxLength: ids.length },
          ),
        ),
      );
    fc.assert(
      fc.property(graph, ([ids, picks]) => {
        /** Another event's position, or null: never the event itself. */
        const other = (self: number, n: number | null) => {
          if (n === null || ids.length < 2) return null;
          const j = n % (ids.length - 1);
          return j >= self ? j + 1 : j;
        };
        const plan = picks.map((p, i) => ({
          related: other(i, p.related),
          parent: other(i, p.parent),
          list:
            p.list === null ? null : [...new Set(p.list.map((n) => other(i, n)!))].filter((j) => j !== null),
        }));
        const payload = {
          source_message: sourceMessage(),
          message_events: ids.map((event_id, i) => ({
            event_id,
            event_type: 'information',
            related_event_id: plan[i]!.related === null ? null : ids[plan[i]!.related!],
            parent_event_id: plan[i]!.parent === null ? null : ids[plan[i]!.parent!],
            related_event_ids: plan[i]!.list === null ? null : plan[i]!.list!.map((j) => ids[j]),
          })),
          case_candidates: [],
          unhandled_current_intents: [],
        };
        const result = accepted(payload);
        expect(result.diagnostics?.events).toEqual(
          ids.map((event_id, i) => ({ event_id, source_event_index: i + 1 })),
        );
        result.transitions.forEach((x, i) => {
          const at = (j: number | null) => (j === null ? null : j + 1);
          expect(x.sourceEventIndex).toBe(i + 1);
          expect(x.agentEventId).toBe(ids[i]);
          expect(x.relatedSourceEventIndex).toBe(at(plan[i]!.related));
          expect(x.parentSourceEventIndex).toBe(at(plan[i]!.parent));
          expect(x.relatedSourceEventIndices).toEqual((plan[i]!.list ?? []).map((j) => j + 1));
          expect(x.payload.related_source_event_indices).toEqual(plan[i]!.list?.map((j) => j + 1) ?? null);
          expect(Object.hasOwn(x.payload, 'event_id')).toBe(false);
        });
      }),
      { seed: 9, numRuns: 500 },
    );
  });
});

describe('adaptSubmitPayload: no sizes of its own (the request bounds them)', () => {
  it('takes 500 events, a 20,000-character catalog code, a 5,000-character summary and a 12 MB quote', () => {
    const events = Array.from({ length: 500 }, (_, i) => ({ event_id: `E${i}`, event_type: 'information' }));
    expect(accepted(edited(fitCreate(), (p) => (p.message_events = events))).transitions).toHaveLength(500);
    const long = accepted(
      edited(fitCreate(), (p) => {
        const e = p.message_events[0];
        e.catalog_code = 'x'.repeat(20_000);
        e.summary = 's'.repeat(5_000);
        e.evidence = 'q'.repeat(12 * 1024 * 1024);
      }),
    );
    expect(long.transitions[0]!.catalogCode).toHaveLength(20_000);
    expect(long.transitions[0]!.summary).toHaveLength(5_000);
  });

  it('takes 300 task results in a V2 payload', () => {
    const results = Array.from({ length: 300 }, (_, i) => ({
      source_event_index: i + 1,
      catalog_code: 'INFO',
      skill_id: 'info',
      result_type: 'informational_message',
      task_type: 'note',
    }));
    expect(accepted(edited(v2(), (p) => (p.ai_task_results = results))).transitions).toHaveLength(300);
  });

  it('takes a source_message without its id (the business layer answers MISSING_SOURCE_MESSAGE_ID)', () => {
    const adapted = accepted(edited(fitCreate(), (p) => (p.source_message = { subject: 'no id' })));
    expect(adapted.sourceMessageId).toBeNull();
  });
});
