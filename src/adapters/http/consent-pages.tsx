import type { PageApp } from './page-app.js';
import type { HttpBindings } from '@hono/node-server';
import type { Context } from 'hono';
import type { Child } from 'hono/jsx';
import type { SignedIn } from '../../app/identity/sessions.js';
import { isDomainError } from '../../domain/errors.js';
import type { Scope, WritePolicy } from '../../domain/identity/identity.js';
import { checkRedirectUri, POLICY_WORDS, SCOPE_WORDS } from '../../domain/identity/oauth.js';
import type { AuthorizationEndpoints, PendingAuthorization } from '../oauth/endpoints.js';
import type { HumanSessions } from './human-session.js';
import { csrfOk, csrfToken, signedInOf } from './human-session.js';
import { PAGE_HEADERS } from './page-headers.js';
import { Layout, SignOutForm } from './page-layout.js';

type Bound = Context<{ Bindings: HttpBindings }>;

export interface ConsentPagesOptions {
  readonly sessions: HumanSessions;
  readonly endpoints: AuthorizationEndpoints;
  readonly tenantName: (tenantId: string) => Promise<string>;
  /** What may be granted: the scopes asked for within the person's role, and the policies they may choose. */
  offer(
    signed: SignedIn,
    requested: readonly string[],
  ): Promise<{ grantable: readonly Scope[]; refused: readonly Scope[]; policies: readonly WritePolicy[] }>;
  /** Checks the choice (throws a coded error when it is not allowed); the grant follows. */
  check(
    signed: SignedIn,
    requested: readonly string[],
    chosen: readonly string[],
    writePolicy: string,
  ): { scopes: readonly Scope[]; writePolicy: WritePolicy };
  /** Records the connection the grant became, and the decision in the audit trail. */
  granted(
    signed: SignedIn,
    pending: PendingAuthorization,
    grantId: string,
    choice: { scopes: readonly Scope[]; writePolicy: WritePolicy },
  ): Promise<void>;
  refused(signed: SignedIn | null, pending: PendingAuthorization | null, reason: string): Promise<void>;
}

/** A redirect URI as a CSP source: its origin, or its scheme for an app's own (`cursor:`). */
function redirectSource(uri: string): string | null {
  const check = checkRedirectUri(uri);
  if (!check.ok) return null;
  const url = new URL(uri);
  return check.kind === 'app' ? url.protocol : url.origin;
}

/** Granting `sensitive` needs a sign-in this recent. */
const FRESH_SIGN_IN_MS = 10 * 60_000;

/**
 * Where a person lets an agent host in: the authorization server sends the browser here; the
 * person, signed in with Holdfast's own session, sees who asks, for what, where the answer
 * goes, and picks the write policy. Every POST carries a CSRF token bound to the session.
 */
export function mountConsentPages(app: PageApp, options: ConsentPagesOptions): void {
  const { sessions, endpoints } = options;
  const page = (
    c: Bound,
    status: 200 | 400 | 403 | 404,
    title: string,
    body: Child,
    headers: Record<string, string> = PAGE_HEADERS,
  ) => c.html(<Layout title={title}>{body}</Layout>, status, headers);
  const expired = (c: Bound) =>
    page(
      c,
      404,
      'Expired',
      <>
        <h1 id="result">This sign-in request is unknown or expired.</h1>
        <p>Start again from your agent host.</p>
      </>,
    );
  const fresh = (signed: SignedIn, now: number) => now - signed.session.createdAt < FRESH_SIGN_IN_MS;

  app.get('/oauth/interaction/:uid', async (c) => {
    const uid = c.req.param('uid');
    const pending = await endpoints.pending(c.env.incoming, c.env.outgoing);
    if (!pending || pending.uid !== uid) return expired(c);
    const signed = await signedInOf(c, sessions);
    if (!signed) return c.redirect(`/login?next=${encodeURIComponent(`/oauth/interaction/${uid}`)}`, 303);
    if (pending.prompt === 'login') {
      const { returnTo } = await endpoints.answer(c.env.incoming, c.env.outgoing, {
        login: { accountId: signed.person.id },
      });
      return c.redirect(returnTo, 303);
    }
    if (pending.accountId !== null && pending.accountId !== signed.person.id) {
      await options.refused(signed, pending, 'signed in as another person');
      const { returnTo } = await endpoints.answer(c.env.incoming, c.env.outgoing, {
        error: 'login_required',
        description: 'The person signed in is not the one this request began with.',
      });
      return c.redirect(returnTo, 303);
    }
    const offer = await options.offer(signed, pending.scopes);
    const redirect = checkRedirectUri(pending.redirectUri);
    const tenant = await options.tenantName(signed.person.tenantId);
    const freshEnough = fresh(signed, sessions.now());
    // The answer travels on to the client's redirect URI: the form may lead there and nowhere else.
    const target = redirectSource(pending.redirectUri);
    const headers = {
      ...PAGE_HEADERS,
      'Content-Security-Policy': PAGE_HEADERS['Content-Security-Policy'].replace(
        "form-action 'self'",
        `form-action 'self'${target ? ` ${target}` : ''}`,
      ),
    };
    return page(
      c,
      200,
      'Connect an agent',
      <>
        <SignOutForm signed={signed} />
        <h1>
          Connect <span id="client-name">{pending.clientName}</span> to Holdfast?
        </h1>
        <table>
          <tr>
            <th>Client</th>
            <td>
              <code>{pending.clientId}</code>
              <br />
              <span class="muted">
                {pending.verifiedOrigin
                  ? `metadata served by ${pending.verifiedOrigin}`
                  : 'registered itself; the name is its own claim'}
              </span>
            </td>
          </tr>
          <tr>
            <th>Answer goes to</th>
            <td id="redirect-host">
              {redirect.ok ? (
                <>
                  {redirect.kind === 'app' ? <code>{pending.redirectUri}</code> : redirect.host}{' '}
                  <span class="muted">
                    (
                    {redirect.kind === 'loopback'
                      ? 'a program on the machine your browser runs on'
                      : redirect.kind === 'app'
                        ? 'an app on your device'
                        : 'a website'}
                    )
                  </span>
                </>
              ) : (
                pending.redirectUri
              )}
            </td>
          </tr>
          <tr>
            <th>For</th>
            <td>
              <code id="resource">{pending.resource}</code>{' '}
              <span class="muted">(this server’s MCP address)</span>
            </td>
          </tr>
          <tr>
            <th>Acts for</th>
            <td>
              {signed.person.email} in {tenant}
            </td>
          </tr>
        </table>
        {offer.refused.length ? (
          <p class="stale">Asked for but not yours to give: {offer.refused.join(', ')}.</p>
        ) : (
          ''
        )}
        <form method="post" action={`/oauth/interaction/${uid}`}>
          <input type="hidden" name="csrf" value={csrfToken(signed.session, `consent:${uid}`)} />
          <h2>It may</h2>
          <div id="scopes">
            {offer.grantable.map((s) => (
              <p>
                <label>
                  <input
                    type="checkbox"
                    name="scope"
                    value={s}
                    checked={s !== 'sensitive'}
                    disabled={s === 'read' || (s === 'sensitive' && !freshEnough)}
                  />{' '}
                  <strong>{s}</strong>: {SCOPE_WORDS[s]}
                  {s === 'read' ? ' (every connection may read)' : ''}
                </label>
              </p>
            ))}
          </div>
          {offer.grantable.includes('sensitive') && !freshEnough ? (
            <p class="muted" id="fresh">
              Giving <strong>sensitive</strong> needs a recent sign-in:{' '}
              <a href={`/login?next=${encodeURIComponent(`/oauth/interaction/${uid}`)}`}>sign in again</a>,
              then come back.
            </p>
          ) : (
            ''
          )}
          <h2>When it wants to confirm or cancel</h2>
          {offer.policies.map((p, i) => (
            <p>
              <label>
                <input type="radio" name="writePolicy" value={p} checked={i === 0} /> {POLICY_WORDS[p]}
              </label>
            </p>
          ))}
          <button class="approve" name="decision" value="allow" type="submit">
            Allow
          </button>{' '}
          <button class="deny" name="decision" value="deny" type="submit">
            Deny
          </button>
        </form>
      </>,
      headers,
    );
  });

  app.post('/oauth/interaction/:uid', async (c) => {
    const uid = c.req.param('uid');
    const form = await c.req.parseBody({ all: true });
    const signed = await signedInOf(c, sessions);
    const pending = await endpoints.pending(c.env.incoming, c.env.outgoing);
    if (!pending || pending.uid !== uid) return expired(c);
    if (!signed || !csrfOk(signed.session, `consent:${uid}`, form.csrf)) {
      await options.refused(signed, pending, 'no session or CSRF token');
      return page(c, 403, 'Refused', <h1 id="result">Refused: sign in and use the form.</h1>);
    }
    if (
      pending.prompt !== 'consent' ||
      (pending.accountId !== null && pending.accountId !== signed.person.id)
    ) {
      await options.refused(signed, pending, 'not awaiting this person’s consent');
      return page(c, 403, 'Refused', <h1 id="result">Refused: this request is not waiting for you.</h1>);
    }
    if (form.decision !== 'allow') {
      await options.refused(signed, pending, 'denied by the person');
      const { returnTo } = await endpoints.answer(c.env.incoming, c.env.outgoing, {
        error: 'access_denied',
        description: 'The person said no.',
      });
      return c.redirect(returnTo, 303);
    }
    let choice;
    try {
      const ticked = form['scope'];
      const chosen = (Array.isArray(ticked) ? ticked : [ticked]).filter(
        (v): v is string => typeof v === 'string',
      );
      choice = options.check(signed, pending.scopes, chosen, String(form.writePolicy ?? ''));
      if (choice.scopes.includes('sensitive') && !fresh(signed, sessions.now()))
        return page(c, 403, 'Sign in again', <h1 id="result">Sign in again to give sensitive access.</h1>);
    } catch (error) {
      if (!isDomainError(error)) throw error;
      await options.refused(signed, pending, error.message);
      return page(c, 400, 'Not allowed', <h1 id="result">Not allowed: {error.message}</h1>);
    }
    const { returnTo, grantId } = await endpoints.answer(c.env.incoming, c.env.outgoing, {
      consent: { accountId: signed.person.id, scopes: choice.scopes },
    });
    await options.granted(signed, pending, grantId!, choice);
    return c.redirect(returnTo, 303);
  });
}
