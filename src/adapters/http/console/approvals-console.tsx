import type { PageStatus } from '../page-status.js';
import type { Context } from 'hono';
import type { Decision } from '../../../app/approvals.js';
import type { ApprovalCard, ApprovalQueue } from '../../../app/console-approvals.js';
import type { SignedIn } from '../../../app/identity/sessions.js';
import type { Person } from '../../../domain/identity/identity.js';
import type { PageApp } from '../http-app.js';
import { csrfToken } from '../human-session.js';
import { ApprovalDetail, Queue } from './approval-views.js';
import type { ConsolePage } from './console-page.js';
import { itemPost } from './console-page.js';
import { CONSOLE_HEADERS, Shell } from './shell.js';

export interface ApprovalsConsoleOptions {
  readonly page: ConsolePage;
  queue(person: Person): Promise<ApprovalQueue>;
  detail(person: Person, id: string): Promise<ApprovalCard | null>;
  /** Decides; may answer where the person goes next (an inbox task the approval completed). */
  decide(id: string, decision: Decision, signed: SignedIn): Promise<{ readonly next?: string } | void>;
  /** A POST refused before any decision (no CSRF token, no decision): kept in the audit trail. */
  refused(reason: string, signed: SignedIn): Promise<void>;
}

const purpose = (id: string) => `console-approval:${id}`;
/** What a decision set in motion, said after the redirect: the approval's own consequence when approved. */
function decidedMessage(decision: string, card: ApprovalCard): string {
  if (decision === 'denied') return 'Denied: nothing happens; the agent’s retry is refused.';
  const { time, money } = card.summary.consequence;
  return `Approved. When the agent retries with this approval: ${time} ${money}`;
}

/** The approvals queue (live), one approval in words, and deciding it. */
export function mountApprovalsConsole(app: PageApp, options: ApprovalsConsoleOptions): void {
  const { page } = options;

  app.get(
    '/console',
    page.signedIn((c) => c.redirect('/console/approvals', 303)),
  );

  app.get(
    '/console/approvals',
    page.signedIn(async (c, signed) => {
      const queue = await options.queue(signed.person);
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
    '/console/approvals/queue',
    page.signedIn(async (c, signed) =>
      c.html(<Queue {...await options.queue(signed.person)} />, 200, CONSOLE_HEADERS),
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
    const card = await options.detail(signed.person, id);
    if (!card) return page.notFound(c, signed);
    const agrees =
      (claimed === 'approved' && (card.status === 'APPROVED' || card.status === 'USED')) ||
      (claimed === 'denied' && card.status === 'DENIED');
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
    '/console/approvals/:id',
    page.signedIn((c, signed) =>
      showDetail(c, signed, c.req.param('id') ?? '', 200, '', c.req.query('decided') ?? ''),
    ),
  );

  app.post(
    '/console/approvals/:id',
    itemPost(page, {
      purpose,
      refused: options.refused,
      read: (form): Decision | null =>
        form.decision === 'approve' ? 'APPROVE' : form.decision === 'deny' ? 'DENY' : null,
      async act(id, decision, signed) {
        const decided = await options.decide(id, decision, signed);
        return (
          decided?.next ??
          `/console/approvals/${id}?decided=${decision === 'APPROVE' ? 'approved' : 'denied'}`
        );
      },
      rerender: showDetail,
    }),
  );
}
