import type { PageApp } from './page-app.js';
import { randomBytes } from 'node:crypto';
import type { Context } from 'hono';
import { deleteCookie, getCookie } from 'hono/cookie';
import type { SignedIn } from '../../app/identity/sessions.js';
import type { SetupTarget } from '../../app/identity/people.js';
import type { Person } from '../../domain/identity/identity.js';
import { isDomainError } from '../../domain/errors.js';
import type { HumanSessions } from './human-session.js';
import {
  clientAddress,
  csrfOk,
  LOGIN_CSRF_COOKIE,
  relyingPartyFor,
  safeNext,
  setPageCookie,
  setSessionCookie,
  signedInOf,
} from './human-session.js';
import { PAGE_HEADERS, SCRIPTED_PAGE_HEADERS } from './page-headers.js';
import { PasskeySignIn } from './passkey-pages.js';
import { ProviderButton } from './provider-sign-in-pages.js';
import { Layout, SignOutForm } from './page-layout.js';

export interface SignInPagesOptions {
  readonly sessions: HumanSessions;
  signIn(input: { email: string; password: string; address: string }): Promise<SignedIn & { secret: string }>;
  signOut(secret: string | undefined): Promise<void>;
  setupTarget(secret: string): Promise<SetupTarget | null>;
  completeSetup(
    secret: string,
    password: string,
    owner?: { email: string; displayName?: string },
  ): Promise<Person>;
  /** The organisation's identity provider, when people may sign in through it (its button). */
  readonly provider?: { readonly name: string };
  /** Kept in the audit trail: who signed in or out, or failed to. */
  record(event: { tool: string; ok: boolean; code?: string; personId?: string }): Promise<void>;
}

/** oidc-provider's session cookie and its signature. */
const AUTHORIZATION_SESSION_COOKIES = ['_session', '_session.sig'];

/**
 * Where a signed-in form post goes next. An OAuth authorization continues by a navigation,
 * not the form's redirect chain: that chain may end at the client's redirect URI (an error
 * answer), which the page's `form-action 'self'` would block.
 */
function continueTo(c: Context, next: string) {
  if (!next.startsWith('/oauth/interaction/')) return c.redirect(next, 303);
  return c.html(
    <Layout title="Signed in">
      <h1>Signed in.</h1>
      <p>
        <a id="continue" href={next}>
          Continue
        </a>
      </p>
    </Layout>,
    200,
    { ...PAGE_HEADERS, Refresh: `0; url=${next}` },
  );
}

/** Sign-in, sign-out and the one-time setup link: the only ways to become a signed-in person. */
export function mountSignInPages(app: PageApp, options: SignInPagesOptions): void {
  const { sessions } = options;

  const loginPage = async (
    c: Context,
    next: string,
    message: string | null,
    status: 200 | 403 | 429 = 200,
  ) => {
    const signed = await signedInOf(c, sessions);
    // Login CSRF: a double-submit token, so another site cannot sign a browser in as somebody else.
    const token = randomBytes(24).toString('base64url');
    setPageCookie(c, sessions, LOGIN_CSRF_COOKIE, token, 10 * 60_000);
    return c.html(
      <Layout title="Sign in">
        {signed ? <SignOutForm signed={signed} /> : ''}
        <h1>Sign in to Holdfast</h1>
        {message ? (
          <p id="message" class="stale">
            {message}
          </p>
        ) : (
          ''
        )}
        <form method="post" action="/login">
          <input type="hidden" name="csrf" value={token} />
          <input type="hidden" name="next" value={next} />
          <p>
            <label>
              Email
              <br />
              <input name="email" type="email" autocomplete="username" required />
            </label>
          </p>
          <p>
            <label>
              Password
              <br />
              <input name="password" type="password" autocomplete="current-password" required />
            </label>
          </p>
          <button class="approve" type="submit">
            Sign in
          </button>
        </form>
        <ProviderButton provider={options.provider} next={next} />
        <PasskeySignIn rp={relyingPartyFor(c, sessions)} loginCsrf={token} next={next} />
      </Layout>,
      status,
      SCRIPTED_PAGE_HEADERS,
    );
  };

  app.get('/login', (c) => loginPage(c, safeNext(c.req.query('next')), null));

  app.post('/login', async (c) => {
    const form = await c.req.parseBody();
    const next = safeNext(form.next);
    const expected = getCookie(c, LOGIN_CSRF_COOKIE);
    if (!expected || form.csrf !== expected)
      return loginPage(c, next, 'The form expired; sign in again.', 403);
    try {
      const signed = await options.signIn({
        email: String(form.email ?? '').slice(0, 300),
        password: String(form.password ?? ''),
        address: clientAddress(c, sessions.trustProxy),
      });
      setSessionCookie(c, sessions, signed.secret);
      deleteCookie(c, LOGIN_CSRF_COOKIE, { path: '/', secure: sessions.secure });
      await options.record({ tool: 'sign_in', ok: true, personId: signed.person.id });
      return continueTo(c, next);
    } catch (error) {
      const code = isDomainError(error) ? error.code : 'INTERNAL';
      await options.record({ tool: 'sign_in', ok: false, code });
      if (isDomainError(error, 'RATE_LIMITED')) {
        const seconds = Math.max(1, Math.ceil((error.details.retryAfterMs ?? 60_000) / 1000));
        c.header('Retry-After', String(seconds));
        return loginPage(c, next, `Too many failed attempts. Try again in ${seconds} s.`, 429);
      }
      if (!isDomainError(error)) throw error;
      return loginPage(c, next, 'Email or password is wrong.', 403);
    }
  });

  app.post('/logout', async (c) => {
    const signed = await signedInOf(c, sessions);
    const form = await c.req.parseBody();
    if (!signed || !csrfOk(signed.session, 'logout', form.csrf))
      return c.html(
        <Layout title="Refused">
          <h1>Refused.</h1>
        </Layout>,
        403,
        PAGE_HEADERS,
      );
    await options.signOut(getCookie(c, sessions.cookieName));
    deleteCookie(c, sessions.cookieName, { path: '/', secure: sessions.secure });
    // The authorization server's own session goes too: no silent authorization after sign-out.
    for (const name of AUTHORIZATION_SESSION_COOKIES)
      deleteCookie(c, name, { path: '/', secure: sessions.secure });
    await options.record({ tool: 'sign_out', ok: true, personId: signed.person.id });
    return c.html(
      <Layout title="Signed out">
        <h1 id="result">Signed out.</h1>
      </Layout>,
      200,
      PAGE_HEADERS,
    );
  });

  const unknownLink = (c: Context) =>
    c.html(
      <Layout title="Unknown link">
        <h1>This setup link is unknown, used or expired.</h1>
      </Layout>,
      404,
      PAGE_HEADERS,
    );

  app.get('/setup/:secret', async (c) => {
    const secret = c.req.param('secret');
    const target = await options.setupTarget(secret);
    if (!target) return unknownLink(c);
    const first = target.kind === 'first-owner';
    return c.html(
      <Layout title="Set up">
        <h1>{first ? 'Create the owner account' : `Set the password of ${target.person.email}`}</h1>
        <form method="post" action={`/setup/${secret}`}>
          {first ? (
            <>
              <p>
                <label>
                  Email
                  <br />
                  <input name="email" type="email" required />
                </label>
              </p>
              <p>
                <label>
                  Name
                  <br />
                  <input name="name" />
                </label>
              </p>
            </>
          ) : (
            ''
          )}
          <p>
            <label>
              Password (at least 12 characters)
              <br />
              <input name="password" type="password" autocomplete="new-password" minlength={12} required />
            </label>
          </p>
          <button class="approve" type="submit">
            Save
          </button>
        </form>
      </Layout>,
      200,
      PAGE_HEADERS,
    );
  });

  app.post('/setup/:secret', async (c) => {
    const secret = c.req.param('secret');
    const form = await c.req.parseBody();
    const target = await options.setupTarget(secret);
    if (!target) return unknownLink(c);
    try {
      const person = await options.completeSetup(
        secret,
        String(form.password ?? ''),
        target.kind === 'first-owner'
          ? {
              email: String(form.email ?? '').slice(0, 300),
              displayName: String(form.name ?? '').slice(0, 80),
            }
          : undefined,
      );
      await options.record({ tool: 'setup_link', ok: true, personId: person.id });
      // The person who just chose the password is signed in with it: no second form to fill.
      const signed = await options.signIn({
        email: person.email,
        password: String(form.password ?? ''),
        address: clientAddress(c, sessions.trustProxy),
      });
      setSessionCookie(c, sessions, signed.secret);
      await options.record({ tool: 'sign_in', ok: true, personId: person.id });
      return c.redirect('/console', 303);
    } catch (error) {
      if (!isDomainError(error)) throw error;
      await options.record({ tool: 'setup_link', ok: false, code: error.code });
      return c.html(
        <Layout title="Not saved">
          <h1 id="result">Not saved: {error.message}</h1>
        </Layout>,
        400,
        PAGE_HEADERS,
      );
    }
  });
}
