import { describe, expect, it } from 'vitest';
import type { RuleUse, StandingRule } from '../../src/domain/approval/standing-rule.js';
import {
  dayOfUse,
  draftFrom,
  revoke,
  validateBounds,
  whyNot,
  withinDailyLimits,
} from '../../src/domain/approval/standing-rule.js';

const HOUR = 3_600_000;
// Monday 2027-03-01 in Berlin (UTC+1): 10:00 local is 09:00Z.
const MONDAY_10_BERLIN = Date.parse('2027-03-01T09:00:00Z');

const rule: StandingRule = {
  id: 'rule_1',
  tenantId: 'local',
  personId: 'olga',
  personName: 'Olga Petrova',
  connectionId: null,
  actions: ['confirm'],
  calendarIds: ['cal_physio'],
  maxPerBooking: { amount: '80.00', currency: 'EUR' },
  maxPerDay: { amount: '200.00', currency: 'EUR' },
  weekdays: [1, 2, 3, 4, 5],
  hours: { from: '09:00', to: '17:00' },
  maxPerDayCount: 3,
  customers: 'any',
  timeZone: 'Europe/Berlin',
  createdAt: MONDAY_10_BERLIN - 24 * HOUR,
  expiresAt: MONDAY_10_BERLIN + 30 * 24 * HOUR,
  revokedAt: null,
  grantedVia: 'cli operator',
  replaced: [],
};

const use: RuleUse = {
  tenantId: 'local',
  personId: 'olga',
  connectionId: 'tok_1',
  action: 'confirm',
  calendarIds: ['cal_physio'],
  start: MONDAY_10_BERLIN,
  end: MONDAY_10_BERLIN + HOUR,
  price: { amount: '80.00', currency: 'EUR' },
  customerKnown: false,
  now: MONDAY_10_BERLIN - 2 * HOUR,
};

describe('a standing rule: every bound, in and out', () => {
  it('covers a use inside every bound', () => {
    expect(whyNot(rule, use)).toBeNull();
  });

  it.each<[string, Partial<StandingRule>, Partial<RuleUse>, string]>([
    ['another person', {}, { personId: 'ivan' }, 'another person’s rule'],
    ['another tenant', {}, { tenantId: 'other' }, 'another person’s rule'],
    ['another connection', { connectionId: 'tok_2' }, {}, 'another connection'],
    ['revoked', { revokedAt: MONDAY_10_BERLIN - 3 * HOUR }, {}, 'revoked'],
    ['expired', { expiresAt: MONDAY_10_BERLIN - 2 * HOUR }, {}, 'expired'],
    ['an action it does not allow', {}, { action: 'cancel' }, 'does not allow cancel'],
    ['another calendar', {}, { calendarIds: ['cal_physio', 'cal_room'] }, 'another calendar'],
    ['one cent more', {}, { price: { amount: '80.01', currency: 'EUR' } }, 'costs more'],
    ['another currency', {}, { price: { amount: '1.00', currency: 'USD' } }, 'costs more'],
    ['an unknown customer', { customers: 'known' }, {}, 'a customer not known'],
    [
      'a Saturday',
      {},
      { start: MONDAY_10_BERLIN + 5 * 24 * HOUR, end: MONDAY_10_BERLIN + 5 * 24 * HOUR + HOUR },
      'another weekday',
    ],
    [
      'a Friday night into Saturday (no hours set)',
      { hours: null },
      { start: MONDAY_10_BERLIN + 4 * 24 * HOUR + 10 * HOUR, end: MONDAY_10_BERLIN + 5 * 24 * HOUR },
      'another weekday',
    ],
    ['before its hours (08:30 local)', {}, { start: MONDAY_10_BERLIN - 1.5 * HOUR }, 'outside its hours'],
    [
      'past its hours (ends 17:30 local)',
      {},
      { start: MONDAY_10_BERLIN + 6.5 * HOUR, end: MONDAY_10_BERLIN + 7.5 * HOUR },
      'outside its hours',
    ],
  ])('does not cover %s', (_name, ruleChange, useChange, reason) => {
    expect(whyNot({ ...rule, ...ruleChange }, { ...use, ...useChange })).toBe(reason);
  });

  it('covers the edges: exactly the limit, the hours to the minute, one connection, a known customer, no price', () => {
    expect(whyNot(rule, { ...use, price: { amount: '80', currency: 'EUR' } })).toBeNull();
    expect(
      whyNot(rule, { ...use, start: MONDAY_10_BERLIN - HOUR, end: MONDAY_10_BERLIN + 7 * HOUR }),
    ).toBeNull();
    expect(whyNot({ ...rule, connectionId: 'tok_1' }, use)).toBeNull();
    expect(whyNot({ ...rule, customers: 'known' }, { ...use, customerKnown: true })).toBeNull();
    expect(whyNot(rule, { ...use, price: null })).toBeNull();
  });

  it('reads weekdays and hours in its own zone across a DST change', () => {
    // Monday 2027-03-29, the day after Berlin moved to UTC+2: 09:00 local is 07:00Z.
    const afterDst = Date.parse('2027-03-29T07:00:00Z');
    expect(whyNot(rule, { ...use, start: afterDst, end: afterDst + HOUR, now: afterDst - HOUR })).toBeNull();
    expect(whyNot(rule, { ...use, start: afterDst - HOUR, end: afterDst, now: afterDst - 2 * HOUR })).toBe(
      'outside its hours',
    );
  });

  it('counts the day: uses and money, each limit exactly', () => {
    const eighty = { amount: '80.00', currency: 'EUR' };
    expect(withinDailyLimits(rule, [], eighty)).toBeNull();
    expect(withinDailyLimits(rule, [eighty], eighty)).toBeNull();
    // 80 + 80 + 40 = 200: exactly the day's money.
    expect(withinDailyLimits(rule, [eighty, eighty], { amount: '40', currency: 'EUR' })).toBeNull();
    expect(withinDailyLimits(rule, [eighty, eighty], { amount: '40.01', currency: 'EUR' })).toBe(
      'the day’s money is used',
    );
    expect(withinDailyLimits(rule, [null, null, null], null)).toBe('its 3 a day are used');
    expect(withinDailyLimits({ ...rule, maxPerDayCount: null }, [null, null, null], null)).toBeNull();
    expect(withinDailyLimits(rule, [], { amount: '1', currency: 'USD' })).toBe('costs in another currency');
  });

  it('its day is the local day in its zone', () => {
    const day = dayOfUse(rule, MONDAY_10_BERLIN);
    expect(new Date(day.from).toISOString()).toBe('2027-02-28T23:00:00.000Z');
    expect(new Date(day.to).toISOString()).toBe('2027-03-01T23:00:00.000Z');
  });

  it('refuses a bad draft naming the field, and a second revoke', () => {
    const bounds = { ...rule };
    expect(() => validateBounds(bounds, 90)).not.toThrow();
    const field = (change: object, days = 30) => {
      try {
        validateBounds({ ...bounds, ...change }, days);
        return null;
      } catch (error) {
        return (error as { details: { field: string } }).details.field;
      }
    };
    expect(field({ actions: [] })).toBe('actions');
    expect(field({ actions: ['book'] })).toBe('actions');
    expect(field({ calendarIds: [] })).toBe('calendars');
    expect(field({ maxPerBooking: { amount: '-1', currency: 'EUR' } })).toBe('maxPerBooking.amount');
    expect(field({ maxPerDay: { amount: '1', currency: 'eur' } })).toBe('maxPerDay.currency');
    expect(field({ weekdays: [0] })).toBe('weekdays');
    expect(field({ hours: { from: '17:00', to: '09:00' } })).toBe('hours');
    expect(field({ maxPerDayCount: 0 })).toBe('bookingsPerDay');
    expect(field({ timeZone: 'Mars/Olympus' })).toBe('timeZone');
    expect(field({}, 91)).toBe('expires');
    expect(field({}, 0)).toBe('expires');
    const revoked = revoke(rule, MONDAY_10_BERLIN);
    expect(revoked.revokedAt).toBe(MONDAY_10_BERLIN);
    expect(() => revoke(revoked, MONDAY_10_BERLIN)).toThrow(/already revoked/);
  });
});

describe('a rule drafted from one change ("Always allow bookings like this")', () => {
  const change = {
    action: 'confirm' as const,
    calendarIds: ['cal_a'],
    start: MONDAY_10_BERLIN + 15 * 60_000,
    end: MONDAY_10_BERLIN + 75 * 60_000,
    price: { amount: '60.00', currency: 'EUR' },
    connectionId: 'tok_1',
    timeZone: 'Europe/Berlin',
  };

  it('is as narrow as the change: its action, calendars, price, weekday, whole hours and connection', () => {
    const draft = draftFrom(change);
    expect(draft).toMatchObject({
      actions: ['confirm'],
      calendarIds: ['cal_a'],
      maxPerBooking: { amount: '60.00', currency: 'EUR' },
      weekdays: [1],
      hours: { from: '10:00', to: '12:00' },
      maxPerDayCount: 3,
      connectionId: 'tok_1',
      timeZone: 'Europe/Berlin',
      days: 30,
    });
    // And it covers the change it was drafted from, a week later too.
    const drafted = { ...rule, ...draft, id: 'rule_d' };
    expect(whyNot(drafted, { ...use, ...change, calendarIds: ['cal_a'] })).toBeNull();
    expect(
      whyNot(drafted, {
        ...use,
        ...change,
        start: change.start + 7 * 24 * HOUR,
        end: change.end + 7 * 24 * HOUR,
      }),
    ).toBeNull();
    // Not an hour earlier, nor on Tuesday.
    expect(whyNot(drafted, { ...use, ...change, start: change.start - HOUR, end: change.end - HOUR })).toBe(
      'outside its hours',
    );
    expect(
      whyNot(drafted, { ...use, ...change, start: change.start + 24 * HOUR, end: change.end + 24 * HOUR }),
    ).toBe('another weekday');
  });

  it('past local midnight it keeps both weekdays and no hours; free, it has no money bound', () => {
    const night = draftFrom({
      ...change,
      price: null,
      start: MONDAY_10_BERLIN + 13 * HOUR,
      end: MONDAY_10_BERLIN + 15 * HOUR,
    });
    expect(night.weekdays).toEqual([1, 2]);
    expect(night.hours).toBeNull();
    expect(night.maxPerBooking).toBeNull();
  });

  it('reads hours in the calendar’s zone across a DST change (New York, 2027-03-14)', () => {
    // 09:30–10:30 EDT on Sunday 14 March 2027, the day clocks went forward: 13:30Z.
    const start = Date.UTC(2027, 2, 14, 13, 30);
    const draft = draftFrom({ ...change, start, end: start + HOUR, timeZone: 'America/New_York' });
    expect(draft.hours).toEqual({ from: '09:00', to: '11:00' });
    expect(draft.weekdays).toEqual([7]);
  });
});
