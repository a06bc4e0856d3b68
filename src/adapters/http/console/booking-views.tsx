import type { BookingLine } from '../../../app/console/bookings.js';
import { duration, zonedDateTime, zonedSpan } from '../../format/human-time.js';
import { formatUtc } from '../../../domain/time/zone.js';
import { Status } from './shell.js';

/** "Thu 3 Dec 2026, 09:00–10:00 (Shanghai)": in the first calendar's zone, named. */
export function BookingTime(props: { line: BookingLine }) {
  const { booking, calendars } = props.line;
  const zone = calendars[0]?.timeZone ?? 'UTC';
  return <time datetime={formatUtc(booking.start)}>{zonedSpan(booking.start, booking.end, zone)}</time>;
}

const calendarNames = (line: BookingLine) =>
  line.calendars.map((c) => c.name).join(', ') || '(calendar removed)';

/** One booking in a list: reference, status in words, when, where, for whom. */
export function BookingItem(props: { line: BookingLine }) {
  const { booking, status } = props.line;
  return (
    <li class="card" data-booking={booking.id}>
      <h2 class="item">
        <a href={`/console/bookings/${booking.id}`}>{booking.reference}</a> <Status status={status} />
      </h2>
      <p class="small">
        <BookingTime line={props.line} />
      </p>
      <p class="muted small">
        {calendarNames(props.line)}
        {booking.customer?.name ? ` · ${booking.customer.name}` : ''}
        {booking.label ? ` · ${booking.label}` : ''}
        {booking.price ? ` · ${booking.price.amount} ${booking.price.currency}` : ''}
      </p>
    </li>
  );
}

/** The facts of one booking: status, time in each calendar's zone then the viewer's, length, price and payment. */
export function BookingFacts(props: { line: BookingLine; viewerZone?: string }) {
  const { booking, status, calendars } = props.line;
  const zone = calendars[0]?.timeZone ?? 'UTC';
  return (
    <dl class="facts">
      <dt>Status</dt>
      <dd>
        <Status status={status} /> (version {booking.version})
      </dd>
      {calendars.map((c) => (
        <>
          <dt>{c.name}</dt>
          <dd>
            <time datetime={formatUtc(booking.start)}>
              {zonedSpan(booking.start, booking.end, c.timeZone)}
            </time>
          </dd>
        </>
      ))}
      {props.viewerZone && calendars.every((c) => c.timeZone !== props.viewerZone) ? (
        <>
          <dt>Your time</dt>
          <dd>{zonedSpan(booking.start, booking.end, props.viewerZone)}</dd>
        </>
      ) : (
        ''
      )}
      <dt>Duration</dt>
      <dd>{duration(booking.end - booking.start)}</dd>
      <dt>Label</dt>
      <dd>{booking.label ?? <span class="muted">none</span>}</dd>
      <dt>Price</dt>
      <dd>{booking.price ? `${booking.price.amount} ${booking.price.currency}` : 'none'}</dd>
      {booking.payment ? (
        <>
          <dt>Payment</dt>
          <dd>
            {booking.payment.status.toLowerCase()}
            {booking.payment.reconciliationRequired ? ' — paid after the hold lapsed: needs reconciling' : ''}
          </dd>
          {booking.payment.refund ? (
            <>
              <dt>Money back</dt>
              <dd id="refund">
                {booking.payment.refund.status === 'DUE' ? (
                  <>
                    <strong>
                      {booking.payment.refund.amount} {booking.payment.refund.currency} owed back
                    </strong>{' '}
                    to the customer since the cancellation —{' '}
                    <a href="/console/payments">settle it under Payments</a>
                  </>
                ) : (
                  `${booking.payment.refund.amount} ${booking.payment.refund.currency} returned${
                    booking.payment.refund.returnedAt
                      ? ` ${zonedDateTime(booking.payment.refund.returnedAt, zone)}`
                      : ''
                  }${booking.payment.refund.returnedBy ? ` by ${booking.payment.refund.returnedBy}` : ''}${
                    booking.payment.refund.providerReference
                      ? ` (provider reference ${booking.payment.refund.providerReference})`
                      : ''
                  }`
                )}
              </dd>
            </>
          ) : (
            ''
          )}
        </>
      ) : (
        ''
      )}
      {status === 'HELD' && booking.expiresAt !== null ? (
        <>
          <dt>Hold lapses</dt>
          <dd>
            <time datetime={formatUtc(booking.expiresAt)} data-countdown>
              at {zonedDateTime(booking.expiresAt, zone)}
            </time>
          </dd>
        </>
      ) : (
        ''
      )}
    </dl>
  );
}
