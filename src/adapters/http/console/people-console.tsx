import type { PageStatus } from '../page-status.js';
import { zonedDateTime } from '../../format/human-time.js';
import type { Context } from 'hono';
import type { PeopleView } from '../../../app/console-people.js';
import type { SignedIn } from '../../../app/identity/sessions.js';
import type { Person, Role, TenantLimits } from '../../../domain/identity/identity.js';
import {
  isLimited,
  MAX_APPROVAL_WINDOW_MINUTES,
  NO_LIMIT,
  ROLES,
  WRITE_POLICIES,
} from '../../../domain/identity/identity.js';
import { POLICY_WORDS } from '../../../domain/identity/oauth.js';
import { isDomainError } from '../../../domain/errors.js';
import type { PageApp } from '../http-app.js';
import { csrfToken } from '../human-session.js';
import type { ConsolePage, FormEvent } from './console-page.js';
import { formPosts, formStrings } from './console-page.js';
import { CONSOLE_HEADERS, Shell, Status } from './shell.js';

export interface PeopleConsoleOptions {
  readonly page: ConsolePage;
  view(owner: Person): Promise<PeopleView>;
  invite(owner: Person, input: { email: string; role: string; displayName: string }): Promise<SetupLink>;
  newLink(owner: Person, personId: string): Promise<SetupLink>;
  changeRole(owner: Person, personId: string, role: string): Promise<unknown>;
  setDisabled(owner: Person, personId: string, disabled: boolean): Promise<unknown>;
  updateSettings(
    owner: Person,
    settings: { limits: TenantLimits; defaultWritePolicy: string; approvalWindowMinutes: number },
  ): Promise<unknown>;
  /** The address a setup secret is opened at. */
  setupUrl(secret: string): string;
  record(event: FormEvent): Promise<void>;
}

export interface SetupLink {
  readonly person: Person;
  readonly secret: string;
  readonly expiresAt: number;
}

const FORM = 'console-people';
const ROLE_WORDS: Record<Role, string> = {
  owner: 'everything: people, calendars, settings, approvals',
  approver: 'decides approvals, cancels bookings, connects agents',
  viewer: 'looks; decides nothing',
};
const LIMIT_FIELDS: readonly [keyof TenantLimits, string][] = [
  ['callsPerMinute', 'Tool calls per connection per minute'],
  ['activeHoldsPerPerson', 'Live holds per person'],
  ['activeHoldsPerConnection', 'Live holds per connection'],
  ['openApprovalsPerPerson', 'Open approval requests per person'],
];

function PersonRow(props: { person: Person; csrf: string; self: boolean }) {
  const { person, csrf } = props;
  const path = `/console/people/${person.id}`;
  return (
    <tr data-person={person.email}>
      <td>
        {person.displayName}
        <br />
        <span class="muted small">{person.email}</span>
      </td>
      <td>
        <form method="post" action={`${path}/role`} class="inline">
          <input type="hidden" name="csrf" value={csrf} />
          <label for={`role-${person.id}`} class="skip">
            Role of {person.email}
          </label>
          <select id={`role-${person.id}`} name="role">
            {ROLES.map((r) => (
              <option value={r} selected={person.role === r}>
                {r}
              </option>
            ))}
          </select>{' '}
          <button type="submit" aria-label={`Change the role of ${person.email}`}>
            Change
          </button>
        </form>
      </td>
      <td>
        <Status status={person.disabledAt === null ? 'ACTIVE' : 'DISABLED'} />
        {person.passwordHash === null ? <span class="muted small"> no password yet</span> : ''}
      </td>
      <td>
        <div class="row-actions">
          {person.disabledAt === null ? (
            <>
              {person.passwordHash !== null ? (
                ''
              ) : (
                <form method="post" action={`${path}/link`}>
                  <input type="hidden" name="csrf" value={csrf} />
                  <button type="submit" aria-label={`New setup link for ${person.email}`}>
                    New setup link
                  </button>
                </form>
              )}
              {props.self ? (
                ''
              ) : (
                <form method="post" action={`${path}/disable`}>
                  <input type="hidden" name="csrf" value={csrf} />
                  <button class="danger" type="submit" aria-label={`Disable ${person.email}`}>
                    Disable
                  </button>
                </form>
              )}
            </>
          ) : (
            <form method="post" action={`${path}/enable`}>
              <input type="hidden" name="csrf" value={csrf} />
              <button type="submit" aria-label={`Enable ${person.email}`}>
                Enable
              </button>
            </form>
          )}
        </div>
      </td>
    </tr>
  );
}

function PeoplePage(props: {
  signed: SignedIn;
  view: PeopleView;
  message?: string;
  link?: { email: string; url: string; expiresAt: number };
}) {
  const { signed, view } = props;
  const csrf = csrfToken(signed.session, FORM);
  return (
    <Shell title="People" signed={signed} section="/console/people">
      <h1>People{view.tenant.name === view.tenant.id ? '' : ` of ${view.tenant.name}`}</h1>
      {props.message ? (
        <p class="notice" id="result" role="status">
          {props.message}
        </p>
      ) : (
        ''
      )}
      {props.link ? (
        <section class="card notice good" aria-labelledby="link-title">
          <h2 id="link-title">Setup link for {props.link.email}</h2>
          <p>
            Shown once. Send it to them yourself; it works once, until{' '}
            <time datetime={new Date(props.link.expiresAt).toISOString()}>
              {zonedDateTime(props.link.expiresAt, props.signed.zone ?? 'UTC')}
            </time>
            .
          </p>
          <code class="secret" id="setup-link">
            {props.link.url}
          </code>
          <button type="button" data-copy="setup-link" hidden>
            Copy
          </button>
        </section>
      ) : (
        ''
      )}
      <div class="table-wrap">
        <table id="people" aria-label="People">
          <thead>
            <tr>
              <th scope="col">Person</th>
              <th scope="col">Role</th>
              <th scope="col">State</th>
              <th scope="col">
                <span class="skip">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {view.people.map((person) => (
              <PersonRow person={person} csrf={csrf} self={person.id === signed.person.id} />
            ))}
          </tbody>
        </table>
      </div>
      <form method="post" action="/console/people" class="card" aria-labelledby="invite-title">
        <h2 id="invite-title">Invite someone</h2>
        <input type="hidden" name="csrf" value={csrf} />
        <label for="invite-email">Email</label>
        <input type="email" id="invite-email" name="email" maxlength={254} required />
        <label for="invite-name">Name (optional)</label>
        <input type="text" id="invite-name" name="displayName" maxlength={80} />
        <fieldset>
          <legend>Role</legend>
          {ROLES.map((r) => (
            <p>
              <input type="radio" id={`invite-role-${r}`} name="role" value={r} checked={r === 'viewer'} />{' '}
              <label for={`invite-role-${r}`}>
                <strong>{r}</strong>: {ROLE_WORDS[r]}
              </label>
            </p>
          ))}
        </fieldset>
        <div class="actions">
          <button class="primary" type="submit">
            Invite and make a setup link
          </button>
        </div>
      </form>
      <form method="post" action="/console/tenant" class="card" aria-labelledby="limits-title">
        <h2 id="limits-title">Tenant settings</h2>
        <p class="muted small">Limits are whole numbers, or none at all. They apply from the next call.</p>
        <input type="hidden" name="csrf" value={csrf} />
        <label for="default-policy">New agent connections start with</label>
        <select id="default-policy" name="defaultWritePolicy">
          {WRITE_POLICIES.map((p) => (
            <option value={p} selected={view.tenant.defaultWritePolicy === p}>
              {POLICY_WORDS[p]}
            </option>
          ))}
        </select>
        <p class="muted small">
          Preselected on the token form and the OAuth consent page, and used by{' '}
          <code>holdfast tokens create</code> without <code>--write-policy</code>; a person may pick another
          within their role.
        </p>
        {LIMIT_FIELDS.map(([field, words]) => {
          const unlimited = !isLimited(view.tenant.limits[field]);
          return (
            <fieldset class="limit">
              <legend>{words}</legend>
              <label for={`limit-${field}`} class="skip">
                {words}: at most
              </label>
              <input
                type="number"
                id={`limit-${field}`}
                name={field}
                min={1}
                max={NO_LIMIT - 1}
                value={unlimited ? '' : String(view.tenant.limits[field])}
              />
              <label class="inline">
                <input
                  type="checkbox"
                  id={`limit-${field}-none`}
                  name={`${field}-none`}
                  value="1"
                  checked={unlimited}
                />{' '}
                No limit
              </label>
            </fieldset>
          );
        })}
        <label for="approval-window">
          Minutes a person has to decide an approval (a hold waiting for it is kept as long)
        </label>
        <input
          type="number"
          id="approval-window"
          name="approvalWindowMinutes"
          min={1}
          max={MAX_APPROVAL_WINDOW_MINUTES}
          required
          value={String(view.tenant.approvalWindowMinutes)}
        />
        <div class="actions">
          <button type="submit">Save settings</button>
        </div>
      </form>
    </Shell>
  );
}

/** People (invite with a one-time link, role, disable, enable) and the tenant's limits: owners only. */
export function mountPeopleConsole(app: PageApp, options: PeopleConsoleOptions): void {
  const { page } = options;
  const render = async (
    c: Context,
    signed: SignedIn,
    status: 200 | PageStatus = 200,
    extra: { message?: string; link?: SetupLink } = {},
  ) => {
    try {
      const view = await options.view(signed.person);
      const link = extra.link && {
        email: extra.link.person.email,
        url: options.setupUrl(extra.link.secret),
        expiresAt: extra.link.expiresAt,
      };
      return c.html(
        <PeoplePage signed={signed} view={view} message={extra.message} link={link} />,
        status,
        CONSOLE_HEADERS,
      );
    } catch (error) {
      if (!isDomainError(error) || error.code !== 'FORBIDDEN') throw error;
      return c.html(
        <Shell title="Owners only" signed={signed} section="/console/people">
          <h1 id="result">Owners only</h1>
          <p>Only the tenant's owners manage people and its limits.</p>
        </Shell>,
        403,
        CONSOLE_HEADERS,
      );
    }
  };

  app.get(
    '/console/people',
    page.signedIn((c, signed) => render(c, signed)),
  );

  const action = formPosts(page, {
    purpose: FORM,
    record: options.record,
    rerender: (c, signed, status, message) => render(c, signed, status, { message }),
  });
  const first = (value: unknown) => formStrings(value)[0] ?? '';

  app.post(
    '/console/people',
    action('console_person_invite', async (c, signed, form) => {
      const link = await options.invite(signed.person, {
        email: first(form.email),
        role: first(form.role),
        displayName: first(form.displayName),
      });
      return render(c, signed, 200, { link });
    }),
  );
  app.post(
    '/console/people/:id/link',
    action('console_person_link', async (c, signed) =>
      render(c, signed, 200, { link: await options.newLink(signed.person, c.req.param('id') ?? '') }),
    ),
  );
  app.post(
    '/console/people/:id/role',
    action('console_person_role', async (c, signed, form) => {
      await options.changeRole(signed.person, c.req.param('id') ?? '', first(form.role));
      return c.redirect('/console/people', 303);
    }),
  );
  for (const [verb, disabled] of [
    ['disable', true],
    ['enable', false],
  ] as const) {
    app.post(
      `/console/people/:id/${verb}`,
      action(`console_person_${verb}`, async (c, signed) => {
        await options.setDisabled(signed.person, c.req.param('id') ?? '', disabled);
        return c.redirect('/console/people', 303);
      }),
    );
  }
  app.post(
    '/console/tenant',
    action('console_tenant_settings', async (c, signed, form) => {
      // "No limit" ticked wins over any number left in the box.
      const limits = Object.fromEntries(
        LIMIT_FIELDS.map(([field]) => [
          field,
          first(form[`${field}-none`]) ? NO_LIMIT : Number(first(form[field]) || 'x'),
        ]),
      ) as unknown as TenantLimits;
      await options.updateSettings(signed.person, {
        limits,
        defaultWritePolicy: first(form.defaultWritePolicy),
        approvalWindowMinutes: Number(first(form.approvalWindowMinutes) || 'x'),
      });
      return render(c, signed, 200, { message: 'Settings saved.' });
    }),
  );
}
