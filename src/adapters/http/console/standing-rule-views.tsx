import { zonedDateTime, zoneLabel } from '../../format/human-time.js';
import type { GrantChoices, RuleCard } from '../../../app/console/standing-rules.js';
import type { RuleAction, StandingRule } from '../../../domain/approval/standing-rule.js';
import { MAX_RULE_DAYS } from '../../../domain/approval/standing-rule.js';
import type { RuleFormValues } from './standing-rule-form.js';

const DAY_NAMES = ['Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday', 'Sunday'];
const ACTION_WORDS: Record<RuleAction, string> = {
  confirm: 'confirm a booking (the time is taken and the price charged)',
  cancel: 'cancel a booking (the time is freed; a paid one is refunded)',
  move: 'move a booking to another time',
};
const STATE_WORDS = { standing: 'standing', revoked: 'revoked', expired: 'expired' } as const;

/** "Monday to Friday", "Saturday, Sunday", "any day". */
export function weekdayWords(weekdays: readonly number[]): string {
  if (weekdays.length === 7) return 'any day';
  const sorted = [...weekdays].sort();
  const contiguous = sorted.every((d, i) => i === 0 || d === sorted[i - 1]! + 1);
  if (contiguous && sorted.length > 2)
    return `${DAY_NAMES[sorted[0]! - 1]} to ${DAY_NAMES[sorted.at(-1)! - 1]}`;
  return sorted.map((d) => DAY_NAMES[d - 1]).join(', ');
}

const moneyText = (m: { amount: string; currency: string }) => `${m.amount} ${m.currency}`;

/** Each bound of a rule as one line a person reads: what fits it is approved without asking. */
export function ruleLines(rule: StandingRule, card: Pick<RuleCard, 'calendars' | 'connection'>): string[] {
  return [
    `Actions: ${rule.actions.map((a) => ACTION_WORDS[a]).join('; ')}`,
    `Calendars: ${card.calendars ? card.calendars.map((c) => c.name).join(', ') : 'any calendar'}`,
    `Money: ${rule.maxPerBooking ? `at most ${moneyText(rule.maxPerBooking)} a booking` : 'no limit a booking'}; ${rule.maxPerDay ? `at most ${moneyText(rule.maxPerDay)} a day` : 'no limit a day'}`,
    `When: ${weekdayWords(rule.weekdays)}, ${rule.hours ? `${rule.hours.from}–${rule.hours.to}` : 'any hour'} (${zoneLabel(rule.timeZone)})${rule.maxPerDayCount ? `; at most ${rule.maxPerDayCount} a day` : ''}`,
    `Customers: ${rule.customers === 'known' ? 'only customers who booked before' : 'any customer'}`,
    `Agents: ${card.connection ? `only through “${card.connection}”` : `any connection of ${rule.personName}`}`,
  ];
}

export function RuleList(props: { cards: readonly RuleCard[]; csrf: string; viewerId: string }) {
  if (props.cards.length === 0)
    return (
      <p id="no-rules" class="muted">
        No standing approvals: every confirmation, cancellation and move your agents ask for waits for a
        person.
      </p>
    );
  return (
    <ul class="cards" id="rules">
      {props.cards.map((card) => {
        const { rule } = card;
        const zone = rule.timeZone;
        return (
          <li class="card" data-rule={rule.id} data-state={card.state}>
            <h2>
              {rule.personId === props.viewerId ? 'Yours' : rule.personName}{' '}
              <span class={`status ${card.state}`}>{STATE_WORDS[card.state]}</span>
            </h2>
            <ul>
              {ruleLines(rule, card).map((line) => (
                <li>{line}</li>
              ))}
            </ul>
            <p class="small">
              {card.state === 'revoked'
                ? `Revoked at ${zonedDateTime(rule.revokedAt!, zone)}.`
                : `${card.state === 'expired' ? 'Expired' : 'Stands until'} ${zonedDateTime(rule.expiresAt, zone)}.`}{' '}
              Granted {zonedDateTime(rule.createdAt, zone)} by {rule.personName}, {rule.grantedVia}.{' '}
              <span class="muted">
                Id <code>{rule.id}</code>
              </span>
            </p>
            <div class="actions">
              {card.mayChange ? (
                <a class="button" href={`/console/standing-rules/new?change=${rule.id}`}>
                  Change or narrow
                </a>
              ) : (
                ''
              )}
              {card.mayRevoke ? (
                <form method="post" action={`/console/standing-rules/${rule.id}/revoke`} class="inline">
                  <input type="hidden" name="csrf" value={props.csrf} />
                  <button class="danger" type="submit">
                    Revoke now
                  </button>
                </form>
              ) : (
                ''
              )}
            </div>
          </li>
        );
      })}
    </ul>
  );
}

const checked = (list: readonly string[], value: string) => list.includes(value);

/** The grant form: every bound a plain field, with what it means beside it. */
export function RuleForm(props: {
  values: RuleFormValues;
  choices: GrantChoices;
  csrf: string;
  personName: string;
}) {
  const { values, choices } = props;
  return (
    <form method="post" action="/console/standing-rules" id="rule-form" class="card">
      <input type="hidden" name="csrf" value={props.csrf} />
      <input type="hidden" name="replaces" value={values.replaces} />
      <fieldset>
        <legend>Your agents may, without asking you</legend>
        {(['confirm', 'cancel', 'move'] as const).map((action) => (
          <label class="choice">
            <input
              type="checkbox"
              name="actions"
              value={action}
              id={`action-${action}`}
              checked={checked(values.actions, action)}
            />{' '}
            {ACTION_WORDS[action]}
          </label>
        ))}
      </fieldset>
      <fieldset>
        <legend>On these calendars</legend>
        <label class="choice">
          <input type="radio" name="calendarScope" value="any" checked={values.calendarScope === 'any'} /> any
          calendar, including ones added later
        </label>
        <label class="choice">
          <input
            type="radio"
            name="calendarScope"
            value="these"
            id="calendar-scope-these"
            checked={values.calendarScope === 'these'}
          />{' '}
          only the ones ticked:
        </label>
        {choices.calendars.map((c) => (
          <label class="choice indent">
            <input
              type="checkbox"
              name="calendars"
              value={c.id}
              data-name={c.name}
              checked={checked(values.calendars, c.id)}
            />{' '}
            {c.name} <span class="muted small">({zoneLabel(c.timeZone)})</span>
          </label>
        ))}
      </fieldset>
      <fieldset>
        <legend>Money</legend>
        <p>
          <label>
            At most a booking{' '}
            <input
              name="maxPerBooking"
              id="max-per-booking"
              inputmode="decimal"
              size={8}
              value={values.maxPerBooking}
            />
          </label>{' '}
          <label>
            at most a day{' '}
            <input name="maxPerDay" id="max-per-day" inputmode="decimal" size={8} value={values.maxPerDay} />
          </label>{' '}
          <label>
            currency <input name="currency" id="currency" size={3} maxlength={3} value={values.currency} />
          </label>
        </p>
        <p class="muted small">
          Empty: no limit. A priced booking in another currency is never approved by the rule.
        </p>
      </fieldset>
      <fieldset>
        <legend>When (the booking’s own time)</legend>
        {DAY_NAMES.map((name, i) => (
          <label class="choice inline-choice">
            <input
              type="checkbox"
              name="weekdays"
              value={String(i + 1)}
              id={`weekday-${i + 1}`}
              checked={checked(values.weekdays, String(i + 1))}
            />{' '}
            {name}
          </label>
        ))}
        <p>
          <label>
            from <input type="time" name="hoursFrom" id="hours-from" value={values.hoursFrom} />
          </label>{' '}
          <label>
            to <input type="time" name="hoursTo" id="hours-to" value={values.hoursTo} />
          </label>{' '}
          <span class="muted small">(to 00:00: until midnight)</span>{' '}
          <label>
            in zone <input name="zone" id="zone" size={18} value={values.zone} required />
          </label>
        </p>
        <p>
          <label>
            At most{' '}
            <input
              name="bookingsPerDay"
              id="bookings-per-day"
              inputmode="numeric"
              size={4}
              value={values.bookingsPerDay}
            />{' '}
            a day (empty: no count limit)
          </label>
        </p>
      </fieldset>
      <fieldset>
        <legend>Customers</legend>
        <label class="choice">
          <input type="radio" name="customers" value="any" checked={values.customers !== 'known'} /> any
          customer
        </label>
        <label class="choice">
          <input
            type="radio"
            name="customers"
            value="known"
            id="customers-known"
            checked={values.customers === 'known'}
          />{' '}
          only customers who booked before
        </label>
      </fieldset>
      <fieldset>
        <legend>Which of your agents</legend>
        <label for="connection" class="skip">
          Which of your agents
        </label>
        <select name="connection" id="connection">
          <option value="" selected={values.connection === ''}>
            any connection of {props.personName}
          </option>
          {choices.connections.map((t) => (
            <option value={t.id} selected={values.connection === t.id}>
              only “{t.name}”
            </option>
          ))}
        </select>
      </fieldset>
      <p>
        <label>
          Stands for <input name="days" id="days" inputmode="numeric" size={3} value={values.days} /> days (at
          most {MAX_RULE_DAYS}), then asks you again
        </label>
      </p>
      <p class="notice">
        What this means: when one of your agents asks for something that fits <strong>every</strong> line
        above, Holdfast does it at once — the time is taken or freed, the price is charged or refunded, and
        the customer keeps or loses the booking — recorded as approved by this rule. Anything else still waits
        for you. You can revoke it at any moment.
      </p>
      <div class="actions">
        <button class="primary" type="submit" id="grant">
          {values.replaces ? 'Replace the rule' : 'Grant this standing approval'}
        </button>
        <a href="/console/standing-rules">Cancel</a>
      </div>
    </form>
  );
}
