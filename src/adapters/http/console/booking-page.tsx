import type { IssuedReceipt } from '../../../app/booking/receipts.js';
import type { BookingDetail, BookingHistoryEntry } from '../../../app/console/bookings.js';
import { describeReceipt } from '../../../domain/booking/receipt.js';
import type { Person } from '../../../domain/identity/identity.js';
import { mayApprove } from '../../../domain/identity/identity.js';
import { formatUtc } from '../../../domain/time/zone.js';
import { localDateTime, zonedDateTime, zonedSpan, zoneLabel } from '../../format/human-time.js';
import { CustomerFacts } from './approval-views.js';
import { BookingFacts } from './booking-views.js';
import { Status } from './shell.js';

/** What a person may do to the booking now: cancel a confirmed one, release a live hold. */
const KEY_FIELDS = [
  ['confirmationNumber', 'Confirmation number'],
  ['groupCode', 'Group code'],
  ['externalReservationNumber', 'External reservation number'],
] as const;

/** The keys a hotel's other systems know the booking by; owners and approvers edit them while it is live. */
function BusinessKeys(props: { detail: BookingDetail; viewer: Person; csrf: string }) {
  const { booking, status } = props.detail;
  const editable = mayApprove(props.viewer) && (status === 'HELD' || status === 'CONFIRMED');
  return (
    <section class="card" aria-labelledby="keys">
      <h2 id="keys">Business keys</h2>
      {editable ? (
        <form method="post" action={`/console/bookings/${booking.id}/keys`} class="stack">
          <input type="hidden" name="csrf" value={props.csrf} />
          <input type="hidden" name="version" value={String(booking.version)} />
          {KEY_FIELDS.map(([field, label]) => (
            <p>
              <label for={`key-${field}`}>{label}</label>
              <input
                id={`key-${field}`}
                name={field}
                value={booking.externalKeys[field] ?? ''}
                maxlength={64}
              />
            </p>
          ))}
          <button type="submit">Save keys</button>
        </form>
      ) : (
        <dl class="facts" id="business-keys">
          {KEY_FIELDS.map(([field, label]) => (
            <>
              <dt>{label}</dt>
              <dd>{booking.externalKeys[field] ?? '—'}</dd>
            </>
          ))}
        </dl>
      )}
    </section>
  );
}

function Actions(props: { detail: BookingDetail; viewer: Person; csrf: string }) {
  const { booking, status } = props.detail;
  const action = status === 'CONFIRMED' ? 'cancel' : status === 'HELD' ? 'release' : null;
  if (!action) return <></>;
  if (!mayApprove(props.viewer))
    return (
      <p class="notice" id="not-allowed">
        You ({props.viewer.role}) may look; only an owner or approver cancels bookings or releases holds.
      </p>
    );
  return (
    <form method="post" action={`/console/bookings/${booking.id}`} class="actions">
      <input type="hidden" name="csrf" value={props.csrf} />
      <input type="hidden" name="version" value={String(booking.version)} />
      <button class="danger" name="action" value={action} type="submit">
        {action === 'cancel' ? 'Cancel this booking' : 'Release this hold'}
      </button>
      <p class="muted small">
        {action === 'cancel'
          ? 'The time becomes free at once and the agent sees the booking cancelled.'
          : 'The time becomes free at once; the agent can no longer confirm it.'}
      </p>
    </form>
  );
}

/** A series occurrence: every date of its series, this one marked, each with its status. */
function SeriesList(props: { detail: BookingDetail; zone: string }) {
  const series = props.detail.series!;
  return (
    <section class="card" aria-labelledby="series">
      <h2 id="series">One of {series.length} dates of a series</h2>
      <p class="small">
        Held, approved and paid together; each date can be cancelled or moved on its own, or from one date on.
      </p>
      <ol id="series-dates">
        {series.map((o) => (
          <li>
            {o.id === props.detail.booking.id ? (
              <strong>{zonedSpan(o.start, o.end, props.zone)} (this one)</strong>
            ) : (
              <a href={`/console/bookings/${o.id}`}>{zonedSpan(o.start, o.end, props.zone)}</a>
            )}{' '}
            <Status status={o.status} />
          </li>
        ))}
      </ol>
    </section>
  );
}

/** Owners only: the customer's details erased everywhere, in words before the button. */
function EraseCustomer(props: { detail: BookingDetail; viewer: Person; csrf: string }) {
  const { booking } = props.detail;
  const customer = booking.customer;
  if (!customer || props.viewer.role !== 'owner') return <></>;
  const who = customer.name ?? customer.email ?? customer.phone ?? 'this customer';
  const scope = customer.email
    ? `every booking that names ${customer.email}`
    : customer.phone
      ? `every booking that names ${customer.phone}`
      : 'this booking';
  return (
    <form
      method="post"
      action={`/console/bookings/${booking.id}/erase-customer`}
      class="stack"
      id="erase-customer"
    >
      <input type="hidden" name="csrf" value={props.csrf} />
      <p class="small">
        Erasing destroys {who}'s details — name, e-mail, phone and notes — in {scope}, for good. The bookings,
        their times, money and history stay; agents see the customer as erased. This cannot be undone.
      </p>
      <button class="danger" name="confirm" value="erase" type="submit">
        Erase {who}'s details
      </button>
    </form>
  );
}

/**
 * Events added to the connected calendar over this booking: the booking stands (Holdfast does
 * not move or cancel it on its own); a person decides, and sees what clashes, when, in its zone.
 */
function Overlaps(props: { detail: BookingDetail; zone: string }) {
  if (props.detail.overlaps.length === 0) return <></>;
  return (
    <section class="card warning" aria-labelledby="overlaps" id="calendar-overlaps">
      <h2 id="overlaps">Clashes in the connected calendar</h2>
      <p>
        {props.detail.overlaps.length === 1 ? 'An event was' : `${props.detail.overlaps.length} events were`}{' '}
        added to the calendar this one syncs with, over this booking. The booking still stands and the
        customer has not been told; move or cancel it here, or move the event there.
      </p>
      <ul>
        {props.detail.overlaps.map((o) => (
          <li data-overlap>
            <strong>{o.summary ?? 'An event without a title'}</strong>,{' '}
            {zonedSpan(o.start, o.end, props.zone)}
          </li>
        ))}
      </ul>
    </section>
  );
}

/** The signed receipt: what it attests in words, the file to keep, and how anyone checks it. */
function Receipt(props: { receipt: IssuedReceipt; keys: string }) {
  const { receipt } = props;
  return (
    <section class="card" aria-labelledby="receipt">
      <h2 id="receipt">Signed receipt</h2>
      <p class="small">
        Holdfast signed what this confirmation was: anyone can check this file against the published keys,
        without access to this server's database.
      </p>
      <ul id="receipt-facts" class="small">
        {describeReceipt(receipt.claims).map((line) => (
          <li>{line}</li>
        ))}
      </ul>
      <p>
        <a href={`/console/bookings/${receipt.bookingId}/receipt.jws`} download>
          Download the receipt
        </a>{' '}
        <span class="muted small">(signed with key {receipt.kid})</span>
      </p>
      <p class="muted small">
        Check it: <code class="wrap">holdfast receipts verify receipt.jws --jwks {props.keys}</code>
      </p>
    </section>
  );
}

/** One booking: its facts, customer, who made it, what may be done, and its whole trail. */
export function BookingPage(props: {
  detail: BookingDetail;
  /** Null: the viewer may not read it. */
  history: readonly BookingHistoryEntry[] | null;
  viewer: Person;
  /** Where the viewer is, when they or their browser said. */
  viewerZone?: string;
  csrf: string;
  message: string;
  receipt: IssuedReceipt | null;
  /** Where anyone can fetch the keys that verify it. */
  receiptKeys: string;
}) {
  const { detail } = props;
  const { booking } = detail;
  const zone = detail.calendars[0]?.timeZone ?? 'UTC';
  return (
    <>
      <p>
        <a href="/console/bookings">← All bookings</a>
      </p>
      {props.message ? (
        <p class="notice" id="result" role="status">
          {props.message}
        </p>
      ) : (
        ''
      )}
      <h1>
        Booking <span id="reference">{booking.reference}</span> <Status status={detail.status} />
      </h1>
      <section class="card" aria-labelledby="facts">
        <h2 id="facts">When and where</h2>
        <BookingFacts line={detail} viewerZone={props.viewerZone} />
      </section>
      <Overlaps detail={detail} zone={zone} />
      {detail.series ? <SeriesList detail={detail} zone={zone} /> : ''}
      <section class="card" aria-labelledby="customer">
        <h2 id="customer">Customer</h2>
        {booking.customerErased ? (
          <p id="customer-erased">
            The customer's details were erased (on request, or by this workspace's retention). They cannot be
            read again; the booking, its time, money and history stay.
          </p>
        ) : (
          <>
            <CustomerFacts customer={booking.customer} />
            <EraseCustomer detail={detail} viewer={props.viewer} csrf={props.csrf} />
          </>
        )}
      </section>
      <section class="card" aria-labelledby="made-by">
        <h2 id="made-by">Made by</h2>
        <dl class="facts">
          <dt>Person</dt>
          <dd>{detail.madeBy.email ?? booking.owner.subject}</dd>
          <dt>Connection</dt>
          <dd>
            <code>{detail.madeBy.connection}</code>
          </dd>
          <dt>Created</dt>
          <dd>
            <time datetime={formatUtc(booking.createdAt)}>{zonedDateTime(booking.createdAt, zone)}</time>
          </dd>
        </dl>
      </section>
      {props.receipt ? <Receipt receipt={props.receipt} keys={props.receiptKeys} /> : ''}
      <BusinessKeys detail={detail} viewer={props.viewer} csrf={props.csrf} />
      <Actions detail={detail} viewer={props.viewer} csrf={props.csrf} />
      <section class="card" aria-labelledby="history">
        <h2 id="history">History</h2>
        {props.history === null ? (
          <p class="muted">The history is shown to owners and approvers.</p>
        ) : props.history.length === 0 ? (
          <p class="muted">Nothing recorded yet (the trail is sealed a moment after each call).</p>
        ) : (
          <div class="table-wrap">
            <table>
              <thead>
                <tr>
                  <th scope="col">When ({zoneLabel(zone)})</th>
                  <th scope="col">What happened</th>
                  <th scope="col">By</th>
                </tr>
              </thead>
              <tbody>
                {props.history.map((entry) => (
                  <tr data-history={entry.kind} class={`story ${entry.tone}`}>
                    <td>
                      <time datetime={formatUtc(entry.at)}>{localDateTime(entry.at, zone)}</time>
                    </td>
                    <td>{entry.words}</td>
                    <td>
                      {entry.who ?? ''}
                      {entry.via ? <span class="muted small"> via {entry.via}</span> : ''}
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
      </section>
    </>
  );
}
