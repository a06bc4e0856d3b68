import { STATUS_WORDS } from './shell.js';
import type { BookingLine } from '../../../app/console/bookings.js';
import type { Calendar } from '../../../domain/calendar.js';
import { bookingStatuses } from '../../../domain/booking/booking.js';
import { clockSpan, localDay } from '../../format/human-time.js';
import type { BookingFilterForm, ParsedFilter } from './booking-filter.js';
import { BookingItem } from './booking-views.js';
import { Status } from './shell.js';

export type BookingsView = 'agenda' | 'week' | 'reconcile';

/** Agenda, week and reconciliation as tabs (plain links: each is its own page). */
export function BookingTabs(props: { current: BookingsView; query: string; toReconcile: number }) {
  const tab = (view: BookingsView, href: string, name: string) => (
    <li>
      <a href={href} aria-current={props.current === view ? 'page' : undefined}>
        {name}
      </a>
    </li>
  );
  return (
    <nav class="tabs" aria-label="Booking views">
      <ul>
        {tab('agenda', `/console/bookings${props.query}`, 'Agenda')}
        {tab('week', `/console/bookings/week${props.query}`, 'Week')}
        {tab('reconcile', '/console/bookings/reconcile', `Needs reconciling (${props.toReconcile})`)}
      </ul>
    </nav>
  );
}

/** The filter form (GET: it works without script and its address can be shared). */
export function FilterForm(props: {
  action: string;
  parsed: ParsedFilter;
  calendars: readonly Calendar[];
  zone: string;
  /** The week view picks its own dates. */
  dates: boolean;
  week?: string;
}) {
  const { form, problem } = props.parsed;
  const invalid = (field: keyof BookingFilterForm) =>
    problem?.field === field ? { 'aria-invalid': 'true', 'aria-describedby': 'filter-problem' } : {};
  return (
    <form method="get" action={props.action} class="filters" aria-label="Filter bookings">
      <div>
        <label for="f-calendar">Calendar</label>
        <select id="f-calendar" name="calendar">
          <option value="">All calendars</option>
          {props.calendars.map((c) => (
            <option value={c.id} selected={form.calendar === c.id}>
              {c.name}
            </option>
          ))}
        </select>
      </div>
      <div>
        <label for="f-status">Status</label>
        <select id="f-status" name="status" {...invalid('status')}>
          <option value="">Any status</option>
          {bookingStatuses.map((s) => (
            <option value={s} selected={form.status === s}>
              {STATUS_WORDS[s]}
            </option>
          ))}
        </select>
      </div>
      {props.dates ? (
        <>
          <div>
            <label for="f-from">From (date)</label>
            <input id="f-from" name="from" type="date" value={form.from} {...invalid('from')} />
          </div>
          <div>
            <label for="f-to">To (date, included)</label>
            <input id="f-to" name="to" type="date" value={form.to} {...invalid('to')} />
          </div>
        </>
      ) : (
        <div>
          <label for="f-week">Week of</label>
          <input id="f-week" name="week" type="date" value={props.week ?? ''} />
        </div>
      )}
      <div>
        <label for="f-customer">Customer name or email</label>
        <input id="f-customer" name="customer" type="text" value={form.customer} maxlength={100} />
      </div>
      <div class="filter-actions">
        <button type="submit">Show</button>
        <p class="muted small">Dates are days in {props.zone}.</p>
      </div>
      {problem ? (
        <p class="notice" id="filter-problem" role="alert">
          {problem.message}
        </p>
      ) : (
        ''
      )}
    </form>
  );
}

/** Bookings in start order, one card each. */
export function BookingList(props: { lines: readonly BookingLine[]; empty: string }) {
  if (props.lines.length === 0)
    return (
      <p class="muted" id="no-bookings">
        {props.empty}
      </p>
    );
  return (
    <ul class="queue" id="bookings">
      {props.lines.map((line) => (
        <BookingItem line={line} />
      ))}
    </ul>
  );
}

export interface WeekDay {
  /** The day's first instant in the zone. */
  readonly start: number;
  readonly lines: readonly BookingLine[];
}

/** Seven days side by side (stacked on a narrow screen), each booking at its local time in `zone`. */
export function WeekGrid(props: { days: readonly WeekDay[]; zone: string }) {
  return (
    <ol class="week" aria-label={`Week in ${props.zone}`}>
      {props.days.map((day) => (
        <li class="day">
          <h2 class="day-name">{localDay(day.start, props.zone)}</h2>
          {day.lines.length === 0 ? (
            <p class="muted small">Nothing booked</p>
          ) : (
            <ul>
              {day.lines.map((line) => (
                <li class={`slot ${line.status.toLowerCase()}`} data-booking={line.booking.id}>
                  <a href={`/console/bookings/${line.booking.id}`}>
                    {clockSpan(line.booking.start, line.booking.end, props.zone)}
                  </a>{' '}
                  <Status status={line.status} />
                  <br />
                  <span class="small">
                    {line.calendars.map((c) => c.name).join(', ')}
                    {line.booking.customer?.name ? ` · ${line.booking.customer.name}` : ''}
                  </span>
                </li>
              ))}
            </ul>
          )}
        </li>
      ))}
    </ol>
  );
}
