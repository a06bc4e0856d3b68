import { DomainError, invalidArgument } from '../errors.js';
import type { Money } from '../booking/money.js';
import { samePrice, sumPrices, validateMoney } from '../booking/money.js';
import type { Instant } from '../time/instant.js';
import { isValidTimeZone, MINUTE_MS } from '../time/instant.js';
import { DAY_MS, localEpochDay, offsetAt, wallClockToInstant, weekdayIndex } from '../time/zone.js';

/**
 * A person's standing approval: a bounded rule under which their agents' confirmations,
 * cancellations or moves are approved at once, each recorded as an approval "by standing rule R
 * of <person>" bound to the same intent hash. Granted only by that person (console with a fresh
 * sign-in, or an operator at the CLI), never through an agent's tools.
 */
export const ruleActions = ['confirm', 'cancel', 'move'] as const;
export type RuleAction = (typeof ruleActions)[number];

/** The longest a rule may stand: it must be looked at again at least this often. */
export const MAX_RULE_DAYS = 90;

export interface StandingRuleBounds {
  readonly actions: readonly RuleAction[];
  /** Null: any calendar of the tenant. */
  readonly calendarIds: readonly string[] | null;
  /** The most one booking may cost; null: no price limit. A priced booking in another currency never fits. */
  readonly maxPerBooking: Money | null;
  /** The most the bookings it approves in one local day may cost together. */
  readonly maxPerDay: Money | null;
  /** Local weekdays (1 Monday … 7 Sunday) a booking may start on, in the rule's zone. */
  readonly weekdays: readonly number[];
  /** Local hours ("HH:MM", end exclusive) a booking must lie within, in the rule's zone; null: any. */
  readonly hours: { readonly from: string; readonly to: string } | null;
  /** The most uses in one local day (the day the rule approves, in its zone); null: no count limit. */
  readonly maxPerDayCount: number | null;
  /** `known`: only a customer with a booking of theirs confirmed before. */
  readonly customers: 'any' | 'known';
  /** The zone its weekdays, hours and days are read in. */
  readonly timeZone: string;
}

export interface StandingRule extends StandingRuleBounds {
  readonly id: string;
  readonly tenantId: string;
  /** The person whose agents it approves for, and who granted it. */
  readonly personId: string;
  readonly personName: string;
  /** One agent connection (a token id), or null for every connection of the person. */
  readonly connectionId: string | null;
  readonly createdAt: Instant;
  readonly expiresAt: Instant;
  readonly revokedAt: Instant | null;
  /** How the grant was made: "console (passkey)", "cli operator". */
  readonly grantedVia: string;
  /**
   * The rules this one took the place of when the person changed it, newest first: their uses
   * today count toward its daily limits, so narrowing a rule takes effect the same day.
   */
  readonly replaced: readonly string[];
}

/** One gated change as a rule judges it. */
export interface RuleUse {
  readonly tenantId: string;
  readonly personId: string;
  readonly connectionId: string;
  readonly action: RuleAction;
  readonly calendarIds: readonly string[];
  readonly start: Instant;
  readonly end: Instant;
  /** What it costs (confirm of a priced booking), or null. */
  readonly price: Money | null;
  readonly customerKnown: boolean;
  readonly now: Instant;
}

const HHMM = /^([01]\d|2[0-3]):[0-5]\d$|^24:00$/;
const minutesOf = (hhmm: string) => Number(hhmm.slice(0, 2)) * 60 + Number(hhmm.slice(3));

/** Checks a draft's bounds; the error names the field. Nothing else is judged here. */
export function validateBounds(bounds: StandingRuleBounds, days: number): void {
  if (bounds.actions.length === 0 || bounds.actions.some((a) => !ruleActions.includes(a)))
    throw invalidArgument('actions', `one or more of ${ruleActions.join(', ')}`);
  if (bounds.calendarIds !== null && bounds.calendarIds.length === 0)
    throw invalidArgument('calendars', 'one or more calendars, or any');
  if (bounds.maxPerBooking) validateMoney(bounds.maxPerBooking, 'maxPerBooking');
  if (bounds.maxPerDay) validateMoney(bounds.maxPerDay, 'maxPerDay');
  if (bounds.weekdays.length === 0 || bounds.weekdays.some((d) => !Number.isInteger(d) || d < 1 || d > 7))
    throw invalidArgument('weekdays', 'one or more of mon, tue, wed, thu, fri, sat, sun');
  if (bounds.hours) {
    const { from, to } = bounds.hours;
    if (!HHMM.test(from) || !HHMM.test(to) || minutesOf(from) >= minutesOf(to))
      throw invalidArgument('hours', 'HH:MM-HH:MM, the start before the end, e.g. 09:00-17:00');
  }
  if (
    bounds.maxPerDayCount !== null &&
    (!Number.isInteger(bounds.maxPerDayCount) || bounds.maxPerDayCount < 1 || bounds.maxPerDayCount > 1000)
  )
    throw invalidArgument('bookingsPerDay', 'a whole number from 1 to 1000');
  if (!isValidTimeZone(bounds.timeZone))
    throw invalidArgument('timeZone', 'an IANA time zone, e.g. Europe/Berlin');
  if (!Number.isInteger(days) || days < 1 || days > MAX_RULE_DAYS)
    throw invalidArgument('expires', `a whole number of days from 1 to ${MAX_RULE_DAYS}`);
}

/** Whether the rule stands at `now`: not revoked, not expired. */
export function isLive(rule: StandingRule, now: Instant): boolean {
  return rule.revokedAt === null && now < rule.expiresAt;
}

/**
 * Why this rule does not cover this use, in words, or null when it does — everything but the
 * per-day limits, which are counted inside the confirming write (see withinDailyLimits).
 */
export function whyNot(rule: StandingRule, use: RuleUse): string | null {
  if (rule.tenantId !== use.tenantId || rule.personId !== use.personId) return 'another person’s rule';
  if (rule.connectionId !== null && rule.connectionId !== use.connectionId) return 'another connection';
  if (!isLive(rule, use.now)) return rule.revokedAt !== null ? 'revoked' : 'expired';
  if (!rule.actions.includes(use.action)) return `does not allow ${use.action}`;
  if (rule.calendarIds && use.calendarIds.some((id) => !rule.calendarIds!.includes(id)))
    return 'another calendar';
  if (rule.maxPerBooking && use.price && !withinPrice(use.price, rule.maxPerBooking)) return 'costs more';
  if (rule.customers === 'known' && !use.customerKnown) return 'a customer not known';
  const day = localEpochDay(use.start, rule.timeZone);
  // Every local day the booking touches, not only the one it starts on (Friday night to Sunday).
  const lastDay = localEpochDay(Math.max(use.start, use.end - 1), rule.timeZone);
  for (let d = day; d <= lastDay; d += 1)
    if (!rule.weekdays.includes(weekdayIndex(d) + 1)) return 'another weekday';
  if (rule.hours) {
    const from = wallClockToInstant(day, minutesOf(rule.hours.from), rule.timeZone);
    const to = wallClockToInstant(day, minutesOf(rule.hours.to), rule.timeZone);
    if (use.start < from || use.end > to) return 'outside its hours';
  }
  return null;
}

/** `price` is at most `limit`, in the same currency. */
function withinPrice(price: Money, limit: Money): boolean {
  if (price.currency !== limit.currency) return false;
  const total = sumPrices([price, limit])!;
  // price <= limit  ⇔  price + limit <= 2 × limit
  return !exceeds(total, sumPrices([limit, limit])!);
}

function exceeds(a: Money, b: Money): boolean {
  if (samePrice(a, b)) return false;
  const scale = Math.max(a.amount.split('.')[1]?.length ?? 0, b.amount.split('.')[1]?.length ?? 0);
  const units = (m: Money) => {
    const [whole, fraction = ''] = m.amount.split('.');
    return BigInt(whole! + fraction.padEnd(scale, '0'));
  };
  return units(a) > units(b);
}

/** The local day, in the rule's zone, that `now` falls in: [from, to). */
export function dayOfUse(rule: StandingRule, now: Instant): { from: Instant; to: Instant } {
  const day = localEpochDay(now, rule.timeZone);
  return {
    from: wallClockToInstant(day, 0, rule.timeZone),
    to: wallClockToInstant(day + 1, 0, rule.timeZone),
  };
}

/**
 * Whether one more use, costing `price`, stays within the per-day limits given what the rule
 * approved earlier that day (`earlier`: their prices, null for unpriced). Checked in the
 * committing transaction, under the rule's lock, so racing agents cannot overshoot.
 */
export function withinDailyLimits(
  rule: StandingRule,
  earlier: readonly (Money | null)[],
  price: Money | null,
): string | null {
  if (rule.maxPerDayCount !== null && earlier.length + 1 > rule.maxPerDayCount)
    return `its ${rule.maxPerDayCount} a day are used`;
  if (rule.maxPerDay && price) {
    const spent = earlier.filter((p): p is Money => p !== null && p.currency === rule.maxPerDay!.currency);
    if (price.currency !== rule.maxPerDay.currency) return 'costs in another currency';
    if (exceeds(sumPrices([...spent, price])!, rule.maxPerDay)) return 'the day’s money is used';
  }
  return null;
}

/** The expiry of a rule granted now for `days` days. */
export function ruleExpiry(now: Instant, days: number): Instant {
  return now + days * 24 * 60 * MINUTE_MS;
}

/** What the approval record says decided it. */
export function decidedByRule(rule: StandingRule): string {
  return `standing rule ${rule.id} of ${rule.personName}`;
}

/** A rule that no longer stands cannot be revoked again. */
export function revoke(rule: StandingRule, now: Instant): StandingRule {
  if (rule.revokedAt !== null)
    throw new DomainError('INVALID_STATE', `Standing rule ${rule.id} was already revoked.`, {});
  return { ...rule, revokedAt: now };
}

/** What a draft rule scoped from one approved change looks like, before the person narrows it. */
export interface RuleDraft extends StandingRuleBounds {
  readonly connectionId: string | null;
  readonly days: number;
}

/** Milliseconds since local midnight on the zone's wall clock (not elapsed time: DST days differ). */
const wallClockMs = (instant: Instant, zone: string) => {
  const local = instant + offsetAt(instant, zone);
  return local - Math.floor(local / DAY_MS) * DAY_MS;
};
const HOUR_MS = 60 * MINUTE_MS;
const hhmm = (minutes: number) =>
  `${String(Math.floor(minutes / 60)).padStart(2, '0')}:${String(minutes % 60).padStart(2, '0')}`;

/**
 * "Always allow bookings like this": a rule as narrow as the change it is drafted from — its
 * action, its calendars, at most its price, its weekday, its hours widened to whole hours, the
 * connection that asked — standing 30 days. The person narrows or widens it before granting.
 */
export function draftFrom(change: {
  readonly action: RuleAction;
  readonly calendarIds: readonly string[];
  readonly start: Instant;
  readonly end: Instant;
  readonly price: Money | null;
  readonly connectionId: string | null;
  readonly timeZone: string;
}): RuleDraft {
  const zone = change.timeZone;
  const firstDay = localEpochDay(change.start, zone);
  const lastDay = localEpochDay(Math.max(change.start, change.end - 1), zone);
  const weekdays = new Set<number>();
  for (let d = firstDay; d <= lastDay && weekdays.size < 7; d += 1) weekdays.add(weekdayIndex(d) + 1);
  const from = Math.floor(wallClockMs(change.start, zone) / HOUR_MS) * 60;
  // The end's last moment, so a booking ending at midnight ends at 24:00, not 00:00.
  const to = Math.ceil((wallClockMs(change.end - 1, zone) + 1) / HOUR_MS) * 60;
  // Hours only when the change lies within one local day (a booking past midnight has none).
  const hours = firstDay === lastDay && to > from ? { from: hhmm(from), to: hhmm(Math.min(to, 1440)) } : null;
  return {
    actions: [change.action],
    calendarIds: [...change.calendarIds],
    maxPerBooking: change.price,
    maxPerDay: null,
    weekdays: [...weekdays].sort(),
    hours,
    // A few a day: the person widens it if they mean more.
    maxPerDayCount: 3,
    customers: 'any',
    timeZone: zone,
    connectionId: change.connectionId,
    days: 30,
  };
}
