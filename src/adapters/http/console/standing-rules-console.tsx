import type { Context } from 'hono';
import type { SignedIn } from '../../../app/identity/sessions.js';
import {
  draftFromApproval,
  grantChoices,
  grantInConsole,
  revokeInConsole,
  ruleCard,
  ruleCards,
} from '../../../app/console/standing-rules.js';
import { mayApprove, signedInRecently } from '../../../domain/identity/identity.js';
import { isDomainError } from '../../../domain/errors.js';
import { zonedDateTime } from '../../format/human-time.js';
import type { PageApp } from '../page-app.js';
import type { PageStatus } from '../page-status.js';
import { pageStatusOf } from '../page-status.js';
import { csrfOk, csrfToken } from '../human-session.js';
import type { ConsoleContext } from './console-page.js';
import { audited, consoleArea } from './console-page.js';
import { CONSOLE_HEADERS, Shell } from './shell.js';
import type { RuleFormValues } from './standing-rule-form.js';
import { grantOfForm, readRuleForm, ruleFormOf } from './standing-rule-form.js';
import { RuleForm, RuleList } from './standing-rule-views.js';

const FORM = 'console-standing-rules';
const SECTION = '/console/standing-rules';

/** The sign-in page, coming back to `next` with a session new enough to grant. */
function SignInAgain(props: { signed: SignedIn; next: string }) {
  const zone = props.signed.zone ?? 'UTC';
  return (
    <p class="notice" id="sign-in-again" role="status">
      Granting a standing approval lets your agents act without asking you, so it needs a sign-in from the
      last 10 minutes (yours was at {zonedDateTime(props.signed.session.createdAt, zone)}).{' '}
      <a href={`/login?next=${encodeURIComponent(props.next)}`}>Sign in again</a> to continue.
    </p>
  );
}

/**
 * Standing approvals in the console: the rules a person (an owner: everyone's) has, granting
 * one (from scratch, changed from an old one, or drafted from an approval — "Always allow
 * bookings like this") with a fresh sign-in, and revoking one at once.
 */
export function standingRulesConsole(ctx: ConsoleContext): PageApp {
  const { page, deps } = ctx;
  const app = consoleArea();

  const list = async (c: Context, signed: SignedIn, message = '', status: 200 | PageStatus = 200) => {
    const cards = await ruleCards(deps, signed.person);
    return c.html(
      <Shell title="Standing approvals" signed={signed} section={SECTION}>
        <h1>Standing approvals</h1>
        {message ? (
          <p class="notice" id="result" role="status">
            {message}
          </p>
        ) : (
          ''
        )}
        <p>
          A standing approval lets your agents confirm, cancel or move bookings that fit it without asking you
          each time; anything outside it still comes to you.
        </p>
        {mayApprove(signed.person) ? (
          <p>
            <a class="button" id="new-rule" href="/console/standing-rules/new">
              New standing approval
            </a>
          </p>
        ) : (
          <p class="muted">You ({signed.person.role}) decide nothing, so you cannot grant one.</p>
        )}
        <RuleList cards={cards} csrf={csrfToken(signed.session, FORM)} viewerId={signed.person.id} />
      </Shell>,
      status,
      CONSOLE_HEADERS,
    );
  };

  const form = async (
    c: Context,
    signed: SignedIn,
    values: RuleFormValues,
    next: string,
    extra: { message?: string; status?: 200 | PageStatus; from?: string } = {},
  ) => {
    const fresh = signedInRecently(signed.session, page.now());
    return c.html(
      <Shell title="Grant a standing approval" signed={signed} section={SECTION}>
        <p>
          <a href={SECTION}>← All standing approvals</a>
        </p>
        <h1>{values.replaces ? 'Change a standing approval' : 'Grant a standing approval'}</h1>
        {extra.from ? (
          <p id="drafted">
            Drafted from the booking you were asked about: its action, calendars, price, weekday and hours,
            and three a day (a free booking sets no money limit). Narrow or widen it, then grant it.
          </p>
        ) : (
          ''
        )}
        {extra.message ? (
          <p class="notice" id="result" role="alert">
            {extra.message}
          </p>
        ) : (
          ''
        )}
        {fresh ? (
          <RuleForm
            values={values}
            choices={await grantChoices(deps, signed.person)}
            csrf={csrfToken(signed.session, FORM)}
            personName={signed.person.displayName || signed.person.email}
          />
        ) : (
          <SignInAgain signed={signed} next={next} />
        )}
      </Shell>,
      extra.status ?? 200,
      CONSOLE_HEADERS,
    );
  };

  app.get(
    '/',
    page.signedIn(async (c, signed) => {
      const granted = c.req.query('granted');
      const card = granted ? await ruleCard(deps, signed.person, granted) : null;
      const message =
        c.req.query('done') === 'revoked'
          ? 'Revoked: from now on a person decides what it approved.'
          : card?.state === 'standing'
            ? 'Granted: what fits it is approved at once from now on.'
            : '';
      return list(c, signed, message);
    }),
  );

  app.get(
    '/new',
    page.signedIn(async (c, signed) => {
      if (!mayApprove(signed.person)) return page.notFound(c, signed);
      const next = `${SECTION}/new${new URL(c.req.url).search}`;
      const from = c.req.query('from');
      const change = c.req.query('change');
      if (from) {
        const draft = await draftFromApproval(deps, signed.person, from);
        if (!draft) return page.notFound(c, signed);
        return form(c, signed, ruleFormOf(draft), next, { from });
      }
      if (change) {
        const card = await ruleCard(deps, signed.person, change);
        if (!card?.mayChange) return page.notFound(c, signed);
        const days = Math.max(1, Math.ceil((card.rule.expiresAt - page.now()) / 86_400_000));
        return form(c, signed, ruleFormOf({ ...card.rule, days }, card.rule.id), next);
      }
      const zone = signed.zone ?? 'UTC';
      const blank = ruleFormOf({
        actions: ['confirm'],
        calendarIds: null,
        maxPerBooking: null,
        maxPerDay: null,
        weekdays: [1, 2, 3, 4, 5],
        hours: null,
        maxPerDayCount: null,
        customers: 'any',
        timeZone: zone,
        connectionId: null,
        days: 30,
      });
      return form(c, signed, blank, next);
    }),
  );

  /** A post without this page's form token: refused, and kept in the trail as the person's. */
  const forged = async (c: Context, signed: SignedIn, tool: string) => {
    await ctx.record({ tool, ok: false, code: 'FORBIDDEN', personId: signed.person.id });
    return page.refused(c, signed);
  };

  app.post(
    '/',
    page.signedIn(async (c, signed) => {
      const body = await c.req.parseBody({ all: true });
      if (!csrfOk(signed.session, FORM, body.csrf)) return forged(c, signed, 'console_standing_rule_grant');
      const values = readRuleForm(body);
      const call = ctx.audit('console_standing_rule_grant', signed, values, 'approval');
      try {
        const rule = await audited(call, () =>
          grantInConsole(deps, signed, grantOfForm(values), { audit: call }),
        );
        return c.redirect(`${SECTION}?granted=${rule.id}#rules`, 303);
      } catch (error) {
        if (!isDomainError(error)) throw error;
        if (error.code === 'NOT_FOUND') return page.notFound(c, signed);
        const next = values.replaces ? `${SECTION}/new?change=${values.replaces}` : `${SECTION}/new`;
        return form(c, signed, values, next, { message: error.message, status: pageStatusOf(error.code) });
      }
    }),
  );

  app.post(
    '/:id/revoke',
    page.signedIn(async (c, signed) => {
      const id = c.req.param('id') ?? '';
      const body = await c.req.parseBody();
      if (!csrfOk(signed.session, FORM, body.csrf)) return forged(c, signed, 'console_standing_rule_revoke');
      const call = ctx.audit('console_standing_rule_revoke', signed, { ruleId: id }, 'approval');
      try {
        await audited(call, () => revokeInConsole(deps, signed.person, id, { audit: call }));
        return c.redirect(`${SECTION}?done=revoked`, 303);
      } catch (error) {
        if (!isDomainError(error)) throw error;
        if (error.code === 'NOT_FOUND') return page.notFound(c, signed);
        return list(c, signed, error.message, pageStatusOf(error.code));
      }
    }),
  );
  return app;
}
