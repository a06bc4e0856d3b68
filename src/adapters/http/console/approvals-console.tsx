import type { PageStatus } from '../page-status.js';
import type { Context } from 'hono';
import type { Decision } from '../../../app/approvals/approvals.js';
import { decideInConsole } from '../../../app/approvals/approvals.js';
import type { ApprovalCard } from '../../../app/console/approvals.js';
import { approvalQueue, consoleApproval } from '../../../app/console/approvals.js';
import type { SignedIn } from '../../../app/identity/sessions.js';
import { completeTask } from '../../../app/inbox/tasks.js';
import { cancelOperation, retryOperation, runOperation } from '../../../app/approvals/operations.js';
import { isDomainError } from '../../../domain/errors.js';
import type { PageApp } from '../page-app.js';
import { csrfToken } from '../human-session.js';
import { ApprovalDetail, Queue } from './approval-views.js';
import type { ConsoleContext } from './console-page.js';
import { audited, consoleArea, itemPost, refusedPost } from './console-page.js';
import { CONSOLE_HEADERS, Shell } from './shell.js';

const purpose = (id: string) => `console-approval:${id}`;
/** What a decision set in motion, said after the redirect: the approval's own consequence when approved. */
function decidedMessage(decision: string, card: ApprovalCard): string {
  if (decision === 'denied') return 'Denied: nothing happens; the agent’s retry is refused.';
  if (decision === 'cancelled')
    return 'Cancelled: nothing happens; the agent reads the operation as cancelled.';
  // The page's own notice says why, with Try again and Cancel.
  if (decision === 'failed') return '';
  if (decision === 'done') {
    const { time, money } = card.summary.consequence;
    return `Approved and done. ${time} ${money}`;
  }
  const { time, money } = card.summary.consequence;
  return `Approved. When the agent retries with this approval: ${time} ${money}`;
}

/**
 * Decides as the signed-in person; answers where they go next. Hotel-ops: the inbox task that
 * asked for this approval is completed by the same yes (one decision, one click). If it cannot
 * finish now (the payment has not cleared), the approval stands and the task keeps its
 * "Complete booking" button.
 */
async function decide(ctx: ConsoleContext, id: string, decision: PageDecision, signed: SignedIn) {
  const { deps } = ctx;
  const call = ctx.audit('console_approval', signed, { approvalId: id, decision }, 'approval');
  if (decision === 'RETRY' || decision === 'CANCEL') return settleOperation(ctx, id, decision, signed);
  const approval = await audited(call, () =>
    decideInConsole(
      deps,
      id,
      decision,
      { person: signed.person, method: signed.session.method },
      { audit: call },
    ),
  );
  const decided = `/console/approvals/${id}?decided=${decision === 'APPROVE' ? 'approved' : 'denied'}`;
  if (decision !== 'APPROVE') return decided;
  // agent-access: the yes runs the write the agent drafted.
  if (approval.executes) {
    const run = ctx.audit(
      'console_operation',
      signed,
      { approvalId: id, action: approval.action },
      'approval',
    );
    const outcome = await audited(run, () =>
      runOperation(deps, approval, { audit: run, traceId: deps.ids.newId('op') }),
    );
    return `/console/approvals/${id}?decided=${outcome.ok ? 'done' : 'failed'}`;
  }
  const task = await deps.store.read((tx) => tx.inbox.taskAwaitingApproval(signed.person.tenantId, id));
  if (!task) return decided;
  const completion = ctx.audit(
    'console_inbox_task',
    signed,
    { taskId: task.id, action: 'complete', version: task.version },
    'approval',
  );
  try {
    await audited(completion, () =>
      completeTask(deps, signed.person, task.id, task.version, {
        audit: completion,
        traceId: deps.ids.newId('op'),
      }),
    );
    return `/console/inbox/${task.conversationId}?done=complete#task-${task.id}`;
  } catch (error) {
    if (!isDomainError(error)) throw error;
    return decided;
  }
}

type PageDecision = Decision | 'RETRY' | 'CANCEL';
const PAGE_DECISIONS = new Map<string, PageDecision>([
  ['approve', 'APPROVE'],
  ['deny', 'DENY'],
  ['retry', 'RETRY'],
  ['cancel', 'CANCEL'],
]);

/** A failed operation tried again, or given up. */
async function settleOperation(
  ctx: ConsoleContext,
  id: string,
  decision: 'RETRY' | 'CANCEL',
  signed: SignedIn,
) {
  const { deps } = ctx;
  const call = ctx.audit('console_operation', signed, { approvalId: id, decision }, 'approval');
  if (decision === 'CANCEL') {
    await audited(call, () => cancelOperation(deps, signed.person, id));
    return `/console/approvals/${id}?decided=cancelled`;
  }
  const outcome = await audited(call, () =>
    retryOperation(deps, signed.person, id, { audit: call, traceId: deps.ids.newId('op') }),
  );
  return `/console/approvals/${id}?decided=${outcome.ok ? 'done' : 'failed'}`;
}

/** The approvals queue (live), one approval in words, and deciding it. */
export function approvalsConsole(ctx: ConsoleContext): PageApp {
  const { page, deps } = ctx;
  const app = consoleArea();

  app.get(
    '/',
    page.signedIn(async (c, signed) => {
      const queue = await approvalQueue(deps, signed.person);
      return c.html(
        <Shell title="Approvals" signed={signed} section="/console/approvals">
          <h1>Approvals</h1>
          <div data-live-queue="/console/approvals/queue" aria-live="polite">
            <Queue {...queue} />
          </div>
        </Shell>,
        200,
        CONSOLE_HEADERS,
      );
    }),
  );

  // The live queue's fragment (the script polls it); the same rendering as the page.
  app.get(
    '/queue',
    page.signedIn(async (c, signed) =>
      c.html(<Queue {...await approvalQueue(deps, signed.person)} />, 200, CONSOLE_HEADERS),
    ),
  );

  const showDetail = async (
    c: Context,
    signed: SignedIn,
    id: string,
    status: 200 | PageStatus = 200,
    given = '',
    /** The decision the address claims was made: its notice shows only if the approval agrees. */
    claimed = '',
  ) => {
    const card = await consoleApproval(deps, signed.person, id);
    if (!card) return page.notFound(c, signed);
    const agrees =
      (claimed === 'approved' && (card.status === 'APPROVED' || card.status === 'USED')) ||
      (claimed === 'denied' && card.status === 'DENIED') ||
      (claimed === 'cancelled' && card.status === 'DENIED' && card.approval.executes === true) ||
      (claimed === 'done' && card.status === 'USED' && card.approval.executes === true) ||
      (claimed === 'failed' && card.status === 'APPROVED' && Boolean(card.approval.lastFailure));
    const message = given || (agrees ? decidedMessage(claimed, card) : '');
    return c.html(
      <Shell
        title={`${card.summary.action} ${card.summary.reference}`}
        signed={signed}
        section="/console/approvals"
      >
        <p>
          <a href="/console/approvals">← All approvals</a>
        </p>
        {message ? (
          <p class="notice" id="result" role="status">
            {message}
          </p>
        ) : (
          ''
        )}
        <ApprovalDetail
          card={card}
          viewer={signed.person}
          csrf={csrfToken(signed.session, purpose(id))}
          now={page.now()}
          viewerZone={signed.zone}
        />
      </Shell>,
      status,
      CONSOLE_HEADERS,
    );
  };

  app.get(
    '/:id',
    page.signedIn((c, signed) =>
      showDetail(c, signed, c.req.param('id') ?? '', 200, '', c.req.query('decided') ?? ''),
    ),
  );

  app.post(
    '/:id',
    itemPost(page, {
      purpose,
      refused: refusedPost(ctx, 'console_approval', { decision: 'refused' }),
      read: (form): PageDecision | null => PAGE_DECISIONS.get(String(form.decision)) ?? null,
      act: (id, decision, signed) => decide(ctx, id, decision, signed),
      rerender: showDetail,
    }),
  );
  return app;
}
