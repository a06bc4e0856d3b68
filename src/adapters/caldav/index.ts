import type { CaldavClient } from '../../ports/caldav.js';
import type { FetchLimits } from '../feeds/guarded-fetch.js';

// CalDAV: tsdav (and node-ical, ical-generator for the events) load on the first sync, not with the server.
export type { BookingEventInput } from './booking-event.js';

/** The client, loaded when first used. */
export async function caldavClient(limits: Partial<FetchLimits> = {}): Promise<CaldavClient> {
  return (await import('./tsdav-client.js')).tsdavClient(limits);
}

/** The event-level helpers (rendering a booking, reading remote events), loaded when first used. */
export const caldavEvents = async () => {
  const [{ bookingEventIcs }, { remoteBusyOf, eventSummary }, { busyItemsOf }] = await Promise.all([
    import('./booking-event.js'),
    import('./remote-busy.js'),
    import('../feeds/ics-import.js'),
  ]);
  return {
    bookingEventIcs,
    remoteBusyOf: (events: Parameters<typeof remoteBusyOf>[1], window: Parameters<typeof remoteBusyOf>[2]) =>
      remoteBusyOf(busyItemsOf, events, window),
    eventSummary,
  };
};
