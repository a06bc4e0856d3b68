import type { SessionSeen, SignedIn } from '../../app/identity/sessions.js';
import type { AccessToken } from '../../domain/identity/identity.js';
import { POLICY_WORDS, SCOPE_WORDS } from '../../domain/identity/oauth.js';
import type { Passkey, RelyingParty } from '../../domain/identity/passkey.js';
import type { Instant } from '../../domain/time/instant.js';
import { formatUtc } from '../../domain/time/zone.js';
import { zonedDateTime } from '../format/human-time.js';
import { csrfToken } from './human-session.js';
import { Layout, SignOutForm } from './page-layout.js';

/** The account page's forms, each with its own CSRF purpose. */
export const FORMS = {
  REGISTER: 'passkey-register',
  REMOVE: 'passkey-remove',
  TIME_ZONE: 'account-time-zone',
  SESSIONS: 'account-sessions',
  PASSWORD: 'account-password',
} as const;

/** Every zone this runtime knows, for the searchable list. */
const ZONES = Intl.supportedValuesOf('timeZone');

/** The passkey buttons' scripts, after the buttons they find: @simplewebauthn/browser's bundle, then ours. */
export function PasskeyScripts() {
  return (
    <>
      <script src="/assets/webauthn-browser.js"></script>
      <script src="/assets/passkeys.js"></script>
    </>
  );
}

const signedInBy = (method: string) =>
  method === 'oidc' ? 'signed in through the identity provider' : `signed in with a ${method}`;

/** How a session began, as the person would say it. */
const METHOD_WORDS: Readonly<Record<string, string>> = {
  password: 'Password',
  passkey: 'Passkey',
  oidc: 'Your organisation’s identity provider',
};

/** An instant in the person's zone, the zone named; machine-readable beside it. */
function When(props: { at: Instant | null; zone: string }) {
  if (props.at === null) return <>never</>;
  return <time datetime={formatUtc(props.at)}>{zonedDateTime(props.at, props.zone)}</time>;
}

function Passkeys(props: { signed: SignedIn; passkeys: readonly Passkey[]; zone: string }) {
  const removeToken = csrfToken(props.signed.session, FORMS.REMOVE);
  if (!props.passkeys.length) return <p id="passkeys">No passkeys yet.</p>;
  return (
    <table id="passkeys">
      <tr>
        <th>Name</th>
        <th>Site</th>
        <th>Added</th>
        <th>Last used</th>
        <th></th>
      </tr>
      {props.passkeys.map((p) => (
        <tr>
          <td>{p.name}</td>
          <td>{p.rpId}</td>
          <td>
            <When at={p.createdAt} zone={props.zone} />
          </td>
          <td>
            <When at={p.lastUsedAt} zone={props.zone} />
          </td>
          <td>
            <form method="post" action="/account/passkeys/remove">
              <input type="hidden" name="csrf" value={removeToken} />
              <input type="hidden" name="id" value={p.id} />
              <button type="submit">Remove</button>
            </form>
          </td>
        </tr>
      ))}
    </table>
  );
}

function AddPasskey(props: { signed: SignedIn; rp: RelyingParty | null }) {
  if (!props.rp)
    return (
      <p class="stale">
        Passkeys belong to a site's name: open this page at http://localhost or the https address to add one.
      </p>
    );
  return (
    <>
      <p>
        <label>
          Name for a new passkey
          <br />
          <input id="passkey-name" maxlength={60} placeholder="work laptop" />
        </label>
      </p>
      <p>
        <button
          type="button"
          class="approve"
          id="passkey-add"
          data-csrf={csrfToken(props.signed.session, FORMS.REGISTER)}
        >
          Add a passkey
        </button>
      </p>
      <p id="passkey-message" class="muted" role="status"></p>
      <PasskeyScripts />
    </>
  );
}

/**
 * Every browser signed in as this person: how and when it signed in, when it was last used; a
 * button to sign out there, and one for everywhere but here. Rows stack on a phone.
 */
function Sessions(props: { signed: SignedIn; sessions: readonly SessionSeen[]; zone: string }) {
  const csrf = csrfToken(props.signed.session, FORMS.SESSIONS);
  const others = props.sessions.filter((s) => !s.current).length;
  return (
    <section aria-labelledby="sessions-title">
      <h2 id="sessions-title">Your sessions</h2>
      <p class="muted">
        Each browser signed in as you. A session ends after 30 minutes unused, and 12 hours after signing in
        at the latest.
      </p>
      <div class="table-wrap">
        <table id="sessions">
          <thead>
            <tr>
              <th scope="col">Signed in with</th>
              <th scope="col">Started</th>
              <th scope="col">Last used</th>
              <th scope="col">
                <span class="skip">Action</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {props.sessions.map((s) => (
              <tr class={s.current ? 'current-session' : undefined}>
                <td data-label="Signed in with">{METHOD_WORDS[s.method] ?? s.method}</td>
                <td data-label="Started">
                  <When at={s.createdAt} zone={props.zone} />
                </td>
                <td data-label="Last used">
                  <When at={s.lastSeenAt} zone={props.zone} />
                </td>
                <td>
                  {s.current ? (
                    <strong>this session</strong>
                  ) : (
                    <form method="post" action="/account/sessions/end">
                      <input type="hidden" name="csrf" value={csrf} />
                      <input type="hidden" name="session" value={s.handle} />
                      <button
                        class="danger"
                        type="submit"
                        aria-label={`Sign out there: the session started ${zonedDateTime(s.createdAt, props.zone)}`}
                      >
                        Sign out there
                      </button>
                    </form>
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      {others > 0 ? (
        <form method="post" action="/account/sessions/end-others">
          <input type="hidden" name="csrf" value={csrf} />
          <div class="actions">
            <button class="danger" type="submit">
              Sign out everywhere else
            </button>
          </div>
        </form>
      ) : (
        <p class="muted" id="no-other-sessions">
          You are signed in nowhere else.
        </p>
      )}
    </section>
  );
}

/** The person's own agent tokens that still work; making, changing and revoking them is the Connections page's. */
function Tokens(props: { tokens: readonly AccessToken[]; zone: string }) {
  return (
    <section aria-labelledby="tokens-title">
      <h2 id="tokens-title">Your agent tokens</h2>
      {props.tokens.length ? (
        <div class="table-wrap">
          <table id="tokens">
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">It may</th>
                <th scope="col">Created</th>
                <th scope="col">Last used</th>
                <th scope="col">Expires</th>
              </tr>
            </thead>
            <tbody>
              {props.tokens.map((t) => (
                <tr>
                  <td>
                    <strong>{t.name}</strong>
                  </td>
                  <td data-label="It may">
                    <ul class="may">
                      {t.scopes.map((s) => (
                        <li>{SCOPE_WORDS[s]}</li>
                      ))}
                      <li>{POLICY_WORDS[t.writePolicy]}</li>
                    </ul>
                  </td>
                  <td data-label="Created">
                    <When at={t.createdAt} zone={props.zone} />
                  </td>
                  <td data-label="Last used">
                    <When at={t.lastUsedAt} zone={props.zone} />
                  </td>
                  <td data-label="Expires">
                    <When at={t.expiresAt} zone={props.zone} />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      ) : (
        <p id="tokens">No agent tokens of yours work now.</p>
      )}
      <p>
        <a href="/console/connections" id="connections-link">
          Manage on the Connections page
        </a>
      </p>
    </section>
  );
}

/** Changing one's password: what it ends is said before the button, and the agents' part can be kept. */
function Password(props: { signed: SignedIn; tokens: number; changed: boolean }) {
  const { signed } = props;
  if (signed.person.passwordHash === null) return '';
  return (
    <section aria-labelledby="password-title">
      <h2 id="password-title">Your password</h2>
      {props.changed ? (
        <p role="status" id="password-changed">
          Your password is changed. Your other sessions ended.
        </p>
      ) : (
        ''
      )}
      <form method="post" action="/account/password" aria-labelledby="password-title">
        <input type="hidden" name="csrf" value={csrfToken(signed.session, FORMS.PASSWORD)} />
        <label for="current-password">Current password</label>
        <input
          id="current-password"
          name="current"
          type="password"
          autocomplete="current-password"
          required
        />
        <label for="new-password">New password (12 characters or more)</label>
        <input
          id="new-password"
          name="next"
          type="password"
          autocomplete="new-password"
          minlength={12}
          required
        />
        <label for="repeat-password">The new password again</label>
        <input id="repeat-password" name="repeated" type="password" autocomplete="new-password" required />
        <p class="muted">
          Changing it signs you out everywhere but here. Whoever knew the old password may have connected an
          agent with it, so your agent tokens and connected apps
          {props.tokens > 0 ? ` (${props.tokens} token${props.tokens === 1 ? '' : 's'} now)` : ''} lose access
          too, unless you untick this; they then have to be connected again.
        </p>
        <label>
          <input type="checkbox" name="endConnections" value="yes" checked /> End my agents’ access too
        </label>
        <div class="actions">
          <button type="submit">Change password</button>
        </div>
      </form>
    </section>
  );
}

function TimeZone(props: { signed: SignedIn }) {
  const { signed } = props;
  return (
    <>
      <h2 id="zone-title">Your time zone</h2>
      <p class="muted">
        Pages show each time in its calendar's zone and, when it differs, in yours:{' '}
        {signed.person.timeZone ? (
          <>
            <strong>{signed.person.timeZone}</strong> (your setting)
          </>
        ) : signed.zone ? (
          <>
            <strong>{signed.zone}</strong> (your browser's)
          </>
        ) : (
          'not known yet'
        )}
        .
      </p>
      <form method="post" action="/account/time-zone" aria-labelledby="zone-title">
        <input type="hidden" name="csrf" value={csrfToken(signed.session, FORMS.TIME_ZONE)} />
        <label for="time-zone">Time zone (type to search; empty: your browser's)</label>
        <input
          id="time-zone"
          name="timeZone"
          list="zones"
          value={signed.person.timeZone ?? ''}
          autocomplete="off"
        />
        <datalist id="zones">
          {ZONES.map((z) => (
            <option value={z}></option>
          ))}
        </datalist>
        <div class="actions">
          <button type="submit">Save time zone</button>
        </div>
      </form>
    </>
  );
}

/** /account: who is signed in, their passkeys, sessions, agent tokens, password and time zone. */
export function AccountPage(props: {
  signed: SignedIn;
  rp: RelyingParty | null;
  passkeys: readonly Passkey[];
  sessions: readonly SessionSeen[];
  tokens: readonly AccessToken[];
  /** The page after a password change says it was done. */
  passwordChanged?: boolean;
}) {
  const { signed } = props;
  const zone = signed.zone ?? 'UTC';
  return (
    <Layout title="Your account">
      <SignOutForm signed={signed} />
      <h1>{signed.person.displayName}</h1>
      <p class="muted">
        {signed.person.email} · {signed.person.role} · {signedInBy(signed.session.method)}
      </p>
      <h2>Passkeys</h2>
      <Passkeys signed={signed} passkeys={props.passkeys} zone={zone} />
      <AddPasskey signed={signed} rp={props.rp} />
      <Sessions signed={signed} sessions={props.sessions} zone={zone} />
      <Tokens tokens={props.tokens} zone={zone} />
      <Password signed={signed} tokens={props.tokens.length} changed={props.passwordChanged ?? false} />
      <TimeZone signed={signed} />
    </Layout>
  );
}
