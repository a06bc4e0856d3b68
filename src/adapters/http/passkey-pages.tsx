import type { PageStatus } from './page-status.js';
import type { ErrorCode } from '../../domain/errors.js';
import type { PageApp } from './page-app.js';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import type { Context } from 'hono';
import { deleteCookie, getCookie } from 'hono/cookie';
import type { PasswordChange } from '../../app/identity/own-password.js';
import type { SessionSeen, SignedIn } from '../../app/identity/sessions.js';
import { isDomainError } from '../../domain/errors.js';
import { packageFile } from '../files/package-files.js';
import type { AccessToken } from '../../domain/identity/identity.js';
import type { Passkey, RelyingParty } from '../../domain/identity/passkey.js';
import { AccountPage, FORMS, PasskeyScripts } from './account-page.js';
import type { HumanSessions } from './human-session.js';
import {
  clientAddress,
  csrfOk,
  LOGIN_CSRF_COOKIE,
  relyingPartyFor,
  safeNext,
  setSessionCookie,
  signedInOf,
} from './human-session.js';
import { PAGE_HEADERS, SCRIPTED_PAGE_HEADERS } from './page-headers.js';
import { Layout } from './page-layout.js';
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
  /** The person's live sessions, this one marked. */
  liveSessions(signed: SignedIn): Promise<SessionSeen[]>;
  /** Ends one of the person's other sessions by its handle (unknown: NOT_FOUND, another person's too). */
  endSession(signed: SignedIn, handle: string): Promise<void>;
  /** Ends every session of the person but this one. */
  endOtherSessions(signed: SignedIn): Promise<number>;
  /** The person changes their own password (the current one first). */
  changePassword(signed: SignedIn, change: PasswordChange): Promise<unknown>;
  /** The person's own agent tokens that still work. */
  tokens(signed: SignedIn): Promise<AccessToken[]>;
  /** Kept in the audit trail: passkeys added, removed, signed in with, sessions ended, or refused. */
  record(event: { tool: string; ok: boolean; code?: string; personId?: string }): Promise<void>;
}

const { REGISTER, REMOVE, TIME_ZONE, SESSIONS, PASSWORD } = FORMS;

/** The two scripts pages load: @simplewebauthn/browser's bundle and the buttons' own few lines. */
function scripts(): { readonly webauthn: string; readonly buttons: string } {
  const entry = createRequire(import.meta.url).resolve('@simplewebauthn/browser');
  return {
    webauthn: readFileSync(join(dirname(entry), '../dist/bundle/index.umd.min.js'), 'utf8'),
    buttons: readFileSync(packageFile('assets/passkeys.js'), 'utf8'),
  };
}

/** The login page's passkey button, where this site can have passkeys at all. */
export function PasskeySignIn(props: { rp: RelyingParty | null; loginCsrf: string; next: string }) {
  if (!props.rp) return <></>;
  return (
    <>
      <h2>Or with a passkey</h2>
      <p>
        <button type="button" id="passkey-sign-in" data-csrf={props.loginCsrf} data-next={props.next}>
          Sign in with a passkey
        </button>
      </p>
      <p id="passkey-message" class="muted" role="status"></p>
      <PasskeyScripts />
    </>
  );
}

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

  const refused = (c: Context) =>
    c.html(
      <Layout title="Refused">
        <h1>Refused.</h1>
      </Layout>,
      403,
      PAGE_HEADERS,
    );

  app.get('/account', async (c) => {
    const signed = await signedInOf(c, sessions);
    if (!signed) return c.redirect('/login?next=%2Faccount', 303);
    const [passkeys, live, tokens] = await Promise.all([
      options.list(signed.person.id),
      options.liveSessions(signed),
      options.tokens(signed),
    ]);
    return c.html(
      <AccountPage
        signed={signed}
        rp={relyingPartyFor(c, sessions)}
        passkeys={passkeys}
        sessions={live}
        tokens={tokens}
        passwordChanged={c.req.query('password') === 'changed'}
      />,
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

  /**
   * A form of the account page: its CSRF token checked, the action taken as the signed-in
   * person, the outcome recorded, then back to the account page (303); a refused domain rule is
   * a page of its own saying why.
   */
  const accountPost = (
    path: string,
    purpose: string,
    tool: string,
    act: (signed: SignedIn, form: Record<string, unknown>) => Promise<unknown>,
    refusal?: {
      title: string;
      heading?: (message: string) => string;
      back: boolean;
      status: (code: ErrorCode) => PageStatus;
    },
    done = '/account',
  ) =>
    app.post(path, async (c) => {
      const signed = await signedInOf(c, sessions);
      const form = await c.req.parseBody();
      if (!signed || !csrfOk(signed.session, purpose, form.csrf)) return refused(c);
      try {
        await act(signed, form);
      } catch (error) {
        if (!refusal || !isDomainError(error)) throw error;
        await options.record({ tool, ok: false, code: error.code, personId: signed.person.id });
        return c.html(
          <Layout title={refusal.title}>
            <h1 id="result">{refusal.heading ? refusal.heading(error.message) : error.message}</h1>
            {refusal.back ? (
              <p>
                <a href="/account">Back</a>
              </p>
            ) : (
              ''
            )}
          </Layout>,
          refusal.status(error.code),
          PAGE_HEADERS,
        );
      }
      await options.record({ tool, ok: true, personId: signed.person.id });
      return c.redirect(done, 303);
    });

  accountPost(
    '/account/passkeys/remove',
    REMOVE,
    'passkey_remove',
    (signed, form) => options.remove(signed, String(form.id ?? '')),
    { title: 'Not removed', back: false, status: () => 404 },
  );
  accountPost(
    '/account/time-zone',
    TIME_ZONE,
    'account_time_zone',
    (signed, form) => options.setTimeZone(signed, String(form.timeZone ?? '').slice(0, 64)),
    { title: 'Not saved', heading: (message) => `Not saved: ${message}`, back: true, status: () => 400 },
  );
  // Signing out elsewhere: only ever the person's own sessions (the use case looks the handle up
  // among them), with the account page's CSRF token, and kept in the audit trail.
  accountPost(
    '/account/sessions/end',
    SESSIONS,
    'session_end',
    (signed, form) => options.endSession(signed, String(form.session ?? '').slice(0, 64)),
    { title: 'Not signed out', back: true, status: pageStatusOf },
  );
  accountPost('/account/sessions/end-others', SESSIONS, 'sessions_end_others', (signed) =>
    options.endOtherSessions(signed),
  );
  // A new password: only with the current one, from the page's own form; its refusal says which field.
  accountPost(
    '/account/password',
    PASSWORD,
    'password_change',
    (signed, form) =>
      options.changePassword(signed, {
        current: String(form.current ?? '').slice(0, 300),
        next: String(form.next ?? '').slice(0, 300),
        repeated: String(form.repeated ?? '').slice(0, 300),
        endConnections: form.endConnections === 'yes',
      }),
    { title: 'Not changed', heading: (message) => `Not changed: ${message}`, back: true, status: () => 400 },
    '/account?password=changed',
  );

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
