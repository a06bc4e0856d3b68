import type { Booking } from '../../domain/booking/booking.js';
import { DomainError } from '../../domain/errors.js';
import type { Person } from '../../domain/identity/identity.js';
import { mayApprove } from '../../domain/identity/identity.js';
import type { Conversation, InboxMessage, InboxTask } from '../../domain/inbox/inbox.js';
import type { AppDeps } from '../deps.js';
import { conversationMessages } from '../inbox/conversation-queries.js';
import type { TaskDetail } from '../inbox/task-detail.js';
import { readTaskDetail } from '../inbox/task-detail.js';

/** The inbox as people see it in the console: conversations, their mail, and the tasks to decide. */

export interface ConversationLine {
  readonly conversation: Conversation;
  readonly openTasks: number;
  readonly messages: number;
}

const LIST_LIMIT = 100;

/** Mail carries customers' contact details: the people who decide its tasks read it, viewers do not. */
function requireReader(person: Person): void {
  if (!mayApprove(person))
    throw new DomainError(
      'FORBIDDEN',
      'Only owners and approvers read the inbox: mail carries contact details.',
      {},
    );
}

export function inboxOverview(deps: AppDeps, person: Person): Promise<ConversationLine[]> {
  requireReader(person);
  return deps.store.read((tx) => tx.inbox.recentConversations(person.tenantId, LIST_LIMIT));
}

export interface TaskCard {
  readonly task: InboxTask;
  readonly detail: TaskDetail;
  readonly message: InboxMessage | null;
}

export interface ConversationPage {
  readonly conversation: Conversation;
  readonly messages: readonly InboxMessage[];
  readonly tasks: readonly TaskCard[];
  /** The calendars the tasks name that exist in the tenant, by id: their names and zones. */
  readonly calendars: ReadonlyMap<string, { name: string; timeZone: string }>;
  /** The bookings tasks are about (`ORDER:<id>`), by id, as they are now. */
  readonly bookings: ReadonlyMap<string, Booking>;
}

/** One conversation for a person of its tenant; reading its mail is recorded like an agent's read. */
export async function conversationPage(
  deps: AppDeps,
  person: Person,
  conversationId: string,
): Promise<ConversationPage | null> {
  requireReader(person);
  const exists = await deps.store.read((tx) => tx.inbox.conversation(person.tenantId, conversationId));
  if (!exists) return null;
  const { conversation, messages } = await conversationMessages(
    deps,
    person.tenantId,
    { person: person.id },
    { conversationId },
    'console inbox',
  );
  const tasks = await deps.store.read((tx) => tx.inbox.tasksOfConversation(person.tenantId, conversationId));
  const byId = new Map(messages.map((m) => [m.id, m]));
  const cards = tasks.map((task) => ({
    task,
    detail: readTaskDetail(task.detail),
    message: byId.get(task.messageId) ?? null,
  }));
  const bookingIds = [
    ...new Set(
      cards.flatMap((c) => (c.task.objectId?.startsWith('ORDER:') ? [c.task.objectId.slice(6)] : [])),
    ),
  ].slice(0, 50);
  const bookings = await deps.store.read(async (tx) => {
    const found: Booking[] = [];
    for (const id of bookingIds) {
      const booking = await tx.bookings.get(person.tenantId, id);
      if (booking) found.push(booking);
    }
    return found;
  });
  const named = [
    ...new Set([
      ...cards.flatMap((c) => (c.detail.booking ? [c.detail.booking.calendarId] : [])),
      ...bookings.flatMap((b) => b.calendarIds),
    ]),
  ];
  const calendars = await deps.store.read((tx) => tx.calendars.get(person.tenantId, named.slice(0, 50)));
  return {
    conversation,
    messages,
    tasks: cards,
    calendars: new Map(calendars.map((c) => [c.id, { name: c.name, timeZone: c.timeZone }])),
    bookings: new Map(bookings.map((b) => [b.id, b])),
  };
}
