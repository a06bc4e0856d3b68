import { calendarMultiGet, createObject, deleteObject, propfind, syncCollection, updateObject } from 'tsdav';
import type { RemoteEvent } from '../../domain/calendar-sync/caldav.js';
import { decodedPath } from '../../domain/calendar-sync/caldav.js';
import { FeedReadError } from '../../ports/busy-feed.js';
import type { CaldavAccount, CaldavClient } from '../../ports/caldav.js';
import { CaldavError } from '../../ports/caldav.js';
import type { FetchLimits } from '../feeds/guarded-fetch.js';
import { boundedText, DEFAULT_FETCH_LIMITS, refusedUrl } from '../feeds/guarded-fetch.js';
import { outboundFetch } from '../net/outbound-guard.js';
import { oauthAccess } from './oauth-access.js';

/** Events downloaded per calendar-multiget. */
const MULTIGET_BATCH = 100;
/** A collection with more events than this is refused (not a person's calendar, or a runaway). */
const MAX_EVENTS = 20_000;

type DavResponse = Awaited<ReturnType<typeof syncCollection>>[number];

/** The one place a failure becomes the operator's words: never a URL, a password or a stack. */
function caldavFailure(error: unknown, limits: FetchLimits): CaldavError {
  if (error instanceof CaldavError) return error;
  if (error instanceof FeedReadError) return new CaldavError(error.message);
  const name = (error as { name?: string } | null)?.name;
  if (name === 'TimeoutError' || name === 'AbortError')
    return new CaldavError(`no complete answer within ${limits.timeoutMs / 1000} s`);
  const cause = (error as { cause?: { name?: string; code?: string } } | null)?.cause;
  if (name === 'RefusedAddressError' || cause?.name === 'RefusedAddressError')
    return new CaldavError('the host resolves to a private, loopback, link-local or special-use address');
  if (name === 'TypeError' && cause?.code) return new CaldavError(`unreachable (${cause.code})`);
  if (name === 'TypeError' && /fetch failed/.test(String((error as Error).message)))
    return new CaldavError('unreachable');
  return new CaldavError('the server answered something that is not CalDAV');
}

function statusFailure(what: string, status: number): CaldavError {
  if (status === 401 || status === 403)
    return new CaldavError(`${what}: the server refused the user name or password (HTTP ${status})`);
  if (status === 404) return new CaldavError(`${what}: no collection or event at this address (HTTP 404)`);
  return new CaldavError(`${what}: the server answered HTTP ${status}`);
}

/** fetch for tsdav: guarded addresses, no redirects followed, every answer bounded in time and size. */
function limitedFetch(limits: FetchLimits): typeof fetch {
  const guarded = outboundFetch({ allowPrivate: limits.allowPrivate });
  return (async (input: string | URL | Request, init?: RequestInit) => {
    const url = new URL(typeof input === 'string' || input instanceof URL ? input : input.url);
    const refused = refusedUrl(url, limits);
    if (refused) throw new CaldavError(refused.replace('a feed URL', 'a CalDAV URL'));
    const signal = AbortSignal.timeout(limits.timeoutMs);
    const response = await guarded(url, { ...init, redirect: 'manual', signal });
    if (response.status >= 300 && response.status < 400) {
      await response.body?.cancel().catch(() => undefined);
      throw new CaldavError(`the server redirected (HTTP ${response.status}); connect the address it names`);
    }
    const text = await boundedText(response, limits.maxBytes);
    return new Response(response.status === 204 || response.status === 304 ? null : text, {
      status: response.status,
      statusText: response.statusText,
      headers: response.headers,
    });
  }) as typeof fetch;
}

const basic = (account: CaldavAccount) =>
  `Basic ${Buffer.from(`${account.username}:${account.password}`).toString('base64')}`;

/** An href as a path on the collection's server, so the same event always has the same name. */
const pathOf = (href: string, base: string) => decodedPath(new URL(href, base).pathname);

/** xml-js gives text as a string, or wrapped when the server used CDATA. */
function textOf(value: unknown): string | null {
  if (typeof value === 'string') return value;
  const wrapped = value as { _cdata?: unknown; _text?: unknown } | null;
  if (typeof wrapped?._cdata === 'string') return wrapped._cdata;
  if (typeof wrapped?._text === 'string') return wrapped._text;
  return null;
}

const etagOf = (response: DavResponse): string | null => textOf(response.props?.getetag);

const invalidToken = (r: DavResponse | undefined) =>
  r !== undefined && (r.status === 403 || r.status === 409) && /valid-sync-token/.test(String(r.raw));

/** A CalDAV client on tsdav (RFC 6578 sync-collection, RFC 4791 calendar-multiget, plain PUT/DELETE). */
export function tsdavClient(overrides: Partial<FetchLimits> = {}): CaldavClient {
  const limits = { ...DEFAULT_FETCH_LIMITS, ...overrides };
  const base = limitedFetch(limits);
  const access = oauthAccess(base);
  /** fetch signed in as the account: Basic, or an OAuth access token renewed once on a 401. */
  const signedIn =
    (account: CaldavAccount): typeof globalThis.fetch =>
    async (input, init) => {
      const send = async (renew: boolean) => {
        const headers = new Headers(init?.headers);
        headers.set(
          'authorization',
          account.oauth ? await access.header(account.oauth, renew) : basic(account),
        );
        return base(input, { ...init, headers });
      };
      const first = await send(false);
      return first.status === 401 && account.oauth ? send(true) : first;
    };
  const guard = async <T>(work: () => Promise<T>): Promise<T> => {
    try {
      return await work();
    } catch (error) {
      throw caldavFailure(error, limits);
    }
  };

  async function listing(account: CaldavAccount, token: string | null) {
    const ask = (syncToken: string) =>
      syncCollection({
        url: account.collectionUrl,
        props: { 'd:getetag': {} },
        syncLevel: 1,
        syncToken,
        fetch: signedIn(account),
      });
    let responses = await ask(token ?? '');
    let full = token === null;
    if (token !== null && invalidToken(responses[0])) {
      responses = await ask('');
      full = true;
    }
    const first = responses[0];
    if (first && !first.ok && first.status !== 404 && !first.raw?.multistatus)
      throw statusFailure('listing the collection', first.status);
    const newToken = textOf(first?.raw?.multistatus?.syncToken);
    if (!newToken) throw new CaldavError('the server gave no sync token (does it support sync-collection?)');
    return { responses, full, token: newToken };
  }

  async function download(account: CaldavAccount, hrefs: readonly string[]): Promise<RemoteEvent[]> {
    const events: RemoteEvent[] = [];
    for (let i = 0; i < hrefs.length; i += MULTIGET_BATCH) {
      const answers = await calendarMultiGet({
        url: account.collectionUrl,
        props: { 'd:getetag': {}, 'c:calendar-data': {} },
        objectUrls: hrefs.slice(i, i + MULTIGET_BATCH),
        depth: '1',
        fetch: signedIn(account),
      });
      for (const answer of answers) {
        const ics = textOf(answer.props?.calendarData);
        if (!answer.href || !answer.ok || ics === null) continue;
        events.push({ href: pathOf(answer.href, account.collectionUrl), etag: etagOf(answer), ics });
      }
    }
    // A server that names one event twice (or two spellings of one address) gives it once.
    return [...new Map(events.map((e) => [e.href, e])).values()];
  }

  return {
    check(collectionUrl) {
      let url: URL;
      try {
        url = new URL(collectionUrl);
      } catch {
        return 'a URL (https://…)';
      }
      return refusedUrl(url, limits)?.replace('a feed URL', 'a CalDAV URL') ?? null;
    },

    probe: (account) =>
      guard(async () => {
        const [answer] = await propfind({
          url: account.collectionUrl,
          props: { 'd:displayname': {}, 'd:resourcetype': {} },
          depth: '0',
          fetch: signedIn(account),
        });
        if (!answer || !answer.ok) throw statusFailure('reading the collection', answer?.status ?? 0);
        const types = JSON.stringify(answer.props?.resourcetype ?? {});
        if (!/calendar/i.test(types)) throw new CaldavError('the address is not a calendar collection');
        return { displayName: textOf(answer.props?.displayname) };
      }),

    changes: (account, token, skip) =>
      guard(async () => {
        const listed = await listing(account, token);
        const changed: string[] = [];
        const removed: string[] = [];
        const skipped: { href: string; etag: string | null }[] = [];
        for (const r of listed.responses) {
          if (!r.href) continue;
          const href = pathOf(r.href, account.collectionUrl);
          if (href === pathOf(account.collectionUrl, account.collectionUrl)) continue;
          if (r.status === 404) removed.push(href);
          else if (!r.ok) continue;
          else if (skip(href)) skipped.push({ href, etag: etagOf(r) });
          else changed.push(href);
        }
        if (changed.length + skipped.length > MAX_EVENTS)
          throw new CaldavError(`more than ${MAX_EVENTS} events in the collection`);
        const events = await download(account, changed);
        const got = new Set(events.map((e) => e.href));
        // Listed but gone by the time it was fetched: removed.
        for (const href of changed) if (!got.has(href)) removed.push(href);
        return { token: listed.token, full: listed.full, changed: events, removed, skipped };
      }),

    put: (account, href, ics, etag) =>
      guard(async () => {
        const url = new URL(href, account.collectionUrl).href;
        const headers = { 'content-type': 'text/calendar; charset=utf-8' };
        const fetch = signedIn(account);
        let response =
          etag === 'new'
            ? await createObject({ url, data: ics, headers: { ...headers, 'If-None-Match': '*' }, fetch })
            : await updateObject({ url, data: ics, headers, fetch });
        // Written before a crash kept the record of it: the name is Holdfast's own, so write over it.
        if (response.status === 412) response = await updateObject({ url, data: ics, headers, fetch });
        if (!response.ok) throw statusFailure('writing an event', response.status);
        return response.headers.get('etag');
      }),

    remove: (account, href) =>
      guard(async () => {
        const url = new URL(href, account.collectionUrl).href;
        const response = await deleteObject({ url, fetch: signedIn(account) });
        if (!response.ok && response.status !== 404 && response.status !== 410)
          throw statusFailure('removing an event', response.status);
      }),
  };
}
