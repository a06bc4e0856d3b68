import type { Context } from 'hono';
import type { ConnectionsView } from '../../../app/console/connections.js';
import {
  changeAccessAs,
  connectionsOf,
  createOwnToken,
  revokeConnectionAs,
  revokeTokenAs,
} from '../../../app/console/connections.js';
import type { SignedIn } from '../../../app/identity/sessions.js';
import type { AccessToken, Scope, WritePolicy } from '../../../domain/identity/identity.js';
import { scopesOfRole } from '../../../domain/identity/identity.js';
import {
  POLICY_WORDS,
  policiesOffered,
  policiesOfRole,
  SCOPE_WORDS,
} from '../../../domain/identity/oauth.js';
import { relative } from '../../format/human-time.js';
import type { PageApp } from '../page-app.js';
import { csrfToken } from '../human-session.js';
import type { ConsoleContext } from './console-page.js';
import { consoleArea, formPosts, formStrings } from './console-page.js';
import { CONSOLE_HEADERS, Shell, Status } from './shell.js';
import type { ConnectInfo } from './connect-snippets.js';
import { ConnectSection } from './connect-section.js';

const FORM = 'console-connections';

function stateOf(t: { revokedAt: number | null; expiresAt?: number }, now: number) {
  if (t.revokedAt !== null) return 'REVOKED';
  return t.expiresAt !== undefined && t.expiresAt <= now ? 'EXPIRED' : 'ACTIVE';
}

/** The columns both tables share, the first named for what the row is. */
function Head(props: { first: string }) {
  return (
    <thead>
      <tr>
        <th scope="col">{props.first}</th>
        <th scope="col">Person</th>
        <th scope="col">Scopes and policy</th>
        <th scope="col">State</th>
        <th scope="col">Last used</th>
        <th scope="col">
          <span class="skip">Action</span>
        </th>
      </tr>
    </thead>
  );
}

function RevokeForm(props: { action: string; csrf: string; label: string; text: string }) {
  return (
    <form method="post" action={props.action}>
      <input type="hidden" name="csrf" value={props.csrf} />
      <button class="danger" type="submit" aria-label={props.label}>
        {props.text}
      </button>
    </form>
  );
}

/** Scopes and policy of a live token or connection, and (in a disclosure) a form to change them. */
function AccessCell(props: {
  action: string;
  csrf: string;
  id: string;
  scopes: readonly Scope[];
  writePolicy: WritePolicy;
  /** What may be ticked: the holder's role for a token, what was granted for a connection. */
  offered: readonly Scope[];
  policies: readonly WritePolicy[];
  live: boolean;
}) {
  return (
    <>
      {props.scopes.join(', ')} · {props.writePolicy}
      {props.live ? (
        <details class="access">
          <summary>Change</summary>
          <form method="post" action={props.action}>
            <input type="hidden" name="csrf" value={props.csrf} />
            <fieldset>
              <legend>Scopes</legend>
              {props.offered.map((s) => (
                <p>
                  <input
                    type="checkbox"
                    id={`${props.id}-scope-${s}`}
                    name="scopes"
                    value={s}
                    checked={s === 'read' || props.scopes.includes(s)}
                    disabled={s === 'read'}
                  />{' '}
                  <label for={`${props.id}-scope-${s}`}>{s === 'read' ? 'read (always)' : s}</label>
                </p>
              ))}
            </fieldset>
            <label for={`${props.id}-policy`}>Write policy</label>
            <select id={`${props.id}-policy`} name="writePolicy">
              {props.policies.map((p) => (
                <option value={p} selected={p === props.writePolicy}>
                  {p}
                </option>
              ))}
            </select>
            <div class="actions">
              <button type="submit">Save</button>
            </div>
          </form>
        </details>
      ) : (
        ''
      )}
    </>
  );
}

function Page(props: {
  signed: SignedIn;
  view: ConnectionsView;
  connect: ConnectInfo;
  now: number;
  message?: string;
  created?: { token: Pick<AccessToken, 'name'>; secret: string };
}) {
  const { signed, view, now } = props;
  const csrf = csrfToken(signed.session, FORM);
  const who = (personId: string) => view.emails.get(personId) ?? personId;
  const roleOf = (personId: string) => view.roles.get(personId) ?? 'viewer';
  const allowed = scopesOfRole(signed.person.role);
  return (
    <Shell title="Connections" signed={signed} section="/console/connections">
      <h1>Connections</h1>
      {props.message ? (
        <p class="notice" id="result" role="status">
          {props.message}
        </p>
      ) : (
        ''
      )}
      {props.created ? (
        <section class="card notice good" aria-labelledby="new-token-title">
          <h2 id="new-token-title">Token “{props.created.token.name}” made</h2>
          <p>
            Shown once: give it to the agent host as <code>Authorization: Bearer …</code>. Holdfast keeps only
            its digest.
          </p>
          <code class="secret" id="new-token">
            {props.created.secret}
          </code>
          <button type="button" data-copy="new-token" hidden>
            Copy
          </button>
        </section>
      ) : (
        ''
      )}
      <ConnectSection connect={props.connect} email={signed.person.email} token={props.created?.secret} />
      <h2 id="tokens-title">Personal access tokens</h2>
      <div class="table-wrap">
        <table aria-labelledby="tokens-title" id="tokens">
          <Head first="Name" />
          <tbody>
            {view.tokens.map((t) => (
              <tr data-token={t.id}>
                <td>{t.name}</td>
                <td>{who(t.personId)}</td>
                <td>
                  <AccessCell
                    action={`/console/tokens/${t.id}/access`}
                    csrf={csrf}
                    id={t.id}
                    scopes={t.scopes}
                    writePolicy={t.writePolicy}
                    offered={scopesOfRole(roleOf(t.personId))}
                    policies={policiesOfRole(roleOf(t.personId))}
                    live={stateOf(t, now) === 'ACTIVE'}
                  />
                </td>
                <td>
                  <Status status={stateOf(t, now)} />{' '}
                  <span class="muted small">
                    {t.revokedAt === null ? `expires ${relative(t.expiresAt, now)}` : ''}
                  </span>
                </td>
                <td>{t.lastUsedAt === null ? 'never' : relative(t.lastUsedAt, now)}</td>
                <td>
                  {stateOf(t, now) === 'ACTIVE' ? (
                    <RevokeForm
                      action={`/console/tokens/${t.id}/revoke`}
                      csrf={csrf}
                      label={`Revoke token ${t.name}`}
                      text="Revoke"
                    />
                  ) : (
                    ''
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      <form method="post" action="/console/tokens" class="card" aria-labelledby="create-title">
        <h2 id="create-title">Make a token for an agent</h2>
        <input type="hidden" name="csrf" value={csrf} />
        <label for="token-name">Name</label>
        <input
          type="text"
          id="token-name"
          name="name"
          maxlength={60}
          required
          placeholder="Claude on my laptop"
        />
        <fieldset>
          <legend>It may</legend>
          {allowed.map((s) => (
            <p>
              <input
                type="checkbox"
                id={`scope-${s}`}
                name="scopes"
                value={s}
                checked={s !== 'sensitive'}
                disabled={s === 'read'}
              />{' '}
              <label for={`scope-${s}`}>
                <strong>{s}</strong>: {SCOPE_WORDS[s]}
                {s === 'read' ? ' (every token may read)' : ''}
              </label>
            </p>
          ))}
        </fieldset>
        <fieldset>
          <legend>When it wants to confirm or cancel</legend>
          {policiesOffered(signed.person.role, view.defaultWritePolicy).map((p, i) => (
            <p>
              <input type="radio" id={`policy-${p}`} name="writePolicy" value={p} checked={i === 0} />{' '}
              <label for={`policy-${p}`}>{POLICY_WORDS[p]}</label>
            </p>
          ))}
        </fieldset>
        <label for="token-days">Expires after (days)</label>
        <input type="number" id="token-days" name="days" min={1} max={366} value="90" required />
        <div class="actions">
          <button class="primary" type="submit">
            Make token
          </button>
        </div>
      </form>
      <h2 id="oauth-title">Apps connected through OAuth</h2>
      {view.oauth.length === 0 ? (
        <p class="muted">None yet. An agent host that signs you in through Holdfast appears here.</p>
      ) : (
        <div class="table-wrap">
          <table aria-labelledby="oauth-title" id="oauth">
            <Head first="Client" />
            <tbody>
              {view.oauth.map((o) => (
                <tr data-connection={o.grantId}>
                  <td>
                    {o.clientName}
                    <br />
                    <span class="muted small">answers go to {o.redirectHost}</span>
                  </td>
                  <td>{who(o.personId)}</td>
                  <td>
                    <AccessCell
                      action={`/console/connections/${o.grantId}/access`}
                      csrf={csrf}
                      id={o.grantId}
                      scopes={o.scopes}
                      writePolicy={o.writePolicy}
                      offered={o.scopes}
                      policies={policiesOfRole(roleOf(o.personId))}
                      live={o.revokedAt === null}
                    />
                  </td>
                  <td>
                    <Status status={stateOf(o, now)} />
                  </td>
                  <td>{o.lastUsedAt === null ? 'never' : relative(o.lastUsedAt, now)}</td>
                  <td>
                    {o.revokedAt === null ? (
                      <RevokeForm
                        action={`/console/connections/${o.grantId}/revoke`}
                        csrf={csrf}
                        label={`Disconnect ${o.clientName}`}
                        text="Disconnect"
                      />
                    ) : (
                      ''
                    )}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {signed.person.role === 'owner' ? (
        <>
          <h2 id="hosts-title">Hosts that attest approvals</h2>
          {view.hosts.length === 0 ? (
            <p class="muted">
              None. Register one with <code>holdfast hosts add NAME</code>.
            </p>
          ) : (
            <ul>
              {view.hosts.map((h) => (
                <li>
                  {h.name} <Status status={h.revokedAt === null ? 'ACTIVE' : 'REVOKED'} />
                </li>
              ))}
            </ul>
          )}
        </>
      ) : (
        ''
      )}
    </Shell>
  );
}

/** Tokens (made, shown once, revoked), OAuth connections (revoked) and hosts, per person or, for an owner, per tenant. */
export interface ConnectionsConsoleOptions {
  /** Where this server's agents connect, for the page's snippets. */
  readonly connect: ConnectInfo;
}

export function connectionsConsole(ctx: ConsoleContext, options: ConnectionsConsoleOptions): PageApp {
  const { page, deps } = ctx;
  // Mounted at the console's root: the tokens' forms post to /console/tokens, the connections' to /console/connections.
  const app = consoleArea();
  const render = async (
    c: Context,
    signed: SignedIn,
    status: 200 | 400 | 404 = 200,
    extra: { message?: string; created?: { token: Pick<AccessToken, 'name'>; secret: string } } = {},
  ) =>
    c.html(
      <Page
        signed={signed}
        view={await connectionsOf(deps, signed.person)}
        connect={options.connect}
        now={page.now()}
        {...extra}
      />,
      status,
      CONSOLE_HEADERS,
    );

  // A new token's secret is shown once, on the page the form redirects to.
  const NEW_TOKEN = 'new-token';
  app.get(
    '/connections',
    page.signedIn((c, signed) => {
      const created = page.takeFlash(c, signed, NEW_TOKEN) as
        { token: { name: string }; secret: string } | undefined;
      return render(c, signed, 200, created ? { created } : {});
    }),
  );

  const action = formPosts(page, {
    purpose: FORM,
    record: ctx.record,
    rerender: (c, signed, _status, message) => render(c, signed, 400, { message }),
  });
  const strings = formStrings;

  app.post(
    '/tokens',
    action('console_token_create', async (c, signed, form) => {
      const created = await createOwnToken(deps, signed.person, {
        name: strings(form.name)[0] ?? '',
        scopes: strings(form.scopes),
        writePolicy: strings(form.writePolicy)[0] ?? '',
        days: Number(strings(form.days)[0] ?? 'x'),
      });
      page.flash(c, signed, NEW_TOKEN, { token: { name: created.token.name }, secret: created.secret });
      return c.redirect('/console/connections#new-token-title', 303);
    }),
  );

  for (const kind of ['token', 'connection'] as const)
    app.post(
      `/${kind}s/:id/access`,
      action(`console_${kind}_access`, async (c, signed, form) => {
        await changeAccessAs(deps, signed.person, kind, c.req.param('id') ?? '', {
          scopes: strings(form.scopes),
          writePolicy: strings(form.writePolicy)[0] ?? '',
        });
        return c.redirect('/console/connections', 303);
      }),
    );

  app.post(
    '/tokens/:id/revoke',
    action('console_token_revoke', async (c, signed) => {
      await revokeTokenAs(deps, signed.person, c.req.param('id') ?? '');
      return c.redirect('/console/connections', 303);
    }),
  );

  app.post(
    '/connections/:id/revoke',
    action('console_connection_revoke', async (c, signed) => {
      await revokeConnectionAs(deps, signed.person, c.req.param('id') ?? '');
      return c.redirect('/console/connections', 303);
    }),
  );
  return app;
}
