import type { CommandDoc } from '../command-doc.js';
import { DATABASE } from '../command-doc.js';

export const feedsHelp: CommandDoc = {
  name: 'feeds',
  usage: [
    'holdfast feeds create CALENDAR_ID [--json]',
    'holdfast feeds list [--json]',
    'holdfast feeds revoke ID',
    'holdfast feeds subscribe CALENDAR_ID URL_OR_FILE [--every 15m] [--json]',
    'holdfast feeds subscriptions [--json]',
    'holdfast feeds unsubscribe ID',
    'holdfast feeds refresh ID [--allow-private-feeds] [--json]',
  ],
  summary:
    "Publish a calendar's bookings as a private .ics feed, and count external calendars' busy time as busy.",
  details: [
    'create prints the feed address once (/feeds/<secret>.ics on the public URL); only its hash is stored. Subscribe to it',
    'from Google Calendar (Other calendars > From URL), Outlook (Add calendar > Subscribe from web) or Apple Calendar.',
    'subscribe takes an https URL or an .ics file; the server refreshes it on schedule. Its busy time is refused to holds',
    'and left out of find_slots; a failed refresh keeps the last good busy time and is shown by subscriptions.',
  ],
  options: [...DATABASE, 'every', 'allow-private-feeds', 'public-url', 'json'],
  examples: [
    'holdfast feeds create cal_3kq0V…',
    'holdfast feeds subscribe cal_3kq0V… https://calendar.example.com/busy.ics --every 30m',
  ],
};
