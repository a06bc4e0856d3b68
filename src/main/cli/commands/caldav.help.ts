import type { CommandDoc } from '../command-doc.js';
import { DATABASE } from '../command-doc.js';

export const caldavHelp: CommandDoc = {
  name: 'caldav',
  usage: [
    'holdfast caldav connect CALENDAR_ID URL --username U [--password-env NAME] [--share-contact] [--every 1m] [--json]',
    'holdfast caldav connect CALENDAR_ID URL --oauth google|TOKEN_URL --client-id ID [--client-secret-env NAME] [--refresh-token-env NAME] [--username EMAIL] […]',
    'holdfast caldav list [--json]',
    'holdfast caldav sync ID [--allow-private-feeds] [--json]',
    'holdfast caldav disconnect ID',
  ],
  summary:
    'Sync a calendar both ways with a CalDAV collection (iCloud, Fastmail, Nextcloud, Radicale …): its events are busy time, confirmed bookings become its events.',
  details: [
    'connect signs in once to check the account and that URL is a calendar collection, then stores the password sealed.',
    'The password is read from an environment variable (default HOLDFAST_CALDAV_PASSWORD), never from the command line.',
    'Google takes OAuth 2.0 only: --oauth google with your OAuth client and a refresh token (see docs/caldav.md).',
    'The server syncs every --every by sync-collection (only what changed): events there are refused to holds; confirmed',
    'bookings are written there (moved and removed with them); an event added over a confirmed booking is an overlap,',
    'shown by list and on the booking. Events carry no customer contact details unless --share-contact. See docs/caldav.md.',
  ],
  options: [
    ...DATABASE,
    'username',
    'password-env',
    'oauth',
    'client-id',
    'client-secret-env',
    'refresh-token-env',
    'share-contact',
    'every',
    'allow-private-feeds',
    'json',
  ],
  examples: [
    'holdfast caldav connect cal_3kq0V… https://caldav.fastmail.com/dav/calendars/user/ana@fastmail.com/Default/ --username ana@fastmail.com --password-env FASTMAIL_APP_PASSWORD',
    'holdfast caldav connect cal_3kq0V… https://apidata.googleusercontent.com/caldav/v2/ana%40gmail.com/events/ --oauth google --client-id 1234.apps.googleusercontent.com',
    'holdfast caldav sync cdv_9xQ2…',
  ],
};
