import { isRetryable } from '../../../domain/approval/operation.js';
import type { ApprovalCard, ApprovalQueue } from '../../../app/console/approvals.js';
import type { Customer } from '../../../domain/booking/booking.js';
import type { Person } from '../../../domain/identity/identity.js';
import { mayApprove } from '../../../domain/identity/identity.js';
import { duration, zonedDateTime, zonedSpan } from '../../format/human-time.js';
import { Status } from './shell.js';

const instant = (iso: string) => Date.parse(iso);

/**
 * "Thu 3 Dec 2026, 09:00–10:00 (Shanghai)": the calendar's zone first, then the same span in the
 * viewer's own zone when it differs — both written by the server, in English.
 */
export function When(props: {
  start: string;
  end: string;
  timeZone: string;
  viewerZone?: string | undefined;
}) {
  const start = instant(props.start);
  const end = instant(props.end);
  return (
    <>
      <time datetime={props.start}>{zonedSpan(start, end, props.timeZone)}</time>
      {props.viewerZone && props.viewerZone !== props.timeZone ? (
        <>
          <br />
          <span class="muted small viewer-time">{zonedSpan(start, end, props.viewerZone)}, your time</span>
        </>
      ) : (
        ''
      )}
    </>
  );
}

/** The time, the money and the customer: what approving does, in the words every surface uses. */
export function Consequences(props: { summary: ApprovalCard['summary'] }) {
  const { consequence } = props.summary;
  return (
    <ul class="consequence" id="consequence">
      <li id="consequence-time">{consequence.time}</li>
      <li id="consequence-money">
        {consequence.refundDue ? <strong>{consequence.money}</strong> : consequence.money}
      </li>
      <li id="consequence-customer">{consequence.customer}</li>
    </ul>
  );
}

/** One line of the queue: what, when, who asks, and how long it waits. */
export function ApprovalItem(props: { card: ApprovalCard }) {
  const { approval, summary, status, requester } = props.card;
  const first = summary.calendars[0];
  return (
    <li class="card" data-approval={approval.id}>
      <h3>
        <a href={`/console/approvals/${approval.id}`}>
          {summary.action} {summary.reference}
        </a>{' '}
        <Status status={status} />
      </h3>
      <p class="small">
        {summary.calendars.map((c) => c.name).join(', ')}
        {summary.occurrences
          ? ` · ${summary.occurrences.length} dates from ${summary.occurrences[0]!.when}`
          : first
            ? ` · ${zonedSpan(instant(summary.startUtc), instant(summary.endUtc), first.timeZone)}`
            : ''}
        {summary.amount ? ` · ${summary.amount} ${summary.currency}` : ''}
      </p>
      <p class="small consequence-line">
        {summary.consequence.time} {summary.consequence.money}
      </p>
      <p class="muted small">
        Asked by {requester.asker}
        {status === 'PENDING' ? (
          <>
            {' '}
            · expires{' '}
            <time datetime={new Date(approval.expiresAt).toISOString()} data-countdown>
              at {zonedDateTime(approval.expiresAt, first?.timeZone ?? 'UTC')}
            </time>
          </>
        ) : (
          ''
        )}
      </p>
    </li>
  );
}

/** The queue: what waits, then what was decided lately. Served whole and as the live fragment. */
export function Queue(props: ApprovalQueue) {
  return (
    <>
      <h2 id="waiting">Waiting for a decision ({props.pending.length})</h2>
      {props.pending.length === 0 ? (
        <p class="muted" id="nothing-waiting">
          Nothing waits. New requests appear here by themselves.
        </p>
      ) : (
        <ul class="queue" id="pending" aria-labelledby="waiting">
          {props.pending.map((card) => (
            <ApprovalItem card={card} />
          ))}
        </ul>
      )}
      {props.lapsed.length > 0 ? (
        <>
          <h2 id="lapsed-heading">Nothing left to decide: lapsed or changed ({props.lapsed.length})</h2>
          <ul class="queue" id="lapsed" aria-labelledby="lapsed-heading">
            {props.lapsed.map((card) => (
              <ApprovalItem card={card} />
            ))}
          </ul>
        </>
      ) : (
        ''
      )}
      <h2 id="decided">Decided lately</h2>
      <ul class="queue" id="recent" aria-labelledby="decided">
        {props.recent.map((card) => (
          <ApprovalItem card={card} />
        ))}
      </ul>
    </>
  );
}

/** The customer's details as fields, extra fields after the known ones. */
export function CustomerFacts(props: { customer: Customer | null }) {
  const { customer } = props;
  if (!customer) return <p class="muted">No customer details.</p>;
  return (
    <dl class="facts">
      {(
        [
          ['Name', customer.name],
          ['Email', customer.email],
          ['Phone', customer.phone],
          ['Notes', customer.notes],
        ] as const
      )
        .filter(([, value]) => value)
        .map(([field, value]) => (
          <>
            <dt>{field}</dt>
            <dd>{value}</dd>
          </>
        ))}
      {Object.entries(customer.extra ?? {}).map(([k, v]) => (
        <>
          <dt>{k}</dt>
          <dd>{String(v)}</dd>
        </>
      ))}
    </dl>
  );
}

/** Everything a person needs to say yes or no to one exact action. */
export function ApprovalDetail(props: {
  card: ApprovalCard;
  viewer: Person;
  csrf: string;
  now: number;
  /** The viewer's own zone, when known: times are also shown in it. */
  viewerZone?: string | undefined;
}) {
  const { approval, summary, status, requester } = props.card;
  const durationText = duration(instant(summary.endUtc) - instant(summary.startUtc));
  const customer = summary.customer;
  // A stale approval can still be denied (the agent then stops asking); approving it would do nothing.
  const decidable = status === 'PENDING' && mayApprove(props.viewer);
  const zone = summary.calendars[0]?.timeZone ?? 'UTC';
  return (
    <>
      <h1>
        {summary.action} <span id="reference">{summary.reference}</span> <Status status={status} />
      </h1>
      {status === 'EXPIRED' && approval.decidedAt === null ? (
        <p class="notice" id="lapsed-notice" role="status">
          <strong>Nobody decided in time</strong> — it expired at {zonedDateTime(approval.expiresAt, zone)}.
          Nothing happened; the agent must ask again if the booking is still wanted.
        </p>
      ) : status === 'EXPIRED' ? (
        <p class="notice" id="lapsed-notice" role="status">
          <strong>Approved, but not used in time</strong> — it expired at{' '}
          {zonedDateTime(approval.expiresAt, zone)} before the agent acted on it. Nothing happened.
        </p>
      ) : summary.stale ? (
        <p class="notice" id="stale" role="status">
          <strong>Changed since it was asked:</strong> {summary.stale.changes.join('; ')}. Approving it would
          do nothing; ask the agent to request approval again.
        </p>
      ) : (
        ''
      )}
      {approval.executes && isRetryable(approval, props.now) ? (
        <p class="notice" id="operation-failed" role="status">
          <strong>Approved, but it could not be done:</strong> {approval.lastFailure?.replace(/\.+$/, '')}.
          Nothing changed. Try again once that is resolved, or cancel it — the agent reads how it ended.
        </p>
      ) : (
        ''
      )}
      <section class="card" aria-labelledby="what">
        <h2 id="what">What will happen if you approve</h2>
        {approval.executes ? (
          <p id="operation-note">
            The agent asked for this as a pending operation: your approval does it at once, as you — the agent
            cannot do it without you.
          </p>
        ) : (
          ''
        )}
        <Consequences summary={summary} />
        <dl class="facts">
          {summary.movedFrom ? (
            <>
              <dt>Moves</dt>
              <dd id="moved-from">
                booking {summary.movedFrom.reference} away from{' '}
                {summary.movedFrom.calendars.map((c) => (
                  <span>
                    {c.name}:{' '}
                    <When
                      start={summary.movedFrom!.startUtc}
                      end={summary.movedFrom!.endUtc}
                      timeZone={c.timeZone}
                      viewerZone={props.viewerZone}
                    />{' '}
                  </span>
                ))}
                — that booking is cancelled when the new time is confirmed.
              </dd>
            </>
          ) : (
            ''
          )}
          {summary.calendars.map((c) => (
            <>
              <dt>{c.name}</dt>
              <dd>
                {summary.occurrences || summary.changes ? (
                  summary.changes ? (
                    'see each change below'
                  ) : (
                    'on each date below'
                  )
                ) : (
                  <When
                    start={summary.startUtc}
                    end={summary.endUtc}
                    timeZone={c.timeZone}
                    viewerZone={props.viewerZone}
                  />
                )}
              </dd>
            </>
          ))}
          {summary.changes ? (
            <>
              <dt>Every change</dt>
              <dd>
                <ol id="changes">
                  {summary.changes.map((line) => (
                    <li>{line}</li>
                  ))}
                </ol>
              </dd>
            </>
          ) : (
            ''
          )}
          {summary.occurrences ? (
            <>
              <dt>Every date</dt>
              <dd>
                <ol id="occurrences">
                  {summary.occurrences.map((o) => (
                    <li>
                      {o.when} <span class="muted small">({o.reference})</span>
                    </li>
                  ))}
                </ol>
              </dd>
            </>
          ) : summary.changes ? (
            ''
          ) : (
            <>
              <dt>Duration</dt>
              <dd>{durationText}</dd>
            </>
          )}
          <dt>Booking version</dt>
          <dd>
            <span id="version">{summary.version}</span>{' '}
            <span class="muted small">(what is approved; a change to the booking makes this stale)</span>
          </dd>
          <dt>Label</dt>
          <dd>{summary.label ?? <span class="muted">none</span>}</dd>
          <dt>Price</dt>
          <dd id="payment">{summary.amount ? `${summary.amount} ${summary.currency}` : 'free'}</dd>
        </dl>
      </section>
      {summary.changes ? (
        // Each change names its own customer.
        ''
      ) : (
        <section class="card" aria-labelledby="customer">
          <h2 id="customer">Customer</h2>
          <CustomerFacts customer={customer} />
        </section>
      )}
      <section class="card" aria-labelledby="who">
        <h2 id="who">Who asks</h2>
        <dl class="facts">
          <dt>Person</dt>
          <dd>{requester.email ?? approval.subject}</dd>
          <dt>Through</dt>
          <dd id="asker">{requester.asker}</dd>
          {approval.requesterNote ? (
            <>
              <dt>The agent’s note (its own words, not checked)</dt>
              <dd id="requester-note">{approval.requesterNote}</dd>
            </>
          ) : (
            ''
          )}

          <dt>{status === 'PENDING' || status === 'APPROVED' ? 'Expires' : 'Expired'}</dt>
          <dd>
            <time datetime={new Date(approval.expiresAt).toISOString()} data-countdown={status === 'PENDING'}>
              at {zonedDateTime(approval.expiresAt, zone)}
            </time>
          </dd>
          {approval.decidedBy ? (
            <>
              <dt>Decided by</dt>
              <dd id="decider">{props.card.decider}</dd>
            </>
          ) : (
            ''
          )}
        </dl>
        <details id="ids">
          <summary>Ids and hash</summary>
          <dl class="facts small">
            <dt>Approval</dt>
            <dd>
              <code id="approval-id">{approval.id}</code>{' '}
              <button type="button" data-copy="approval-id" hidden>
                Copy
              </button>
            </dd>
            <dt>Connection</dt>
            <dd>
              <code>{requester.connection}</code>
            </dd>
            {approval.decidedBy ? (
              <>
                <dt>Decision record</dt>
                <dd>
                  <code>{approval.decidedBy}</code>
                </dd>
              </>
            ) : (
              ''
            )}
            <dt>Intent hash</dt>
            <dd>
              <code id="intent-hash">{approval.intentHash}</code>{' '}
              <button type="button" data-copy="intent-hash" hidden>
                Copy
              </button>
            </dd>
          </dl>
        </details>
      </section>
      {decidable ? (
        <form method="post" action={`/console/approvals/${approval.id}`} class="actions">
          <input type="hidden" name="csrf" value={props.csrf} />
          {summary.stale ? (
            ''
          ) : (
            <button class="primary" name="decision" value="approve" type="submit">
              Approve
            </button>
          )}
          <button class="danger" name="decision" value="deny" type="submit">
            Deny
          </button>
        </form>
      ) : approval.executes && isRetryable(approval, props.now) && mayApprove(props.viewer) ? (
        <form method="post" action={`/console/approvals/${approval.id}`} class="actions">
          <input type="hidden" name="csrf" value={props.csrf} />
          <button class="primary" name="decision" value="retry" type="submit">
            Try again
          </button>
          <button class="danger" name="decision" value="cancel" type="submit">
            Cancel it
          </button>
        </form>
      ) : status === 'PENDING' && !mayApprove(props.viewer) ? (
        <p class="notice" id="not-allowed">
          You ({props.viewer.role}) may look, but only an owner or approver decides.
        </p>
      ) : (
        ''
      )}
      {props.viewer.id === approval.subject &&
      mayApprove(props.viewer) &&
      status !== 'DENIED' &&
      !summary.occurrences &&
      !summary.changes ? (
        <p id="always-allow">
          <a href={`/console/standing-rules/new?from=${approval.id}`}>Always allow bookings like this…</a>{' '}
          <span class="muted small">
            drafts a standing approval scoped from this one, for you to check before it applies
          </span>
        </p>
      ) : (
        ''
      )}
    </>
  );
}
