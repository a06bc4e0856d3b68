/**
 * V3 `message_events[]`: what one item is, and how the agent's event ids become Holdfast's
 * one-based `source_event_index`. The contract only says items are objects; this is Holdfast's
 * definition of one (every field may appear at most once; any other field is refused):
 *
 *   event_id            string, required, non-empty: the agent's own id (E1, E_CHILD_1, E_PARENT);
 *                       unique in the payload
 *   event_type          string, required: reservation.create | reservation.update |
 *                       reservation.cancel | group.block | information (others: a business problem)
 *   catalog_code, skill_id, task_type        string | null
 *   result_type         normal_task | manual_review | informational_message | null
 *                       (missing or null: normal_task)
 *   summary             string of at most 2,000 characters | null
 *   case_keys           { group_code?, confirmation_number?, reservation_no?: string | null } | null
 *   target_object_id    string | null, an object the event acts on, like ORDER:bk_…
 *   booking             { calendar_id?, start?, end?: string | null,
 *                         customer?: { name?, email?, phone?, notes?: string | null } | null,
 *                         label?, confirmation_number?, group_code?, reservation_no?: string | null }
 *                       | null
 *   manual_review       { reason?: string | null, questions?: string[] | null } | null
 *   related_event_id, parent_event_id        string | null: the event_id of another event here
 *   related_event_ids   string[] | null: event_ids of other events here, no repeats
 *   evidence, current_or_history             string | null
 *
 * Transport rules refuse the whole payload: an unknown field, a wrong JSON type, a missing or
 * empty event_id, a repeated event_id, a relation naming no event here or the event itself, a
 * repeat inside related_event_ids. Business rules refuse nothing: the event becomes an
 * `adapter_contract_error` transition saying what is wrong (an unsupported event_type; an update
 * or cancel without a case key or target_object_id; a create without booking.calendar_id, start
 * and end; a manual_review result without manual_review.reason). Events keep array order: the
 * event at position i (zero-based) is source_event_index i + 1.
 */
import type {
  CaseKeys,
  EventMapping,
  ManualReview,
  ResultType,
  Transition,
  TransitionBooking,
} from './submit-types.js';
import type { Json, JsonObject } from './submit-read.js';
import {
  asObject,
  childPath,
  field,
  filled,
  itemPath,
  objectOf,
  onlyKeys,
  optObject,
  optString,
  optStringArray,
  quote,
  reject,
  reqString,
} from './submit-read.js';

export const SUPPORTED_EVENT_TYPES: readonly string[] = [
  'reservation.create',
  'reservation.update',
  'reservation.cancel',
  'group.block',
  'information',
];
export const RESULT_TYPES: readonly ResultType[] = ['normal_task', 'manual_review', 'informational_message'];

const EVENT_FIELDS = new Set([
  'event_id',
  'event_type',
  'catalog_code',
  'skill_id',
  'task_type',
  'result_type',
  'summary',
  'case_keys',
  'target_object_id',
  'booking',
  'manual_review',
  'related_event_id',
  'parent_event_id',
  'related_event_ids',
  'evidence',
  'current_or_history',
]);
const CASE_KEY_FIELDS = new Set(['group_code', 'confirmation_number', 'reservation_no']);
const BOOKING_FIELDS = new Set(['calendar_id', 'start', 'end', 'customer', 'label', ...CASE_KEY_FIELDS]);
const CUSTOMER_FIELDS = new Set(['name', 'email', 'phone', 'notes']);
const MANUAL_REVIEW_FIELDS = new Set(['reason', 'questions']);

/** `value` as a result type, or a rejection at `path`. */
export function resultTypeOf(value: string, path: string): ResultType {
  const known = RESULT_TYPES.find((type) => type === value);
  return known ?? reject(path, `must be one of ${RESULT_TYPES.join(', ')}; got ${quote(value)}`);
}

/** An optional result_type field: one of the three, or null when missing or null. */
export function optResultType(object: JsonObject, key: string, path: string): ResultType | null {
  const value = optString(object, key, path);
  return value === null ? null : resultTypeOf(value, childPath(path, key));
}

export const noCaseKeys = (): CaseKeys => ({
  groupCode: null,
  confirmationNumber: null,
  reservationNo: null,
});

function caseKeysOf(object: JsonObject | null, path: string): CaseKeys {
  if (object === null) return noCaseKeys();
  onlyKeys(object, CASE_KEY_FIELDS, path);
  return {
    groupCode: optString(object, 'group_code', path),
    confirmationNumber: optString(object, 'confirmation_number', path),
    reservationNo: optString(object, 'reservation_no', path),
  };
}

function bookingOf(object: JsonObject | null, path: string): TransitionBooking | null {
  if (object === null) return null;
  onlyKeys(object, BOOKING_FIELDS, path);
  const customerPath = childPath(path, 'customer');
  const customer = optObject(object, 'customer', path);
  if (customer !== null) onlyKeys(customer, CUSTOMER_FIELDS, customerPath);
  return {
    calendarId: optString(object, 'calendar_id', path),
    start: optString(object, 'start', path),
    end: optString(object, 'end', path),
    customer:
      customer === null
        ? null
        : {
            name: optString(customer, 'name', customerPath),
            email: optString(customer, 'email', customerPath),
            phone: optString(customer, 'phone', customerPath),
            notes: optString(customer, 'notes', customerPath),
          },
    label: optString(object, 'label', path),
    groupCode: optString(object, 'group_code', path),
    confirmationNumber: optString(object, 'confirmation_number', path),
    reservationNo: optString(object, 'reservation_no', path),
  };
}

function manualReviewOf(object: JsonObject | null, path: string): ManualReview | null {
  if (object === null) return null;
  onlyKeys(object, MANUAL_REVIEW_FIELDS, path);
  return {
    reason: optString(object, 'reason', path),
    questions: optStringArray(object, 'questions', path) ?? [],
  };
}

interface ParsedEvent {
  readonly raw: JsonObject;
  readonly path: string;
  readonly eventId: string;
  readonly eventType: string;
  readonly resultType: ResultType;
  readonly catalogCode: string | null;
  readonly skillId: string | null;
  readonly taskType: string | null;
  readonly summary: string | null;
  readonly caseKeys: CaseKeys;
  readonly targetObjectId: string | null;
  readonly booking: TransitionBooking | null;
  readonly manualReview: ManualReview | null;
  readonly relatedEventId: string | null;
  readonly parentEventId: string | null;
  readonly relatedEventIds: readonly string[] | null;
}

/** One item's transport checks; `seen` maps each event_id read so far to its position. */
function parseEvent(value: Json, position: number, seen: Map<string, number>): ParsedEvent {
  const path = itemPath('message_events', position);
  const raw = asObject(value, path);
  onlyKeys(raw, EVENT_FIELDS, path);
  const eventId = reqString(raw, 'event_id', path);
  if (eventId === '') reject(childPath(path, 'event_id'), 'must not be empty');
  if (seen.has(eventId)) reject(childPath(path, 'event_id'), `duplicate id ${quote(eventId)}`);
  seen.set(eventId, position);
  const summary = optString(raw, 'summary', path);
  // Checked for type only: they reach the business layer in the payload, as given.
  for (const key of ['evidence', 'current_or_history']) optString(raw, key, path);
  return {
    raw,
    path,
    eventId,
    eventType: reqString(raw, 'event_type', path),
    resultType: optResultType(raw, 'result_type', path) ?? 'normal_task',
    catalogCode: optString(raw, 'catalog_code', path),
    skillId: optString(raw, 'skill_id', path),
    taskType: optString(raw, 'task_type', path),
    summary,
    caseKeys: caseKeysOf(optObject(raw, 'case_keys', path), childPath(path, 'case_keys')),
    targetObjectId: optString(raw, 'target_object_id', path),
    booking: bookingOf(optObject(raw, 'booking', path), childPath(path, 'booking')),
    manualReview: manualReviewOf(optObject(raw, 'manual_review', path), childPath(path, 'manual_review')),
    relatedEventId: optString(raw, 'related_event_id', path),
    parentEventId: optString(raw, 'parent_event_id', path),
    relatedEventIds: optStringArray(raw, 'related_event_ids', path),
  };
}

/** What is wrong with an event as business, or nothing. */
function problemsOf(event: ParsedEvent): string[] {
  const problems: string[] = [];
  const type = event.eventType;
  if (!SUPPORTED_EVENT_TYPES.includes(type))
    problems.push(`unsupported event_type ${quote(type)} (supported: ${SUPPORTED_EVENT_TYPES.join(', ')})`);
  const { groupCode, confirmationNumber, reservationNo } = event.caseKeys;
  const identified = [groupCode, confirmationNumber, reservationNo, event.targetObjectId].some(filled);
  if ((type === 'reservation.update' || type === 'reservation.cancel') && !identified)
    problems.push(
      `incomplete case_keys: ${type} needs case_keys.confirmation_number, case_keys.reservation_no, case_keys.group_code or target_object_id`,
    );
  const booking = event.booking;
  if (
    type === 'reservation.create' &&
    !(booking !== null && filled(booking.calendarId) && filled(booking.start) && filled(booking.end))
  )
    problems.push(
      'incomplete booking: reservation.create needs booking.calendar_id, booking.start and booking.end',
    );
  if (event.resultType === 'manual_review' && !filled(event.manualReview?.reason ?? null))
    problems.push('incomplete manual_review: result_type manual_review needs manual_review.reason');
  return problems;
}

/** The index of the event `id` names, refusing the event itself and ids not in the payload. */
function indexOf(id: string, at: string, self: string, indices: ReadonlyMap<string, number>): number {
  if (id === self) reject(at, `refers to the event itself (${quote(id)})`);
  const index = indices.get(id);
  return index ?? reject(at, `names no event in this payload: ${quote(id)}`);
}

/** Checks and maps `message_events[]`: transitions in array order, and each agent id's index. */
export function mapMessageEvents(items: readonly Json[]): {
  transitions: Transition[];
  mappings: EventMapping[];
} {
  const seen = new Map<string, number>();
  const events = items.map((item, position) => parseEvent(item, position, seen));
  const indices = new Map([...seen].map(([id, position]) => [id, position + 1]));
  const transitions = events.map((event, position): Transition => {
    const at = (key: string) => childPath(event.path, key);
    const related = event.relatedEventId;
    const parent = event.parentEventId;
    const relatedIndex =
      related === null ? null : indexOf(related, at('related_event_id'), event.eventId, indices);
    const parentIndex =
      parent === null ? null : indexOf(parent, at('parent_event_id'), event.eventId, indices);
    const listed = new Set<string>();
    const relatedIndices = (event.relatedEventIds ?? []).map((id, i) => {
      const itemAt = itemPath(at('related_event_ids'), i);
      if (listed.has(id)) reject(itemAt, `duplicate id ${quote(id)}`);
      listed.add(id);
      return indexOf(id, itemAt, event.eventId, indices);
    });
    const problems = problemsOf(event);
    const sourceEventIndex = position + 1;
    // The event as the business layer stores it: agent ids become indices, in place.
    const renamed = new Map<string, readonly [string, unknown]>([
      ['related_event_id', ['related_source_event_index', relatedIndex]],
      ['parent_event_id', ['parent_source_event_index', parentIndex]],
      [
        'related_event_ids',
        ['related_source_event_indices', event.relatedEventIds === null ? null : [...relatedIndices]],
      ],
    ]);
    const entries: (readonly [string, unknown])[] = [['source_event_index', sourceEventIndex]];
    for (const key of Object.keys(event.raw))
      if (key !== 'event_id') entries.push(renamed.get(key) ?? [key, field(event.raw, key)]);
    const payload = objectOf(entries);
    return {
      sourceEventIndex,
      kind: problems.length === 0 ? 'task' : 'adapter_contract_error',
      problem: problems.length === 0 ? null : problems.join('; '),
      resultType: event.resultType,
      eventType: event.eventType,
      taskType: event.taskType,
      catalogCode: event.catalogCode,
      skillId: event.skillId,
      summary: event.summary,
      caseKeys: event.caseKeys,
      targetObjectId: event.targetObjectId,
      booking: event.booking,
      relatedSourceEventIndex: relatedIndex,
      parentSourceEventIndex: parentIndex,
      relatedSourceEventIndices: relatedIndices,
      manualReview: event.manualReview,
      agentEventId: event.eventId,
      payload,
    };
  });
  const mappings = events.map((event, position) => ({
    event_id: event.eventId,
    source_event_index: position + 1,
  }));
  return { transitions, mappings };
}
