import type { CalendarsOverview } from '../../../app/console/calendars.js';
import type { SignedIn } from '../../../app/identity/sessions.js';
import type { Weekday } from '../../../domain/availability/availability.js';
import { localSpan } from '../../format/human-time.js';
import { AddRange, DetailsFields, FormKeys, ProblemNote, WeekFields } from './calendar-editors.js';
import type { DetailsDraft, Problem, WeekDraft } from './calendar-forms.js';
import { dateInWords, overridesWithin, priceInWords, weekRuns, windowsInWords } from './calendar-words.js';
import { Shell } from './shell.js';

/** The calendars list and the new-calendar form. */

export function CalendarsPage(props: { signed: SignedIn; overview: CalendarsOverview }) {
  const { rows, total, page, pageSize, mayEdit } = props.overview;
  const pages = Math.max(1, Math.ceil(total / pageSize));
  return (
    <Shell title="Calendars" signed={props.signed} section="/console/calendars">
      <div class="cal-title-row">
        <h1>Calendars</h1>
        {mayEdit ? (
          <a class="button primary" href="/console/calendars/new">
            New calendar
          </a>
        ) : (
          ''
        )}
      </div>
      {total === 0 ? (
        <p class="muted" id="no-calendars">
          No calendars yet.{' '}
          {mayEdit ? <a href="/console/calendars/new">Create the first one.</a> : 'An owner creates them.'}
        </p>
      ) : rows.length === 0 ? (
        <p class="muted">
          No calendars on this page. <a href="/console/calendars">Back to the first page.</a>
        </p>
      ) : (
        <div class="table-wrap">
          <table id="calendars" aria-label="Calendars">
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Time zone</th>
                <th scope="col">Price</th>
                <th scope="col">Hours this week</th>
                <th scope="col">Next open slots (1 h)</th>
              </tr>
            </thead>
            <tbody>
              {rows.map(({ calendar, today, nextSlots }) => (
                <tr data-calendar={calendar.id}>
                  <td>
                    <a href={`/console/calendars/${calendar.id}`}>{calendar.name}</a>
                  </td>
                  <td data-label="Time zone">{calendar.timeZone}</td>
                  <td data-label="Price">{priceInWords(calendar.price)}</td>
                  <td data-label="Hours this week">
                    <ul class="cal-plain">
                      {weekRuns(calendar.availability.weekly).map((run) => (
                        <li>{run}</li>
                      ))}
                      {overridesWithin(calendar.availability.overrides, today, 7).map((o) => (
                        <li class="small">
                          {dateInWords(o.date)}: {windowsInWords(o.windows)}
                        </li>
                      ))}
                    </ul>
                  </td>
                  <td data-label="Next open slots">
                    {nextSlots.length === 0 ? (
                      <span class="muted">none in the next two weeks</span>
                    ) : (
                      <ul class="cal-plain">
                        {nextSlots.map((s) => (
                          <li>{localSpan(s.start, s.end, calendar.timeZone)}</li>
                        ))}
                      </ul>
                    )}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {pages > 1 ? (
        <nav class="pager" aria-label="Pages of calendars">
          {page > 1 ? <a href={`/console/calendars?page=${page - 1}`}>← Previous</a> : ''}
          <span>
            Page {page} of {pages} ({total} calendars)
          </span>
          {page < pages ? <a href={`/console/calendars?page=${page + 1}`}>Next →</a> : ''}
        </nav>
      ) : (
        ''
      )}
    </Shell>
  );
}

export interface NewCalendarForm {
  readonly details: DetailsDraft;
  readonly week: WeekDraft;
  readonly extraDay?: Weekday | undefined;
  readonly problem?: Problem | undefined;
}

export function NewCalendarPage(props: {
  signed: SignedIn;
  csrf: string;
  idempotencyKey: string;
  form: NewCalendarForm;
}) {
  const { form } = props;
  return (
    <Shell title="New calendar" signed={props.signed} section="/console/calendars">
      <p>
        <a href="/console/calendars">← All calendars</a>
      </p>
      <h1>New calendar</h1>
      <form method="post" action="/console/calendars/new" class="card" aria-labelledby="new-title">
        <h2 id="new-title">What agents will book</h2>
        <ProblemNote problem={form.problem} />
        <FormKeys csrf={props.csrf} idempotencyKey={props.idempotencyKey} />
        <DetailsFields draft={form.details} problem={form.problem} />
        <h3 id="new-week-title">Weekly hours</h3>
        <WeekFields draft={form.week} extraDay={form.extraDay} problem={form.problem} />
        <div class="actions">
          <button class="primary" type="submit" name="do" value="save">
            Create calendar
          </button>
        </div>
        <AddRange />
      </form>
    </Shell>
  );
}

/** A person who may look but not change calendars, on a page only owners use. */
export function OwnersOnlyPage(props: { signed: SignedIn }) {
  return (
    <Shell title="New calendar" signed={props.signed} section="/console/calendars">
      <h1>New calendar</h1>
      <p class="notice" id="not-allowed">
        Only an owner creates calendars. You ({props.signed.person.role}) may look at them on{' '}
        <a href="/console/calendars">Calendars</a>.
      </p>
    </Shell>
  );
}
