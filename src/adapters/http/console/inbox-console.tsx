import type { PageStatus } from '../page-status.js';
import type { Context } from 'hono';
import { conversationPage, inboxOverview } from '../../../app/console/inbox.js';
import { completeTask, confirmTask, rejectTask } from '../../../app/inbox/tasks.js';
import type { SignedIn } from '../../../app/identity/sessions.js';
import type { Person } from '../../../domain/identity/identity.js';
import { mayApprove } from '../../../domain/identity/identity.js';
import { isDomainError } from '../../../domain/errors.js';
import type { PageApp } from '../page-app.js';
import { csrfToken } from '../human-session.js';
import type { ConsoleContext } from './console-page.js';
import { audited, consoleArea, itemPost, refusedPost } from './console-page.js';
import { ConversationList, MessageCard, TaskCardView } from './inbox-views.js';
import { CONSOLE_HEADERS, Shell } from './shell.js';

export type TaskAction = 'confirm' | 'complete' | 'reject';

/** Takes a task's action as the signed-in person, audited as theirs. */
function decide(ctx: ConsoleContext, taskId: string, action: TaskAction, version: number, signed: SignedIn) {
  const { deps } = ctx;
  const call = ctx.audit('console_inbox_task', signed, { taskId, action, version }, 'approval');
  const context = { audit: call, traceId: deps.ids.newId('op') };
  return audited(call, () =>
    action === 'confirm'
      ? confirmTask(deps, signed.person, taskId, version, context)
      : action === 'complete'
        ? completeTask(deps, signed.person, taskId, version, context)
        : rejectTask(deps, signed.person, taskId, version, ''),
  );
}

const purpose = (taskId: string) => `console-inbox-task:${taskId}`;
const DONE: Record<string, string> = {
  confirm: 'Task confirmed.',
  approval: 'Held and put up for approval: approve it, then complete the booking here.',
  complete: 'Booking confirmed.',
  reject: 'Task rejected.',
};

/** The reservation inbox: conversations, their sanitized mail beside their tasks, and deciding tasks. */
export function inboxConsole(ctx: ConsoleContext): PageApp {
  const { page, deps } = ctx;
  const app = consoleArea();

  /** The conversation a task of the person's tenant belongs to (to show it again with a refusal). */
  const conversationOfTask = async (person: Person, taskId: string) =>
    (await deps.store.read((tx) => tx.inbox.task(person.tenantId, taskId)))?.conversationId ?? null;

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
    '/',
    page.signedIn(
      guarded(async (c, signed) =>
        c.html(
          <Shell title="Inbox" signed={signed} section="/console/inbox">
            <h1>Inbox</h1>
            <p class="muted">
              Booking mail and the tasks operations agents made of it, for a person to confirm.
            </p>
            <ConversationList lines={await inboxOverview(deps, signed.person)} zone={signed.zone ?? 'UTC'} />
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
    const found = await conversationPage(deps, signed.person, id);
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
              <MessageCard message={m} zone={signed.zone ?? 'UTC'} />
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
                    zone={signed.zone ?? 'UTC'}
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

  app.get('/:id', page.signedIn(guarded((c, signed) => show(c, signed, c.req.param('id') ?? '', 200))));

  app.post(
    '/tasks/:id',
    itemPost(page, {
      purpose,
      refused: refusedPost(ctx, 'console_inbox_task', { action: 'refused' }),
      read(form) {
        const action = (['confirm', 'complete', 'reject'] as const).find((a) => a === form.action) ?? null;
        const version = Number(form.version);
        return action && Number.isSafeInteger(version) && version >= 1 ? { action, version } : null;
      },
      async act(id, { action, version }, signed) {
        const task = await decide(ctx, id, action, version, signed);
        const done = task.status === 'AWAITING_APPROVAL' ? 'approval' : action;
        return task.status === 'AWAITING_APPROVAL' && task.approvalId
          ? `/console/approvals/${task.approvalId}`
          : `/console/inbox/${task.conversationId}?done=${done}#task-${id}`;
      },
      rerender: (c, signed, id, status, message) =>
        guarded(async (c2, s2) =>
          show(c2, s2, (await conversationOfTask(s2.person, id)) ?? '', status, message),
        )(c, signed),
    }),
  );
  return app;
}
