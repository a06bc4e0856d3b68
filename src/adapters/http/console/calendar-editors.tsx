import type { Weekday } from '../../../domain/availability/availability.js';
import { weekdays } from '../../../domain/availability/availability.js';
import type { DetailsDraft, OverrideDraft, Problem, Range, WeekDraft } from './calendar-forms.js';
import { OVERRIDE_ROWS } from './calendar-forms.js';
import { DAY_NAMES } from './calendar-words.js';

/** The inputs of the calendar forms: every one labelled, grouped by fieldset, usable by keyboard alone. */

/** Every zone this runtime knows, offered as suggestions (any IANA name is still accepted). */
const ZONES = [...new Set(['UTC', ...Intl.supportedValuesOf('timeZone')])];

const HHMM_PATTERN = '([01]?[0-9]|2[0-3]):[0-5][0-9]|24:00';

/** Attributes that tie the input a refused form is about to the message saying why. */
export function marked(problem: Problem | undefined, id: string) {
  return problem?.inputId === id ? { 'aria-invalid': 'true', 'aria-describedby': 'form-problem' } : {};
}

/** Why a form came back, above it. */
export function ProblemNote(props: { problem?: Problem | undefined }) {
  if (!props.problem) return <></>;
  return (
    <p class="notice bad" id="form-problem" role="alert">
      {props.problem.text}
    </p>
  );
}

/** Hidden fields every calendar form carries: its CSRF token and the key that makes a double submit one change. */
export function FormKeys(props: { csrf: string; idempotencyKey: string }) {
  return (
    <>
      <input type="hidden" name="csrf" value={props.csrf} />
      <input type="hidden" name="key" value={props.idempotencyKey} />
    </>
  );
}

export function DetailsFields(props: { draft: DetailsDraft; problem?: Problem | undefined }) {
  const { draft, problem } = props;
  return (
    <>
      <label for="cal-name">Name</label>
      <input
        type="text"
        id="cal-name"
        name="name"
        value={draft.name}
        maxlength={200}
        required
        placeholder="Consulting room 1"
        {...marked(problem, 'cal-name')}
      />
      <label for="cal-zone">Time zone</label>
      <input
        type="text"
        id="cal-zone"
        name="timeZone"
        value={draft.timeZone}
        list="zones"
        maxlength={64}
        required
        autocomplete="off"
        placeholder="Europe/Berlin"
        aria-describedby="cal-zone-hint"
        {...marked(problem, 'cal-zone')}
      />
      <datalist id="zones">
        {ZONES.map((zone) => (
          <option value={zone} />
        ))}
      </datalist>
      <p class="muted small cal-hint" id="cal-zone-hint">
        An IANA name such as Europe/Berlin. Opening hours are wall-clock times in this zone.
      </p>
      <fieldset class="cal-price">
        <legend>Price per booking (leave both empty if free)</legend>
        <div class="cal-inline-fields">
          <p>
            <label for="cal-amount">Amount</label>
            <input
              type="text"
              id="cal-amount"
              name="amount"
              value={draft.amount}
              inputmode="decimal"
              maxlength={17}
              placeholder="50.00"
              {...marked(problem, 'cal-amount')}
            />
          </p>
          <p>
            <label for="cal-currency">Currency</label>
            <input
              type="text"
              id="cal-currency"
              name="currency"
              value={draft.currency}
              maxlength={3}
              placeholder="EUR"
              autocomplete="off"
              {...marked(problem, 'cal-currency')}
            />
          </p>
        </div>
      </fieldset>
      <label for="cal-description">What it is</label>
      <textarea
        id="cal-description"
        name="description"
        maxlength={1000}
        rows={2}
        placeholder="Physiotherapy for sports injuries; sessions in German or English."
        aria-describedby="cal-profile-hint"
        {...marked(problem, 'cal-description')}
      >
        {draft.description}
      </textarea>
      <label for="cal-tags">Tags and specialties</label>
      <input
        type="text"
        id="cal-tags"
        name="tags"
        value={draft.tags}
        maxlength={1100}
        autocomplete="off"
        placeholder="physiotherapy, sports injuries, German"
        aria-describedby="cal-profile-hint"
        {...marked(problem, 'cal-tags')}
      />
      <p class="muted small cal-hint" id="cal-profile-hint">
        Separate tags with commas. Agents looking for a need (&ldquo;a physiotherapist who speaks
        German&rdquo;) find this calendar when its name, these words or its tags hold every word they search
        for.
      </p>
    </>
  );
}

/** One "from – until" row; `id` prefixes its two inputs, `label` says which row it is to a screen reader. */
function RangeRow(props: {
  id: string;
  names: { start: string; end: string };
  label: string;
  range: Range;
  problem?: Problem | undefined;
}) {
  const { id, names, label, range, problem } = props;
  const input = (part: 'start' | 'end') => (
    <input
      type="text"
      id={`${id}-${part}`}
      name={names[part]}
      value={range[part]}
      inputmode="numeric"
      pattern={HHMM_PATTERN}
      title="24-hour time, HH:MM (24:00 is midnight at the end of the day)"
      maxlength={5}
      size={5}
      placeholder="hh:mm"
      autocomplete="off"
      {...marked(problem, `${id}-${part}`)}
    />
  );
  return (
    <div class="cal-range">
      <label for={`${id}-start`}>
        <span class="cal-sr">{label}, </span>from
      </label>
      {input('start')}
      <label for={`${id}-end`}>until</label>
      {input('end')}
    </div>
  );
}

const BLANK: Range = { start: '', end: '' };

/** Each weekday's ranges as entered plus an empty row (one more on `extraDay`: "add a range" without a script). */
export function WeekFields(props: {
  draft: WeekDraft;
  extraDay?: Weekday | undefined;
  problem?: Problem | undefined;
}) {
  const { draft, extraDay, problem } = props;
  return (
    <>
      <p class="muted small cal-hint" id="week-hint">
        24-hour times on the calendar’s clock. Leave a day empty to close it; clear a row to remove it. A day
        may have several ranges (09:00–12:00 and 13:00–17:00).
      </p>
      <div class="cal-week">
        {weekdays.map((day) => {
          const rows = [...draft[day], BLANK, ...(extraDay === day ? [BLANK] : [])];
          return (
            <fieldset class="cal-day" id={`week-${day}`}>
              <legend>{DAY_NAMES[day]}</legend>
              <div class="cal-ranges">
                {rows.map((range, i) => (
                  <RangeRow
                    id={`week-${day}-${i}`}
                    names={{ start: `${day}-start`, end: `${day}-end` }}
                    label={`${DAY_NAMES[day]} hours ${i + 1}`}
                    range={range}
                    problem={problem}
                  />
                ))}
              </div>
            </fieldset>
          );
        })}
      </div>
    </>
  );
}

/**
 * "Add a range" as a submit that only re-renders the form with one more row on a day. It comes
 * after the form's main button, so pressing Enter in a field still saves.
 */
export function AddRange() {
  return (
    <div class="cal-add-range">
      <label for="add-day">Need another range on one day?</label>
      <select id="add-day" name="addDay">
        {weekdays.map((day) => (
          <option value={day}>{DAY_NAMES[day]}</option>
        ))}
      </select>
      <button type="submit" name="do" value="add">
        Add a row
      </button>
    </div>
  );
}

export function OverrideFields(props: {
  draft: OverrideDraft;
  today: string;
  problem?: Problem | undefined;
}) {
  const { draft, problem } = props;
  const rows = [
    ...draft.ranges,
    ...Array.from({ length: Math.max(0, OVERRIDE_ROWS - draft.ranges.length) }, () => BLANK),
  ];
  return (
    <>
      <label for="ov-date">Date</label>
      <input
        type="date"
        id="ov-date"
        name="date"
        value={draft.date}
        min={props.today}
        required
        {...marked(problem, 'ov-date')}
      />
      <fieldset>
        <legend>That day the calendar is</legend>
        <p>
          <input type="radio" id="ov-closed" name="kind" value="closed" checked={draft.kind === 'closed'} />{' '}
          <label for="ov-closed">closed all day</label>
        </p>
        <p>
          <input
            type="radio"
            id="ov-hours"
            name="kind"
            value="hours"
            checked={draft.kind === 'hours'}
            {...marked(problem, 'ov-hours')}
          />{' '}
          <label for="ov-hours">open these hours instead of the week’s:</label>
        </p>
        <div class="cal-ranges">
          {rows.map((range, i) => (
            <RangeRow
              id={`ov-${i}`}
              names={{ start: 'start', end: 'end' }}
              label={`Special hours ${i + 1}`}
              range={range}
              problem={problem}
            />
          ))}
        </div>
      </fieldset>
    </>
  );
}
