/**
 * th_hotel_submit_task_results: an operations agent submits its results for one source email in
 * one of three shapes. Before anything is written this adapter checks the transport-level shape
 * and maps the agent's event ids to one-based indices; a payload that fails is refused whole with
 * MCP_SUBMIT_PAYLOAD_INVALID and the field at fault. What is wrong as business (an unsupported
 * event_type, missing case keys, an incomplete manual review) refuses nothing: the event becomes an
 * `adapter_contract_error` transition for the business layer to keep.
 *
 * Shapes, told apart by their fields:
 * - V2 task results, when `ai_task_results` or a top-level `source_message_id` is present;
 * - V3 route notice (S10/S99), when `route_code` is present;
 * - V3 business root (`source_message` + `message_events[]`) otherwise.
 * A payload carrying another shape's fields is refused as mixed. `hotel_id`, `source_provider` and
 * `source_channel` (string or null) are accepted on every shape and dropped: the business layer
 * finds the hotel and the inbox record itself. Any other unknown field is refused.
 *
 * A missing source message id is not refused here: sourceMessageId is null (also for a missing,
 * null or empty `source_message`/`source_message_id`) and the business layer answers
 * MISSING_SOURCE_MESSAGE_ID. With an id, the schema's other required `source_message` fields
 * (subject, from, cc, received_at, source_channel) must be present, each of its JSON type (null
 * where the type allows).
 *
 * No size is refused here: the request's limits bound the payload before it arrives (see
 * submit-read.ts). The function never throws.
 */
import { mapMessageEvents } from './submit-events.js';
import type { JsonObject } from './submit-read.js';
import {
  PayloadRejection,
  asArray,
  asObject,
  has,
  objectArray,
  onlyKeys,
  optString,
  reject,
  required,
  snapshot,
} from './submit-read.js';
import { adaptRouteNotice, adaptTaskResults, sourceMessageOf } from './submit-shapes.js';
import type { SubmitAdapted, SubmitCommon, SubmitRejected, SubmitShape } from './submit-types.js';
import { SUBMIT_PAYLOAD_INVALID } from './submit-types.js';
export { SUBMIT_PAYLOAD_INVALID } from './submit-types.js';

export type {
  BookingCustomer,
  CaseKeys,
  EventMapping,
  ManualReview,
  MappingDiagnostics,
  ResultType,
  SourceMessage,
  SubmitAdapted,
  SubmitCommon,
  SubmitRejected,
  SubmitShape,
  Transition,
  TransitionBooking,
} from './submit-types.js';

const COMPATIBILITY_FIELDS = ['hotel_id', 'source_provider', 'source_channel'];
const V2_FIELDS = ['source_message_id', 'ai_task_results'];
const ROUTE_FIELDS = [
  'route_code',
  'handler_type',
  'result_type',
  'current_or_history',
  'agent_assessment',
  'notification',
  'manual_review',
];
const BUSINESS_FIELDS = ['message_events', 'case_candidates', 'unhandled_current_intents'];
const SHAPE_FIELDS: Record<SubmitShape, readonly string[]> = {
  v2_task_results: V2_FIELDS,
  v3_route_notice: ['source_message', ...ROUTE_FIELDS],
  v3_business: ['source_message', ...BUSINESS_FIELDS],
};
const KNOWN_FIELDS = new Set([
  ...COMPATIBILITY_FIELDS,
  'extraction_warnings',
  ...Object.values(SHAPE_FIELDS).flat(),
]);

function shapeOf(root: JsonObject): SubmitShape {
  if (has(root, 'ai_task_results') || has(root, 'source_message_id')) return 'v2_task_results';
  if (has(root, 'route_code')) return 'v3_route_notice';
  return 'v3_business';
}

/** Why `key`, a known field, does not belong in `root`, a payload of `shape`. */
function mixedReason(root: JsonObject, key: string, shape: SubmitShape): string {
  const owner = V2_FIELDS.includes(key)
    ? 'the V2 task results'
    : ROUTE_FIELDS.includes(key)
      ? 'the V3 route notice'
      : BUSINESS_FIELDS.includes(key)
        ? 'the V3 business root'
        : 'the V3 shapes';
  const because =
    shape === 'v2_task_results'
      ? `${has(root, 'ai_task_results') ? 'ai_task_results' : 'source_message_id'} makes this a V2 task-results payload`
      : shape === 'v3_route_notice'
        ? 'route_code makes this a V3 route notice'
        : 'without route_code this is a V3 business root';
  return `mixed shapes: ${because}, but ${key} belongs to ${owner}`;
}

function adaptBusinessRoot(root: JsonObject, common: SubmitCommon): SubmitAdapted {
  const { id, message } = sourceMessageOf(root);
  const events = asArray(required(root, 'message_events', ''), 'message_events');
  const caseCandidates = objectArray(root, 'case_candidates', '');
  const unhandledCurrentIntents = objectArray(root, 'unhandled_current_intents', '');
  const { transitions, mappings } = mapMessageEvents(events);
  return {
    ok: true,
    shape: 'v3_business',
    sourceMessageId: id,
    sourceMessage: message,
    transitions,
    ...common,
    caseCandidates,
    unhandledCurrentIntents,
    diagnostics: { events: mappings, droppedCompatibilityFields: [...common.droppedCompatibilityFields] },
  };
}

function adapt(payload: unknown): SubmitAdapted {
  const root = asObject(snapshot(payload), '');
  onlyKeys(root, KNOWN_FIELDS, '');
  const dropped = COMPATIBILITY_FIELDS.filter((key) => has(root, key));
  for (const key of dropped) optString(root, key, '');
  const shape = shapeOf(root);
  const allowed = new Set([...COMPATIBILITY_FIELDS, 'extraction_warnings', ...SHAPE_FIELDS[shape]]);
  for (const key of Object.keys(root)) if (!allowed.has(key)) reject(key, mixedReason(root, key, shape));
  const common: SubmitCommon = {
    extractionWarnings: objectArray(root, 'extraction_warnings', '', []),
    droppedCompatibilityFields: dropped,
  };
  switch (shape) {
    case 'v3_business':
      return adaptBusinessRoot(root, common);
    case 'v3_route_notice':
      return adaptRouteNotice(root, common);
    case 'v2_task_results':
      return adaptTaskResults(root, common);
  }
}

function rejected(field: string, reason: string): SubmitRejected {
  return {
    ok: false,
    code: SUBMIT_PAYLOAD_INVALID,
    message: `${field}: ${reason}`,
    details: { field, reason },
  };
}

/**
 * Checks an agent's submit payload and maps it for the business layer, or says which field
 * refuses it. Never throws: accessors are refused without being called, nesting is bounded, so
 * only an input that is not data (a Proxy whose traps throw) could raise inside, and that is
 * refused as unreadable.
 */
export function adaptSubmitPayload(payload: unknown): SubmitAdapted | SubmitRejected {
  try {
    return adapt(payload);
  } catch (error) {
    if (error instanceof PayloadRejection) return rejected(error.field, error.reason);
    return rejected('$', 'the payload could not be read as JSON data');
  }
}
