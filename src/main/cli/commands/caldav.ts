import { randomUUID } from 'node:crypto';
import { table } from '../../../adapters/format/index.js';
import {
  connectCaldav,
  disconnectCaldav,
  listCaldav,
} from '../../../app/calendar-sync/caldav-connections.js';
import { syncCaldavNow } from '../../../app/calendar-sync/caldav-sync.js';
import { formatInstant } from '../../../domain/time/instant.js';
import type { ServerConfig } from '../../config/config.js';
import { UsageError } from '../../config/usage-error.js';
import { loadCaldavKit } from '../../runtime/caldav-kit.js';
import type { Runtime } from '../../runtime/compose.js';

type Print = (text: string) => void;

const USAGE =
  'usage: holdfast caldav connect CALENDAR_ID URL --username U [--password-env NAME] [--share-contact] [--every 1m] | list | sync ID | disconnect ID';

/** The server names its collection: no control characters from it reach the terminal. */
// eslint-disable-next-line no-control-regex -- matching control characters is the point
const printable = (text: string) => text.replace(/[\u0000-\u001f\u007f-\u009f]/g, '');

const iso = (t: number | null) => (t === null ? null : formatInstant(t));
const UNITS: Record<string, number> = { s: 1000, m: 60_000, h: 3_600_000 };

function everyOf(text: string | undefined): number | undefined {
  if (text === undefined) return undefined;
  const match = /^(\d{1,5})([smh])$/.exec(text);
  if (!match) throw new UsageError('--every: a duration like 30s, 1m or 1h');
  return Number(match[1]) * UNITS[match[2]!]!;
}

/** Google's token endpoint: `--oauth google`. */
const GOOGLE_TOKEN_URL = 'https://oauth2.googleapis.com/token';

/** A secret from the environment variable named (never from the command line: it would show in ps). */
function fromEnv(variable: string, what: string): string {
  const value = process.env[variable];
  if (!value) throw new UsageError(`caldav connect reads the ${what} from ${variable}, which is not set`);
  return value;
}

/** How caldav connect signs in: a password, or OAuth 2.0 (--oauth). */
function signInOf(config: ServerConfig) {
  const o = config.options;
  if (o.oauth === undefined) {
    if (!o.username) throw new UsageError('caldav connect needs --username (or --oauth)');
    return { password: fromEnv(o.passwordEnv ?? 'HOLDFAST_CALDAV_PASSWORD', 'password') };
  }
  if (!o.clientId) throw new UsageError('caldav connect --oauth needs --client-id');
  return {
    oauth: {
      tokenUrl: o.oauth === 'google' ? GOOGLE_TOKEN_URL : o.oauth,
      clientId: o.clientId,
      clientSecret: fromEnv(o.clientSecretEnv ?? 'HOLDFAST_CALDAV_CLIENT_SECRET', 'client secret'),
      refreshToken: fromEnv(o.refreshTokenEnv ?? 'HOLDFAST_CALDAV_REFRESH_TOKEN', 'refresh token'),
    },
  };
}

/** holdfast caldav connect|list|sync|disconnect */
export async function caldav(runtime: Runtime, config: ServerConfig, print: Print): Promise<number> {
  const { deps } = runtime;
  const tenantId = config.tenantId;
  const [verb, first, second] = config.rest;
  const kit = () => loadCaldavKit(runtime, config.allowPrivateFeeds);
  if (verb === 'connect' && first && second && config.rest.length === 3) {
    const c = await connectCaldav(deps, await kit(), tenantId, {
      calendarId: first,
      collectionUrl: second,
      username: config.options.username ?? '',
      ...signInOf(config),
      shareContact: config.options.shareContact ?? false,
      everyMs: everyOf(config.options.every),
    });
    print(
      config.json
        ? JSON.stringify({
            id: c.id,
            calendarId: c.calendarId,
            collection: c.displayName && printable(c.displayName),
            everyMs: c.everyMs,
          })
        : `Connection ${c.id}: ${c.calendarId} syncs with ${c.displayName ? `"${printable(c.displayName)}"` : 'the collection'} every ${c.everyMs / 1000} s (now: holdfast caldav sync ${c.id}). Events carry ${c.shareContact ? "the customer's name, e-mail and phone" : 'no customer contact details'}.`,
    );
    return 0;
  }
  if (verb === 'list' && config.rest.length === 1) {
    const all = await listCaldav(deps, tenantId);
    print(
      config.json
        ? JSON.stringify(
            all.map((c) => ({
              ...c,
              createdAt: iso(c.createdAt),
              nextRunAt: iso(c.nextRunAt),
              lastOkAt: iso(c.lastOkAt),
              lastErrorAt: iso(c.lastErrorAt),
            })),
            null,
            2,
          )
        : all.length === 0
          ? 'No CalDAV connections.'
          : table(
              ['CONNECTION', 'CALENDAR', 'COLLECTION', 'LAST GOOD', 'EVENTS', 'BUSY', 'OVERLAPS', 'ERROR'],
              all.map((c) => [
                c.id,
                c.calendarId,
                c.collectionUrl,
                iso(c.lastOkAt) ?? 'never',
                String(c.eventCount),
                String(c.busyCount),
                String(c.overlaps),
                c.lastError ? `${c.lastError} (${iso(c.lastErrorAt)})` : '',
              ]),
            ),
    );
    return 0;
  }
  if (verb === 'sync' && first && config.rest.length === 2) {
    const outcome = await syncCaldavNow(deps, await kit(), `cli:${randomUUID()}`, tenantId, first);
    print(
      config.json
        ? JSON.stringify(outcome)
        : outcome.ok
          ? `Synced ${outcome.id}: ${outcome.pulled} events changed and ${outcome.removed} removed there, ${outcome.written} bookings written and ${outcome.deleted} removed; ${outcome.busy} busy pieces, ${outcome.overlaps} overlaps${outcome.unreadable ? `, ${outcome.unreadable} events unreadable` : ''}.`
          : `Sync of ${outcome.id} failed: ${outcome.error} (the last good busy time stays).`,
    );
    return outcome.ok ? 0 : 1;
  }
  if (verb === 'disconnect' && first && config.rest.length === 2) {
    await disconnectCaldav(deps, tenantId, first);
    print(`Connection ${first} removed: its busy time no longer counts; the events written there stay.`);
    return 0;
  }
  throw new UsageError(USAGE);
}
