import type { PageStatus } from '../page-status.js';
import type { Context } from 'hono';
import type { ConversationLine, ConversationPage } from '../../../app/console-inbox.js';
import type { SignedIn } from '../../../app/identity/sessions.js';
import type { Person } from '../../../domain/identity/identity.js';
import { mayApprove } from '../../../domain/identity/identity.js';
import type { InboxTask } from '../../../domain/inbox/inbox.js';
import { isDomainError } from '../../../domain/errors.js';
import type { PageApp } from '../http-app.js';
import { csrfToken } from '../human-session.js';
import type { ConsolePage } from './console-page.js';
import { itemPost } from './console-page.js';
import { ConversationList, MessageCard, TaskCardView } from './inbox-views.js';
import { CONSOLE_HEADERS, Shell } from './shell.js';

export type TaskAction = 'confirm' | 'complete' | 'reject';

export interface InboxConsoleOptions {
  readonly page: ConsolePage;
  list(person: Person): Promise<ConversationLine[]>;
  conversation(person: Person, id: string): Promise<ConversationPage | null>;
  decide(taskId: string, action: TaskAction, version: number, signed: SignedIn): Promise<InboxTask>;
  /** The conversation a task of the person's tenant belongs to (to show it again with a refusal). */
  conversationOfTask(person: Person, taskId: string): Promise<string | null>;
  refused(reason: string, signed: SignedIn): Promise<void>;
}

const purpose = (taskId: string) => `console-inbox-task:${taskId}`;
const DONE: Record<string, string> = {
  confirm: 'Task confirmed.',
  approval: 'Held and put up for approval: approve it, then complete the booking here.',
  complete: 'Booking confirmed.',
  reject: 'Task rejected.',
};

/** The reservation inbox: conversations, their sanitized mail beside their tasks, and deciding tasks. */
export function mountInboxConsole(app: PageApp, options: InboxConsoleOptions): void {
  const { page } = options;

  /** A viewer asking for the inbox: refused in words, and nothing read. */
  const guarded =
    (handler: (c: Context, signed: SignedIn) => Promise<Response>) =>
    async (c: Context, signed: SignedIn) => {
      try {
        return await handler(c, signed);
      } catch (error) {
        if (!isDomainError(error) || error.code !== 'FORBIDDEN') throw error;
        return c.html(
          <Shell title="Refused" signed={signed} section="/console/inbox">
            <h1 id="result">Refused</h1>
            <p>{error.message}</p>
          </Shell>,
          403,
          CONSOLE_HEADERS,
        );
      }
    };

  app.get(
    '/console/inbox',
    page.signedIn(
      guarded(async (c, signed) =>
        c.html(
          <Shell title="Inbox" signed={signed} section="/console/inbox">
            <h1>Inbox</h1>
            <p class="muted">
              Booking mail and the tasks operations agents made of it, for a person to confirm.
            </p>
            <ConversationList lines={await options.list(signed.person)} />
          </Shell>,
          200,
          CONSOLE_HEADERS,
        ),
      ),
    ),
  );

  const show = async (
    c: Context,
    signed: SignedIn,
    id: string,
    status: 200 | PageStatus,
    message?: string,
  ) => {
    const found = await options.conversation(signed.person, id);
    if (!found) return page.notFound(c, signed);
    const done = DONE[c.req.query('done') ?? ''];
    const mayDecide = mayApprove(signed.person);
    return c.html(
      <Shell title={found.conversation.subject ?? 'Conversation'} signed={signed} section="/console/inbox">
        <p>
          <a href="/console/inbox">← Inbox</a>
        </p>
        <h1>{found.conversation.subject ?? '(no subject)'}</h1>
        {message ? (
          <p class="notice bad" id="result" role="alert">
            {message}
          </p>
        ) : done ? (
          <p class="notice good" id="result" role="status">
            {done}
          </p>
        ) : (
          ''
        )}
        <div class="split">
          <section aria-labelledby="mail-heading">
            <h2 id="mail-heading">Mail</h2>
            {found.messages.map((m) => (
              <MessageCard message={m} />
            ))}
          </section>
          <section aria-labelledby="tasks-heading">
            <h2 id="tasks-heading">Tasks</h2>
            {found.tasks.length === 0 ? (
              <p class="muted" id="no-tasks">
                No tasks yet: an agent has not submitted results for this mail.
              </p>
            ) : (
              <ul class="queue" id="tasks">
                {found.tasks.map((card) => (
                  <TaskCardView
                    card={card}
                    csrf={csrfToken(signed.session, purpose(card.task.id))}
                    mayDecide={mayDecide}
                    calendars={found.calendars}
                    bookings={found.bookings}
                  />
                ))}
              </ul>
            )}
          </section>
        </div>
      </Shell>,
      status,
      CONSOLE_HEADERS,
    );
  };

  app.get(
    '/console/inbox/:id',
    page.signedIn(guarded((c, signed) => show(c, signed, c.req.param('id') ?? '', 200))),
  );

  app.post(
    '/console/inbox/tasks/:id',
    itemPost(page, {
      purpose,
      refused: options.refused,
      read(form) {
        const action = (['confirm', 'complete', 'reject'] as const).find((a) => a === form.action) ?? null;
        const version = Number(form.version);
        return action && Number.isSafeInteger(version) && version >= 1 ? { action, version } : null;
      },
      async act(id, { action, version }, signed) {
        const task = await options.decide(id, action, version, signed);
        const done = task.status === 'AWAITING_APPROVAL' ? 'approval' : action;
        return task.status === 'AWAITING_APPROVAL' && task.approvalId
          ? `/console/approvals/${task.approvalId}`
          : `/console/inbox/${task.conversationId}?done=${done}#task-${id}`;
      },
      rerender: (c, signed, id, status, message) =>
        guarded(async (c2, s2) =>
          show(c2, s2, (await options.conversationOfTask(s2.person, id)) ?? '', status, message),
        )(c, signed),
    }),
  );
}
