import type { PageApp } from './http-app.js';
import type { Context } from 'hono';
import { html } from 'hono/html';
import type { HtmlEscapedString } from 'hono/utils/html';
import type { approvalForPage, Decision } from '../../app/approvals.js';
import type { SignedIn } from '../../app/identity/sessions.js';
import type { Person } from '../../domain/identity/identity.js';
import { mayApprove } from '../../domain/identity/identity.js';
import type { HumanSessions } from './human-session.js';
import { csrfOk, csrfToken, signedInOf } from './human-session.js';
import type { Approval } from '../../domain/approval/approval.js';
import { isDomainError } from '../../domain/errors.js';
import { PAGE_HEADERS } from './page-headers.js';
import { layout, signOutForm } from './page-layout.js';

export interface ApprovalPageOptions {
  readonly sessions: HumanSessions;
  /** The approval a link names, if it is of the signed-in person's tenant. */
  readonly load: (token: string, person: Person) => ReturnType<typeof approvalForPage>;
  readonly decide: (token: string, decision: Decision, signed: SignedIn) => Promise<Approval>;
  /** A POST refused before any decision (no session, no CSRF token, no decision): kept in the audit trail. */
  readonly refused: (reason: string, signed: SignedIn | null) => Promise<void>;
}

/**
 * The one-time link only says which approval to show; deciding takes a signed-in person who
 * may approve in its tenant, and a CSRF token bound to their session.
 */
export function mountApprovalPage(app: PageApp, options: ApprovalPageOptions): void {
  const send = (c: Context, status: 200 | 403 | 404 | 409, page: ReturnType<typeof layout>) =>
    c.html(page, status, PAGE_HEADERS);

  const toLogin = (c: Context, token: string) =>
    c.redirect(`/login?next=${encodeURIComponent(`/approvals/${token}`)}`, 303);

  app.get('/approvals/:token', async (c) => {
    const token = c.req.param('token');
    const signed = await signedInOf(c, options.sessions);
    if (!signed) return toLogin(c, token);
    const view = await options.load(token, signed.person);
    if (!view)
      return send(
        c,
        404,
        layout('Unknown link', html`<h1>This approval link is unknown or was already used.</h1>`),
      );
    const { approval, status, summary } = view;
    const rows = summary.calendars.map(
      (cal) =>
        html`<tr>
          <td>${cal.name}</td>
          <td>${cal.start}<br />${cal.end}<br /><span class="muted">${cal.timeZone}</span></td>
        </tr>`,
    );
    const money = summary.amount === null ? html`none` : html`${summary.amount} ${summary.currency}`;
    const form = (buttons: HtmlEscapedString | Promise<HtmlEscapedString>) =>
      html`<form method="post" action="/approvals/${token}">
        <input type="hidden" name="csrf" value="${csrfToken(signed.session, `approval:${token}`)}" />
        ${buttons}
      </form>`;
    const deny = html`<button class="deny" name="decision" value="deny" type="submit">Deny</button>`;
    const actions = !mayApprove(signed.person)
      ? html`<p id="not-allowed">
          <strong>You (${signed.person.role}) may look, but only an owner or approver decides.</strong>
        </p>`
      : status !== 'PENDING'
        ? html`<p><strong>This approval is ${status}.</strong></p>`
        : summary.stale
          ? html`<p id="stale" class="stale">
                <strong>Stale:</strong> the booking changed after this was asked (it is now version
                ${summary.stale.currentVersion}, ${summary.stale.currentStatus}). Approving it would do
                nothing; ask the agent to request approval again.
              </p>
              ${form(deny)}`
          : form(
              html`<button class="approve" name="decision" value="approve" type="submit">Approve</button
                >${deny}`,
            );
    return send(
      c,
      200,
      layout(
        'Approve',
        html`${signOutForm(signed)}
          <h1>${summary.action} ${summary.reference}</h1>
          <p>An agent asks you to approve exactly this. Nothing happens unless you approve.</p>
          <table>
            <tr>
              <th>Calendar</th>
              <th>Local time</th>
            </tr>
            ${rows}
          </table>
          <table>
            <tr>
              <td>UTC</td>
              <td>${summary.startUtc} – ${summary.endUtc}</td>
            </tr>
            <tr>
              <td>Amount</td>
              <td id="amount">${money}</td>
            </tr>
            <tr>
              <td>Customer</td>
              <td>${summary.customer === null ? 'not given' : JSON.stringify(summary.customer)}</td>
            </tr>
            <tr>
              <td>Label</td>
              <td>${summary.label ?? '—'}</td>
            </tr>
            <tr>
              <td>Booking version</td>
              <td id="version">${summary.version}</td>
            </tr>
            <tr>
              <td>Requested by</td>
              <td>${approval.subject} (${approval.clientId})</td>
            </tr>
            <tr>
              <td>Expires</td>
              <td>${new Date(approval.expiresAt).toISOString()}</td>
            </tr>
            <tr>
              <td>Intent hash</td>
              <td><code>${approval.intentHash}</code></td>
            </tr>
          </table>
          <p></p>
          ${actions}`,
      ),
    );
  });

  app.post('/approvals/:token', async (c) => {
    const token = c.req.param('token');
    const signed = await signedInOf(c, options.sessions);
    if (!signed) {
      await options.refused('nobody is signed in', null);
      return toLogin(c, token);
    }
    const form = await c.req.parseBody();
    if (!csrfOk(signed.session, `approval:${token}`, form.csrf)) {
      await options.refused('the form carried no valid CSRF token', signed);
      return send(
        c,
        403,
        layout('Refused', html`<h1>Refused: this form did not come from the approval page.</h1>`),
      );
    }
    const decision = form.decision === 'approve' ? 'APPROVE' : form.decision === 'deny' ? 'DENY' : null;
    if (!decision) {
      await options.refused('the form carried no decision', signed);
      return send(c, 403, layout('Refused', html`<h1>Refused: no decision.</h1>`));
    }
    try {
      const decided = await options.decide(token, decision, signed);
      return send(
        c,
        200,
        layout(
          'Decided',
          html`<h1 id="result">${decided.status === 'APPROVED' ? 'Approved' : 'Denied'}.</h1>
            <p>
              You can close this page. The agent will see your decision (approval <code>${decided.id}</code>).
            </p>`,
        ),
      );
    } catch (error) {
      if (isDomainError(error, 'FORBIDDEN'))
        return send(c, 403, layout('Refused', html`<h1 id="result">Refused: ${error.message}</h1>`));
      const stale = isDomainError(error) && error.details.stale === true;
      return send(
        c,
        409,
        stale
          ? layout(
              'Stale',
              html`<h1 id="result">Not approved: the booking changed since this was asked.</h1>`,
            )
          : layout('Already used', html`<h1>This approval link is unknown or was already used.</h1>`),
      );
    }
  });
}
