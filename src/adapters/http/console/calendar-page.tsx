import type { CalendarDetail, SlotPreview } from '../../../app/console/calendars.js';
import { PREVIEW_DAYS } from '../../../app/console/calendars.js';
import type { SignedIn } from '../../../app/identity/sessions.js';
import type { Weekday } from '../../../domain/availability/availability.js';
import { weekdays } from '../../../domain/availability/availability.js';
import type { Calendar } from '../../../domain/calendar.js';
import { rulesOf } from '../../../domain/calendar.js';
import { formatInstant, MINUTE_MS } from '../../../domain/time/instant.js';
import { clockSpan, duration, localDay, zonedDateTime } from '../../format/human-time.js';
import {
  AddRange,
  DetailsFields,
  FormKeys,
  OverrideFields,
  ProblemNote,
  WeekFields,
} from './calendar-editors.js';
import type { DetailsDraft, OverrideDraft, Problem, WeekDraft } from './calendar-forms.js';
import { detailsDraftOf, weekDraftOf } from './calendar-forms.js';
import {
  DAY_NAMES,
  dateInWords,
  overridesWithin,
  priceInWords,
  weekRuns,
  windowsInWords,
} from './calendar-words.js';
import { RulesFields } from './rules-editor.js';
import type { RulesDraft } from './rules-form.js';
import { rulesDraftOf } from './rules-form.js';
import { rulesSummary } from './rules-words.js';
import { Shell } from './shell.js';

/** One calendar: what it is, the open slots agents are offered, and (for an owner) its forms. */

export type CalendarForm = 'details' | 'hours' | 'override' | 'rules';

/** What the page shows in its forms: the calendar as stored, or what was entered when a form came back. */
export interface CalendarDrafts {
  readonly details?: DetailsDraft;
  readonly week?: WeekDraft;
  readonly extraDay?: Weekday | undefined;
  readonly override?: OverrideDraft;
  readonly rules?: RulesDraft;
  /** Which form came back, and why. */
  readonly problem?: { readonly form: CalendarForm; readonly problem: Problem };
}

export const DURATIONS = [15, 30, 45, 60, 90, 120, 180, 240] as const;
export const STEPS = [15, 30, 60] as const;

function Facts(props: { calendar: Calendar; today: string }) {
  const { calendar } = props;
  const thisWeek = overridesWithin(calendar.availability.overrides, props.today, 7);
  return (
    <dl class="facts" id="facts">
      <dt>Time zone</dt>
      <dd>{calendar.timeZone}</dd>
      <dt>Price</dt>
      <dd>{priceInWords(calendar.price)}</dd>
      <dt>Weekly hours</dt>
      <dd>
        <ul class="cal-plain" id="week-words">
          {weekRuns(calendar.availability.weekly).map((run) => (
            <li>{run}</li>
          ))}
        </ul>
      </dd>
      <dt>Booking rules</dt>
      <dd id="rules-words">{rulesSummary(rulesOf(calendar))}</dd>
      <dt>This week</dt>
      <dd>
        {thisWeek.length === 0
          ? 'as every week'
          : thisWeek.map((o) => `${dateInWords(o.date)}: ${windowsInWords(o.windows)}`).join(' · ')}
      </dd>
      <dt>Created</dt>
      <dd>{zonedDateTime(calendar.createdAt, calendar.timeZone)}</dd>
    </dl>
  );
}

/** The week day by day, for those who may not change it. */
function WeekTable(props: { calendar: Calendar }) {
  return (
    <section class="card" id="hours" aria-labelledby="hours-title">
      <h2 id="hours-title">Weekly hours</h2>
      <dl class="facts">
        {weekdays.map((day) => (
          <>
            <dt>{DAY_NAMES[day]}</dt>
            <dd>{windowsInWords(props.calendar.availability.weekly[day])}</dd>
          </>
        ))}
      </dl>
    </section>
  );
}

function Preview(props: { calendar: Calendar; preview: SlotPreview }) {
  const { preview } = props;
  const zone = props.calendar.timeZone;
  const rules = rulesOf(props.calendar);
  const { durationMinutes, stepMinutes } = preview.length;
  // The lengths the calendar offers (find_slots finds nothing for another), and its own start grid when it has one.
  const lengths = rules.allowedDurationsMinutes
    ? [...rules.allowedDurationsMinutes].sort((a, b) => a - b)
    : DURATIONS;
  const slotWords = duration(durationMinutes * MINUTE_MS);
  return (
    <section class="card" id="preview" aria-labelledby="preview-title">
      <h2 id="preview-title">Open slots, next {PREVIEW_DAYS} days</h2>
      <p class="muted small">
        What an agent’s <code>find_slots</code> is offered now: the hours above in {zone}, under the booking
        rules, less bookings, holds and time already past.
      </p>
      <form
        method="get"
        action={`/console/calendars/${props.calendar.id}#preview`}
        class="cal-preview-length"
      >
        <p>
          <label for="pv-duration">Slot length</label>
          <select id="pv-duration" name="duration">
            {lengths.map((m) => (
              <option value={String(m)} selected={m === durationMinutes}>
                {duration(m * MINUTE_MS)}
              </option>
            ))}
          </select>
        </p>
        {rules.slotStepMinutes === null ? (
          <p>
            <label for="pv-step">Starting every</label>
            <select id="pv-step" name="step">
              {STEPS.map((m) => (
                <option value={String(m)} selected={m === stepMinutes}>
                  {duration(m * MINUTE_MS)}
                </option>
              ))}
            </select>
          </p>
        ) : (
          <p class="muted small" id="pv-step-rule">
            Starting every {duration(stepMinutes * MINUTE_MS)}, as the booking rules say
          </p>
        )}
        <button type="submit">Show</button>
      </form>
      <ol
        class="cal-days"
        id="slot-days"
        data-from={formatInstant(preview.from)}
        data-to={formatInstant(preview.to)}
        data-duration={String(durationMinutes)}
        data-step={String(stepMinutes)}
      >
        {preview.days.map((day, i) => (
          <li data-date={day.date}>
            <h3 class="cal-day-name">
              {i === 0 ? 'Today, ' : i === 1 ? 'Tomorrow, ' : ''}
              {localDay(day.midnight, zone)}
              {day.override ? <span class="cal-tag">date override</span> : ''}
            </h3>
            {day.slots.length > 0 ? (
              <ul class="cal-slots" aria-label={`Open slots on ${localDay(day.midnight, zone)}`}>
                {day.slots.map((s) => (
                  <li>
                    <time datetime={formatInstant(s.start)} data-slot="">
                      {clockSpan(s.start, s.end, zone)}
                    </time>
                  </li>
                ))}
              </ul>
            ) : (
              <p class="muted small cal-none">{day.open ? `no free ${slotWords} left` : 'closed'}</p>
            )}
          </li>
        ))}
      </ol>
    </section>
  );
}

function Overrides(props: {
  detail: CalendarDetail;
  csrf: (form: CalendarForm) => string;
  newKey: () => string;
  drafts: CalendarDrafts;
}) {
  const { calendar, mayEdit, preview } = props.detail;
  const today = preview.days[0]!.date;
  const action = `/console/calendars/${calendar.id}/overrides`;
  const overrides = [...calendar.availability.overrides].sort((a, b) => a.date.localeCompare(b.date));
  const problem = props.drafts.problem?.form === 'override' ? props.drafts.problem.problem : undefined;
  return (
    <section class="card" id="overrides" aria-labelledby="overrides-title">
      <h2 id="overrides-title">Date overrides</h2>
      <p class="muted small">
        A date’s own hours replace the week’s: closed for a holiday, or special hours.
      </p>
      {overrides.length === 0 ? (
        <p id="no-overrides">None.</p>
      ) : (
        <ul class="cal-overrides">
          {overrides.map((o) => (
            <li data-override={o.date}>
              <span>
                <strong>{dateInWords(o.date)}</strong>: {windowsInWords(o.windows)}
                {o.date < today ? <span class="muted small"> (past)</span> : ''}
              </span>
              {mayEdit ? (
                <form method="post" action={action}>
                  <FormKeys csrf={props.csrf('override')} idempotencyKey={props.newKey()} />
                  <input type="hidden" name="remove" value={o.date} />
                  <button class="danger" type="submit">
                    Remove<span class="cal-sr"> the override of {dateInWords(o.date)}</span>
                  </button>
                </form>
              ) : (
                ''
              )}
            </li>
          ))}
        </ul>
      )}
      {mayEdit ? (
        <form
          method="post"
          action={`${action}#overrides`}
          aria-labelledby="add-override-title"
          id="add-override"
        >
          <h3 id="add-override-title">Add a date</h3>
          <ProblemNote problem={problem} />
          <FormKeys csrf={props.csrf('override')} idempotencyKey={props.newKey()} />
          <OverrideFields
            draft={props.drafts.override ?? { date: '', kind: 'closed', ranges: [] }}
            today={today}
            problem={problem}
          />
          <div class="actions">
            <button class="primary" type="submit">
              Add date override
            </button>
          </div>
        </form>
      ) : (
        ''
      )}
    </section>
  );
}

export function CalendarPage(props: {
  signed: SignedIn;
  detail: CalendarDetail;
  /** The token of one of the page's forms: each form has its own. */
  csrf: (form: CalendarForm) => string;
  newKey: () => string;
  drafts: CalendarDrafts;
  /** What happened: a change saved, or refused outright (the forms are not shown to those who may not use them). */
  notice?: { readonly text: string; readonly good: boolean } | undefined;
}) {
  const { detail, drafts, csrf, newKey } = props;
  const { calendar, mayEdit, preview } = detail;
  const base = `/console/calendars/${calendar.id}`;
  const problemOf = (form: CalendarForm) =>
    drafts.problem?.form === form ? drafts.problem.problem : undefined;
  return (
    <Shell title={calendar.name} signed={props.signed} section="/console/calendars">
      <p>
        <a href="/console/calendars">← All calendars</a>
      </p>
      <h1 id="calendar-name">{calendar.name}</h1>
      {props.notice ? (
        <p
          class={props.notice.good ? 'notice good' : 'notice bad'}
          id="result"
          role={props.notice.good ? 'status' : 'alert'}
        >
          {props.notice.text}
        </p>
      ) : (
        ''
      )}
      {mayEdit ? (
        <nav class="cal-on-page" aria-label="On this page">
          <a href="#preview">Open slots</a> <a href="#hours">Weekly hours</a>{' '}
          <a href="#overrides">Date overrides</a> <a href="#rules">Booking rules</a>{' '}
          <a href="#details">Name, zone and price</a>
        </nav>
      ) : (
        <p class="notice" id="not-allowed">
          You ({props.signed.person.role}) may look; only an owner changes calendars.
        </p>
      )}
      <section class="card" aria-labelledby="facts-title">
        <h2 id="facts-title">At a glance</h2>
        <Facts calendar={calendar} today={preview.days[0]!.date} />
      </section>
      <Preview calendar={calendar} preview={preview} />
      {mayEdit ? (
        <form
          method="post"
          action={`${base}/hours#hours`}
          class="card"
          id="hours"
          aria-labelledby="hours-title"
        >
          <h2 id="hours-title">Weekly hours</h2>
          <ProblemNote problem={problemOf('hours')} />
          <FormKeys csrf={csrf('hours')} idempotencyKey={newKey()} />
          <WeekFields
            draft={drafts.week ?? weekDraftOf(calendar.availability.weekly)}
            extraDay={drafts.extraDay}
            problem={problemOf('hours')}
          />
          <div class="actions">
            <button class="primary" type="submit" name="do" value="save">
              Save weekly hours
            </button>
          </div>
          <AddRange />
        </form>
      ) : (
        <WeekTable calendar={calendar} />
      )}
      <Overrides detail={detail} csrf={csrf} newKey={newKey} drafts={drafts} />
      {mayEdit ? (
        <form
          method="post"
          action={`${base}/rules#rules`}
          class="card"
          id="rules"
          aria-labelledby="rules-title"
        >
          <h2 id="rules-title">Booking rules</h2>
          <ProblemNote problem={problemOf('rules')} />
          <FormKeys csrf={csrf('rules')} idempotencyKey={newKey()} />
          <RulesFields draft={drafts.rules ?? rulesDraftOf(rulesOf(calendar))} problem={problemOf('rules')} />
          <div class="actions">
            <button class="primary" type="submit">
              Save booking rules
            </button>
          </div>
        </form>
      ) : (
        ''
      )}
      {mayEdit ? (
        <form
          method="post"
          action={`${base}#details`}
          class="card"
          id="details"
          aria-labelledby="details-title"
        >
          <h2 id="details-title">Name, time zone, price and what it is</h2>
          <ProblemNote problem={problemOf('details')} />
          <FormKeys csrf={csrf('details')} idempotencyKey={newKey()} />
          <DetailsFields draft={drafts.details ?? detailsDraftOf(calendar)} problem={problemOf('details')} />
          <p class="muted small">Bookings already made keep their times and prices.</p>
          <div class="actions">
            <button class="primary" type="submit">
              Save details
            </button>
          </div>
        </form>
      ) : (
        ''
      )}
    </Shell>
  );
}
