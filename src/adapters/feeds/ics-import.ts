import ical from 'node-ical';
import type { DateWithTimeZone, VEvent } from 'node-ical';
import type { ExternalBusyItem, WallClock } from '../../domain/feeds/external-busy.js';
import { MAX_IMPORT_INSTANCES } from '../../domain/feeds/external-busy.js';
import type { Interval } from '../../domain/time/interval.js';
import { daysFromCivil } from '../../domain/time/zone.js';
import { FeedReadError } from '../../ports/busy-feed.js';

/**
 * node-ical builds dates without a zone of their own (all-day dates, "floating" times) at the
 * process's local wall clock: read them back with the local getters, as wall-clock times.
 */
function wallOf(date: Date): WallClock {
  return {
    epochDay: daysFromCivil(date.getFullYear(), date.getMonth() + 1, date.getDate()),
    minute: date.getHours() * 60 + date.getMinutes(),
  };
}

const zoneless = (date: DateWithTimeZone) => date.dateOnly === true || date.tz === undefined;

/** A person's calendar repeats by the hour at most; finer rules would expand to millions of instances. */
const TOO_FINE = /FREQ=(SECONDLY|MINUTELY)/;

/** Cancelled and free (TRANSP:TRANSPARENT) events block nothing, whether the series or one occurrence says so. */
const blocks = (event: Pick<VEvent, 'status' | 'transparency'>) =>
  event.status !== 'CANCELLED' && event.transparency !== 'TRANSPARENT';

/**
 * The busy instances of an iCalendar text that meet `window`: recurring events expanded with
 * their EXDATEs and RECURRENCE-ID overrides, zones (TZID, DST) applied by node-ical; all-day and
 * floating instances left as wall-clock times for the calendar's zone. Throws FeedReadError.
 */
export function busyItemsOf(text: string, window: Interval): ExternalBusyItem[] {
  if (!/^\uFEFF?\s*BEGIN:VCALENDAR/i.test(text))
    throw new FeedReadError('not an iCalendar file (no BEGIN:VCALENDAR)');
  let parsed: ReturnType<typeof ical.sync.parseICS>;
  try {
    parsed = ical.sync.parseICS(text);
  } catch (error) {
    throw new FeedReadError(
      `unparseable iCalendar: ${error instanceof Error ? error.message.slice(0, 120) : ''}`,
    );
  }
  const range = { from: new Date(window.start), to: new Date(window.end), expandOngoing: true };
  const items: ExternalBusyItem[] = [];
  // Every expanded instance counts, kept or not: zero-length or free ones cost the same to expand.
  let expanded = 0;
  for (const component of Object.values(parsed)) {
    if (!component || component.type !== 'VEVENT') continue;
    const event = component as VEvent;
    if (!blocks(event) || !(event.start instanceof Date) || Number.isNaN(event.start.getTime())) continue;
    if (event.rrule && TOO_FINE.test(String(event.rrule)))
      throw new FeedReadError(`event ${String(event.uid).slice(0, 80)} repeats more often than hourly`);
    let instances: ReturnType<typeof ical.expandRecurringEvent>;
    try {
      instances = ical.expandRecurringEvent(event, range);
    } catch (error) {
      throw new FeedReadError(
        `cannot expand an event: ${error instanceof Error ? error.message.slice(0, 120) : ''}`,
      );
    }
    expanded += instances.length;
    if (expanded > MAX_IMPORT_INSTANCES)
      throw new FeedReadError(`more than ${MAX_IMPORT_INSTANCES} event instances in the window`);
    for (const instance of instances) {
      if (!blocks(instance.event)) continue;
      const { start, end } = instance;
      if (start.getTime() >= end.getTime()) continue;
      items.push(
        instance.isFullDay || zoneless(start)
          ? { kind: 'wall', start: wallOf(start), end: wallOf(end) }
          : { kind: 'exact', start: start.getTime(), end: end.getTime() },
      );
    }
  }
  return items;
}
