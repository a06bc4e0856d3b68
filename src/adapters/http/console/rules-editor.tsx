import type { BookingRules } from '../../../domain/availability/booking-rules.js';
import { marked } from './calendar-editors.js';
import type { Problem } from './calendar-forms.js';
import type { RulesDraft } from './rules-form.js';
import { NOTICE_UNITS } from './rules-form.js';
import { RULE_INPUTS } from './rules-words.js';

/** The booking-rules form's inputs: each labelled by what it does, grouped by fieldset, empty meaning "no rule". */

/** One number input of the form, labelled as a refusal would name it. */
function NumberField(props: {
  rule: keyof BookingRules;
  name: keyof RulesDraft;
  draft: RulesDraft;
  unit?: string;
  placeholder?: string;
  problem?: Problem | undefined;
}) {
  const { inputId, label } = RULE_INPUTS[props.rule]!;
  return (
    <p>
      <label for={inputId}>
        {label}
        {props.unit ? <span class="muted"> ({props.unit})</span> : ''}
      </label>
      <input
        type="text"
        id={inputId}
        name={props.name}
        value={props.draft[props.name]}
        inputmode="numeric"
        maxlength={9}
        size={7}
        autocomplete="off"
        placeholder={props.placeholder ?? ''}
        {...marked(props.problem, inputId)}
      />
    </p>
  );
}

export function RulesFields(props: { draft: RulesDraft; problem?: Problem | undefined }) {
  const { draft, problem } = props;
  const notice = RULE_INPUTS.minimumNoticeMinutes!;
  const lengths = RULE_INPUTS.allowedDurationsMinutes!;
  return (
    <>
      <p class="muted small cal-hint">
        Leave a field empty for no such rule. Bookings already made are kept.
      </p>
      <fieldset class="cal-rules">
        <legend>Time kept free around each booking</legend>
        <div class="cal-inline-fields">
          <NumberField
            rule="bufferBeforeMinutes"
            name="bufferBefore"
            draft={draft}
            unit="minutes"
            placeholder="0"
            problem={problem}
          />
          <NumberField
            rule="bufferAfterMinutes"
            name="bufferAfter"
            draft={draft}
            unit="minutes"
            placeholder="0"
            problem={problem}
          />
        </div>
      </fieldset>
      <fieldset class="cal-rules">
        <legend>When bookings may be made</legend>
        <div class="cal-inline-fields">
          <p>
            <label for={notice.inputId}>{notice.label}</label>
            <span class="cal-with-unit">
              <input
                type="text"
                id={notice.inputId}
                name="notice"
                value={draft.notice}
                inputmode="numeric"
                maxlength={9}
                size={7}
                autocomplete="off"
                placeholder="0"
                {...marked(problem, notice.inputId)}
              />
              <label for="rule-notice-unit" class="cal-sr">
                Minimum notice in
              </label>
              <select id="rule-notice-unit" name="noticeUnit">
                {NOTICE_UNITS.map((unit) => (
                  <option value={unit} selected={unit === draft.noticeUnit}>
                    {unit}
                  </option>
                ))}
              </select>
            </span>
          </p>
          <NumberField
            rule="maximumHorizonDays"
            name="horizon"
            draft={draft}
            unit="days"
            placeholder="365"
            problem={problem}
          />
        </div>
      </fieldset>
      <fieldset class="cal-rules">
        <legend>Start times and lengths</legend>
        <div class="cal-inline-fields">
          <NumberField
            rule="slotStepMinutes"
            name="step"
            draft={draft}
            unit="minutes"
            placeholder="any"
            problem={problem}
          />
          <p>
            <label for={lengths.inputId}>
              {lengths.label}
              <span class="muted"> (minutes)</span>
            </label>
            <input
              type="text"
              id={lengths.inputId}
              name="lengths"
              value={draft.lengths}
              maxlength={200}
              autocomplete="off"
              placeholder="any, or e.g. 30, 60"
              {...marked(problem, lengths.inputId)}
            />
          </p>
        </div>
      </fieldset>
      <fieldset class="cal-rules">
        <legend>Limits (counted by start, in the calendar’s days and Monday-to-Sunday weeks)</legend>
        <div class="cal-inline-fields">
          <NumberField
            rule="maxBookingsPerDay"
            name="perDay"
            draft={draft}
            placeholder="no limit"
            problem={problem}
          />
          <NumberField
            rule="maxBookingsPerWeek"
            name="perWeek"
            draft={draft}
            placeholder="no limit"
            problem={problem}
          />
          <NumberField
            rule="maxBookingsPerCustomerPerDay"
            name="perCustomerDay"
            draft={draft}
            placeholder="no limit"
            problem={problem}
          />
          <NumberField
            rule="maxBookingsPerCustomerPerWeek"
            name="perCustomerWeek"
            draft={draft}
            placeholder="no limit"
            problem={problem}
          />
        </div>
      </fieldset>
      <fieldset class="cal-rules">
        <legend>Bookings at the same time (a class’s seats, a pool’s rooms)</legend>
        <div class="cal-inline-fields">
          <NumberField rule="capacity" name="seats" draft={draft} placeholder="1" problem={problem} />
        </div>
      </fieldset>
      <fieldset class="cal-rules">
        <legend>When a requested time is refused</legend>
        <p>
          <label for="rule-counter-offers">Agents are offered</label>{' '}
          <select id="rule-counter-offers" name="counterOffers">
            <option value="yes" selected={draft.counterOffers === 'yes'}>
              the 3 nearest free times
            </option>
            <option value="no" selected={draft.counterOffers === 'no'}>
              no other times
            </option>
          </select>
        </p>
      </fieldset>
    </>
  );
}
