import { open } from 'node:fs/promises';
import { isAbsolute } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Interval } from '../../domain/time/interval.js';
import type { BusyFeedReader } from '../../ports/busy-feed.js';
import { FeedReadError } from '../../ports/busy-feed.js';
import type { FetchLimits } from './guarded-fetch.js';
import { DEFAULT_FETCH_LIMITS, fetchFeedText, refusedUrl } from './guarded-fetch.js';

/** A file source: an absolute path or a file: URL (the operator's own machine, set up on the CLI). */
function filePath(source: string): string | null {
  if (source.startsWith('file:')) return fileURLToPath(source);
  return isAbsolute(source) ? source : null;
}

async function readBounded(path: string, maxBytes: number): Promise<string> {
  let handle;
  try {
    handle = await open(path, 'r');
  } catch (error) {
    throw new FeedReadError(`cannot read the file (${(error as NodeJS.ErrnoException).code ?? 'error'})`);
  }
  try {
    const { size } = await handle.stat();
    if (size > maxBytes) throw new FeedReadError(`larger than ${maxBytes} bytes`);
    return await handle.readFile('utf8');
  } finally {
    await handle.close();
  }
}

/** .ics files and https URLs, within `limits`, parsed and expanded by node-ical. */
export function icsBusyReader(overrides: Partial<FetchLimits> = {}): BusyFeedReader {
  const limits = { ...DEFAULT_FETCH_LIMITS, ...overrides };
  return {
    check(source) {
      if (filePath(source) !== null) return null;
      let url: URL;
      try {
        url = new URL(source);
      } catch {
        return 'an https URL or an absolute file path';
      }
      return refusedUrl(url, limits);
    },
    async read(source: string, window: Interval) {
      const path = filePath(source);
      const text =
        path === null ? await fetchFeedText(source, limits) : await readBounded(path, limits.maxBytes);
      const { busyItemsOf } = await import('./ics-import.js');
      return busyItemsOf(text, window);
    },
  };
}
