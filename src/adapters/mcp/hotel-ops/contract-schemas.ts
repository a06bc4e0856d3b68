import { z } from 'zod';

/**
 * The TH Hotel reservation-operations contract's input schemas, published in tools/list as the
 * contract gives them (nullable compatibility fields, `additionalProperties: false`), and the
 * strict parsers the handlers check calls with. Descriptions are the contract's, in English.
 */

type JsonSchema = Record<string, unknown>;
const nullableString = (description: string): JsonSchema => ({ type: ['string', 'null'], description });
const hotelId = nullableString('Optional hotel context id; resolved by the server by default');

export const caseContextSchema: JsonSchema = {
  type: 'object',
  additionalProperties: false,
  properties: {
    hotel_id: hotelId,
    group_code: nullableString('Group / allotment key'),
    confirmation_number: nullableString('FIT confirmation number'),
    reservation_no: nullableString('External (OPERA) reservation number'),
    object_type_hint: nullableString("The caller's guess of the object type"),
    target_key_source: nullableString('Where the key came from, e.g. body_current or body_thread_evidence'),
    body_thread_used_only_as_evidence: {
      type: 'boolean',
      description: 'Whether keys from the thread history are evidence only',
    },
  },
  required: [],
};

export const objectDetailSchema: JsonSchema = {
  type: 'object',
  additionalProperties: false,
  properties: {
    hotel_id: hotelId,
    object_id: {
      type: 'string',
      description: 'The object to read: ORDER:{order_id} (or GROUP:{group_code})',
    },
    object_type: nullableString("The caller's object type hint"),
  },
  required: ['object_id'],
};

export const conversationSchema: JsonSchema = {
  type: 'object',
  additionalProperties: false,
  properties: {
    hotel_id: hotelId,
    source_provider: nullableString('Source provider, e.g. AGENTBUS'),
    source_channel: nullableString('Source channel, e.g. EMAIL'),
    external_conversation_id: nullableString('External mail conversation id'),
    source_message_id: nullableString('External source message id; finds its conversation'),
  },
  required: [],
};

const objects = (description: string): JsonSchema => ({
  type: 'array',
  description,
  items: { type: 'object' },
});

export const submitSchema: JsonSchema = {
  type: 'object',
  additionalProperties: false,
  properties: {
    hotel_id: hotelId,
    source_provider: nullableString('Compatibility field; not used to find the message'),
    source_channel: nullableString('Compatibility field; not used to find the message'),
    source_message: {
      type: 'object',
      description: 'V3 source mail metadata; source_message_id is the provider’s external message id',
      properties: {
        source_message_id: { type: 'string' },
        subject: { type: ['string', 'null'] },
        from: { type: ['string', 'null'] },
        cc: { type: 'array', items: { type: 'string' } },
        received_at: { type: ['string', 'null'] },
        source_channel: { type: 'string', enum: ['Email'] },
      },
      required: ['source_message_id', 'subject', 'from', 'cc', 'received_at', 'source_channel'],
    },
    route_code: nullableString('V3 S10/S99 route notice code'),
    handler_type: nullableString('V3 main agent handler type'),
    result_type: nullableString('V3 route notice or V2 result type'),
    current_or_history: nullableString('V3 current/history marker'),
    agent_assessment: { type: 'object', description: 'V3 S10/S99 entry assessment' },
    notification: { type: 'object', description: 'V3 S10/S99 notification shown to people' },
    manual_review: {
      type: ['object', 'null'],
      description: 'V3 manual review; may be null for S10, complete for S99',
    },
    message_events: objects(
      'V3 business events; the server numbers them 1.. in array order (source_event_index)',
    ),
    case_candidates: objects('V3 case candidates; [] when none'),
    unhandled_current_intents: objects('V3 intents not covered; [] when none'),
    source_message_id: { type: 'string', description: 'V2: external source message id' },
    ai_task_results: {
      type: 'array',
      description: 'V2: task results in the agent’s order (kept as given)',
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['source_event_index', 'catalog_code', 'skill_id', 'result_type', 'task_type'],
        properties: {
          source_event_index: { type: ['integer', 'string'] },
          catalog_code: { type: 'string' },
          skill_id: { type: 'string' },
          result_type: { type: 'string', enum: ['normal_task', 'manual_review', 'informational_message'] },
          task_type: { type: 'string' },
        },
      },
    },
    extraction_warnings: objects('Extraction warnings; [] when none'),
  },
  required: [],
};

/**
 * The three input shapes (V3 business root, V3 S10/S99 notice, V2 task results) by the fields each
 * requires. The contract puts them in a root `oneOf`; model APIs refuse a tool whose parameters
 * have one (OpenAI: no oneOf/anyOf at the top level), so tools/list carries them machine-readably
 * in the tool's `_meta` instead, and the submit check enforces them as before.
 */
export const SUBMIT_INPUT_SHAPES: readonly { readonly required: readonly string[] }[] = [
  {
    required: [
      'source_message',
      'message_events',
      'case_candidates',
      'extraction_warnings',
      'unhandled_current_intents',
    ],
  },
  {
    required: [
      'source_message',
      'route_code',
      'handler_type',
      'result_type',
      'current_or_history',
      'agent_assessment',
      'notification',
      'manual_review',
    ],
  },
  { required: ['source_message_id', 'ai_task_results'] },
];

/** The contract envelope every answer of these tools has. */
export const envelopeSchema: JsonSchema = {
  type: 'object',
  properties: {
    success: { type: 'boolean' },
    request_id: { type: 'string' },
    trace_id: { type: 'string' },
    data: { type: ['object', 'null'] },
    warnings: { type: 'array' },
    error: {
      type: ['object', 'null'],
      properties: { code: { type: 'string' }, message: { type: 'string' }, details: { type: 'object' } },
    },
  },
  required: ['success', 'request_id', 'trace_id', 'data', 'warnings', 'error'],
};

const key = z.string().max(200).nullable().optional();

export const caseContextInput = z.strictObject({
  hotel_id: key,
  group_code: key,
  confirmation_number: key,
  reservation_no: key,
  object_type_hint: key,
  target_key_source: key,
  body_thread_used_only_as_evidence: z.boolean().optional(),
});

export const objectDetailInput = z.strictObject({
  hotel_id: key,
  object_id: z.string().min(1).max(200),
  object_type: key,
});

export const conversationInput = z.strictObject({
  hotel_id: key,
  source_provider: key,
  source_channel: key,
  external_conversation_id: z.string().max(1000).nullable().optional(),
  source_message_id: z.string().max(1000).nullable().optional(),
});
