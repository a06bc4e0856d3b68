import type { PageApp } from './page-app.js';

export interface CalendarFeedOptions {
  /** The feed's iCalendar text for a secret, or null when it names no live feed link. */
  render(secret: string): Promise<string | null>;
}

/** Unknown, malformed and revoked addresses answer alike. */
const NOT_FOUND = 'No such calendar feed.\n';

/**
 * GET /feeds/<secret>.ics: a calendar's bookings for calendar apps (Google, Outlook, Apple), which
 * fetch without signing in: the secret in the address is the only credential. Private to whoever
 * holds it, so shared caches must not keep it and pages must not leak it onward.
 */
export function mountCalendarFeeds(app: PageApp, options: CalendarFeedOptions): void {
  app.get('/feeds/:file', async (c) => {
    const headers = {
      'Cache-Control': 'private, no-cache',
      'Referrer-Policy': 'no-referrer',
      'X-Robots-Tag': 'noindex, nofollow',
    };
    const file = c.req.param('file');
    const text = file.endsWith('.ics') ? await options.render(file.slice(0, -'.ics'.length)) : null;
    if (text === null) return c.text(NOT_FOUND, 404, headers);
    return c.body(text, 200, { ...headers, 'Content-Type': 'text/calendar; charset=utf-8' });
  });
}
