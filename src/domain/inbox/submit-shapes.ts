/**
 * The submit payload's V3 source_message, V3 route notice (S10/S99) and V2 task results; the V3
 * business root's events are in submit-events.ts.
 *
 * Route notice: `route_code`, `handler_type`, `result_type` and `current_or_history` (each a
 * string or null), `agent_assessment` and `notification` (objects) and `manual_review` (object
 * or null) are all required. The notice is one transition, source_event_index 1: S10 an
 * informational_message task, S99 a manual_review task. Its manual_review is free-form, but a
 * `reason` must be a string and `questions` strings. A route_code other than S10/S99, an S99
 * without manual_review.reason, or a result_type that disagrees with the route code make the
 * transition an adapter_contract_error.
 *
 * V2 task results: each `ai_task_results[]` item has exactly `source_event_index` (an integer of
 * at least 1, or a string of digits), `catalog_code`, `skill_id`, `task_type` (strings) and
 * `result_type`; indices are unique. Items keep array order; they are not sorted by index.
 */
import { noCaseKeys, optResultType, resultTypeOf } from './submit-events.js';
import type { SourceMessage, SubmitAdapted, SubmitCommon, Transition } from './submit-types.js';
import type { Json, JsonObject } from './submit-read.js';
import {
  asObject,
  childPath,
  field,
  filled,
  itemPath,
  objectArray,
  objectOf,
  onlyKeys,
  optObject,
  optString,
  optStringArray,
  quote,
  reject,
  reqNullableString,
  reqString,
  required,
  typeName,
} from './submit-read.js';

/** The published schema's required fields of source_message, beside its id. */
const REQUIRED_SOURCE_FIELDS = ['subject', 'from', 'cc', 'received_at', 'source_channel'];
const SOURCE_MESSAGE_FIELDS = new Set([
  'source_message_id',
  'subject',
  'from',
  'cc',
  'received_at',
  'source_channel',
]);
const TASK_RESULT_FIELDS = new Set([
  'source_event_index',
  'catalog_code',
  'skill_id',
  'result_type',
  'task_type',
]);
/** Route notice fields that form its stored payload (the rest is source message and warnings). */
const ROUTE_PAYLOAD_FIELDS = new Set([
  'route_code',
  'handler_type',
  'result_type',
  'current_or_history',
  'agent_assessment',
  'notification',
  'manual_review',
]);
const ROUTE_RESULT_TYPES = { S10: 'informational_message', S99: 'manual_review' } as const;

/** The V3 source_message; null id when missing, null or empty, for the business layer to answer. */
export function sourceMessageOf(root: JsonObject): { id: string | null; message: SourceMessage | null } {
  const path = 'source_message';
  const object = optObject(root, path, '');
  if (object === null) return { id: null, message: null };
  onlyKeys(object, SOURCE_MESSAGE_FIELDS, path);
  const id = optString(object, 'source_message_id', path);
  // Without its id the business layer answers MISSING_SOURCE_MESSAGE_ID; with it, the schema's
  // other required fields must be there (null where their type allows).
  if (id !== null && id !== '') for (const key of REQUIRED_SOURCE_FIELDS) required(object, key, path);
  const channel = optString(object, 'source_channel', path);
  if (channel !== null && channel !== 'Email')
    reject(childPath(path, 'source_channel'), `must be "Email"; got ${quote(channel)}`);
  return {
    id: id === '' ? null : id,
    message: {
      subject: optString(object, 'subject', path),
      from: optString(object, 'from', path),
      cc: optStringArray(object, 'cc', path) ?? [],
      receivedAt: optString(object, 'received_at', path),
      channel,
    },
  };
}

/** A transition with nothing but its index. */
function bareTransition(sourceEventIndex: number, payload: Record<string, unknown>): Transition {
  return {
    sourceEventIndex,
    kind: 'task',
    problem: null,
    resultType: 'normal_task',
    eventType: null,
    taskType: null,
    catalogCode: null,
    skillId: null,
    summary: null,
    caseKeys: noCaseKeys(),
    targetObjectId: null,
    booking: null,
    relatedSourceEventIndex: null,
    parentSourceEventIndex: null,
    relatedSourceEventIndices: [],
    manualReview: null,
    agentEventId: null,
    payload,
  };
}

export function adaptRouteNotice(root: JsonObject, common: SubmitCommon): SubmitAdapted {
  const { id, message } = sourceMessageOf(root);
  const routeCode = reqNullableString(root, 'route_code', '');
  reqNullableString(root, 'handler_type', '');
  required(root, 'result_type', '');
  const declared = optResultType(root, 'result_type', '');
  reqNullableString(root, 'current_or_history', '');
  asObject(required(root, 'agent_assessment', ''), 'agent_assessment');
  asObject(required(root, 'notification', ''), 'notification');
  required(root, 'manual_review', '');
  const review = optObject(root, 'manual_review', '');
  const manualReview =
    review === null
      ? null
      : {
          reason: optString(review, 'reason', 'manual_review'),
          questions: optStringArray(review, 'questions', 'manual_review') ?? [],
        };

  const expected = routeCode === 'S10' || routeCode === 'S99' ? ROUTE_RESULT_TYPES[routeCode] : null;
  const problems: string[] = [];
  if (expected === null)
    problems.push(
      routeCode === null
        ? 'route_code is null; a route notice is S10 or S99'
        : `unsupported route_code ${quote(routeCode)} (supported: S10, S99)`,
    );
  if (expected !== null && declared !== null && declared !== expected)
    problems.push(`result_type ${declared} does not match route_code ${routeCode}, which is ${expected}`);
  if (routeCode === 'S99' && !filled(manualReview?.reason ?? null))
    problems.push('incomplete manual_review: route_code S99 needs manual_review.reason');

  const entries: (readonly [string, unknown])[] = [['source_event_index', 1]];
  for (const key of Object.keys(root))
    if (ROUTE_PAYLOAD_FIELDS.has(key)) entries.push([key, field(root, key)]);
  const transition: Transition = {
    ...bareTransition(1, objectOf(entries)),
    kind: problems.length === 0 ? 'task' : 'adapter_contract_error',
    problem: problems.length === 0 ? null : problems.join('; '),
    resultType: expected ?? declared ?? 'manual_review',
    manualReview,
  };
  return {
    ok: true,
    shape: 'v3_route_notice',
    sourceMessageId: id,
    sourceMessage: message,
    transitions: [transition],
    ...common,
    caseCandidates: [],
    unhandledCurrentIntents: [],
    diagnostics: null,
  };
}

/** A V2 source_event_index: an integer of at least 1, or a string of digits naming one. */
function sourceEventIndexOf(value: Json, path: string): number {
  let index: number;
  if (typeof value === 'number') index = value;
  else if (typeof value === 'string' && /^[0-9]+$/.test(value)) index = Number(value);
  else if (typeof value === 'string')
    return reject(path, `must be an integer or a string of digits; got ${quote(value)}`);
  else return reject(path, `expected an integer or a string of digits, got ${typeName(value)}`);
  if (!Number.isInteger(index)) reject(path, `must be a whole number; got ${index}`);
  if (index < 1) reject(path, `must be at least 1; got ${JSON.stringify(value)}`);
  if (!Number.isSafeInteger(index)) reject(path, `is too large; got ${JSON.stringify(value)}`);
  return index;
}

export function adaptTaskResults(root: JsonObject, common: SubmitCommon): SubmitAdapted {
  const id = optString(root, 'source_message_id', '');
  const items = objectArray(root, 'ai_task_results', '');
  const seen = new Map<number, number>();
  const transitions = items.map((item, position): Transition => {
    const path = itemPath('ai_task_results', position);
    onlyKeys(item, TASK_RESULT_FIELDS, path);
    const indexPath = childPath(path, 'source_event_index');
    const index = sourceEventIndexOf(required(item, 'source_event_index', path), indexPath);
    const earlier = seen.get(index);
    if (earlier !== undefined)
      reject(indexPath, `duplicate index ${index} (also ai_task_results[${earlier}])`);
    seen.set(index, position);
    const catalogCode = reqString(item, 'catalog_code', path);
    const skillId = reqString(item, 'skill_id', path);
    const resultType = resultTypeOf(reqString(item, 'result_type', path), childPath(path, 'result_type'));
    const taskType = reqString(item, 'task_type', path);
    const payload = objectOf(
      Object.keys(item).map((key) => [key, key === 'source_event_index' ? index : field(item, key)] as const),
    );
    return { ...bareTransition(index, payload), resultType, taskType, catalogCode, skillId };
  });
  return {
    ok: true,
    shape: 'v2_task_results',
    sourceMessageId: id === '' ? null : id,
    sourceMessage: null,
    transitions,
    ...common,
    caseCandidates: [],
    unhandledCurrentIntents: [],
    diagnostics: null,
  };
}
