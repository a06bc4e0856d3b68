import { createHmac, timingSafeEqual } from 'node:crypto';
import type { Context, Hono } from 'hono';
import { html } from 'hono/html';
import type { HtmlEscapedString } from 'hono/utils/html';
import type { approvalForPage, Decision } from '../../app/approvals.js';
import type { Approval } from '../../domain/approval/approval.js';
import { isDomainError } from '../../domain/errors.js';
import { PAGE_HEADERS } from './page-headers.js';

export interface ApprovalPageOptions {
  readonly load: (token: string) => ReturnType<typeof approvalForPage>;
  readonly decide: (token: string, decision: Decision) => Promise<Approval>;
  /** A POST refused before any decision (no CSRF token, no decision): kept in the audit trail. */
  readonly refused: (reason: string) => Promise<void>;
  /** Secret for CSRF tokens, the same on every instance; never leaves the server. */
  readonly csrfKey: string;
}

function csrfFor(key: string, token: string): string {
  return createHmac('sha256', key).update(`approval-csrf:${token}`).digest('base64url');
}

function csrfMatches(key: string, token: string, given: unknown): boolean {
  if (typeof given !== 'string') return false;
  const expected = Buffer.from(csrfFor(key, token));
  const actual = Buffer.from(given);
  return actual.length === expected.length && timingSafeEqual(actual, expected);
}

function layout(title: string, body: HtmlEscapedString | Promise<HtmlEscapedString>) {
  return html`<!doctype html>
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <title>${title} · Holdfast</title>
        <style>
          body {
            font:
              16px/1.5 system-ui,
              sans-serif;
            max-width: 40rem;
            margin: 2rem auto;
            padding: 0 1rem;
            color: #1b1b1b;
          }
          table {
            border-collapse: collapse;
            width: 100%;
          }
          td,
          th {
            text-align: left;
            padding: 0.35rem 0.5rem;
            border-bottom: 1px solid #ddd;
            vertical-align: top;
          }
          button {
            font: inherit;
            padding: 0.6rem 1.4rem;
            margin-right: 0.8rem;
            border-radius: 0.4rem;
            border: 1px solid #555;
            cursor: pointer;
          }
          .approve {
            background: #1d6b38;
            color: #fff;
            border-color: #1d6b38;
          }
          .deny {
            background: #fff;
          }
          .stale {
            background: #fff4d6;
            padding: 0.6rem;
            border-left: 4px solid #b7791f;
          }
          .muted {
            color: #666;
            font-size: 0.9rem;
          }
          code {
            word-break: break-all;
          }
        </style>
      </head>
      <body>
        ${body}
      </body>
    </html>`;
}

export function mountApprovalPage(app: Hono, options: ApprovalPageOptions): void {
  const send = (c: Context, status: 200 | 403 | 404 | 409, page: ReturnType<typeof layout>) =>
    c.html(page, status, PAGE_HEADERS);

  app.get('/approvals/:token', async (c) => {
    const token = c.req.param('token');
    const view = await options.load(token);
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
        <input type="hidden" name="csrf" value="${csrfFor(options.csrfKey, token)}" />
        ${buttons}
      </form>`;
    const deny = html`<button class="deny" name="decision" value="deny" type="submit">Deny</button>`;
    const actions =
      status !== 'PENDING'
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
        html`<h1>${summary.action} ${summary.reference}</h1>
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
    const form = await c.req.parseBody();
    if (!csrfMatches(options.csrfKey, token, form.csrf)) {
      await options.refused('the form carried no valid CSRF token');
      return send(
        c,
        403,
        layout('Refused', html`<h1>Refused: this form did not come from the approval page.</h1>`),
      );
    }
    const decision = form.decision === 'approve' ? 'APPROVE' : form.decision === 'deny' ? 'DENY' : null;
    if (!decision) {
      await options.refused('the form carried no decision');
      return send(c, 403, layout('Refused', html`<h1>Refused: no decision.</h1>`));
    }
    try {
      const decided = await options.decide(token, decision);
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
