import type { PageStatus } from '../page-status.js';
import { zonedDateTime } from '../../format/human-time.js';
import type { Context } from 'hono';
import type { PeopleView } from '../../../app/console/people.js';
import {
  changeRole,
  checkRole,
  invitePerson,
  newLinkFor,
  peopleOf,
  setDisabled,
  updateSettings,
} from '../../../app/console/people.js';
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
import type { PageApp } from '../page-app.js';
import { csrfToken } from '../human-session.js';
import type { ConsoleContext } from './console-page.js';
import { consoleArea, formPosts, formStrings } from './console-page.js';
import { CONSOLE_HEADERS, Shell, Status } from './shell.js';

/** What the people area needs beyond the console's context. */
export interface PeopleConsoleOptions {
  /** The address a setup secret is opened at. */
  setupUrl(secret: string): string;
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
  [
    'heldCalendarHoursPerPerson',
    'Calendar-hours one person may hold at once (a hold counts its hours × its calendars)',
  ],
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
      <form method="post" action="/console/people/settings" class="card" aria-labelledby="limits-title">
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
export function peopleConsole(ctx: ConsoleContext, options: PeopleConsoleOptions): PageApp {
  const { page, deps } = ctx;
  const app = consoleArea();
  const render = async (
    c: Context,
    signed: SignedIn,
    status: 200 | PageStatus = 200,
    extra: { message?: string; link?: SetupLink } = {},
  ) => {
    try {
      const view = await peopleOf(deps, signed.person);
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

  // A new setup link is shown once, on the page the form redirects to.
  const LINK = 'setup-link';
  const showLink = (c: Context, signed: SignedIn, link: SetupLink) => {
    page.flash(c, signed, LINK, { email: link.person.email, secret: link.secret, expiresAt: link.expiresAt });
    return c.redirect('/console/people#result', 303);
  };
  const keptLink = (c: Context, signed: SignedIn): SetupLink | undefined => {
    const kept = page.takeFlash(c, signed, LINK) as
      { email: string; secret: string; expiresAt: number } | undefined;
    return (
      kept && { person: { email: kept.email } as Person, secret: kept.secret, expiresAt: kept.expiresAt }
    );
  };

  app.get(
    '/',
    page.signedIn((c, signed) => {
      const link = keptLink(c, signed);
      const saved = c.req.query('saved') === '1';
      return render(c, signed, 200, link ? { link } : saved ? { message: 'Settings saved.' } : {});
    }),
  );

  const action = formPosts(page, {
    purpose: FORM,
    record: ctx.record,
    rerender: (c, signed, status, message) => render(c, signed, status, { message }),
  });
  const first = (value: unknown) => formStrings(value)[0] ?? '';

  app.post(
    '/',
    action('console_person_invite', async (c, signed, form) =>
      showLink(
        c,
        signed,
        await invitePerson(deps, signed.person, {
          email: first(form.email),
          role: checkRole(first(form.role)),
          displayName: first(form.displayName) || undefined,
        }),
      ),
    ),
  );
  app.post(
    '/:id/link',
    action('console_person_link', async (c, signed) =>
      showLink(c, signed, await newLinkFor(deps, signed.person, c.req.param('id') ?? '')),
    ),
  );
  app.post(
    '/:id/role',
    action('console_person_role', async (c, signed, form) => {
      await changeRole(deps, signed.person, c.req.param('id') ?? '', checkRole(first(form.role)));
      return c.redirect('/console/people', 303);
    }),
  );
  for (const [verb, disabled] of [
    ['disable', true],
    ['enable', false],
  ] as const) {
    app.post(
      `/:id/${verb}`,
      action(`console_person_${verb}`, async (c, signed) => {
        await setDisabled(deps, signed.person, c.req.param('id') ?? '', disabled);
        return c.redirect('/console/people', 303);
      }),
    );
  }
  app.post(
    '/settings',
    action('console_tenant_settings', async (c, signed, form) => {
      // "No limit" ticked wins over any number left in the box.
      const limits = Object.fromEntries(
        LIMIT_FIELDS.map(([field]) => [
          field,
          first(form[`${field}-none`]) ? NO_LIMIT : Number(first(form[field]) || 'x'),
        ]),
      ) as unknown as TenantLimits;
      await updateSettings(deps, signed.person, {
        limits,
        defaultWritePolicy: first(form.defaultWritePolicy),
        approvalWindowMinutes: Number(first(form.approvalWindowMinutes) || 'x'),
      });
      return c.redirect('/console/people?saved=1#result', 303);
    }),
  );
  return app;
}
