import type { Booking, Customer } from '../../domain/booking/booking.js';
import type { Calendar } from '../../domain/calendar.js';
import { rulesOf } from '../../domain/calendar.js';
import { invalidArgument } from '../../domain/errors.js';
import type { Interval } from '../../domain/time/interval.js';
import type { CalendarSpan, HoldPlan } from '../../ports/store/index.js';
import { countWindows, customerKey, paddedInterval } from '../../domain/availability/booking-rules.js';

/** The longest booking, buffers included. */
export const MAX_BOOKING_MINUTES = 7 * 24 * 60;

/** A move (reschedule_booking): the confirmed booking, and the time its allocations occupy now. */
export interface Move {
  readonly booking: Booking;
  readonly held: readonly Omit<CalendarSpan, 'capacity'>[];
}

/**
 * What each calendar's allocation occupies, and the limits to count before it is written. A move
 * holds only the part of its new time the booking it moves does not already occupy (that part is
 * handed over when the move is confirmed), and its limits do not count the booking it moves.
 */
export function occupancy(
  calendars: readonly Calendar[],
  range: Interval,
  customer: Customer | null,
  move?: Move,
): Pick<HoldPlan, 'occupies' | 'limits'> {
  const key = customerKey(customer);
  const sorted = [...calendars].sort((a, b) => (a.id < b.id ? -1 : 1));
  return {
    occupies: sorted.flatMap((c) => {
      const rules = rulesOf(c);
      const span = paddedInterval(rules, range);
      // What the booking being moved really occupies (made under the buffers of its day).
      const held = move?.held.find((h) => h.calendarId === c.id) ?? null;
      const part = held ? uncovered(span, held, c) : span;
      return part ? [{ calendarId: c.id, ...part, capacity: rules.capacity }] : [];
    }),
    limits: sorted.flatMap((c) =>
      countWindows(rulesOf(c), c.timeZone, range.start)
        .filter((w) => !w.perCustomer || key !== null)
        .map((w) => ({
          rule: w.rule,
          calendarId: c.id,
          from: w.from,
          to: w.to,
          max: w.max,
          customerKey: w.perCustomer ? key : null,
          excludeBookingId: move?.booking.id ?? null,
        })),
    ),
  };
}

/** The part of `span` outside `held`: all of it, one piece, or none; two pieces cannot be held as one. */
function uncovered(span: Interval, held: Interval, calendar: Calendar): Interval | null {
  if (held.end <= span.start || held.start >= span.end) return span;
  const before = held.start > span.start;
  const after = held.end < span.end;
  if (before && after)
    throw invalidArgument(
      'end',
      `on ${calendar.name} a move may not start earlier and end later than the booking at once; move it in two steps`,
    );
  if (before) return { start: span.start, end: held.start };
  if (after) return { start: held.end, end: span.end };
  return null;
}
