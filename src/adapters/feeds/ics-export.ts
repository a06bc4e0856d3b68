import ical, { ICalEventStatus } from 'ical-generator';
import type { CalendarFeed } from '../../app/feeds/feed-links.js';
import { feedUid } from './feed-uid.js';

/**
 * ical-generator escapes event text but writes the calendar's name (NAME, X-WR-CALNAME) as given:
 * a line break in a calendar name would start properties or events of its own. One line only.
 */
// eslint-disable-next-line no-control-regex -- matching control characters is the point
const oneLine = (text: string) => text.replace(/[\u0000-\u001f\u007f\u0085\u2028\u2029]+/g, ' ');

/** The feed as iCalendar text: times in UTC, no customer details, a refresh hint of 15 minutes. */
export function renderIcs(feed: CalendarFeed, now: number): string {
  const calendar = ical({
    name: oneLine(feed.calendar.name),
    prodId: { company: 'Holdfast', product: 'calendar feed', language: 'EN' },
    ttl: 15 * 60,
  });
  for (const event of feed.events)
    calendar.createEvent({
      id: feedUid(feed.calendar.tenantId, event.bookingId),
      start: new Date(event.start),
      end: new Date(event.end),
      stamp: new Date(now),
      lastModified: new Date(event.changedAt),
      sequence: event.sequence,
      summary: event.summary,
      status: event.status === 'CONFIRMED' ? ICalEventStatus.CONFIRMED : ICalEventStatus.TENTATIVE,
    });
  return calendar.toString();
}
