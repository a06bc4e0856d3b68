import type { Booking } from '../../../domain/booking/booking.js';
import { raw } from 'hono/html';
import type { ConversationLine, TaskCard } from '../../../app/console/inbox.js';
import type { InboxMessage } from '../../../domain/inbox/inbox.js';
import { formatInstant } from '../../../domain/time/instant.js';
import { zonedDateTime, zonedSpan } from '../../format/human-time.js';
import { Status } from './shell.js';

/** A time as the viewer reads it (mail has no calendar zone): their own zone, named. */
function When(props: { at: number; zone: string }) {
  return <time datetime={formatInstant(props.at)}>{zonedDateTime(props.at, props.zone)}</time>;
}

export function ConversationList(props: { lines: readonly ConversationLine[]; zone: string }) {
  if (props.lines.length === 0)
    return (
      <p class="muted" id="no-conversations">
        No mail yet. Mail arrives through <code>POST /api/inbox/messages</code> or{' '}
        <code>holdfast inbox import</code>.
      </p>
    );
  return (
    <ul class="queue" id="conversations">
      {props.lines.map(({ conversation, openTasks, messages }) => (
        <li class="card" data-conversation={conversation.id}>
          <h2>
            <a href={`/console/inbox/${conversation.id}`}>{conversation.subject ?? '(no subject)'}</a>
          </h2>
          <p class="small">
            {messages} message{messages === 1 ? '' : 's'} · last{' '}
            <When at={conversation.lastReceivedAt} zone={props.zone} /> ·{' '}
            {openTasks > 0 ? <strong>{openTasks} waiting for a person</strong> : 'nothing waiting'}
          </p>
        </li>
      ))}
    </ul>
  );
}

/** One mail: who, when, and its body — sanitized HTML (no script, no external reference) or its text. */
export function MessageCard(props: { message: InboxMessage; zone: string }) {
  const m = props.message;
  return (
    <article class="card mail" data-message={m.externalId}>
      <h3>{m.subject ?? '(no subject)'}</h3>
      <p class="small">
        From {m.from ?? 'unknown'}
        {m.cc.length > 0 ? ` · cc ${m.cc.join(', ')}` : ''} · <When at={m.receivedAt} zone={props.zone} /> ·
        id <code>{m.externalId}</code>
      </p>
      {m.htmlSanitized ? (
        <div class="mail-body">{raw(m.htmlSanitized)}</div>
      ) : (
        <pre class="mail-text">{m.textBody}</pre>
      )}
      {m.htmlSanitized ? (
        <details>
          <summary>Plain text</summary>
          <pre class="mail-text">{m.textBody}</pre>
        </details>
      ) : (
        ''
      )}
    </article>
  );
}

const WHAT: Record<string, string> = {
  'reservation.create': 'New reservation',
  'reservation.update': 'Change of business keys',
  'reservation.cancel': 'Cancellation',
  'group.block': 'Group block',
  information: 'Information',
};

/** What confirming does, in words, before anyone presses the button. */
function consequence(card: TaskCard): string {
  const { detail, task } = card;
  if (task.kind === 'adapter_contract_error')
    return 'The agent’s result could not be taken as it is; reject it.';
  if (detail.eventType === 'reservation.create' && detail.booking)
    return 'Confirming holds this time as you and asks for an approval; after it, complete the booking.';
  if (detail.eventType === 'reservation.cancel')
    return 'Confirming cancels the booking (or releases its hold) now.';
  if (detail.eventType === 'reservation.update' && detail.booking)
    return 'Confirming gives the booking it acts on these keys.';
  return 'Confirming records that a person has seen to it; nothing else changes.';
}

type Calendars = ReadonlyMap<string, { name: string; timeZone: string }>;

/** "Sat 5 Dec 2026, 14:00–15:00 (Europe/Berlin) · Harbour room"; the agent's text where it is no instant. */
function BookingWhen(props: { booking: NonNullable<TaskCard['detail']['booking']>; calendars: Calendars }) {
  const b = props.booking;
  const calendar = props.calendars.get(b.calendarId);
  const start = Date.parse(b.start);
  const end = Date.parse(b.end);
  const zone = calendar?.timeZone ?? 'UTC';
  return (
    <>
      {Number.isFinite(start) && Number.isFinite(end) && end > start ? (
        <time datetime={b.start}>{zonedSpan(start, end, zone)}</time>
      ) : (
        `${b.start} to ${b.end}`
      )}
      {' · '}
      {calendar ? calendar.name : <span class="bad">unknown calendar {b.calendarId}</span>}
    </>
  );
}

type Keys = {
  confirmationNumber?: string | null;
  groupCode?: string | null;
  externalReservationNumber?: string | null;
};
const keyWords = (k: Keys) =>
  [
    k.confirmationNumber && `confirmation ${k.confirmationNumber}`,
    k.externalReservationNumber && `reservation ${k.externalReservationNumber}`,
    k.groupCode && `group ${k.groupCode}`,
  ]
    .filter(Boolean)
    .join(' · ');

/** The booking a change or cancellation acts on, as it is now: what confirming will touch. */
function TargetFacts(props: { booking: Booking; calendars: Calendars }) {
  const b = props.booking;
  const calendar = props.calendars.get(b.calendarIds[0] ?? '');
  const zone = calendar?.timeZone ?? 'UTC';
  return (
    <>
      <dt>Acts on</dt>
      <dd data-target={b.id}>
        <a href={`/console/bookings/${encodeURIComponent(b.id)}`}>{b.reference}</a>{' '}
        <Status status={b.status} />{' '}
        <time datetime={formatInstant(b.start)}>{zonedSpan(b.start, b.end, zone)}</time>
        {calendar ? ` · ${calendar.name}` : ''}
        {b.customer?.name ? ` · ${b.customer.name}` : ''}
        {keyWords(b.externalKeys) ? ` · now ${keyWords(b.externalKeys)}` : ''}
      </dd>
    </>
  );
}

function Facts(props: { card: TaskCard; calendars: Calendars; bookings: ReadonlyMap<string, Booking> }) {
  const { detail, task } = props.card;
  const target = task.objectId?.startsWith('ORDER:') ? props.bookings.get(task.objectId.slice(6)) : undefined;
  const creates = detail.eventType === 'reservation.create';
  const b = creates ? detail.booking : null;
  const sets =
    detail.eventType === 'reservation.update' && detail.booking
      ? keyWords({
          confirmationNumber: detail.booking.confirmationNumber,
          groupCode: detail.booking.groupCode,
          externalReservationNumber: detail.booking.reservationNo,
        })
      : '';
  const keys = [
    detail.caseKeys.confirmationNumber && `confirmation ${detail.caseKeys.confirmationNumber}`,
    detail.caseKeys.reservationNo && `reservation ${detail.caseKeys.reservationNo}`,
    detail.caseKeys.groupCode && `group ${detail.caseKeys.groupCode}`,
  ].filter(Boolean);
  return (
    <dl class="facts">
      {detail.summary ? (
        <>
          <dt>Summary</dt>
          <dd>{detail.summary}</dd>
        </>
      ) : (
        ''
      )}
      {keys.length > 0 ? (
        <>
          <dt>Keys</dt>
          <dd>{keys.join(' · ')}</dd>
        </>
      ) : (
        ''
      )}
      {target && !creates ? <TargetFacts booking={target} calendars={props.calendars} /> : ''}
      {sets ? (
        <>
          <dt>Sets keys</dt>
          <dd>{sets}</dd>
        </>
      ) : (
        ''
      )}
      {b ? (
        <>
          <dt>New booking</dt>
          <dd>
            <BookingWhen booking={b} calendars={props.calendars} />
            {b.customer && typeof b.customer.name === 'string' ? ` · for ${b.customer.name}` : ''}
          </dd>
        </>
      ) : (
        ''
      )}
      {detail.manualReviewReason ? (
        <>
          <dt>Needs review</dt>
          <dd>{detail.manualReviewReason}</dd>
        </>
      ) : (
        ''
      )}
      {props.card.task.detail.problem ? (
        <>
          <dt>Problem</dt>
          <dd>{String(props.card.task.detail.problem)}</dd>
        </>
      ) : (
        ''
      )}
    </dl>
  );
}

/** A task with the actions its status allows, for people who may decide. */
export function TaskCardView(props: {
  card: TaskCard;
  csrf: string;
  mayDecide: boolean;
  calendars: Calendars;
  bookings: ReadonlyMap<string, Booking>;
  /** The viewer's zone, for when things happened. */
  zone: string;
}) {
  const { task, detail, message } = props.card;
  const act = (action: string, words: string, kind: string) => (
    <button
      type="submit"
      name="action"
      value={action}
      class={kind}
      aria-label={`${words}: task ${task.sourceEventIndex}`}
    >
      {words}
    </button>
  );
  const open = task.status === 'PENDING_CONFIRMATION' || task.status === 'CONTRACT_ERROR';
  return (
    <li class="card" id={`task-${task.id}`} data-task={task.id} data-status={task.status}>
      <h3>
        #{task.sourceEventIndex} {WHAT[detail.eventType ?? ''] ?? task.taskType ?? detail.eventType ?? 'Task'}{' '}
        <Status status={task.status} />
      </h3>
      <p class="small">
        {task.resultType.replace(/_/g, ' ')} · from <code>{message?.externalId ?? '?'}</code>
        {task.objectId?.startsWith('ORDER:') ? (
          <>
            {' '}
            · <a href={`/console/bookings/${encodeURIComponent(task.objectId.slice(6))}`}>the booking</a>
          </>
        ) : (
          ''
        )}
        {task.approvalId && task.status === 'AWAITING_APPROVAL' ? (
          <>
            {' '}
            · <a href={`/console/approvals/${encodeURIComponent(task.approvalId)}`}>its approval</a>
          </>
        ) : (
          ''
        )}
      </p>
      <Facts card={props.card} calendars={props.calendars} bookings={props.bookings} />
      {props.mayDecide && (open || task.status === 'AWAITING_APPROVAL') ? (
        <form method="post" action={`/console/inbox/tasks/${task.id}`} class="actions">
          <p class="small">
            {task.status === 'AWAITING_APPROVAL'
              ? 'Once the approval says yes, complete the booking.'
              : consequence(props.card)}
          </p>
          <input type="hidden" name="csrf" value={props.csrf} />
          <input type="hidden" name="version" value={String(task.version)} />
          {task.status === 'PENDING_CONFIRMATION' ? act('confirm', 'Confirm', 'primary') : ''}
          {task.status === 'AWAITING_APPROVAL' ? act('complete', 'Complete booking', 'primary') : ''}
          {act('reject', 'Reject', 'danger')}
        </form>
      ) : (
        ''
      )}
      {task.decidedAt ? (
        <p class="small muted">
          Decided <When at={task.decidedAt} zone={props.zone} />
          {task.note ? `: ${task.note}` : ''}
        </p>
      ) : (
        ''
      )}
    </li>
  );
}
