import { describe, expect, it } from 'vitest';
import { problemOf } from '../../../src/adapters/http/console/calendar-forms.js';
import type { RulesDraft } from '../../../src/adapters/http/console/rules-form.js';
import { readRules, rulesDraftOf, rulesFromDraft } from '../../../src/adapters/http/console/rules-form.js';
import { rulesSummary } from '../../../src/adapters/http/console/rules-words.js';
import type { BookingRules } from '../../../src/domain/availability/booking-rules.js';
import { DEFAULT_BOOKING_RULES } from '../../../src/domain/availability/booking-rules.js';
import { DomainError } from '../../../src/domain/errors.js';

// The booking-rules form read back as a person typed it: good input becomes the whole set of
// rules set_booking_rules takes, empty fields the defaults, and each bad field is refused by
// its own name, with the label the person sees beside the input they typed in.

const EMPTY = readRules({});

const draft = (fields: Partial<RulesDraft>): RulesDraft => ({ ...EMPTY, ...fields });

function refusal(run: () => unknown): { field: string | undefined; text: string; inputId?: string } {
  try {
    run();
  } catch (error) {
    if (!(error instanceof DomainError)) throw error;
    expect(error.code).toBe('INVALID_ARGUMENTS');
    const field = error.details.field;
    return { field, ...problemOf(field, error.message) };
  }
  throw new Error('expected the form to be refused');
}

describe('reading the booking-rules form', () => {
  it('reads every rule as typed, notice in its unit, lengths as a list', () => {
    const form = readRules({
      bufferBefore: ' 5 ',
      bufferAfter: '15',
      notice: '24',
      noticeUnit: 'hours',
      horizon: '90',
      step: '30',
      lengths: '30, 60 90',
      perDay: '8',
      perWeek: '30',
      perCustomerDay: '1',
      perCustomerWeek: '2',
      seats: '3',
      csrf: 'ignored',
    });
    expect(rulesFromDraft(form)).toEqual({
      bufferBeforeMinutes: 5,
      bufferAfterMinutes: 15,
      minimumNoticeMinutes: 1440,
      maximumHorizonDays: 90,
      slotStepMinutes: 30,
      allowedDurationsMinutes: [30, 60, 90],
      maxBookingsPerDay: 8,
      maxBookingsPerWeek: 30,
      maxBookingsPerCustomerPerDay: 1,
      maxBookingsPerCustomerPerWeek: 2,
      capacity: 3,
      offerAlternatives: true,
    } satisfies BookingRules);
    // Counter-offers off only when the form says no; a form without the field keeps them on.
    expect(rulesFromDraft(draft({ counterOffers: 'no' })).offerAlternatives).toBe(false);
    expect(readRules({ counterOffers: 'maybe' }).counterOffers).toBe('yes');
    expect(readRules({}).counterOffers).toBe('yes');
    expect(rulesFromDraft(draft({ notice: '2', noticeUnit: 'days' })).minimumNoticeMinutes).toBe(2880);
    expect(rulesFromDraft(draft({ notice: '90', noticeUnit: 'minutes' })).minimumNoticeMinutes).toBe(90);
  });

  it('takes every empty field as its default: no buffer or notice, a year ahead, any start or length, no limit, one seat', () => {
    expect(EMPTY.noticeUnit).toBe('hours');
    expect(rulesFromDraft(EMPTY)).toEqual(DEFAULT_BOOKING_RULES);
    const rules = rulesFromDraft(draft({ seats: '2' }));
    expect(rules.slotStepMinutes).toBeNull();
    expect(rules.allowedDurationsMinutes).toBeNull();
    expect(rules.maxBookingsPerDay).toBeNull();
    expect(rules.maxBookingsPerCustomerPerWeek).toBeNull();
    // An unknown unit is not trusted: hours, the unit the form offers first for notice.
    expect(readRules({ notice: '3', noticeUnit: 'weeks' }).noticeUnit).toBe('hours');
  });

  it.each([
    [{ bufferBefore: 'ten' }, 'bufferBeforeMinutes', 'rule-before', 'Buffer before each booking: give'],
    [{ bufferAfter: '721' }, 'bufferAfterMinutes', 'rule-after', 'Buffer after each booking: give'],
    [{ bufferAfter: '-5' }, 'bufferAfterMinutes', 'rule-after', 'Buffer after each booking: give'],
    [
      { notice: '1.5' },
      'minimumNoticeMinutes',
      'rule-notice',
      'Minimum notice: give a whole number of hours',
    ],
    [
      { notice: '367', noticeUnit: 'days' },
      'minimumNoticeMinutes',
      'rule-notice',
      'Minimum notice: give a whole number of days from 0 to 366',
    ],
    [{ horizon: '0' }, 'maximumHorizonDays', 'rule-horizon', 'How far ahead: give'],
    [{ horizon: '3651' }, 'maximumHorizonDays', 'rule-horizon', 'How far ahead: give'],
    [{ step: '7' }, 'slotStepMinutes', 'rule-step', 'Start times every: must divide a day evenly'],
    [{ step: '0' }, 'slotStepMinutes', 'rule-step', 'Start times every: give'],
    [{ lengths: '30, an hour' }, 'allowedDurationsMinutes', 'rule-lengths', 'Lengths offered: give'],
    [
      { lengths: '30, 60, 30' },
      'allowedDurationsMinutes',
      'rule-lengths',
      'Lengths offered: 30 is listed twice',
    ],
    [{ lengths: '0' }, 'allowedDurationsMinutes', 'rule-lengths', 'Lengths offered: give'],
    [
      { perDay: '0' },
      'maxBookingsPerDay',
      'rule-day',
      'Bookings per day: give a whole number from 1 to 10,000',
    ],
    [{ perWeek: '2x' }, 'maxBookingsPerWeek', 'rule-week', 'Bookings per week: give'],
    [
      { perCustomerDay: '10001' },
      'maxBookingsPerCustomerPerDay',
      'rule-customer-day',
      'Per customer per day: give',
    ],
    [
      { perCustomerWeek: '1e3' },
      'maxBookingsPerCustomerPerWeek',
      'rule-customer-week',
      'Per customer per week: give',
    ],
    [{ seats: '0' }, 'capacity', 'rule-seats', 'Seats: give a whole number from 1 to 1,000'],
    [{ seats: '1001' }, 'capacity', 'rule-seats', 'Seats: give'],
  ] as const)('refuses %j by naming its field', (fields, field, inputId, text) => {
    const got = refusal(() => rulesFromDraft(draft(fields)));
    expect(got.field).toBe(field);
    expect(got.inputId).toBe(inputId);
    expect(got.text.startsWith(text), got.text).toBe(true);
  });

  it('shows the stored rules in the form as they read back, notice in the largest exact unit', () => {
    const rules: BookingRules = {
      ...DEFAULT_BOOKING_RULES,
      bufferAfterMinutes: 15,
      minimumNoticeMinutes: 2880,
      allowedDurationsMinutes: [45, 90],
      maxBookingsPerWeek: 12,
      capacity: 4,
    };
    const shown = rulesDraftOf(rules);
    expect(shown).toMatchObject({
      notice: '2',
      noticeUnit: 'days',
      lengths: '45, 90',
      perDay: '',
      seats: '4',
    });
    expect(rulesFromDraft(shown)).toEqual(rules);
    expect(rulesDraftOf({ ...rules, minimumNoticeMinutes: 90 })).toMatchObject({
      notice: '90',
      noticeUnit: 'minutes',
    });
    expect(rulesDraftOf({ ...rules, minimumNoticeMinutes: 120 })).toMatchObject({
      notice: '2',
      noticeUnit: 'hours',
    });
    expect(rulesDraftOf(DEFAULT_BOOKING_RULES)).toMatchObject({
      notice: '0',
      horizon: '365',
      step: '',
      seats: '1',
    });
    expect(rulesFromDraft(rulesDraftOf(DEFAULT_BOOKING_RULES))).toEqual(DEFAULT_BOOKING_RULES);
  });
});

describe('the rules in words', () => {
  it('says what each rule does, and only the rules that do something', () => {
    expect(
      rulesSummary({
        ...DEFAULT_BOOKING_RULES,
        bufferAfterMinutes: 15,
        minimumNoticeMinutes: 1440,
        maximumHorizonDays: 90,
        capacity: 3,
      }),
    ).toBe('15 min buffer after each booking · at least 24 h notice · up to 90 days ahead · 3 seats');
    expect(rulesSummary(DEFAULT_BOOKING_RULES)).toBe('up to 365 days ahead · one booking at a time');
    expect(
      rulesSummary({
        ...DEFAULT_BOOKING_RULES,
        bufferBeforeMinutes: 10,
        bufferAfterMinutes: 10,
        minimumNoticeMinutes: 2 * 1440,
        slotStepMinutes: 30,
        allowedDurationsMinutes: [90, 30, 60],
        maxBookingsPerDay: 1,
        maxBookingsPerWeek: 5,
        maxBookingsPerCustomerPerDay: 1,
        maxBookingsPerCustomerPerWeek: 2,
      }),
    ).toBe(
      '10 min buffer before and after each booking · at least 2 days notice · up to 365 days ahead · ' +
        'starts every 30 min · 30 min, 1 h or 1 h 30 min bookings only · at most 1 booking a day · ' +
        'at most 5 bookings a week · at most 1 booking a day per customer · ' +
        'at most 2 bookings a week per customer · one booking at a time',
    );
  });
});
