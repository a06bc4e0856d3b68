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
