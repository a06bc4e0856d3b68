import type { Principal } from '../../domain/identity/principal.js';
import type { Conversation, InboxMessage, InboxTask } from '../../domain/inbox/inbox.js';
import { InboxError } from '../../domain/inbox/inbox-errors.js';
import type { StoreTx } from '../../ports/store/index.js';
import { requireScope } from '../authorize.js';
import type { AppDeps } from '../deps.js';

/** How an agent names a conversation: its id, or one of its messages; provider and channel narrow both. */
export interface ConversationQuery {
  readonly provider?: string | null;
  readonly channel?: string | null;
  readonly externalConversationId?: string | null;
  readonly sourceMessageId?: string | null;
}

const given = (v: string | null | undefined): string | undefined =>
  v && v.trim() !== '' ? v.trim() : undefined;

/** The conversation a query names; the conversation id wins when both are given (as the contract says). */
export async function findConversation(
  tx: StoreTx,
  tenantId: string,
  q: ConversationQuery,
): Promise<Conversation> {
  const filter = { provider: given(q.provider), channel: given(q.channel) };
  const conversationId = given(q.externalConversationId);
  if (conversationId) {
    const found = await tx.inbox.conversationByKey(tenantId, {
      externalId: conversationId,
      ...(filter.provider ? { provider: filter.provider } : {}),
      ...(filter.channel ? { channel: filter.channel } : {}),
    });
    if (found.length > 1)
      throw new InboxError(
        'SOURCE_MESSAGE_AMBIGUOUS',
        'Several conversations have this id: give source_provider and source_channel.',
        {
          field: 'external_conversation_id',
        },
      );
    if (!found[0])
      throw new InboxError('CONVERSATION_NOT_FOUND', 'No conversation with this id.', {
        field: 'external_conversation_id',
      });
    return found[0];
  }
  const messageId = given(q.sourceMessageId);
  if (!messageId)
    throw new InboxError('CONVERSATION_KEY_REQUIRED', 'Give external_conversation_id or source_message_id.', {
      field: 'external_conversation_id',
    });
  const message = await uniqueMessage(tx, tenantId, messageId, filter);
  const conversation = await tx.inbox.conversation(tenantId, message.conversationId);
  if (!conversation) throw new InboxError('CONVERSATION_NOT_FOUND', 'No conversation for this message.', {});
  return conversation;
}

/** The one message with this external id (narrowed by provider/channel when given). */
export async function uniqueMessage(
  tx: StoreTx,
  tenantId: string,
  externalId: string,
  filter: { provider?: string | undefined; channel?: string | undefined } = {},
): Promise<InboxMessage> {
  const all = await tx.inbox.messagesWithExternalId(tenantId, externalId, 50);
  const matching = all.filter(
    (m) =>
      (!filter.provider || m.provider === filter.provider) &&
      (!filter.channel || m.channel === filter.channel),
  );
  if (matching.length > 1)
    throw new InboxError(
      'SOURCE_MESSAGE_AMBIGUOUS',
      `The source message id ${externalId} matches ${matching.length} inbox messages of this hotel.`,
      { field: 'source_message_id', matches: matching.length },
    );
  if (!matching[0])
    throw new InboxError(
      'SOURCE_MESSAGE_NOT_FOUND',
      `No inbox message has the source message id ${externalId}.`,
      {
        field: 'source_message_id',
      },
    );
  return matching[0];
}

export interface ConversationTasks {
  readonly conversation: Conversation;
  readonly tasks: readonly { task: InboxTask; message: InboxMessage }[];
}

/** Every task of the conversation, by message received time, task created time, task id. */
export async function conversationTasks(
  deps: AppDeps,
  principal: Principal,
  q: ConversationQuery,
): Promise<ConversationTasks> {
  requireScope(principal, 'read');
  return deps.store.read(async (tx) => {
    const conversation = await findConversation(tx, principal.tenantId, q);
    const messages = new Map(
      (await tx.inbox.messagesOf(principal.tenantId, conversation.id)).map((m) => [m.id, m]),
    );
    const tasks = await tx.inbox.tasksOfConversation(principal.tenantId, conversation.id);
    return { conversation, tasks: tasks.map((task) => ({ task, message: messages.get(task.messageId)! })) };
  });
}

/** Who reads a body, as the access record names them. */
export type Reader = { readonly person: string } | { readonly connection: Principal };

const readerName = (r: Reader) =>
  'person' in r
    ? `person:${r.person}`
    : `connection:${r.connection.connectionId} for ${r.connection.subject}`;

/**
 * The conversation's messages with their plain text and sanitized HTML, in order. Every body
 * shown is an access record written in the same transaction: no read goes unrecorded.
 */
export async function conversationMessages(
  deps: AppDeps,
  tenantId: string,
  reader: Reader,
  q: ConversationQuery | { readonly conversationId: string },
  via: string,
): Promise<{ conversation: Conversation; messages: readonly InboxMessage[] }> {
  // Mail is contact data as written: only connections that may see contact data unmasked read it.
  if ('connection' in reader) requireScope(reader.connection, 'sensitive');
  return deps.store.write(async (tx) => {
    const conversation =
      'conversationId' in q
        ? await tx.inbox.conversation(tenantId, q.conversationId)
        : await findConversation(tx, tenantId, q);
    if (!conversation) throw new InboxError('CONVERSATION_NOT_FOUND', 'No such conversation.', {});
    const messages = await tx.inbox.messagesOf(tenantId, conversation.id);
    const now = deps.clock.now();
    await tx.inbox.recordBodyReads(
      messages.map((m) => ({
        id: deps.ids.newId('read'),
        tenantId,
        messageId: m.id,
        reader: readerName(reader),
        via,
        readAt: now,
      })),
    );
    return { conversation, messages };
  });
}
