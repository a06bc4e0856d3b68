import type { Instant } from '../time/instant.js';

/**
 * The reservation inbox: email (or any source message) about bookings, threaded into
 * conversations, and the tasks an operations agent's results become for people to confirm.
 */

/** One source message as stored. Its raw bytes are kept apart and never read back. */
export interface InboxMessage {
  readonly id: string;
  readonly tenantId: string;
  /** Who delivered it (AGENTBUS, EML import …) and how (EMAIL, OUTLOOK …). */
  readonly provider: string;
  readonly channel: string;
  /** The provider's id of the message: what agents submit results for. Never the internal id. */
  readonly externalId: string;
  readonly conversationId: string;
  /** RFC 5322 threading headers, as sent. */
  readonly rfcMessageId: string | null;
  readonly inReplyTo: string | null;
  readonly references: readonly string[];
  readonly subject: string | null;
  readonly from: string | null;
  readonly cc: readonly string[];
  readonly receivedAt: Instant;
  readonly textBody: string;
  /** Sanitized at ingestion: no script, no handler, no external reference. */
  readonly htmlSanitized: string | null;
  readonly createdAt: Instant;
}

export interface Conversation {
  readonly id: string;
  readonly tenantId: string;
  readonly provider: string;
  readonly channel: string;
  /** The provider's conversation id, else the Message-ID of the thread's first message. */
  readonly externalId: string;
  readonly subject: string | null;
  readonly createdAt: Instant;
  readonly lastReceivedAt: Instant;
}

/** Who read a message body, through what, when: kept for every read. */
export interface BodyRead {
  readonly id: string;
  readonly tenantId: string;
  readonly messageId: string;
  /** `person:<id>` or `connection:<id>` — never a display name that could change. */
  readonly reader: string;
  /** The tool or page that showed it. */
  readonly via: string;
  readonly readAt: Instant;
}

export const TASK_STATUSES = [
  'PENDING_CONFIRMATION',
  /** A person's confirm or complete is under way: nobody else may decide it meanwhile. */
  'CONFIRMING',
  'AWAITING_APPROVAL',
  'CONFIRMED',
  'REJECTED',
  'CONTRACT_ERROR',
] as const;
export type TaskStatus = (typeof TASK_STATUSES)[number];

export type ResultType = 'normal_task' | 'manual_review' | 'informational_message';

/**
 * One transition of a submitted batch. A transport-valid result the business rules could not
 * take (unsupported event, incomplete keys) is kept as an `adapter_contract_error` transition
 * for people to see, not turned into a task.
 */
export interface InboxTask {
  readonly id: string;
  readonly tenantId: string;
  readonly batchId: string;
  readonly messageId: string;
  readonly conversationId: string;
  readonly transitionId: string;
  readonly kind: 'task' | 'adapter_contract_error';
  readonly sourceEventIndex: number;
  readonly resultType: ResultType;
  readonly eventType: string | null;
  readonly taskType: string | null;
  readonly status: TaskStatus;
  /** The booking it is about or made: `ORDER:<booking id>`. */
  readonly objectId: string | null;
  readonly approvalId: string | null;
  /** The transition as the agent submitted it, ids mapped to indices. */
  readonly detail: Readonly<Record<string, unknown>>;
  readonly decidedBy: string | null;
  readonly decidedAt: Instant | null;
  readonly note: string | null;
  readonly version: number;
  readonly createdAt: Instant;
}

/** One submission for one source message: replays return it unchanged. */
export interface SubmitBatch {
  readonly id: string;
  readonly tenantId: string;
  readonly messageId: string;
  readonly shape: string;
  /** The answer given when it was accepted (items, mapping diagnostics). */
  readonly result: Readonly<Record<string, unknown>>;
  /** Digest of the submitted transitions: the same content replays, other content may supersede. Null: stored before it was kept. */
  readonly contentDigest: string | null;
  readonly submittedBy: string;
  readonly createdAt: Instant;
}

/** A credential that may only ingest messages into one tenant's inbox. */
export interface IngestToken {
  readonly id: string;
  readonly tenantId: string;
  readonly name: string;
  readonly createdAt: Instant;
  readonly expiresAt: Instant | null;
  readonly revokedAt: Instant | null;
  readonly lastUsedAt: Instant | null;
}

/** What a task decision may move to, from where. */
const next: Readonly<Record<TaskStatus, readonly TaskStatus[]>> = {
  PENDING_CONFIRMATION: ['CONFIRMING', 'REJECTED'],
  // Forward when the work is done, back where it came from when it failed; rejected only once stale.
  CONFIRMING: ['AWAITING_APPROVAL', 'CONFIRMED', 'PENDING_CONFIRMATION', 'REJECTED'],
  AWAITING_APPROVAL: ['CONFIRMING', 'REJECTED'],
  CONFIRMED: [],
  REJECTED: [],
  CONTRACT_ERROR: ['REJECTED'],
};

export function mayMove(from: TaskStatus, to: TaskStatus): boolean {
  return next[from].includes(to);
}

/** Tasks an agent should know are still open on a case. */
export const isOpenTask = (t: InboxTask): boolean =>
  t.status === 'PENDING_CONFIRMATION' || t.status === 'CONFIRMING' || t.status === 'AWAITING_APPROVAL';
