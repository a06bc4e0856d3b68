import type { PageStatus } from './page-status.js';
import type { PageApp } from './http-app.js';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import type { Context } from 'hono';
import { deleteCookie, getCookie } from 'hono/cookie';
import { html } from 'hono/html';
import type { SignedIn } from '../../app/identity/sessions.js';
import { isDomainError } from '../../domain/errors.js';
import type { Passkey, RelyingParty } from '../../domain/identity/passkey.js';
import type { Instant } from '../../domain/time/instant.js';
import { zonedDateTime } from '../../domain/time/human-time.js';
import type { HumanSessions } from './human-session.js';
import {
  clientAddress,
  csrfOk,
  csrfToken,
  LOGIN_CSRF_COOKIE,
  relyingPartyFor,
  safeNext,
  setSessionCookie,
  signedInOf,
} from './human-session.js';
import { PAGE_HEADERS, SCRIPTED_PAGE_HEADERS } from './page-headers.js';
import { layout, signOutForm } from './page-layout.js';
import { pageStatusOf } from './page-status.js';

export interface PasskeyPagesOptions {
  readonly sessions: HumanSessions;
  beginRegistration(signed: SignedIn, rp: RelyingParty): Promise<unknown>;
  finishRegistration(
    signed: SignedIn,
    rp: RelyingParty,
    input: { response: unknown; name: string },
  ): Promise<Passkey>;
  beginSignIn(rp: RelyingParty, address: string): Promise<unknown>;
  finishSignIn(
    rp: RelyingParty,
    input: { response: unknown; address: string },
  ): Promise<SignedIn & { secret: string }>;
  list(personId: string): Promise<Passkey[]>;
  /** The zone the person reads times in ('' goes back to their browser's). */
  setTimeZone(signed: SignedIn, zone: string): Promise<void>;
  remove(signed: SignedIn, id: string): Promise<void>;
  /** Kept in the audit trail: passkeys added, removed, signed in with, or refused. */
  record(event: { tool: string; ok: boolean; code?: string; personId?: string }): Promise<void>;
}

const REGISTER = 'passkey-register';
const REMOVE = 'passkey-remove';

/** The two scripts pages load: @simplewebauthn/browser's bundle and the buttons' own few lines. */
function scripts(): { readonly webauthn: string; readonly buttons: string } {
  const entry = createRequire(import.meta.url).resolve('@simplewebauthn/browser');
  return {
    webauthn: readFileSync(join(dirname(entry), '../dist/bundle/index.umd.min.js'), 'utf8'),
    buttons: readFileSync(new URL('../../../assets/passkeys.js', import.meta.url), 'utf8'),
  };
}

export const scriptTags = html`<script src="/assets/webauthn-browser.js"></script>
  <script src="/assets/passkeys.js"></script>`;

/** The login page's passkey button, where this site can have passkeys at all. */
export function passkeySignIn(rp: RelyingParty | null, loginCsrf: string, next: string) {
  if (!rp) return '';
  return html`<h2>Or with a passkey</h2>
    <p>
      <button type="button" id="passkey-sign-in" data-csrf="${loginCsrf}" data-next="${next}">
        Sign in with a passkey
      </button>
    </p>
    <p id="passkey-message" class="muted" role="status"></p>
    ${scriptTags}`;
}

const signedInBy = (method: string) =>
  method === 'oidc' ? 'signed in through the identity provider' : `signed in with a ${method}`;

const when = (at: Instant | null, zone: string) => (at === null ? 'never' : zonedDateTime(at, zone));
const TIME_ZONE = 'account-time-zone';
/** Every zone this runtime knows, for the searchable list. */
const ZONES = Intl.supportedValuesOf('timeZone');

/** Adding and removing passkeys (/account), and signing in with one (/login/passkey). */
export function mountPasskeyPages(app: PageApp, options: PasskeyPagesOptions): void {
  const { sessions } = options;
  const assets = scripts();
  const javascript = (body: string) => (c: Context) =>
    c.body(body, 200, {
      'Content-Type': 'text/javascript; charset=utf-8',
      'Cache-Control': 'public, max-age=3600',
    });
  app.get('/assets/webauthn-browser.js', javascript(assets.webauthn));
  app.get('/assets/passkeys.js', javascript(assets.buttons));

  /** Answers the scripts read: JSON, never cached, a message a person can read on failure. */
  const answer = (c: Context, body: unknown, status: 200 | PageStatus = 200) =>
    c.json(body as object, status, PAGE_HEADERS);
  const failure = async (c: Context, error: unknown, tool: string, personId?: string) => {
    if (!isDomainError(error)) throw error;
    await options.record({ tool, ok: false, code: error.code, personId });
    if (error.code === 'RATE_LIMITED') {
      c.header(
        'Retry-After',
        String(Math.max(1, Math.ceil(Number(error.details.retryAfterMs ?? 60_000) / 1000))),
      );
      return answer(c, { error: error.code, message: error.message }, 429);
    }
    const status = pageStatusOf(error.code);
    return answer(c, { error: error.code, message: error.message }, status);
  };
  const noPasskeysHere = (c: Context) =>
    answer(
      c,
      {
        error: 'FORBIDDEN',
        message: 'Passkeys need this site at a name (localhost or https), not an IP address.',
      },
      403,
    );
  const parsed = (value: unknown): unknown => {
    try {
      return JSON.parse(String(value ?? ''));
    } catch {
      return null;
    }
  };

  app.get('/account', async (c) => {
    const signed = await signedInOf(c, sessions);
    if (!signed) return c.redirect('/login?next=%2Faccount', 303);
    const rp = relyingPartyFor(c, sessions);
    const passkeys = await options.list(signed.person.id);
    const removeToken = csrfToken(signed.session, REMOVE);
    const zone = signed.zone ?? 'UTC';
    const rows = passkeys.map(
      (p) =>
        html`<tr>
          <td>${p.name}</td>
          <td>${p.rpId}</td>
          <td>${when(p.createdAt, zone)}</td>
          <td>${when(p.lastUsedAt, zone)}</td>
          <td>
            <form method="post" action="/account/passkeys/remove">
              <input type="hidden" name="csrf" value="${removeToken}" />
              <input type="hidden" name="id" value="${p.id}" />
              <button type="submit">Remove</button>
            </form>
          </td>
        </tr>`,
    );
    return c.html(
      layout(
        'Your account',
        html`${signOutForm(signed)}
          <h1>${signed.person.displayName}</h1>
          <p class="muted">
            ${signed.person.email} · ${signed.person.role} · ${signedInBy(signed.session.method)}
          </p>
          <h2>Passkeys</h2>
          ${
            passkeys.length
              ? html`<table id="passkeys">
                  <tr>
                    <th>Name</th>
                    <th>Site</th>
                    <th>Added</th>
                    <th>Last used</th>
                    <th></th>
                  </tr>
                  ${rows}
                </table>`
              : html`<p id="passkeys">No passkeys yet.</p>`
          }
          ${
            rp
              ? html`<p>
                    <label
                      >Name for a new passkey<br /><input
                        id="passkey-name"
                        maxlength="60"
                        placeholder="work laptop"
                    /></label>
                  </p>
                  <p>
                    <button
                      type="button"
                      class="approve"
                      id="passkey-add"
                      data-csrf="${csrfToken(signed.session, REGISTER)}"
                    >
                      Add a passkey
                    </button>
                  </p>
                  <p id="passkey-message" class="muted" role="status"></p>
                  ${scriptTags}`
              : html`<p class="stale">
                  Passkeys belong to a site's name: open this page at http://localhost or the https address to
                  add one.
                </p>`
          }
          <h2 id="zone-title">Your time zone</h2>
          <p class="muted">
            Pages show each time in its calendar's zone and, when it differs, in yours:
            ${signed.person.timeZone ? html`<strong>${signed.person.timeZone}</strong> (your setting)` : signed.zone ? html`<strong>${signed.zone}</strong> (your browser's)` : 'not known yet'}.
          </p>
          <form method="post" action="/account/time-zone" aria-labelledby="zone-title">
            <input type="hidden" name="csrf" value="${csrfToken(signed.session, TIME_ZONE)}" />
            <label for="time-zone">Time zone (type to search; empty: your browser's)</label>
            <input
              id="time-zone"
              name="timeZone"
              list="zones"
              value="${signed.person.timeZone ?? ''}"
              autocomplete="off"
            />
            <datalist id="zones">${ZONES.map((z) => html`<option value="${z}"></option>`)}</datalist>
            <div class="actions"><button type="submit">Save time zone</button></div>
          </form>`,
      ),
      200,
      SCRIPTED_PAGE_HEADERS,
    );
  });

  app.post('/account/passkeys/options', async (c) => {
    const signed = await signedInOf(c, sessions);
    const form = await c.req.parseBody();
    if (!signed || !csrfOk(signed.session, REGISTER, form.csrf))
      return answer(c, { error: 'FORBIDDEN', message: 'Sign in again to add a passkey.' }, 403);
    const rp = relyingPartyFor(c, sessions);
    if (!rp) return noPasskeysHere(c);
    try {
      return answer(c, await options.beginRegistration(signed, rp));
    } catch (error) {
      return failure(c, error, 'passkey_add', signed.person.id);
    }
  });

  app.post('/account/passkeys', async (c) => {
    const signed = await signedInOf(c, sessions);
    const form = await c.req.parseBody();
    if (!signed || !csrfOk(signed.session, REGISTER, form.csrf))
      return answer(c, { error: 'FORBIDDEN', message: 'Sign in again to add a passkey.' }, 403);
    const rp = relyingPartyFor(c, sessions);
    if (!rp) return noPasskeysHere(c);
    try {
      const passkey = await options.finishRegistration(signed, rp, {
        response: parsed(form.response),
        name: String(form.name ?? ''),
      });
      await options.record({ tool: 'passkey_add', ok: true, personId: signed.person.id });
      return answer(c, { id: passkey.id, name: passkey.name });
    } catch (error) {
      return failure(c, error, 'passkey_add', signed.person.id);
    }
  });

  app.post('/account/passkeys/remove', async (c) => {
    const signed = await signedInOf(c, sessions);
    const form = await c.req.parseBody();
    if (!signed || !csrfOk(signed.session, REMOVE, form.csrf))
      return c.html(layout('Refused', html`<h1>Refused.</h1>`), 403, PAGE_HEADERS);
    try {
      await options.remove(signed, String(form.id ?? ''));
    } catch (error) {
      if (!isDomainError(error)) throw error;
      await options.record({
        tool: 'passkey_remove',
        ok: false,
        code: error.code,
        personId: signed.person.id,
      });
      return c.html(layout('Not removed', html`<h1 id="result">${error.message}</h1>`), 404, PAGE_HEADERS);
    }
    await options.record({ tool: 'passkey_remove', ok: true, personId: signed.person.id });
    return c.redirect('/account', 303);
  });

  app.post('/account/time-zone', async (c) => {
    const signed = await signedInOf(c, sessions);
    const form = await c.req.parseBody();
    if (!signed || !csrfOk(signed.session, TIME_ZONE, form.csrf))
      return c.html(layout('Refused', html`<h1>Refused.</h1>`), 403, PAGE_HEADERS);
    try {
      await options.setTimeZone(signed, String(form.timeZone ?? '').slice(0, 64));
      await options.record({ tool: 'account_time_zone', ok: true, personId: signed.person.id });
    } catch (error) {
      if (!isDomainError(error)) throw error;
      await options.record({
        tool: 'account_time_zone',
        ok: false,
        code: error.code,
        personId: signed.person.id,
      });
      return c.html(
        layout(
          'Not saved',
          html`<h1 id="result">Not saved: ${error.message}</h1>
            <p><a href="/account">Back</a></p>`,
        ),
        400,
        PAGE_HEADERS,
      );
    }
    return c.redirect('/account', 303);
  });

  // Signing in: the login page's double-submit token, as for the password form.
  const loginCsrfOk = (c: Context, given: unknown) => {
    const expected = getCookie(c, LOGIN_CSRF_COOKIE);
    return typeof given === 'string' && expected !== undefined && given === expected;
  };

  app.post('/login/passkey/options', async (c) => {
    const form = await c.req.parseBody();
    if (!loginCsrfOk(c, form.csrf))
      return answer(c, { error: 'FORBIDDEN', message: 'The page expired; reload it.' }, 403);
    const rp = relyingPartyFor(c, sessions);
    if (!rp) return noPasskeysHere(c);
    try {
      return answer(c, await options.beginSignIn(rp, clientAddress(c, sessions.trustProxy)));
    } catch (error) {
      return failure(c, error, 'sign_in');
    }
  });

  app.post('/login/passkey', async (c) => {
    const form = await c.req.parseBody();
    if (!loginCsrfOk(c, form.csrf))
      return answer(c, { error: 'FORBIDDEN', message: 'The page expired; reload it.' }, 403);
    const rp = relyingPartyFor(c, sessions);
    if (!rp) return noPasskeysHere(c);
    try {
      const signed = await options.finishSignIn(rp, {
        response: parsed(form.response),
        address: clientAddress(c, sessions.trustProxy),
      });
      setSessionCookie(c, sessions, signed.secret);
      deleteCookie(c, LOGIN_CSRF_COOKIE, { path: '/', secure: sessions.secure });
      await options.record({ tool: 'sign_in', ok: true, personId: signed.person.id });
      return answer(c, { next: safeNext(form.next) });
    } catch (error) {
      return failure(c, error, 'sign_in');
    }
  });
}
