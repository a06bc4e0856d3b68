import { FeedReadError } from '../../ports/busy-feed.js';
import { refusedHost, sharedGuardedDispatcher } from '../net/outbound-guard.js';

export interface FetchLimits {
  readonly maxBytes: number;
  readonly timeoutMs: number;
  readonly maxRedirects: number;
  /** Private and loopback addresses, and plain http to loopback (tests, closed networks). */
  readonly allowPrivate: boolean;
}

export const DEFAULT_FETCH_LIMITS: FetchLimits = {
  maxBytes: 5 * 1024 * 1024,
  timeoutMs: 15_000,
  maxRedirects: 3,
  allowPrivate: false,
};

type Dispatcher = object;

const isLoopbackHost = (host: string) =>
  host === 'localhost' || host === '[::1]' || /^127\.\d+\.\d+\.\d+$/.test(host);

/** Why a URL may not be fetched, or null. Checked again on every redirect. */
export function refusedUrl(url: URL, limits: FetchLimits): string | null {
  if (url.username || url.password) return 'a feed URL may not carry a user name or password';
  if (url.protocol === 'https:') {
    const refused = limits.allowPrivate ? null : refusedHost(url);
    return refused && `the address is private, loopback, link-local or special-use (${refused})`;
  }
  if (url.protocol === 'http:' && limits.allowPrivate && isLoopbackHost(url.hostname)) return null;
  return limits.allowPrivate ? 'only https, or http to a loopback address' : 'only https URLs';
}

/** Words for why a fetch failed, without the URL (feed URLs often carry a secret). */
function failure(error: unknown, limits: FetchLimits): FeedReadError {
  if (error instanceof FeedReadError) return error;
  const name = (error as { name?: string } | null)?.name;
  if (name === 'TimeoutError' || name === 'AbortError')
    return new FeedReadError(`no complete answer within ${limits.timeoutMs / 1000} s`);
  const cause = (error as { cause?: { name?: string; message?: string; code?: string } } | null)?.cause;
  if (cause?.name === 'RefusedAddressError' || cause?.message?.includes('special-use'))
    return new FeedReadError('the host resolves to a private, loopback, link-local or special-use address');
  return new FeedReadError(`unreachable${cause?.code ? ` (${cause.code})` : ''}`);
}

/** Reads a body to its end, aborting past `maxBytes` (a feed that never ends is refused, not buffered). */
export async function boundedText(response: Response, maxBytes: number): Promise<string> {
  const declared = Number(response.headers.get('content-length') ?? NaN);
  if (declared > maxBytes) throw new FeedReadError(`larger than ${maxBytes} bytes`);
  const reader = response.body?.getReader();
  if (!reader) return '';
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > maxBytes) {
      await reader.cancel().catch(() => undefined);
      throw new FeedReadError(`larger than ${maxBytes} bytes`);
    }
    chunks.push(value);
  }
  return new TextDecoder('utf-8').decode(Buffer.concat(chunks));
}

/** GET an .ics within the limits: https only, guarded addresses, few redirects, bounded size and time. */
export async function fetchFeedText(source: string, limits: FetchLimits): Promise<string> {
  const signal = AbortSignal.timeout(limits.timeoutMs);
  let url = new URL(source);
  try {
    for (let hop = 0; ; hop++) {
      const refused = refusedUrl(url, limits);
      if (refused)
        throw new FeedReadError(hop === 0 ? refused : `a redirect went where feeds may not: ${refused}`);
      const init: RequestInit & { dispatcher?: Dispatcher } = {
        redirect: 'manual',
        signal,
        headers: { accept: 'text/calendar, */*;q=0.5', 'user-agent': 'Holdfast calendar feeds' },
      };
      if (!limits.allowPrivate) init.dispatcher = sharedGuardedDispatcher();
      const response = await fetch(url, init);
      const location = response.headers.get('location');
      if (response.status >= 300 && response.status < 400 && location) {
        await response.body?.cancel().catch(() => undefined);
        if (hop >= limits.maxRedirects) throw new FeedReadError(`more than ${limits.maxRedirects} redirects`);
        url = new URL(location, url);
        continue;
      }
      if (!response.ok) {
        await response.body?.cancel().catch(() => undefined);
        throw new FeedReadError(`the server answered HTTP ${response.status}`);
      }
      return await boundedText(response, limits.maxBytes);
    }
  } catch (error) {
    throw failure(error, limits);
  }
}
