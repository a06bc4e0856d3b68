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
  /** The tenant's message with exactly this provider, channel and external id; null when there is none. */
  messageByExternal(
    tenantId: string,
    provider: string,
    channel: string,
    externalId: string,
  ): Promise<InboxMessage | null>;
  /** Every message with that external id in the tenant, any provider or channel (at most `limit`). */
  messagesWithExternalId(tenantId: string, externalId: string, limit: number): Promise<InboxMessage[]>;
  /** The tenant's message with this id; null when there is none in the tenant. */
  message(tenantId: string, id: string): Promise<InboxMessage | null>;
  /** The earliest-received message carrying one of these RFC Message-IDs: threading by headers. */
  messageByRfcIds(tenantId: string, rfcIds: readonly string[]): Promise<InboxMessage | null>;
  /** A conversation's messages by received time, then id. */
  messagesOf(tenantId: string, conversationId: string): Promise<InboxMessage[]>;

  /**
   * Adds a conversation; false when the tenant has one with that provider, channel and external id already.
   */
  insertConversation(conversation: Conversation): Promise<boolean>;
  /**
   * The tenant's conversations with that external id (narrowed by provider and channel when given), oldest
   * first: at most two, enough to tell an ambiguous key.
   */
  conversationByKey(tenantId: string, key: ConversationKey): Promise<Conversation[]>;
  /** The tenant's conversation with this id; null when there is none in the tenant. */
  conversation(tenantId: string, id: string): Promise<Conversation | null>;
  /** Moves the conversation's last-received time forward (never back). */
  touchConversation(tenantId: string, id: string, receivedAt: Instant): Promise<void>;
  /** Newest first, with how many of their tasks wait for a person. */
  recentConversations(
    tenantId: string,
    limit: number,
  ): Promise<{ conversation: Conversation; openTasks: number; messages: number }[]>;

  /** Records who read which message bodies, through what and when (one statement; nothing for none). */
  recordBodyReads(reads: readonly BodyRead[]): Promise<void>;
  /** Every recorded read of a message's body, in the order they happened. */
  bodyReadsOf(tenantId: string, messageId: string): Promise<BodyRead[]>;

  /** False when the message already has a batch (a concurrent submission won). */
  insertBatch(batch: SubmitBatch): Promise<boolean>;
  /** The batch submitted for a message; null when none was. */
  batchOf(tenantId: string, messageId: string): Promise<SubmitBatch | null>;
  /** The tasks (and contract-error transitions) of a batch, by id. */
  tasksOfBatch(tenantId: string, batchId: string): Promise<InboxTask[]>;
  /**
   * Replaces the message's batch `earlier`, whose tasks nobody decided, with `next`: the earlier
   * tasks are removed and the batch row becomes `next`. False when `earlier` is not there any more.
   */
  supersedeBatch(earlier: SubmitBatch, next: SubmitBatch): Promise<boolean>;

  /** Adds the tasks; the case keys in each one's `detail.case_keys` are kept for tasksAbout to find. */
  insertTasks(tasks: readonly InboxTask[]): Promise<void>;
  /** The tenant's task with this id; null when there is none in the tenant. */
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

  /** Stores a new ingest token under `digest`, the digest of its secret. */
  insertIngestToken(token: IngestToken, digest: string): Promise<void>;
  /** The live token with this digest, and marks it used. */
  useIngestToken(digest: string, now: Instant): Promise<IngestToken | null>;
  /** Marks an ingest token revoked; false when there is no such unrevoked token in the tenant. */
  revokeIngestToken(tenantId: string, id: string, now: Instant): Promise<boolean>;
  /** The tenant's ingest tokens, expired and revoked ones included, oldest first. */
  ingestTokens(tenantId: string): Promise<IngestToken[]>;
}
