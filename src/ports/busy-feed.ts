import type { ExternalBusyItem } from '../domain/feeds/external-busy.js';
import type { Interval } from '../domain/time/interval.js';

/** Thrown by a reader when a source cannot be used; its message is shown to the operator as is. */
export class FeedReadError extends Error {
  override readonly name = 'FeedReadError';
}

/** Where external busy time comes from: an .ics at an https URL, or a file. */
export interface BusyFeedReader {
  /**
   * The busy instances `source` declares that meet `window`: fetched or read within the
   * reader's limits (size, time, redirects, addresses), parsed, recurrences expanded, free
   * (TRANSP:TRANSPARENT) and cancelled events left out. Throws FeedReadError.
   */
  read(source: string, window: Interval): Promise<ExternalBusyItem[]>;
  /** Whether `source` is a kind of source this reader takes; the reason when it is not. */
  check(source: string): string | null;
}
