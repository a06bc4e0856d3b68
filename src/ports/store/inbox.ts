import type { KeyKind, KeyRow } from '../../domain/booking/business-keys.js';
import type {
  BodyRead,
  Conversation,
  InboxMessage,
  InboxTask,
  IngestToken,
  SubmitBatch,
  TaskStatus,
} from '../../domain/inbox/inbox.js';
import type { Instant } from '../../domain/time/instant.js';

/** Where a conversation is looked up: provider and channel narrow it when given. */
export interface ConversationKey {
  readonly provider?: string;
  readonly channel?: string;
  readonly externalId: string;
}

export interface TaskSubject {
  readonly objectIds: readonly string[];
  readonly keys: readonly KeyRow[];
}

/** The reservation inbox: messages, conversations, submitted batches, tasks, business keys. */
export interface InboxStore {
  /** False when that provider/channel/external id is already in the tenant (ingestion is idempotent). */
  insertMessage(message: InboxMessage, raw: Uint8Array): Promise<boolean>;
  messageByExternal(
    tenantId: string,
    provider: string,
    channel: string,
    externalId: string,
  ): Promise<InboxMessage | null>;
  /** Every message with that external id in the tenant, any provider or channel (at most `limit`). */
  messagesWithExternalId(tenantId: string, externalId: string, limit: number): Promise<InboxMessage[]>;
  message(tenantId: string, id: string): Promise<InboxMessage | null>;
  /** The earliest-received message carrying one of these RFC Message-IDs: threading by headers. */
  messageByRfcIds(tenantId: string, rfcIds: readonly string[]): Promise<InboxMessage | null>;
  /** A conversation's messages by received time, then id. */
  messagesOf(tenantId: string, conversationId: string): Promise<InboxMessage[]>;

  insertConversation(conversation: Conversation): Promise<boolean>;
  conversationByKey(tenantId: string, key: ConversationKey): Promise<Conversation[]>;
  conversation(tenantId: string, id: string): Promise<Conversation | null>;
  /** Moves the conversation's last-received time forward (never back). */
  touchConversation(tenantId: string, id: string, receivedAt: Instant): Promise<void>;
  /** Newest first, with how many of their tasks wait for a person. */
  recentConversations(
    tenantId: string,
    limit: number,
  ): Promise<{ conversation: Conversation; openTasks: number; messages: number }[]>;

  recordBodyReads(reads: readonly BodyRead[]): Promise<void>;
  bodyReadsOf(tenantId: string, messageId: string): Promise<BodyRead[]>;

  /** False when the message already has a batch (a concurrent submission won). */
  insertBatch(batch: SubmitBatch): Promise<boolean>;
  batchOf(tenantId: string, messageId: string): Promise<SubmitBatch | null>;

  insertTasks(tasks: readonly InboxTask[]): Promise<void>;
  task(tenantId: string, id: string): Promise<InboxTask | null>;
  /** The task waiting for this approval to be decided, if one is (hotel-ops: a confirmed task's hold). */
  taskAwaitingApproval(tenantId: string, approvalId: string): Promise<InboxTask | null>;
  /** Ordered as the contract says: message received time, task created time, task id. */
  tasksOfConversation(tenantId: string, conversationId: string): Promise<InboxTask[]>;
  /** Tasks in these statuses about one of these objects (`ORDER:<id>`) or naming one of these case keys (at most 200). */
  tasksAbout(tenantId: string, about: TaskSubject, statuses: readonly TaskStatus[]): Promise<InboxTask[]>;
  /** False when the task moved since `expectedVersion` (a second person decided first). */
  updateTask(task: InboxTask, expectedVersion: number): Promise<boolean>;
  /** Rows of messages, conversations, batches, tasks and booking keys: what a refused write must leave as it was. */
  rowCounts(tenantId: string): Promise<Record<string, number>>;

  /** Replaces a booking's key rows with these. */
  replaceKeys(tenantId: string, bookingId: string, keys: readonly KeyRow[]): Promise<void>;
  /** Bookings that carry this key (unique kinds: at most one; a group: at most 200). */
  bookingsWithKey(tenantId: string, kind: KeyKind, value: string): Promise<string[]>;

  insertIngestToken(token: IngestToken, digest: string): Promise<void>;
  /** The live token with this digest, and marks it used. */
  useIngestToken(digest: string, now: Instant): Promise<IngestToken | null>;
  revokeIngestToken(tenantId: string, id: string, now: Instant): Promise<boolean>;
  ingestTokens(tenantId: string): Promise<IngestToken[]>;
}
