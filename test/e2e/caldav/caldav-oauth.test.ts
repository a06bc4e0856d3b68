import { createServer } from 'node:http';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectCaldav } from '../../../src/app/calendar-sync/caldav-connections.js';
import { syncCaldavNow } from '../../../src/app/calendar-sync/caldav-sync.js';
import { DomainError } from '../../../src/domain/errors.js';
import type { CaldavKit } from '../../../src/ports/caldav.js';
import { feedsServer } from '../../support/feeds-harness.js';
import type { Radicale } from '../../support/radicale.js';
import { eventIcs, startRadicale, testCaldavKit } from '../../support/radicale.js';

// OAuth 2.0 sign-in, as Google's CalDAV demands (it takes no passwords): a token endpoint and a
// collection that lets in bearer tokens only, both on this machine. The refresh token gets an
// access token (openid-client's refresh grant), reused while it lives and renewed before it
// expires or when the server answers 401; a revoked refresh token is refused at connect, naming
// the url; a token endpoint that fails fails the sync and keeps the busy time; neither the client
// secret nor the refresh token is stored in the clear.

const CLIENT_ID = 'holdfast-test.apps.example';
const CLIENT_SECRET = 'client secret 8f2c';
const REFRESH = 'refresh token 1//0g-good';
/** Tokens live 31 s; the client renews them 30 s early: in effect one second each. */
const LIFETIME_S = 31;

let h: Awaited<ReturnType<typeof feedsServer>>;
let radicale: Radicale;
let tokenServer: Server;
let tokenUrl: string;
let kit: CaldavKit;
let calendarId: string;
const live = new Map<string, number>();
let issued = 0;
let endpointDown = false;

beforeAll(async () => {
  radicale = await startRadicale();
  await radicale.makeCalendar('google');
  await radicale.putEvent(
    'google',
    'standup.ics',
    eventIcs('standup@google.test', '20300305T140000Z', '20300305T143000Z', 'Stand-up'),
  );
  radicale.acceptBearers(live);
  tokenServer = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString()));
    req.on('end', () => {
      const form = new URLSearchParams(body);
      const json = (status: number, value: object) => {
        res.writeHead(status, { 'content-type': 'application/json' });
        res.end(JSON.stringify(value));
      };
      if (endpointDown) return json(503, { error: 'temporarily_unavailable' });
      if (form.get('client_id') !== CLIENT_ID || form.get('client_secret') !== CLIENT_SECRET)
        return json(401, { error: 'invalid_client' });
      if (form.get('grant_type') !== 'refresh_token' || form.get('refresh_token') !== REFRESH)
        return json(400, { error: 'invalid_grant', error_description: 'Token has been expired or revoked.' });
      issued += 1;
      const token = `ya29.access-${issued}`;
      live.set(token, Date.now() + 60_000);
      return json(200, {
        access_token: token,
        token_type: 'Bearer',
        expires_in: LIFETIME_S,
        scope: 'calendar',
      });
    });
  });
  await new Promise<void>((resolve) => tokenServer.listen(0, '127.0.0.1', resolve));
  tokenUrl = `http://127.0.0.1:${(tokenServer.address() as AddressInfo).port}/token`;
  h = await feedsServer(Date.parse('2030-02-25T00:00:00Z'));
  calendarId = await h.calendar('Advisor', 'Europe/London');
  kit = await testCaldavKit(h.runtime, 3000);
}, 60_000);
afterAll(async () => {
  await h?.close();
  await radicale?.stop();
  await new Promise((resolve) => tokenServer?.close(resolve));
});

const connect = (refreshToken: string) =>
  connectCaldav(h.deps, kit, h.tenantId, {
    calendarId,
    collectionUrl: radicale.collectionUrl('google'),
    username: 'ana@gmail.example',
    oauth: { tokenUrl, clientId: CLIENT_ID, clientSecret: CLIENT_SECRET, refreshToken },
    shareContact: false,
  });

describe('CalDAV with OAuth 2.0 sign-in (Google’s way)', () => {
  it('refuses a revoked refresh token at connect, naming the url and why', async () => {
    const refused = await connect('refresh token revoked').then(
      () => null,
      (e: unknown) => e,
    );
    expect(refused).toBeInstanceOf(DomainError);
    expect((refused as DomainError).details).toEqual({ field: 'url' });
    expect((refused as DomainError).message).toMatch(/invalid_grant/);
  });

  it('syncs with access tokens from the refresh token: reused while they live, renewed before expiry and on a 401', async () => {
    const connection = await connect(REFRESH);
    expect(issued).toBe(1);
    const raw = new Database(h.db.path, { readonly: true });
    try {
      const row = JSON.stringify(
        raw.prepare('SELECT * FROM caldav_connections WHERE id = ?').get(connection.id),
      );
      expect(row).not.toContain(REFRESH);
      expect(row).not.toContain(CLIENT_SECRET);
      expect(row).toContain(CLIENT_ID);
    } finally {
      raw.close();
    }
    const sync = () => syncCaldavNow(h.deps, kit, 'test', h.tenantId, connection.id);
    expect(await sync()).toMatchObject({ ok: true, pulled: 1, busy: 1 });
    // Still within its (effective) second: the same token.
    const before = issued;
    await new Promise((resolve) => setTimeout(resolve, 1_200));
    expect(await sync()).toMatchObject({ ok: true });
    expect(issued).toBe(before + 1);
    // The server stops honouring the current token (revoked there): a 401, one renewal, done.
    live.clear();
    expect(await sync()).toMatchObject({ ok: true });
    expect(issued).toBe(before + 2);

    endpointDown = true;
    live.clear();
    const failed = await sync();
    expect(failed.ok).toBe(false);
    expect(failed.ok ? '' : failed.error).toMatch(/the OAuth token endpoint answered HTTP 503/);
    endpointDown = false;
    expect(await sync()).toMatchObject({ ok: true, busy: 1 });
  });
});
