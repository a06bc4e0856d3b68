import type { BookingFilter } from '../../../app/console/bookings.js';
import type { BookingStatus } from '../../../domain/booking/booking.js';
import { bookingStatuses } from '../../../domain/booking/booking.js';
import { daysFromCivil, daysInMonth, localEpochDay, wallClockToInstant } from '../../../domain/time/zone.js';

/** The bookings filter as typed into the form: kept as given so a refused value is shown back. */
export interface BookingFilterForm {
  readonly calendar: string;
  readonly status: string;
  readonly from: string;
  readonly to: string;
  readonly customer: string;
}

export interface ParsedFilter {
  readonly form: BookingFilterForm;
  readonly filter: BookingFilter;
  /** The first refused field and why, or null. */
  readonly problem: { readonly field: keyof BookingFilterForm; readonly message: string } | null;
}

const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
const MAX_TEXT = 100;

/** Days since 1970 of a `YYYY-MM-DD` that exists, or null. */
export function epochDayOf(text: string): number | null {
  const m = DATE.exec(text);
  if (!m) return null;
  const [year, month, day] = [Number(m[1]), Number(m[2]), Number(m[3])];
  if (year < 1970 || year > 9999 || month < 1 || month > 12 || day < 1 || day > daysInMonth(year, month))
    return null;
  return daysFromCivil(year, month, day);
}

/** Today in the zone, as days since 1970. */
export const todayIn = (now: number, zone: string) => localEpochDay(now, zone);

/**
 * Reads the filter from a query: dates are whole days in `zone` (`to` includes its day), the
 * customer text is bounded, an unknown calendar id simply matches nothing.
 */
export function parseBookingFilter(query: Record<string, string | undefined>, zone: string): ParsedFilter {
  const form: BookingFilterForm = {
    calendar: (query.calendar ?? '').slice(0, MAX_TEXT),
    status: (query.status ?? '').slice(0, 20),
    from: (query.from ?? '').slice(0, 20),
    to: (query.to ?? '').slice(0, 20),
    customer: (query.customer ?? '').trim().slice(0, MAX_TEXT),
  };
  const refuse = (field: keyof BookingFilterForm, message: string): ParsedFilter => ({
    form,
    filter: {},
    problem: { field, message },
  });
  if (form.status && !(bookingStatuses as readonly string[]).includes(form.status))
    return refuse('status', `Status must be one of ${bookingStatuses.join(', ')}.`);
  const fromDay = form.from ? epochDayOf(form.from) : null;
  if (form.from && fromDay === null) return refuse('from', 'From must be a date like 2026-12-04.');
  const toDay = form.to ? epochDayOf(form.to) : null;
  if (form.to && toDay === null) return refuse('to', 'To must be a date like 2026-12-04.');
  if (fromDay !== null && toDay !== null && toDay < fromDay)
    return refuse('to', 'To must not be before From.');
  return {
    form,
    problem: null,
    filter: {
      ...(form.calendar ? { calendarId: form.calendar } : {}),
      ...(form.status ? { status: form.status as BookingStatus } : {}),
      ...(fromDay !== null ? { from: wallClockToInstant(fromDay, 0, zone) } : {}),
      ...(toDay !== null ? { to: wallClockToInstant(toDay, 1440, zone) } : {}),
      ...(form.customer ? { customer: form.customer } : {}),
    },
  };
}

/** The query string of a filter form, for links that keep it (paging, switching views). */
export function filterQuery(form: BookingFilterForm, extra: Record<string, string> = {}): string {
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries({ ...form, ...extra })) if (value) params.set(key, value);
  const text = params.toString();
  return text ? `?${text}` : '';
}
