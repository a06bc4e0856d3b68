import type { RuleGrant } from '../../../app/approvals/standing-rules.js';
import type { RuleAction, RuleDraft } from '../../../domain/approval/standing-rule.js';
import { invalidArgument } from '../../../domain/errors.js';
import type { FormBody } from './calendar-forms.js';
import { first } from './calendar-forms.js';
import { formStrings } from './console-page.js';

/**
 * The standing-approval form as entered, kept as typed so a refused form comes back with its
 * values, and read into the grant `grantInConsole` takes. An empty limit means none.
 */
export interface RuleFormValues {
  readonly actions: readonly string[];
  /** `any` or `these` (the ticked calendars). */
  readonly calendarScope: string;
  readonly calendars: readonly string[];
  readonly currency: string;
  readonly maxPerBooking: string;
  readonly maxPerDay: string;
  readonly weekdays: readonly string[];
  readonly hoursFrom: string;
  readonly hoursTo: string;
  readonly bookingsPerDay: string;
  readonly customers: string;
  /** A token id, or empty for every connection of the person. */
  readonly connection: string;
  readonly days: string;
  readonly zone: string;
  /** The rule this one changes (revoked when this is granted), or empty. */
  readonly replaces: string;
}

export function readRuleForm(form: FormBody): RuleFormValues {
  const field = (name: keyof RuleFormValues) => first(form, name).trim();
  return {
    actions: formStrings(form.actions),
    calendarScope: field('calendarScope') === 'these' ? 'these' : 'any',
    calendars: formStrings(form.calendars),
    currency: field('currency').toUpperCase(),
    maxPerBooking: field('maxPerBooking'),
    maxPerDay: field('maxPerDay'),
    weekdays: formStrings(form.weekdays),
    hoursFrom: field('hoursFrom'),
    hoursTo: field('hoursTo'),
    bookingsPerDay: field('bookingsPerDay'),
    customers: field('customers') === 'known' ? 'known' : 'any',
    connection: field('connection'),
    days: field('days'),
    zone: field('zone'),
    replaces: field('replaces'),
  };
}

/**
 * A time input holds 00:00 to 23:59: a window that ends at midnight (a rule's 24:00) is shown as
 * an end of 00:00, and an end of 00:00 is read back as midnight (an end can never be the day's start).
 */
const timeInputOf = (end: string) => (end === '24:00' ? '00:00' : end);
const ruleEndOf = (end: string) => (end === '00:00' ? '24:00' : end);

/** A draft (from an approval, or the rule being changed) as the form shows it. */
export function ruleFormOf(draft: RuleDraft, replaces = ''): RuleFormValues {
  const currency = draft.maxPerBooking?.currency ?? draft.maxPerDay?.currency ?? '';
  return {
    actions: draft.actions,
    calendarScope: draft.calendarIds ? 'these' : 'any',
    calendars: draft.calendarIds ?? [],
    currency,
    maxPerBooking: draft.maxPerBooking?.amount ?? '',
    maxPerDay: draft.maxPerDay?.amount ?? '',
    weekdays: draft.weekdays.map(String),
    hoursFrom: draft.hours?.from ?? '',
    hoursTo: draft.hours ? timeInputOf(draft.hours.to) : '',
    bookingsPerDay: draft.maxPerDayCount === null ? '' : String(draft.maxPerDayCount),
    customers: draft.customers,
    connection: draft.connectionId ?? '',
    days: String(draft.days),
    zone: draft.timeZone,
    replaces,
  };
}

const whole = (text: string, field: string, expected: string): number | null => {
  if (text === '') return null;
  if (!/^\d{1,4}$/.test(text)) throw invalidArgument(field, expected);
  return Number(text);
};

/** The form read into a grant; the error names the field that is wrong (the domain checks the rest). */
export function grantOfForm(values: RuleFormValues): RuleGrant {
  const money = (amount: string) => {
    if (amount === '') return null;
    if (!/^[A-Z]{3}$/.test(values.currency))
      throw invalidArgument('currency', 'the three-letter currency of the money limits, e.g. EUR');
    return { amount: amount.replace(',', '.'), currency: values.currency };
  };
  if ((values.hoursFrom === '') !== (values.hoursTo === ''))
    throw invalidArgument('hours', 'both a start and an end, or neither for any hour');
  if (values.calendarScope === 'these' && values.calendars.length === 0)
    throw invalidArgument('calendars', 'tick one or more calendars, or choose any calendar');
  return {
    // Anything else is refused by the rule's validation, naming the field.
    actions: values.actions as RuleAction[],
    calendarIds: values.calendarScope === 'these' ? [...values.calendars] : null,
    maxPerBooking: money(values.maxPerBooking),
    maxPerDay: money(values.maxPerDay),
    weekdays: values.weekdays.map(Number),
    hours: values.hoursFrom ? { from: values.hoursFrom, to: ruleEndOf(values.hoursTo) } : null,
    maxPerDayCount: whole(values.bookingsPerDay, 'bookingsPerDay', 'a whole number from 1 to 1000'),
    customers: values.customers === 'known' ? 'known' : 'any',
    timeZone: values.zone,
    connectionId: values.connection || null,
    days: whole(values.days, 'expires', 'a whole number of days from 1 to 90') ?? 30,
    replaces: values.replaces || null,
  };
}
