import { resolve } from 'node:path';
import { table } from '../../../adapters/format/index.js';
import { icsBusyReader } from '../../../adapters/feeds/index.js';
import { createFeedLink, listFeedLinks, revokeFeedLink } from '../../../app/feeds/feed-links.js';
import {
  listSubscriptions,
  refreshSubscription,
  subscribe,
  unsubscribe,
} from '../../../app/feeds/subscriptions.js';
import { parseEvery } from '../../../domain/feeds/feeds.js';
import { formatInstant } from '../../../domain/time/instant.js';
import type { Runtime } from '../../runtime/compose.js';
import type { ServerConfig } from '../../config/config.js';
import { UsageError } from '../../config/usage-error.js';

type Print = (text: string) => void;

const USAGE =
  'usage: holdfast feeds create CALENDAR_ID | list | revoke ID | subscribe CALENDAR_ID URL_OR_FILE [--every 15m] | subscriptions | unsubscribe ID | refresh ID';

const iso = (t: number | null) => (t === null ? null : formatInstant(t));

/** A URL without its path and query (feed addresses often carry their secret there); a file as is. */
export function sourceShown(source: string): string {
  if (!/^https?:/i.test(source)) return source;
  const url = new URL(source);
  return `${url.origin}${url.pathname === '/' && !url.search ? '/' : '/…'}`;
}

/** A file given as a relative path is stored absolute: the server may run elsewhere. */
const sourceOf = (given: string) => (/^[a-z][a-z0-9+.-]*:/i.test(given) ? given : resolve(given));

/** holdfast feeds create|list|revoke|subscribe|subscriptions|unsubscribe|refresh */
export async function feeds(runtime: Runtime, config: ServerConfig, print: Print): Promise<number> {
  const { deps } = runtime;
  const tenantId = config.tenantId;
  const [verb, first, second] = config.rest;
  const reader = icsBusyReader({ allowPrivate: config.allowPrivateFeeds });
  if (verb === 'create' && first && config.rest.length === 2) {
    const { link, secret } = await createFeedLink(deps, tenantId, first);
    const url = `${runtime.publicBaseUrl.replace(/\/+$/, '')}/feeds/${secret}.ics`;
    print(
      config.json
        ? JSON.stringify({ id: link.id, calendarId: link.calendarId, url })
        : `Feed ${link.id} of ${link.calendarId} (the address is shown once; anyone with it sees the bookings' times and labels):\n${url}`,
    );
    return 0;
  }
  if (verb === 'list' && config.rest.length === 1) {
    const links = await listFeedLinks(deps, tenantId);
    print(
      config.json
        ? JSON.stringify(
            links.map((l) => ({ ...l, createdAt: iso(l.createdAt), revokedAt: iso(l.revokedAt) })),
            null,
            2,
          )
        : links.length === 0
          ? 'No calendar feeds.'
          : table(
              ['FEED', 'CALENDAR', 'CREATED', 'STATE'],
              links.map((l) => [l.id, l.calendarId, iso(l.createdAt)!, l.revokedAt ? 'revoked' : 'live']),
            ),
    );
    return 0;
  }
  if (verb === 'revoke' && first && config.rest.length === 2) {
    await revokeFeedLink(deps, tenantId, first);
    print(`Feed ${first} revoked: its address now answers 404.`);
    return 0;
  }
  if (verb === 'subscribe' && first && second && config.rest.length === 3) {
    let everyMs: number | undefined;
    if (config.options.every !== undefined) {
      try {
        everyMs = parseEvery(config.options.every);
      } catch (error) {
        throw new UsageError(`--every: ${(error as Error).message.replace(/^every: /, '')}`);
      }
    }
    const s = await subscribe(deps, reader, tenantId, first, sourceOf(second), everyMs);
    print(
      config.json
        ? JSON.stringify({ id: s.id, calendarId: s.calendarId, everyMs: s.everyMs })
        : `Subscription ${s.id}: ${s.calendarId} counts the busy time of ${sourceShown(s.source)}, refreshed every ${s.everyMs / 60_000} min by the server (now: holdfast feeds refresh ${s.id}).`,
    );
    return 0;
  }
  if (verb === 'subscriptions' && config.rest.length === 1) {
    const all = await listSubscriptions(deps, tenantId);
    print(
      config.json
        ? JSON.stringify(
            all.map((s) => ({
              ...s,
              source: sourceShown(s.source),
              createdAt: iso(s.createdAt),
              nextRunAt: iso(s.nextRunAt),
              lastOkAt: iso(s.lastOkAt),
              lastErrorAt: iso(s.lastErrorAt),
            })),
            null,
            2,
          )
        : all.length === 0
          ? 'No feed subscriptions.'
          : table(
              ['SUBSCRIPTION', 'CALENDAR', 'SOURCE', 'LAST GOOD', 'BUSY', 'ERROR', 'OVERLAPS'],
              all.map((s) => [
                s.id,
                s.calendarId,
                sourceShown(s.source),
                iso(s.lastOkAt) ?? 'never',
                String(s.busyCount),
                s.lastError ? `${s.lastError} (${iso(s.lastErrorAt)})` : '',
                s.overlaps.join(' '),
              ]),
            ),
    );
    return 0;
  }
  if (verb === 'unsubscribe' && first && config.rest.length === 2) {
    await unsubscribe(deps, tenantId, first);
    print(`Subscription ${first} removed with its busy time.`);
    return 0;
  }
  if (verb === 'refresh' && first && config.rest.length === 2) {
    const outcome = await refreshSubscription(deps, reader, `cli:${deps.ids.newId('op')}`, tenantId, first);
    print(
      config.json
        ? JSON.stringify(outcome)
        : outcome.ok
          ? `Subscription ${first} refreshed: ${outcome.busy} busy range(s).`
          : `Subscription ${first} failed: ${outcome.error}; its last good busy time stays.`,
    );
    return outcome.ok ? 0 : 1;
  }
  throw new UsageError(USAGE);
}
