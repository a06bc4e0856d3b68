import type { PageApp } from './page-app.js';
import type { Context } from 'hono';
import { deleteCookie, getCookie, setCookie } from 'hono/cookie';
import type { SignedIn } from '../../app/identity/sessions.js';
import type { ProviderIdentity } from '../../domain/identity/provider-login.js';
import type { HumanSessions } from './human-session.js';
import { clientAddress, safeNext, setSessionCookie } from './human-session.js';
import { PAGE_HEADERS } from './page-headers.js';
import { PROVIDER_CALLBACK_PATH } from './provider-callback.js';
import { Layout } from './page-layout.js';

/** The organisation's OpenID Connect provider, as the pages use it (the oauth adapter's relying party). */
export interface ProviderLogin {
  /** What the button says after "Sign in with". */
  readonly name: string;
  /** The registered redirect URI: its origin is where the attempt must start, so the cookie comes back. */
  readonly redirectUri: string;
  /** Rejects when the provider cannot be reached. */
  begin(next: string): Promise<{ readonly url: string; readonly sealed: string }>;
  finish(
    query: URLSearchParams,
    sealed: string | undefined,
  ): Promise<
    | { readonly ok: true; readonly identity: ProviderIdentity; readonly next: string }
    | { readonly ok: false; readonly failure: string; readonly next: string; readonly detail: string }
  >;
}

export interface ProviderSignInPagesOptions {
  readonly sessions: HumanSessions;
  readonly provider: ProviderLogin;
  /** The existing person the provider's verified email names, with a fresh session; or why not. */
  signIn(
    identity: ProviderIdentity,
    address: string,
  ): Promise<
    | { readonly ok: true; readonly signed: SignedIn & { secret: string } }
    | { readonly ok: false; readonly reason: string }
  >;
  /** A forged, stale or refused callback counts against the address, like a wrong password. */
  countFailure(address: string): Promise<void>;
  /** Kept in the audit trail: sign-ins through the provider, and refusals with their reason. */
  record(event: {
    tool: string;
    ok: boolean;
    code?: string;
    personId?: string;
    reason?: string;
  }): Promise<void>;
  /** The operator's log: the provider unreachable, or an answer that failed a check. */
  log(message: string, fields: Record<string, unknown>): void;
}

const TOOL = 'sign_in_oidc';
const LOOPBACK = new Set(['127.0.0.1', 'localhost', '[::1]']);

/** SameSite=Lax, not Strict: it must come back on the provider's cross-site redirect to the callback. */
function attemptCookie(sessions: HumanSessions): string {
  return sessions.secure ? '__Host-holdfast_login_oidc' : 'holdfast_login_oidc';
}

/** The /login page's button: a plain link (a form's redirect to another origin would break form-action 'self'). */
export function ProviderButton(props: { provider: { readonly name: string } | undefined; next: string }) {
  if (!props.provider) return <></>;
  return (
    <>
      <h2>Or through your organisation</h2>
      <p>
        <a id="provider-sign-in" href={`/login/oidc?next=${encodeURIComponent(props.next)}`}>
          Sign in with {props.provider.name}
        </a>
      </p>
    </>
  );
}

/** Sign-in through the organisation's OpenID Connect provider: /login/oidc and its callback. */
export function mountProviderSignInPages(app: PageApp, options: ProviderSignInPagesOptions): void {
  const { sessions, provider } = options;
  const cookie = attemptCookie(sessions);
  const callback = new URL(provider.redirectUri);

  const page = (c: Context, status: 400 | 403 | 503, title: string, message: string, next: string) =>
    c.html(
      <Layout title={title}>
        <h1 id="result">{title}</h1>
        <p>{message}</p>
        <p>
          <a href={`/login?next=${encodeURIComponent(next)}`}>Back to sign-in</a>
        </p>
      </Layout>,
      status,
      PAGE_HEADERS,
    );
  const unavailable = (c: Context, next: string) => {
    c.header('Retry-After', '30');
    return page(
      c,
      503,
      'Sign-in unavailable',
      `${provider.name} does not answer right now. Try again in a minute, or sign in another way.`,
      next,
    );
  };

  app.get('/login/oidc', async (c) => {
    const next = safeNext(c.req.query('next'));
    // Started at another loopback name than the callback's, the cookie would not come back: move first.
    const host = c.req.header('host')?.toLowerCase() ?? '';
    const hostname = host.replace(/:\d+$/, '');
    if (host !== callback.host && LOOPBACK.has(hostname) && LOOPBACK.has(callback.hostname))
      return c.redirect(`${callback.origin}/login/oidc?next=${encodeURIComponent(next)}`, 303);
    let attempt: { url: string; sealed: string };
    try {
      attempt = await provider.begin(next);
    } catch (error) {
      options.log('identity provider unavailable for sign-in', { problem: String(error) });
      return unavailable(c, next);
    }
    setCookie(c, cookie, attempt.sealed, {
      httpOnly: true,
      secure: sessions.secure,
      sameSite: 'Lax',
      path: '/',
      maxAge: 10 * 60,
    });
    c.header('Cache-Control', 'no-store');
    return c.redirect(attempt.url, 303);
  });

  app.get(PROVIDER_CALLBACK_PATH, async (c) => {
    const address = clientAddress(c, sessions.trustProxy);
    const sealed = getCookie(c, cookie);
    // One use: whatever happens next, this attempt is over.
    deleteCookie(c, cookie, { path: '/', secure: sessions.secure });
    const query = new URL(c.req.url).searchParams;
    const outcome = await provider.finish(query, sealed);
    if (!outcome.ok) {
      await options.record({ tool: TOOL, ok: false, code: 'FORBIDDEN', reason: outcome.failure });
      options.log('identity provider sign-in failed', { failure: outcome.failure, detail: outcome.detail });
      if (outcome.failure === 'unavailable') return unavailable(c, outcome.next);
      await options.countFailure(address);
      return outcome.failure === 'provider_error'
        ? page(c, 403, 'Not signed in', `${provider.name} did not sign you in.`, outcome.next)
        : page(
            c,
            400,
            'Not signed in',
            'This sign-in could not be completed: it expired, was started in another browser, or was changed on the way. Start again.',
            outcome.next,
          );
    }
    const result = await options.signIn(outcome.identity, address);
    if (!result.ok) {
      await options.record({ tool: TOOL, ok: false, code: 'FORBIDDEN', reason: result.reason });
      return page(
        c,
        403,
        'Not signed in',
        `This ${provider.name} account cannot sign in to Holdfast. An owner adds people by the email address ${provider.name} has verified for them.`,
        outcome.next,
      );
    }
    setSessionCookie(c, sessions, result.signed.secret);
    await options.record({ tool: TOOL, ok: true, personId: result.signed.person.id });
    // A page, not a redirect: the browser came here from another site, and along a redirect
    // chain it started there it would not send the SameSite=Strict session cookie; a refresh
    // from this page is this site's own navigation, and does.
    return c.html(
      <Layout title="Signed in">
        <h1 id="result">Signed in as {result.signed.person.email}.</h1>
        <p>
          <a id="continue" href={outcome.next}>
            Continue
          </a>
        </p>
      </Layout>,
      200,
      { ...PAGE_HEADERS, Refresh: `0; url=${outcome.next}` },
    );
  });
}
