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
 * MISSING_SOURCE_MESSAGE_ID. The other `source_message` fields may be missing (null, cc empty);
 * when present they must have their JSON types.
 *
 * Bounds: at most 200 items in any array (so 200 events, 200 task results), 200 fields in any
 * object, 10,000 characters in any string, 32 levels of nesting. The function never throws.
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

export type SubmitShape = 'v3_business' | 'v3_route_notice' | 'v2_task_results';
export type ResultType = 'normal_task' | 'manual_review' | 'informational_message';

export interface SourceMessage {
  readonly subject: string | null;
  readonly from: string | null;
  readonly cc: string[];
  readonly receivedAt: string | null;
  readonly channel: 'Email' | null;
}

export interface CaseKeys {
  readonly groupCode: string | null;
  readonly confirmationNumber: string | null;
  readonly reservationNo: string | null;
}

export interface BookingCustomer {
  readonly name: string | null;
  readonly email: string | null;
  readonly phone: string | null;
  readonly notes: string | null;
}

/** A booking as the agent gave it; a reservation.create missing a calendar or time is a business problem. */
export interface TransitionBooking extends CaseKeys {
  readonly calendarId: string | null;
  readonly start: string | null;
  readonly end: string | null;
  readonly customer: BookingCustomer | null;
  readonly label: string | null;
}

export interface ManualReview {
  readonly reason: string | null;
  readonly questions: string[];
}

/** One result for the business layer: a task, or an event it must keep as a contract error. */
export interface Transition {
  readonly sourceEventIndex: number;
  readonly kind: 'task' | 'adapter_contract_error';
  /** What is wrong, for an adapter_contract_error; problems joined with "; ". */
  readonly problem: string | null;
  readonly resultType: ResultType;
  readonly eventType: string | null;
  readonly taskType: string | null;
  readonly catalogCode: string | null;
  readonly skillId: string | null;
  readonly summary: string | null;
  readonly caseKeys: CaseKeys;
  readonly targetObjectId: string | null;
  readonly booking: TransitionBooking | null;
  readonly relatedSourceEventIndex: number | null;
  readonly parentSourceEventIndex: number | null;
  readonly relatedSourceEventIndices: number[];
  readonly manualReview: ManualReview | null;
  /** The agent's own event id (V3 business root only); never part of `payload`. */
  readonly agentEventId: string | null;
  /** The event as the business layer stores it: the agent's fields, event ids replaced by indices. */
  readonly payload: Record<string, unknown>;
}

export interface EventMapping {
  readonly event_id: string;
  readonly source_event_index: number;
}

/** How agent event ids became indices, for the tool's answer only: never stored as business data. */
export interface MappingDiagnostics {
  /** In message_events order. */
  readonly events: EventMapping[];
  readonly droppedCompatibilityFields: string[];
}

export interface SubmitAdapted {
  readonly ok: true;
  readonly shape: SubmitShape;
  /** Null when missing or empty: the business layer answers MISSING_SOURCE_MESSAGE_ID. */
  readonly sourceMessageId: string | null;
  readonly sourceMessage: SourceMessage | null;
  /** In the payload's array order, never sorted. */
  readonly transitions: Transition[];
  readonly extractionWarnings: readonly unknown[];
  /** V3 business root's case_candidates and unhandled_current_intents; empty for the other shapes. */
  readonly caseCandidates: readonly unknown[];
  readonly unhandledCurrentIntents: readonly unknown[];
  /** The compatibility fields the payload carried (on every shape), dropped from everything else. */
  readonly droppedCompatibilityFields: string[];
  /** Only for the V3 business root. */
  readonly diagnostics: MappingDiagnostics | null;
}

export const SUBMIT_PAYLOAD_INVALID = 'MCP_SUBMIT_PAYLOAD_INVALID';

export interface SubmitRejected {
  readonly ok: false;
  readonly code: typeof SUBMIT_PAYLOAD_INVALID;
  /** `field: reason`, in plain English. */
  readonly message: string;
  readonly details: { readonly field: string; readonly reason: string };
}

/** What every shape shares once the root is read. */
export interface SubmitCommon {
  readonly extractionWarnings: readonly unknown[];
  readonly droppedCompatibilityFields: string[];
}

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
