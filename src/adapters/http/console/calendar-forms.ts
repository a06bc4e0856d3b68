import type { DateOverride, Weekday, WeeklyHours } from '../../../domain/availability/availability.js';
import { weekdays } from '../../../domain/availability/availability.js';
import type { Money } from '../../../domain/booking/money.js';
import type { Calendar } from '../../../domain/calendar.js';
import { invalidArgument } from '../../../domain/errors.js';
import { DAY_NAMES } from './calendar-words.js';
import { RULE_INPUTS } from './rules-words.js';

/**
 * The calendar forms as entered: plain fields that work without a script, read back into what
 * the use cases take, and kept as typed so a refused form comes back with its values.
 */

export type FormBody = Record<string, string | File | (string | File)[]>;

export interface Range {
  readonly start: string;
  readonly end: string;
}

/** Each day's ranges as entered, blank rows left out. */
export type WeekDraft = Record<Weekday, readonly Range[]>;

export interface DetailsDraft {
  readonly name: string;
  readonly timeZone: string;
  readonly amount: string;
  readonly currency: string;
  readonly description: string;
  /** Comma-separated, as typed. */
  readonly tags: string;
}

export interface OverrideDraft {
  readonly date: string;
  readonly kind: 'closed' | 'hours';
  readonly ranges: readonly Range[];
}

/** Rows of special hours the override form offers. */
export const OVERRIDE_ROWS = 3;

export function strings(form: FormBody, name: string): string[] {
  const value = form[name];
  return (Array.isArray(value) ? value : [value]).filter((v): v is string => typeof v === 'string');
}

export const first = (form: FormBody, name: string): string => strings(form, name)[0] ?? '';

/** "9:00" is read as "09:00"; anything else is left for the domain to judge. */
const clock = (value: string) => {
  const trimmed = value.trim();
  return /^\d:\d\d$/.test(trimmed) ? `0${trimmed}` : trimmed;
};

/** Rows paired by position; a row with neither time is no row. */
function ranges(starts: string[], ends: string[]): Range[] {
  return Array.from({ length: Math.max(starts.length, ends.length) }, (_, i) => ({
    start: clock(starts[i] ?? ''),
    end: clock(ends[i] ?? ''),
  })).filter((r) => r.start !== '' || r.end !== '');
}

const perDay = <T>(of: (day: Weekday) => T): Record<Weekday, T> => ({
  mon: of('mon'),
  tue: of('tue'),
  wed: of('wed'),
  thu: of('thu'),
  fri: of('fri'),
  sat: of('sat'),
  sun: of('sun'),
});

export const readWeek = (form: FormBody): WeekDraft =>
  perDay((day) => ranges(strings(form, `${day}-start`), strings(form, `${day}-end`)));

export const weekDraftOf = (weekly: WeeklyHours): WeekDraft => perDay((day) => weekly[day] ?? []);

/** What a new calendar starts with: office hours, easy to change before it is created. */
export const OFFICE_HOURS: WeekDraft = weekDraftOf(
  Object.fromEntries(
    weekdays.slice(0, 5).map((day) => [day, [{ start: '09:00', end: '17:00' }]]),
  ) as WeeklyHours,
);

export const weeklyOf = (draft: WeekDraft): WeeklyHours =>
  Object.fromEntries(weekdays.filter((day) => draft[day].length > 0).map((day) => [day, draft[day]]));

export function readDetails(form: FormBody): DetailsDraft {
  return {
    name: first(form, 'name'),
    timeZone: first(form, 'timeZone').trim(),
    amount: first(form, 'amount').trim(),
    currency: first(form, 'currency').trim().toUpperCase(),
    description: first(form, 'description'),
    tags: first(form, 'tags'),
  };
}

/** The tags typed, split on commas; blanks between commas are dropped. */
export const tagsOf = (draft: DetailsDraft): string[] =>
  draft.tags
    .split(',')
    .map((tag) => tag.trim())
    .filter((tag) => tag.length > 0);

export const detailsDraftOf = (calendar: Calendar): DetailsDraft => ({
  name: calendar.name,
  timeZone: calendar.timeZone,
  amount: calendar.price?.amount ?? '',
  currency: calendar.price?.currency ?? '',
  description: calendar.description ?? '',
  tags: (calendar.tags ?? []).join(', '),
});

/** No amount and no currency: free. One without the other is a mistake worth saying. */
export function priceOf(draft: DetailsDraft): Money | null {
  if (draft.amount === '' && draft.currency === '') return null;
  if (draft.amount === '')
    throw invalidArgument('price.amount', 'give an amount with the currency, or neither');
  if (draft.currency === '')
    throw invalidArgument('price.currency', 'give a currency with the amount, or neither');
  return { amount: draft.amount, currency: draft.currency };
}

export function readOverride(form: FormBody): OverrideDraft {
  return {
    date: first(form, 'date').trim(),
    kind: first(form, 'kind') === 'hours' ? 'hours' : 'closed',
    ranges: ranges(strings(form, 'start'), strings(form, 'end')),
  };
}

export function overrideOf(draft: OverrideDraft): DateOverride {
  if (draft.kind === 'hours' && draft.ranges.length === 0)
    throw invalidArgument('overrides[0].windows', 'give the special hours, or choose closed all day');
  // Hours typed under "closed all day" are more likely a missed choice than meant to be dropped.
  if (draft.kind === 'closed' && draft.ranges.length > 0)
    throw invalidArgument(
      'overrides[0].kind',
      'choose “open these hours” to keep the hours entered, or clear them',
    );
  return { date: draft.date, windows: draft.kind === 'hours' ? draft.ranges : [] };
}

/** A refused form's message, and the input it is about (when there is one). */
export interface Problem {
  readonly inputId?: string;
  readonly text: string;
}

const FIELDS: [RegExp, (m: RegExpExecArray) => { inputId: string; label: string }][] = [
  // A booking rule, or one of its list's items ("allowedDurationsMinutes[2]"): the rule's own input.
  [new RegExp(`^(${Object.keys(RULE_INPUTS).join('|')})(?:\\[\\d+\\])?$`), (m) => RULE_INPUTS[m[1]!]!],
  [/^name$/, () => ({ inputId: 'cal-name', label: 'Name' })],
  [/^timeZone$/, () => ({ inputId: 'cal-zone', label: 'Time zone' })],
  [/^price\.amount$/, () => ({ inputId: 'cal-amount', label: 'Price' })],
  [/^price\.currency$/, () => ({ inputId: 'cal-currency', label: 'Currency' })],
  [/^description$/, () => ({ inputId: 'cal-description', label: 'What it is' })],
  [/^tags(?:\[\d+\])?$/, () => ({ inputId: 'cal-tags', label: 'Tags' })],
  [
    /^weekly\.(mon|tue|wed|thu|fri|sat|sun)\[(\d+)\](?:\.(start|end))?$/,
    (m) => ({
      inputId: `week-${m[1]}-${m[2]}-${m[3] ?? 'start'}`,
      label: `${DAY_NAMES[m[1] as Weekday]}, hours ${Number(m[2]) + 1}${m[3] ? `, ${m[3] === 'start' ? 'from' : 'until'}` : ''}`,
    }),
  ],
  [/^overrides\[\d+\]\.date$/, () => ({ inputId: 'ov-date', label: 'Date' })],
  [/^overrides\[\d+\]\.kind$/, () => ({ inputId: 'ov-hours', label: 'That day' })],
  [
    /^overrides\[\d+\]\.windows(?:\[(\d+)\](?:\.(start|end))?)?$/,
    (m) => ({
      inputId: `ov-${m[1] ?? 0}-${m[2] ?? 'start'}`,
      label:
        m[1] === undefined
          ? 'Special hours'
          : `Special hours ${Number(m[1]) + 1}${m[2] ? `, ${m[2] === 'start' ? 'from' : 'until'}` : ''}`,
    }),
  ],
];

/** The domain names a field as the use case saw it; the person reads the label of the input they typed in. */
export function problemOf(field: string | undefined, message: string): Problem {
  const reason = field && message.startsWith(`${field}: `) ? message.slice(field.length + 2) : message;
  for (const [pattern, describe] of FIELDS) {
    const m = field === undefined ? null : pattern.exec(field);
    if (m) {
      const { inputId, label } = describe(m);
      return { inputId, text: `${label}: ${reason}` };
    }
  }
  return { text: reason };
}
