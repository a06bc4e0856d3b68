import ical from 'node-ical';
import type { ExternalBusyItem } from '../../domain/feeds/external-busy.js';
import { MAX_IMPORT_INSTANCES } from '../../domain/feeds/external-busy.js';
import type { RemoteEvent } from '../../domain/calendar-sync/caldav.js';
import type { Interval } from '../../domain/time/interval.js';
import { FeedReadError } from '../../ports/busy-feed.js';

/** One remote event's busy instances in the window; an event that cannot be read blocks nothing and is counted. */
export interface RemoteBusy {
  readonly href: string;
  readonly items: readonly ExternalBusyItem[];
}

function summaryOf(text: string): string | null {
  try {
    for (const component of Object.values(ical.sync.parseICS(text)))
      if (component?.type === 'VEVENT') {
        const summary = (component as { summary?: unknown }).summary;
        const value = typeof summary === 'string' ? summary : (summary as { val?: unknown } | undefined)?.val;
        return typeof value === 'string' ? value.slice(0, 200) : null;
      }
  } catch {
    return null;
  }
  return null;
}

/**
 * The busy instances of the collection's events (recurrences expanded by node-ical, as for
 * feeds), each event on its own: one unreadable event is left out, not the whole collection.
 */
export function remoteBusyOf(
  busyItemsOf: (text: string, window: Interval) => ExternalBusyItem[],
  events: readonly RemoteEvent[],
  window: Interval,
): { readonly busy: RemoteBusy[]; readonly unreadable: number } {
  const busy: RemoteBusy[] = [];
  let unreadable = 0;
  let instances = 0;
  for (const event of events) {
    let items: ExternalBusyItem[];
    try {
      items = busyItemsOf(event.ics, window);
    } catch (error) {
      if (!(error instanceof FeedReadError)) throw error;
      unreadable += 1;
      continue;
    }
    instances += items.length;
    if (instances > MAX_IMPORT_INSTANCES)
      throw new FeedReadError(`more than ${MAX_IMPORT_INSTANCES} event instances in the window`);
    if (items.length > 0) busy.push({ href: event.href, items });
  }
  return { busy, unreadable };
}

/** The event's title, read only for the events that overlap a booking. */
export const eventSummary = (event: RemoteEvent): string | null => summaryOf(event.ics);
