import type { CaldavConnection } from '../../domain/calendar-sync/caldav.js';
import { DomainError } from '../../domain/errors.js';
import type { CaldavAccount, CaldavKit, CaldavOAuth } from '../../ports/caldav.js';
import { CaldavError } from '../../ports/caldav.js';
import type { AppDeps } from '../deps.js';
import { calendarOf } from '../feeds/feed-links.js';
import { ensureTenant } from '../identity/people.js';

export const MIN_CALDAV_EVERY_MS = 15_000;
export const MAX_CALDAV_EVERY_MS = 24 * 60 * 60_000;
export const DEFAULT_CALDAV_EVERY_MS = 60_000;

export interface ConnectCaldav {
  readonly calendarId: string;
  readonly collectionUrl: string;
  /** The account's name (for Basic sign-in; with OAuth, shown only). */
  readonly username: string;
  /** Basic sign-in: the (app) password. */
  readonly password?: string;
  /** OAuth 2.0 sign-in instead (Google). */
  readonly oauth?: CaldavOAuth;
  readonly shareContact: boolean;
  readonly everyMs?: number;
}

const invalid = (field: string, message: string) =>
  new DomainError('INVALID_ARGUMENTS', `${field}: ${message}`, { field });

/**
 * Connects a calendar to a collection, once the server let us in and the address is a calendar
 * collection. The password is stored sealed; it is never shown again.
 */
export async function connectCaldav(
  deps: AppDeps,
  kit: CaldavKit,
  tenantId: string,
  input: ConnectCaldav,
): Promise<CaldavConnection & { readonly displayName: string | null }> {
  const refused = kit.client.check(input.collectionUrl);
  if (refused) throw invalid('url', refused);
  if (!input.oauth && (!input.username || input.username.length > 200))
    throw invalid('username', 'from 1 to 200 characters');
  if (input.username.length > 200) throw invalid('username', 'at most 200 characters');
  if (input.oauth) checkOAuth(kit, input.oauth);
  else if (!input.password || input.password.length > 1000)
    throw invalid('password', 'from 1 to 1000 characters');
  const everyMs = input.everyMs ?? DEFAULT_CALDAV_EVERY_MS;
  if (!(everyMs >= MIN_CALDAV_EVERY_MS && everyMs <= MAX_CALDAV_EVERY_MS))
    throw invalid('every', 'from 15 seconds to a day');
  await calendarOf(deps, tenantId, input.calendarId);
  const collectionUrl = input.collectionUrl.endsWith('/') ? input.collectionUrl : `${input.collectionUrl}/`;
  const account: CaldavAccount = {
    collectionUrl,
    username: input.username,
    password: input.password ?? '',
    ...(input.oauth ? { oauth: input.oauth } : {}),
  };
  let displayName: string | null;
  try {
    ({ displayName } = await kit.client.probe(account));
  } catch (error) {
    if (error instanceof CaldavError) throw invalid('url', `the server could not be used: ${error.message}`);
    throw error;
  }
  const now = deps.clock.now();
  const connection: CaldavConnection = {
    id: deps.ids.newId('cdv'),
    tenantId,
    calendarId: input.calendarId,
    collectionUrl,
    username: input.username,
    oauth: input.oauth ? { tokenUrl: input.oauth.tokenUrl, clientId: input.oauth.clientId } : null,
    shareContact: input.shareContact,
    everyMs,
    createdAt: now,
    nextRunAt: now,
    lastOkAt: null,
    lastError: null,
    lastErrorAt: null,
    eventCount: 0,
    busyCount: 0,
  };
  await deps.store.write(async (tx) => {
    await ensureTenant(deps, tx, tenantId);
    await tx.caldav.insert(connection, kit.secrets.seal(sealedSecretOf(input)));
  });
  return { ...connection, displayName };
}

function checkOAuth(kit: CaldavKit, oauth: CaldavOAuth): void {
  const refused = kit.client.check(oauth.tokenUrl);
  if (refused) throw invalid('tokenUrl', refused);
  if (!oauth.clientId || oauth.clientId.length > 300) throw invalid('clientId', 'from 1 to 300 characters');
  if (!oauth.clientSecret || oauth.clientSecret.length > 1000)
    throw invalid('clientSecret', 'from 1 to 1000 characters');
  if (!oauth.refreshToken || oauth.refreshToken.length > 4000)
    throw invalid('refreshToken', 'from 1 to 4000 characters');
}

/** What is sealed: the password, or the OAuth client secret and refresh token. */
const sealedSecretOf = (input: ConnectCaldav) =>
  input.oauth
    ? JSON.stringify({ clientSecret: input.oauth.clientSecret, refreshToken: input.oauth.refreshToken })
    : input.password!;

/** How the sync signs in: the connection with its secret opened. */
export function accountOf(
  kit: CaldavKit,
  c: Pick<CaldavConnection, 'collectionUrl' | 'username' | 'oauth'>,
  sealed: string,
): CaldavAccount {
  const secret = kit.secrets.open(sealed);
  if (!c.oauth) return { collectionUrl: c.collectionUrl, username: c.username, password: secret };
  const { clientSecret, refreshToken } = JSON.parse(secret) as { clientSecret: string; refreshToken: string };
  return {
    collectionUrl: c.collectionUrl,
    username: c.username,
    password: '',
    oauth: { ...c.oauth, clientSecret, refreshToken },
  };
}

export const listCaldav = (deps: AppDeps, tenantId: string) =>
  deps.store.read((tx) => tx.caldav.list(tenantId));

/**
 * Disconnects: the collection's busy time leaves the calendar at once. The events Holdfast wrote
 * there stay (they are the person's calendar now); nothing more is written.
 */
export async function disconnectCaldav(deps: AppDeps, tenantId: string, id: string): Promise<void> {
  const connection = (await listCaldav(deps, tenantId)).find((c) => c.id === id);
  if (!connection) throw new DomainError('NOT_FOUND', `No CalDAV connection ${id} in ${tenantId}.`, {});
  await deps.store.write(async (tx) => {
    if (!(await tx.caldav.delete(tenantId, id))) return;
    await tx.feeds.replaceSourceBusy(tenantId, connection.calendarId, id, []);
    tx.afterCommit(() => deps.slotCache.invalidate(tenantId, [connection.calendarId]));
  });
}
