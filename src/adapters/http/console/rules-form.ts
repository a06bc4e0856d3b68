import type { BookingRules } from '../../../domain/availability/booking-rules.js';
import { DEFAULT_BOOKING_RULES, validateBookingRules } from '../../../domain/availability/booking-rules.js';
import { invalidArgument } from '../../../domain/errors.js';
import type { FormBody } from './calendar-forms.js';
import { first } from './calendar-forms.js';

/**
 * The booking-rules form as entered: every rule a plain field (notice with its unit), kept as
 * typed so a refused form comes back with its values, and read into the whole set of rules
 * `setBookingRules` takes. An empty field means the rule's default: no buffer, no notice,
 * 365 days ahead, any start, any length, no limit, one seat.
 */

export const NOTICE_UNITS = ['minutes', 'hours', 'days'] as const;
export type NoticeUnit = (typeof NOTICE_UNITS)[number];
const UNIT_MINUTES: Record<NoticeUnit, number> = { minutes: 1, hours: 60, days: 1440 };

export interface RulesDraft {
  readonly bufferBefore: string;
  readonly bufferAfter: string;
  readonly notice: string;
  readonly noticeUnit: NoticeUnit;
  readonly horizon: string;
  readonly step: string;
  readonly lengths: string;
  readonly perDay: string;
  readonly perWeek: string;
  readonly perCustomerDay: string;
  readonly perCustomerWeek: string;
  readonly seats: string;
  /** `no`: a refused time offers no other times; anything else (or a form without it): yes. */
  readonly counterOffers: 'yes' | 'no';
}

/** The form's field names are the draft's keys. */
export function readRules(form: FormBody): RulesDraft {
  const field = (name: keyof RulesDraft) => first(form, name).trim();
  const unit = field('noticeUnit');
  return {
    bufferBefore: field('bufferBefore'),
    bufferAfter: field('bufferAfter'),
    notice: field('notice'),
    noticeUnit: NOTICE_UNITS.find((u) => u === unit) ?? 'hours',
    horizon: field('horizon'),
    step: field('step'),
    lengths: field('lengths'),
    perDay: field('perDay'),
    perWeek: field('perWeek'),
    perCustomerDay: field('perCustomerDay'),
    perCustomerWeek: field('perCustomerWeek'),
    seats: field('seats'),
    counterOffers: field('counterOffers') === 'no' ? 'no' : 'yes',
  };
}

const text = (value: number | null) => (value === null ? '' : String(value));

/** The rules as stored, as the form shows them: notice in the largest unit that says it exactly. */
export function rulesDraftOf(rules: BookingRules): RulesDraft {
  const notice = rules.minimumNoticeMinutes;
  const noticeUnit: NoticeUnit =
    notice > 0 && notice % 1440 === 0 ? 'days' : notice % 60 === 0 ? 'hours' : 'minutes';
  return {
    bufferBefore: text(rules.bufferBeforeMinutes),
    bufferAfter: text(rules.bufferAfterMinutes),
    notice: text(notice / UNIT_MINUTES[noticeUnit]),
    noticeUnit,
    horizon: text(rules.maximumHorizonDays),
    step: text(rules.slotStepMinutes),
    lengths: rules.allowedDurationsMinutes?.join(', ') ?? '',
    perDay: text(rules.maxBookingsPerDay),
    perWeek: text(rules.maxBookingsPerWeek),
    perCustomerDay: text(rules.maxBookingsPerCustomerPerDay),
    perCustomerWeek: text(rules.maxBookingsPerCustomerPerWeek),
    seats: text(rules.capacity),
    counterOffers: rules.offerAlternatives ? 'yes' : 'no',
  };
}

const WHOLE = /^\d{1,9}$/;

/** A whole number within bounds, or `empty` when nothing was typed; the message says what the field takes. */
function whole<E>(
  value: string,
  field: keyof BookingRules,
  [min, max]: readonly [number, number],
  empty: E,
  takes: string,
): number | E {
  if (value === '') return empty;
  const n = WHOLE.test(value) ? Number(value) : NaN;
  if (!Number.isInteger(n) || n < min || n > max) throw invalidArgument(field, takes);
  return n;
}

const limit = (value: string, field: keyof BookingRules, max: number) =>
  whole(
    value,
    field,
    [1, max],
    null,
    `give a whole number from 1 to ${max.toLocaleString('en')}, or leave it empty for no limit`,
  );

const MAX_NOTICE_MINUTES = 366 * 1440;
const MAX_LENGTH_MINUTES = 7 * 1440;

function noticeOf(draft: RulesDraft): number {
  const unit = UNIT_MINUTES[draft.noticeUnit];
  const max = MAX_NOTICE_MINUTES / unit;
  return (
    whole(
      draft.notice,
      'minimumNoticeMinutes',
      [0, max],
      0,
      `give a whole number of ${draft.noticeUnit} from 0 to ${max.toLocaleString('en')} (366 days), or leave it empty for none`,
    ) * unit
  );
}

/** "30, 60" or "30 60": each a whole number of minutes, none twice; empty: any length. */
function lengthsOf(value: string): number[] | null {
  if (value === '') return null;
  const field = 'allowedDurationsMinutes';
  const parts = value.split(/[\s,;]+/).filter((p) => p !== '');
  const takes = `give whole numbers of minutes from 1 to ${MAX_LENGTH_MINUTES.toLocaleString('en')} separated by commas, such as 30, 60`;
  if (parts.length > 24) throw invalidArgument(field, 'give at most 24 lengths');
  const lengths = parts.map((p) => whole(p, field, [1, MAX_LENGTH_MINUTES], 0, takes));
  const twice = lengths.find((n, i) => lengths.indexOf(n) !== i);
  if (twice !== undefined) throw invalidArgument(field, `${twice} is listed twice`);
  return lengths;
}

/** The whole set of rules the form says, or a refusal naming the first field that is wrong. */
export function rulesFromDraft(draft: RulesDraft): BookingRules {
  const buffer = (value: string, field: keyof BookingRules) =>
    whole(
      value,
      field,
      [0, 720],
      0,
      'give a whole number of minutes from 0 to 720 (12 hours), or leave it empty for none',
    );
  const step = whole(
    draft.step,
    'slotStepMinutes',
    [1, 1440],
    null,
    'give a whole number of minutes from 1 to 1,440, or leave it empty for any start',
  );
  if (step !== null && 1440 % step !== 0)
    throw invalidArgument('slotStepMinutes', 'must divide a day evenly (5, 10, 15, 20, 30, 60, …)');
  const rules: BookingRules = {
    bufferBeforeMinutes: buffer(draft.bufferBefore, 'bufferBeforeMinutes'),
    bufferAfterMinutes: buffer(draft.bufferAfter, 'bufferAfterMinutes'),
    minimumNoticeMinutes: noticeOf(draft),
    maximumHorizonDays: whole(
      draft.horizon,
      'maximumHorizonDays',
      [1, 3650],
      DEFAULT_BOOKING_RULES.maximumHorizonDays,
      `give a whole number of days from 1 to 3,650, or leave it empty for ${DEFAULT_BOOKING_RULES.maximumHorizonDays}`,
    ),
    slotStepMinutes: step,
    allowedDurationsMinutes: lengthsOf(draft.lengths),
    maxBookingsPerDay: limit(draft.perDay, 'maxBookingsPerDay', 10_000),
    maxBookingsPerWeek: limit(draft.perWeek, 'maxBookingsPerWeek', 70_000),
    maxBookingsPerCustomerPerDay: limit(draft.perCustomerDay, 'maxBookingsPerCustomerPerDay', 10_000),
    maxBookingsPerCustomerPerWeek: limit(draft.perCustomerWeek, 'maxBookingsPerCustomerPerWeek', 70_000),
    capacity: whole(
      draft.seats,
      'capacity',
      [1, 1000],
      1,
      'give a whole number from 1 to 1,000 (how many bookings may overlap), or leave it empty for 1',
    ),
    offerAlternatives: draft.counterOffers !== 'no',
  };
  // What the use case checks too; here first, so the message names the field as it was typed.
  validateBookingRules(rules);
  return rules;
}
