import type { CalendarFeed } from '../../app/feeds/feed-links.js';

// Calendar feeds: .ics out (ical-generator) and external busy time in (node-ical, guarded fetch).
// Both libraries load when a feed is first rendered or read, not with the server.
export { icsBusyReader } from './busy-feed-reader.js';
export type { FetchLimits } from './guarded-fetch.js';
export { feedUid } from './feed-uid.js';

/** The feed as iCalendar text (see ics-export.ts). */
export async function renderIcs(feed: CalendarFeed, now: number): Promise<string> {
  return (await import('./ics-export.js')).renderIcs(feed, now);
}
