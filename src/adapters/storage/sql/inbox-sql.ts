import type { KeyKind, KeyRow } from '../../../domain/booking/business-keys.js';
import type {
  BodyRead,
  Conversation,
  InboxMessage,
  InboxTask,
  IngestToken,
  SubmitBatch,
  TaskStatus,
} from '../../../domain/inbox/inbox.js';
import type { Instant } from '../../../domain/time/instant.js';
import type { ConversationKey, InboxStore, TaskSubject } from '../../../ports/store/inbox.js';
import type { SqlRunner } from './sql-runner.js';
import { placeholders } from './sql-runner.js';

type Time = number | string;
const time = (t: Time): Instant => Number(t);
const maybeTime = (t: Time | null): Instant | null => (t === null ? null : Number(t));

interface MessageRow {
  id: string;
  tenant_id: string;
  provider: string;
  channel: string;
  external_id: string;
  conversation_id: string;
  rfc_message_id: string | null;
  in_reply_to: string | null;
  refs: string;
  subject: string | null;
  from_addr: string | null;
  cc: string;
  received_at: Time;
  text_body: string;
  html_sanitized: string | null;
  created_at: Time;
}
const messageOf = (r: MessageRow): InboxMessage => ({
  id: r.id,
  tenantId: r.tenant_id,
  provider: r.provider,
  channel: r.channel,
  externalId: r.external_id,
  conversationId: r.conversation_id,
  rfcMessageId: r.rfc_message_id,
  inReplyTo: r.in_reply_to,
  references: JSON.parse(r.refs) as string[],
  subject: r.subject,
  from: r.from_addr,
  cc: JSON.parse(r.cc) as string[],
  receivedAt: time(r.received_at),
  textBody: r.text_body,
  htmlSanitized: r.html_sanitized,
  createdAt: time(r.created_at),
});

interface ConversationRow {
  id: string;
  tenant_id: string;
  provider: string;
  channel: string;
  external_id: string;
  subject: string | null;
  created_at: Time;
  last_received_at: Time;
}
const conversationOf = (r: ConversationRow): Conversation => ({
  id: r.id,
  tenantId: r.tenant_id,
  provider: r.provider,
  channel: r.channel,
  externalId: r.external_id,
  subject: r.subject,
  createdAt: time(r.created_at),
  lastReceivedAt: time(r.last_received_at),
});

interface TaskRow {
  id: string;
  tenant_id: string;
  batch_id: string;
  message_id: string;
  conversation_id: string;
  transition_id: string;
  kind: InboxTask['kind'];
  source_event_index: number | string;
  result_type: InboxTask['resultType'];
  event_type: string | null;
  task_type: string | null;
  status: TaskStatus;
  object_id: string | null;
  approval_id: string | null;
  detail: string;
  decided_by: string | null;
  decided_at: Time | null;
  note: string | null;
  version: number | string;
  created_at: Time;
}
const taskOf = (r: TaskRow): InboxTask => ({
  id: r.id,
  tenantId: r.tenant_id,
  batchId: r.batch_id,
  messageId: r.message_id,
  conversationId: r.conversation_id,
  transitionId: r.transition_id,
  kind: r.kind,
  sourceEventIndex: Number(r.source_event_index),
  resultType: r.result_type,
  eventType: r.event_type,
  taskType: r.task_type,
  status: r.status,
  objectId: r.object_id,
  approvalId: r.approval_id,
  detail: JSON.parse(r.detail) as Record<string, unknown>,
  decidedBy: r.decided_by,
  decidedAt: maybeTime(r.decided_at),
  note: r.note,
  version: Number(r.version),
  createdAt: time(r.created_at),
});

interface TokenRow {
  id: string;
  tenant_id: string;
  name: string;
  created_at: Time;
  expires_at: Time | null;
  revoked_at: Time | null;
  last_used_at: Time | null;
}
const tokenOf = (r: TokenRow): IngestToken => ({
  id: r.id,
  tenantId: r.tenant_id,
  name: r.name,
  createdAt: time(r.created_at),
  expiresAt: maybeTime(r.expires_at),
  revokedAt: maybeTime(r.revoked_at),
  lastUsedAt: maybeTime(r.last_used_at),
});

/** The tables a refused submission must leave as they were. */
const COUNTED = ['inbox_messages', 'inbox_conversations', 'inbox_batches', 'inbox_tasks', 'booking_keys'];

export class InboxSql implements InboxStore {
  constructor(private readonly db: SqlRunner) {}

  async insertMessage(m: InboxMessage, raw: Uint8Array): Promise<boolean> {
    const added = await this.db.run(
      `INSERT INTO inbox_messages (id, tenant_id, provider, channel, external_id, conversation_id, rfc_message_id,
         in_reply_to, refs, subject, from_addr, cc, received_at, text_body, html_sanitized, created_at)
       VALUES (${placeholders(16)}) ON CONFLICT (tenant_id, provider, channel, external_id) DO NOTHING`,
      [
        m.id,
        m.tenantId,
        m.provider,
        m.channel,
        m.externalId,
        m.conversationId,
        m.rfcMessageId,
        m.inReplyTo,
        JSON.stringify(m.references),
        m.subject,
        m.from,
        JSON.stringify(m.cc),
        m.receivedAt,
        m.textBody,
        m.htmlSanitized,
        m.createdAt,
      ],
    );
    if (added !== 1) return false;
    // Kept once, for the record; no method reads it back.
    await this.db.run('INSERT INTO inbox_raw_bodies (message_id, tenant_id, raw) VALUES (?, ?, ?)', [
      m.id,
      m.tenantId,
      Buffer.from(raw.buffer, raw.byteOffset, raw.byteLength),
    ]);
    return true;
  }

  async messageByExternal(tenantId: string, provider: string, channel: string, externalId: string) {
    const [row] = await this.db.all<MessageRow>(
      'SELECT * FROM inbox_messages WHERE tenant_id = ? AND provider = ? AND channel = ? AND external_id = ?',
      [tenantId, provider, channel, externalId],
    );
    return row ? messageOf(row) : null;
  }

  async messagesWithExternalId(tenantId: string, externalId: string, limit: number) {
    const rows = await this.db.all<MessageRow>(
      'SELECT * FROM inbox_messages WHERE tenant_id = ? AND external_id = ? ORDER BY received_at, id LIMIT ?',
      [tenantId, externalId, limit],
    );
    return rows.map(messageOf);
  }

  async message(tenantId: string, id: string) {
    const [row] = await this.db.all<MessageRow>(
      'SELECT * FROM inbox_messages WHERE tenant_id = ? AND id = ?',
      [tenantId, id],
    );
    return row ? messageOf(row) : null;
  }

  async messageByRfcIds(tenantId: string, rfcIds: readonly string[]) {
    if (rfcIds.length === 0) return null;
    const [row] = await this.db.all<MessageRow>(
      `SELECT * FROM inbox_messages WHERE tenant_id = ? AND rfc_message_id IN (${placeholders(rfcIds.length)})
       ORDER BY received_at, id LIMIT 1`,
      [tenantId, ...rfcIds],
    );
    return row ? messageOf(row) : null;
  }

  async messagesOf(tenantId: string, conversationId: string) {
    const rows = await this.db.all<MessageRow>(
      'SELECT * FROM inbox_messages WHERE tenant_id = ? AND conversation_id = ? ORDER BY received_at, id',
      [tenantId, conversationId],
    );
    return rows.map(messageOf);
  }

  async insertConversation(c: Conversation): Promise<boolean> {
    const added = await this.db.run(
      `INSERT INTO inbox_conversations (id, tenant_id, provider, channel, external_id, subject, created_at, last_received_at)
       VALUES (${placeholders(8)}) ON CONFLICT (tenant_id, provider, channel, external_id) DO NOTHING`,
      [c.id, c.tenantId, c.provider, c.channel, c.externalId, c.subject, c.createdAt, c.lastReceivedAt],
    );
    return added === 1;
  }

  async conversationByKey(tenantId: string, key: ConversationKey) {
    const where = ['tenant_id = ?', 'external_id = ?'];
    const params: unknown[] = [tenantId, key.externalId];
    for (const [column, value] of [
      ['provider', key.provider],
      ['channel', key.channel],
    ] as const) {
      if (value === undefined) continue;
      where.push(`${column} = ?`);
      params.push(value);
    }
    const rows = await this.db.all<ConversationRow>(
      `SELECT * FROM inbox_conversations WHERE ${where.join(' AND ')} ORDER BY created_at, id LIMIT 2`,
      params,
    );
    return rows.map(conversationOf);
  }

  async conversation(tenantId: string, id: string) {
    const [row] = await this.db.all<ConversationRow>(
      'SELECT * FROM inbox_conversations WHERE tenant_id = ? AND id = ?',
      [tenantId, id],
    );
    return row ? conversationOf(row) : null;
  }

  async touchConversation(tenantId: string, id: string, receivedAt: Instant): Promise<void> {
    await this.db.run(
      'UPDATE inbox_conversations SET last_received_at = ? WHERE tenant_id = ? AND id = ? AND last_received_at < ?',
      [receivedAt, tenantId, id, receivedAt],
    );
  }

  async recentConversations(tenantId: string, limit: number) {
    const rows = await this.db.all<
      ConversationRow & { open_tasks: number | string; messages: number | string }
    >(
      `SELECT c.*,
         (SELECT COUNT(*) FROM inbox_tasks t WHERE t.tenant_id = c.tenant_id AND t.conversation_id = c.id
            AND t.status IN ('PENDING_CONFIRMATION', 'CONFIRMING', 'AWAITING_APPROVAL', 'CONTRACT_ERROR')) AS open_tasks,
         (SELECT COUNT(*) FROM inbox_messages m WHERE m.tenant_id = c.tenant_id AND m.conversation_id = c.id) AS messages
       FROM inbox_conversations c WHERE c.tenant_id = ? ORDER BY c.last_received_at DESC, c.id LIMIT ?`,
      [tenantId, limit],
    );
    return rows.map((r) => ({
      conversation: conversationOf(r),
      openTasks: Number(r.open_tasks),
      messages: Number(r.messages),
    }));
  }

  async recordBodyReads(reads: readonly BodyRead[]): Promise<void> {
    if (reads.length === 0) return;
    await this.db.run(
      `INSERT INTO inbox_body_reads (id, tenant_id, message_id, reader, via, read_at) VALUES ${reads
        .map(() => `(${placeholders(6)})`)
        .join(', ')}`,
      reads.flatMap((r) => [r.id, r.tenantId, r.messageId, r.reader, r.via, r.readAt]),
    );
  }

  async bodyReadsOf(tenantId: string, messageId: string): Promise<BodyRead[]> {
    const rows = await this.db.all<{
      id: string;
      tenant_id: string;
      message_id: string;
      reader: string;
      via: string;
      read_at: Time;
    }>('SELECT * FROM inbox_body_reads WHERE tenant_id = ? AND message_id = ? ORDER BY read_at, id', [
      tenantId,
      messageId,
    ]);
    return rows.map((r) => ({
      id: r.id,
      tenantId: r.tenant_id,
      messageId: r.message_id,
      reader: r.reader,
      via: r.via,
      readAt: time(r.read_at),
    }));
  }

  async insertBatch(b: SubmitBatch): Promise<boolean> {
    const added = await this.db.run(
      `INSERT INTO inbox_batches (id, tenant_id, message_id, shape, result, submitted_by, created_at, content_digest)
       VALUES (${placeholders(8)}) ON CONFLICT (tenant_id, message_id) DO NOTHING`,
      [
        b.id,
        b.tenantId,
        b.messageId,
        b.shape,
        JSON.stringify(b.result),
        b.submittedBy,
        b.createdAt,
        b.contentDigest,
      ],
    );
    return added === 1;
  }

  async tasksOfBatch(tenantId: string, batchId: string): Promise<InboxTask[]> {
    const rows = await this.db.all<TaskRow>(
      'SELECT * FROM inbox_tasks WHERE tenant_id = ? AND batch_id = ? ORDER BY id',
      [tenantId, batchId],
    );
    return rows.map(taskOf);
  }

  async supersedeBatch(earlier: SubmitBatch, next: SubmitBatch): Promise<boolean> {
    await this.db.run('DELETE FROM inbox_tasks WHERE tenant_id = ? AND batch_id = ?', [
      earlier.tenantId,
      earlier.id,
    ]);
    const changed = await this.db.run(
      `UPDATE inbox_batches SET id = ?, shape = ?, result = ?, submitted_by = ?, created_at = ?, content_digest = ?
       WHERE tenant_id = ? AND id = ? AND message_id = ?`,
      [
        next.id,
        next.shape,
        JSON.stringify(next.result),
        next.submittedBy,
        next.createdAt,
        next.contentDigest,
        earlier.tenantId,
        earlier.id,
        earlier.messageId,
      ],
    );
    return changed === 1;
  }

  async batchOf(tenantId: string, messageId: string): Promise<SubmitBatch | null> {
    const [r] = await this.db.all<{
      id: string;
      tenant_id: string;
      message_id: string;
      shape: string;
      result: string;
      submitted_by: string;
      created_at: Time;
      content_digest: string | null;
    }>('SELECT * FROM inbox_batches WHERE tenant_id = ? AND message_id = ?', [tenantId, messageId]);
    return r
      ? {
          id: r.id,
          tenantId: r.tenant_id,
          messageId: r.message_id,
          shape: r.shape,
          result: JSON.parse(r.result) as Record<string, unknown>,
          contentDigest: r.content_digest,
          submittedBy: r.submitted_by,
          createdAt: time(r.created_at),
        }
      : null;
  }

  async insertTasks(tasks: readonly InboxTask[]): Promise<void> {
    for (const t of tasks) {
      const keys = (t.detail.case_keys ?? {}) as Record<string, unknown>;
      const key = (name: string) => (typeof keys[name] === 'string' ? keys[name] : null);
      await this.db.run(
        `INSERT INTO inbox_tasks (id, tenant_id, batch_id, message_id, conversation_id, transition_id, kind,
           source_event_index, result_type, event_type, task_type, status, object_id, approval_id, detail,
           decided_by, decided_at, note, version, created_at, group_code, confirmation_number, reservation_no)
         VALUES (${placeholders(23)})`,
        [
          t.id,
          t.tenantId,
          t.batchId,
          t.messageId,
          t.conversationId,
          t.transitionId,
          t.kind,
          t.sourceEventIndex,
          t.resultType,
          t.eventType,
          t.taskType,
          t.status,
          t.objectId,
          t.approvalId,
          JSON.stringify(t.detail),
          t.decidedBy,
          t.decidedAt,
          t.note,
          t.version,
          t.createdAt,
          key('group_code'),
          key('confirmation_number'),
          key('reservation_no'),
        ],
      );
    }
  }

  async task(tenantId: string, id: string) {
    const [row] = await this.db.all<TaskRow>('SELECT * FROM inbox_tasks WHERE tenant_id = ? AND id = ?', [
      tenantId,
      id,
    ]);
    return row ? taskOf(row) : null;
  }

  async taskAwaitingApproval(tenantId: string, approvalId: string) {
    const [row] = await this.db.all<TaskRow>(
      "SELECT * FROM inbox_tasks WHERE tenant_id = ? AND approval_id = ? AND status = 'AWAITING_APPROVAL' LIMIT 1",
      [tenantId, approvalId],
    );
    return row ? taskOf(row) : null;
  }

  async tasksOfConversation(tenantId: string, conversationId: string) {
    const rows = await this.db.all<TaskRow>(
      `SELECT t.* FROM inbox_tasks t JOIN inbox_messages m ON m.tenant_id = t.tenant_id AND m.id = t.message_id
       WHERE t.tenant_id = ? AND t.conversation_id = ? ORDER BY m.received_at, t.created_at, t.id`,
      [tenantId, conversationId],
    );
    return rows.map(taskOf);
  }

  async tasksAbout(tenantId: string, about: TaskSubject, statuses: readonly TaskStatus[]) {
    const column: Record<KeyKind, string> = {
      group: 'group_code',
      confirmation: 'confirmation_number',
      reservation: 'reservation_no',
    };
    const any = [
      ...(about.objectIds.length > 0 ? [`object_id IN (${placeholders(about.objectIds.length)})`] : []),
      ...about.keys.map((k) => `${column[k.kind]} = ?`),
    ];
    if (any.length === 0 || statuses.length === 0) return [];
    const rows = await this.db.all<TaskRow>(
      `SELECT * FROM inbox_tasks WHERE tenant_id = ? AND status IN (${placeholders(statuses.length)})
         AND (${any.join(' OR ')}) ORDER BY created_at, id LIMIT 200`,
      [tenantId, ...statuses, ...about.objectIds, ...about.keys.map((k) => k.value)],
    );
    return rows.map(taskOf);
  }

  async updateTask(t: InboxTask, expectedVersion: number): Promise<boolean> {
    const changed = await this.db.run(
      `UPDATE inbox_tasks SET status = ?, object_id = ?, approval_id = ?, decided_by = ?, decided_at = ?, note = ?,
         version = ? WHERE tenant_id = ? AND id = ? AND version = ?`,
      [
        t.status,
        t.objectId,
        t.approvalId,
        t.decidedBy,
        t.decidedAt,
        t.note,
        t.version,
        t.tenantId,
        t.id,
        expectedVersion,
      ],
    );
    return changed === 1;
  }

  async rowCounts(tenantId: string): Promise<Record<string, number>> {
    const counts: Record<string, number> = {};
    for (const table of COUNTED) {
      const [row] = await this.db.all<{ n: number | string }>(
        `SELECT COUNT(*) AS n FROM ${table} WHERE tenant_id = ?`,
        [tenantId],
      );
      counts[table] = Number(row?.n ?? 0);
    }
    return counts;
  }

  async replaceKeys(tenantId: string, bookingId: string, keys: readonly KeyRow[]): Promise<void> {
    await this.db.run('DELETE FROM booking_keys WHERE tenant_id = ? AND booking_id = ?', [
      tenantId,
      bookingId,
    ]);
    for (const k of keys)
      await this.db.run('INSERT INTO booking_keys (tenant_id, kind, value, booking_id) VALUES (?, ?, ?, ?)', [
        tenantId,
        k.kind,
        k.value,
        bookingId,
      ]);
  }

  async bookingsWithKey(tenantId: string, kind: KeyKind, value: string): Promise<string[]> {
    const rows = await this.db.all<{ booking_id: string }>(
      'SELECT booking_id FROM booking_keys WHERE tenant_id = ? AND kind = ? AND value = ? ORDER BY booking_id LIMIT 200',
      [tenantId, kind, value],
    );
    return rows.map((r) => r.booking_id);
  }

  async insertIngestToken(t: IngestToken, digest: string): Promise<void> {
    await this.db.run(
      `INSERT INTO inbox_ingest_tokens (id, tenant_id, name, digest, created_at, expires_at, revoked_at, last_used_at)
       VALUES (${placeholders(8)})`,
      [t.id, t.tenantId, t.name, digest, t.createdAt, t.expiresAt, t.revokedAt, t.lastUsedAt],
    );
  }

  async useIngestToken(digest: string, now: Instant): Promise<IngestToken | null> {
    const [row] = await this.db.all<TokenRow>(
      `SELECT * FROM inbox_ingest_tokens WHERE digest = ? AND revoked_at IS NULL
         AND (expires_at IS NULL OR expires_at > ?)`,
      [digest, now],
    );
    if (!row) return null;
    await this.db.run('UPDATE inbox_ingest_tokens SET last_used_at = ? WHERE id = ?', [now, row.id]);
    return tokenOf({ ...row, last_used_at: now });
  }

  async revokeIngestToken(tenantId: string, id: string, now: Instant): Promise<boolean> {
    const changed = await this.db.run(
      'UPDATE inbox_ingest_tokens SET revoked_at = ? WHERE tenant_id = ? AND id = ? AND revoked_at IS NULL',
      [now, tenantId, id],
    );
    return changed === 1;
  }

  async ingestTokens(tenantId: string): Promise<IngestToken[]> {
    const rows = await this.db.all<TokenRow>(
      'SELECT * FROM inbox_ingest_tokens WHERE tenant_id = ? ORDER BY created_at, id',
      [tenantId],
    );
    return rows.map(tokenOf);
  }
}
