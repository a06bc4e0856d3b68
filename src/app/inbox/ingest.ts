import type { Conversation, InboxMessage } from '../../domain/inbox/inbox.js';
import type { StoreTx } from '../../ports/store/index.js';
import type { AppDeps } from '../deps.js';

/** A message as an ingestion adapter (REST, .eml import) hands it over: parsed, HTML already sanitized. */
export interface IncomingMessage extends Omit<
  InboxMessage,
  'id' | 'tenantId' | 'conversationId' | 'createdAt'
> {
  /** The provider's own thread id, when it has one: it wins over the headers. */
  readonly externalConversationId: string | null;
  /** The bytes as received: stored once, never returned. */
  readonly raw: Uint8Array;
}

export interface Ingested {
  readonly message: InboxMessage;
  /** False: this provider message was there already and nothing changed. */
  readonly created: boolean;
}

/**
 * The conversation a message belongs to: the provider's thread id if it sent one; else the
 * thread of a message it replies to or references; else a new one named by its Message-ID.
 */
async function conversationFor(
  deps: AppDeps,
  tx: StoreTx,
  tenantId: string,
  m: IncomingMessage,
): Promise<Conversation> {
  const key = { provider: m.provider, channel: m.channel };
  if (!m.externalConversationId) {
    const parent = await tx.inbox.messageByRfcIds(
      tenantId,
      [m.inReplyTo, ...m.references].filter((id): id is string => !!id),
    );
    const thread = parent && (await tx.inbox.conversation(tenantId, parent.conversationId));
    if (thread) return thread;
  }
  const externalId = m.externalConversationId ?? m.rfcMessageId ?? m.externalId;
  const [existing] = await tx.inbox.conversationByKey(tenantId, { ...key, externalId });
  if (existing) return existing;
  const conversation: Conversation = {
    id: deps.ids.newId('conv'),
    tenantId,
    ...key,
    externalId,
    subject: m.subject,
    createdAt: deps.clock.now(),
    lastReceivedAt: m.receivedAt,
  };
  await tx.inbox.insertConversation(conversation);
  return conversation;
}

/** Stores a message once per provider id; a second delivery answers with the first. */
export function ingestMessage(deps: AppDeps, tenantId: string, m: IncomingMessage): Promise<Ingested> {
  return deps.store.write(async (tx) => {
    // One ingestion at a time per tenant: two replies arriving together must land in one thread.
    await tx.serialize(`inbox:${tenantId}`);
    const existing = await tx.inbox.messageByExternal(tenantId, m.provider, m.channel, m.externalId);
    if (existing) return { message: existing, created: false };
    const conversation = await conversationFor(deps, tx, tenantId, m);
    const { raw: _raw, externalConversationId: _thread, ...fields } = m;
    const message: InboxMessage = {
      ...fields,
      id: deps.ids.newId('msg'),
      tenantId,
      conversationId: conversation.id,
      createdAt: deps.clock.now(),
    };
    await tx.inbox.insertMessage(message, m.raw);
    await tx.inbox.touchConversation(tenantId, conversation.id, m.receivedAt);
    return { message, created: true };
  });
}
