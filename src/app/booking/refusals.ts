import { openIntervals } from '../../domain/availability/availability.js';
import type { BookingRuleName } from '../../domain/availability/booking-rules.js';
import { paddedInterval, timingBreach } from '../../domain/availability/booking-rules.js';
import type { Calendar } from '../../domain/calendar.js';
import { rulesOf } from '../../domain/calendar.js';
import { DomainError, invalidArgument } from '../../domain/errors.js';
import { isLimited } from '../../domain/identity/identity.js';
import type { Principal } from '../../domain/identity/principal.js';
import { MINUTE_MS } from '../../domain/time/instant.js';
import type { Instant } from '../../domain/time/instant.js';
import type { Interval } from '../../domain/time/interval.js';
import type { LimitCheck } from '../../ports/store/index.js';
import type { AppDeps } from '../deps.js';
import { MAX_BOOKING_MINUTES } from './occupancy.js';

/** Why a hold is refused, in words a person can act on: closed hours, booking rules, caps. */

export function requireOpen(calendars: readonly Calendar[], range: Interval): void {
  for (const calendar of calendars) {
    const open = openIntervals(calendar.availability, calendar.timeZone, range);
    if (!open.some((o) => o.start <= range.start && o.end >= range.end)) {
      throw new DomainError(
        'OUTSIDE_AVAILABILITY',
        `${calendar.name} is not open for the whole requested time.`,
        {
          calendarId: calendar.id,
        },
      );
    }
  }
}

/** Notice, horizon, allowed lengths and step grids: the rules a hold breaks on its own. */
export function requireRules(calendars: readonly Calendar[], range: Interval, now: Instant): void {
  for (const calendar of calendars) {
    const rules = rulesOf(calendar);
    const breach = timingBreach(rules, calendar.timeZone, range, now);
    if (breach)
      throw new DomainError('OUTSIDE_BOOKING_RULES', `${calendar.name}: ${RULE_WORDS[breach.rule]}`, {
        calendarId: calendar.id,
        rule: breach.rule,
        ...breach.detail,
      });
    const padded = paddedInterval(rules, range);
    if (padded.end - padded.start > MAX_BOOKING_MINUTES * MINUTE_MS)
      throw invalidArgument('end', `with ${calendar.name}'s buffers a booking may last at most 7 days`);
  }
}

const RULE_WORDS: Record<BookingRuleName, string> = {
  minimumNotice: 'bookings need more notice than that.',
  maximumHorizon: 'that is further ahead than bookings may be made.',
  slotStep: 'bookings start on its step grid only.',
  allowedDurations: 'bookings of that length are not offered.',
  maxBookingsPerDay: 'that day is fully booked.',
  maxBookingsPerWeek: 'that week is fully booked.',
  maxBookingsPerCustomerPerDay: 'this customer has as many bookings that day as allowed.',
  maxBookingsPerCustomerPerWeek: 'this customer has as many bookings that week as allowed.',
};

export function limitReached(
  calendars: readonly Calendar[],
  check: LimitCheck,
): DomainError<'OUTSIDE_BOOKING_RULES'> {
  const calendar = calendars.find((c) => c.id === check.calendarId)!;
  return new DomainError('OUTSIDE_BOOKING_RULES', `${calendar.name}: ${RULE_WORDS[check.rule]}`, {
    calendarId: calendar.id,
    rule: check.rule,
    [check.rule]: check.max,
    countedFrom: check.from,
    countedTo: check.to,
  });
}

const HOUR_MS = 3_600_000;
const hoursOf = (ms: number) => Math.round((ms / HOUR_MS) * 100) / 100;

/** A refused hold in words: which cap was reached, what is held, and when the first hold frees. */
export async function holdCapReached(
  deps: AppDeps,
  principal: Principal,
  input: { readonly start: string; readonly end: string },
  calendarCount: number,
): Promise<DomainError<'RATE_LIMITED'>> {
  const { activeHoldsPerPerson, activeHoldsPerConnection, heldCalendarHoursPerPerson } = principal.limits;
  const now = deps.clock.now();
  const held = await deps.store.read((tx) => tx.bookings.heldBy(principal.tenantId, principal.subject, now));
  const asked = (Date.parse(input.end) - Date.parse(input.start)) * calendarCount;
  if (
    isLimited(heldCalendarHoursPerPerson) &&
    held.holds < activeHoldsPerPerson &&
    held.calendarMs + asked > heldCalendarHoursPerPerson * HOUR_MS
  ) {
    const retryAfterMs = Math.max(1_000, (held.firstExpiry ?? now + deps.config.holdTtlMs) - now);
    return new DomainError(
      'RATE_LIMITED',
      `At most ${heldCalendarHoursPerPerson} calendar-hours held at once per person (a hold counts its hours × its calendars): you hold ${hoursOf(held.calendarMs)} in ${held.holds} hold(s) and this one adds ${hoursOf(asked)}. Release a hold you no longer need, or wait: the first of yours lapses in ${Math.ceil(retryAfterMs / 60_000)} min.`,
      {
        limit: 'held_calendar_hours',
        max: heldCalendarHoursPerPerson,
        heldCalendarHours: hoursOf(held.calendarMs),
        askedCalendarHours: hoursOf(asked),
        retryAfterMs,
      },
    );
  }
  return new DomainError(
    'RATE_LIMITED',
    `At most ${activeHoldsPerPerson} active holds per person and ${activeHoldsPerConnection} per connection; release one or let one lapse.`,
    {
      limit: 'active_holds',
      max: Math.min(activeHoldsPerPerson, activeHoldsPerConnection),
      // The oldest hold lapses within one hold lifetime at the latest.
      retryAfterMs: deps.config.holdTtlMs,
    },
  );
}
