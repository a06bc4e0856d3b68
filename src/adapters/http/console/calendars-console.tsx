import type { PageStatus } from '../page-status.js';
import { pageStatusOf } from '../page-status.js';
import { randomUUID } from 'node:crypto';
import type { Context } from 'hono';
import type { SlotLength } from '../../../app/console/calendars.js';
import {
  calendarDetail,
  calendarsOverview,
  createCalendarAs,
  DEFAULT_SLOT_LENGTH,
  mayEditCalendars,
  removeOverrideAs,
  replaceWeekAs,
  setOverrideAs,
  setRulesAs,
  updateDetailsAs,
} from '../../../app/console/calendars.js';
import type { WriteCall } from '../../../app/idempotent.js';
import type { SignedIn } from '../../../app/identity/sessions.js';
import type { Weekday } from '../../../domain/availability/availability.js';
import { weekdays } from '../../../domain/availability/availability.js';
import type { Calendar } from '../../../domain/calendar.js';
import type { DomainError } from '../../../domain/errors.js';
import { isDomainError } from '../../../domain/errors.js';
import type { PageApp } from '../page-app.js';
import { csrfOk, csrfToken } from '../human-session.js';
import type { CalendarDrafts, CalendarForm } from './calendar-page.js';
import { CalendarPage, STEPS } from './calendar-page.js';
import type { FormBody } from './calendar-forms.js';
import {
  first,
  OFFICE_HOURS,
  overrideOf,
  priceOf,
  problemOf,
  readDetails,
  tagsOf,
  readOverride,
  readWeek,
  weeklyOf,
} from './calendar-forms.js';
import type { NewCalendarForm } from './calendar-views.js';
import { CalendarsPage, NewCalendarPage, OwnersOnlyPage } from './calendar-views.js';
import type { ConsoleContext } from './console-page.js';
import { consoleArea } from './console-page.js';
import { readRules, rulesFromDraft } from './rules-form.js';
import { CONSOLE_HEADERS } from './shell.js';

const NEW_PURPOSE = 'console-calendar:new';
// Each form of a calendar's page has its own token: one form's token opens no other.
const purposeOf = (calendarId: string, form: CalendarForm) => `console-calendar:${calendarId}:${form}`;
/** Each form render carries a fresh key: submitting it twice makes one change. */
const FORM_KEY = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

const SAVED = new Map([
  ['created', 'Calendar created: agents can find its slots now.'],
  ['details', 'Name, time zone, price, description and tags saved.'],
  ['hours', 'Weekly hours saved.'],
  ['override', 'Date override saved.'],
  ['removed', 'Date override removed: that date has the week’s hours again.'],
  ['rules', 'Booking rules saved: agents are offered slots under them from now on.'],
]);

const statusOf = (error: DomainError) => pageStatusOf(error.code);

const problemIn = (error: DomainError) =>
  problemOf(typeof error.details.field === 'string' ? error.details.field : undefined, error.message);

/** Any length of up to a day (a calendar may offer lengths the usual choices lack); the usual steps. */
function slotLengthOf(c: Context): SlotLength {
  const durationMinutes = Number(c.req.query('duration'));
  const stepMinutes = Number(c.req.query('step'));
  return {
    durationMinutes:
      Number.isInteger(durationMinutes) && durationMinutes >= 1 && durationMinutes <= 1440
        ? durationMinutes
        : DEFAULT_SLOT_LENGTH.durationMinutes,
    stepMinutes: (STEPS as readonly number[]).includes(stepMinutes)
      ? stepMinutes
      : DEFAULT_SLOT_LENGTH.stepMinutes,
  };
}

const dayOf = (value: string): Weekday | undefined => weekdays.find((d) => d === value);

/** Calendars: the list, a new one, and one calendar with its preview and (for owners) its forms. */
export function calendarsConsole(ctx: ConsoleContext): PageApp {
  const { page, deps } = ctx;
  const app = consoleArea();

  app.get(
    '/',
    page.signedIn(async (c, signed) => {
      const n = Number(c.req.query('page') ?? '1');
      const overview = await calendarsOverview(deps, signed.person, Number.isInteger(n) && n >= 1 ? n : 1);
      return c.html(<CalendarsPage signed={signed} overview={overview} />, 200, CONSOLE_HEADERS);
    }),
  );

  /** The form, or for anyone but an owner a page saying it is not theirs to use. */
  const showNew = (c: Context, signed: SignedIn, form: NewCalendarForm, status: 200 | 400 | 409 = 200) =>
    mayEditCalendars(signed.person)
      ? c.html(
          <NewCalendarPage
            signed={signed}
            csrf={csrfToken(signed.session, NEW_PURPOSE)}
            idempotencyKey={randomUUID()}
            form={form}
          />,
          status,
          CONSOLE_HEADERS,
        )
      : c.html(<OwnersOnlyPage signed={signed} />, 403, CONSOLE_HEADERS);

  const showCalendar = async (
    c: Context,
    signed: SignedIn,
    calendarId: string,
    drafts: CalendarDrafts = {},
    status: 200 | PageStatus = 200,
    notice?: { text: string; good: boolean },
  ) => {
    const detail = await calendarDetail(deps, signed.person, calendarId, slotLengthOf(c));
    if (!detail) return page.notFound(c, signed);
    return c.html(
      <CalendarPage
        signed={signed}
        detail={detail}
        csrf={(form) => csrfToken(signed.session, purposeOf(calendarId, form))}
        newKey={randomUUID}
        drafts={drafts}
        notice={notice}
      />,
      status,
      CONSOLE_HEADERS,
    );
  };

  /** The form's fields when its CSRF token and key are good; a refusal, audited, when not. */
  const posted = async (c: Context, signed: SignedIn, purpose: string, tool: string) => {
    const form: FormBody = await c.req.parseBody({ all: true });
    const key = first(form, 'key');
    if (csrfOk(signed.session, purpose, form.csrf) && FORM_KEY.test(key)) return { form, key };
    await ctx
      .audit(tool, signed, { calendarId: c.req.param('id') }, 'admin')
      .finish({ outcome: 'error', code: 'FORBIDDEN', message: 'no valid CSRF token or form key' });
    return null;
  };

  /** Runs one change as the person, audited as theirs; a domain refusal is returned to be shown. */
  const audited = async (
    tool: string,
    signed: SignedIn,
    args: unknown,
    change: (call: WriteCall) => Promise<Calendar>,
  ): Promise<{ calendar: Calendar } | { error: DomainError }> => {
    const call = ctx.audit(tool, signed, args, 'admin');
    try {
      const calendar = await change({ audit: call });
      await call.finish();
      return { calendar };
    } catch (error) {
      const code = isDomainError(error) ? error.code : 'INTERNAL';
      await call.finish({ outcome: 'error', code, message: isDomainError(error) ? error.message : '' });
      if (!isDomainError(error)) throw error;
      return { error };
    }
  };

  /** A refused change: the page again with what was entered in the form that failed, and why. */
  const refusedChange = (
    c: Context,
    signed: SignedIn,
    calendarId: string,
    error: DomainError,
    form: CalendarForm,
    drafts: CalendarDrafts,
  ) => {
    if (error.code === 'NOT_FOUND') return page.notFound(c, signed);
    if (error.code === 'FORBIDDEN')
      return showCalendar(c, signed, calendarId, {}, 403, { text: error.message, good: false });
    return showCalendar(
      c,
      signed,
      calendarId,
      { ...drafts, problem: { form, problem: problemIn(error) } },
      statusOf(error),
    );
  };

  const saved = (c: Context, calendarId: string, what: string) =>
    c.redirect(`/console/calendars/${calendarId}?saved=${what}#result`, 303);

  // Before /console/calendars/:id, which would otherwise take "new" for an id.
  app.get(
    '/new',
    page.signedIn((c, signed) =>
      showNew(c, signed, {
        details: { name: '', timeZone: '', amount: '', currency: '', description: '', tags: '' },
        week: OFFICE_HOURS,
      }),
    ),
  );

  app.post(
    '/new',
    page.signedIn(async (c, signed) => {
      const tool = 'console_calendar_create';
      const got = await posted(c, signed, NEW_PURPOSE, tool);
      if (!got) return page.refused(c, signed);
      const details = readDetails(got.form);
      const week = readWeek(got.form);
      if (first(got.form, 'do') === 'add')
        return showNew(c, signed, { details, week, extraDay: dayOf(first(got.form, 'addDay')) });
      const done = await audited(
        tool,
        signed,
        { idempotencyKey: got.key, timeZone: details.timeZone },
        (call) =>
          createCalendarAs(
            deps,
            signed.person,
            {
              name: details.name,
              timeZone: details.timeZone,
              price: priceOf(details),
              weekly: weeklyOf(week),
              description: details.description,
              tags: tagsOf(details),
              idempotencyKey: got.key,
            },
            call,
          ),
      );
      if ('calendar' in done) return saved(c, done.calendar.id, 'created');
      if (done.error.code === 'FORBIDDEN') return showNew(c, signed, { details, week });
      return showNew(
        c,
        signed,
        { details, week, problem: problemIn(done.error) },
        statusOf(done.error) as 400 | 409,
      );
    }),
  );

  app.get(
    '/:id',
    page.signedIn((c, signed) => {
      const text = SAVED.get(c.req.query('saved') ?? '');
      return showCalendar(
        c,
        signed,
        c.req.param('id') ?? '',
        {},
        200,
        text ? { text, good: true } : undefined,
      );
    }),
  );

  app.post(
    '/:id',
    page.signedIn(async (c, signed) => {
      const calendarId = c.req.param('id') ?? '';
      const tool = 'console_calendar_details';
      const got = await posted(c, signed, purposeOf(calendarId, 'details'), tool);
      if (!got) return page.refused(c, signed);
      const details = readDetails(got.form);
      const done = await audited(
        tool,
        signed,
        { calendarId, idempotencyKey: got.key, timeZone: details.timeZone },
        (call) =>
          updateDetailsAs(
            deps,
            signed.person,
            {
              calendarId,
              name: details.name,
              timeZone: details.timeZone,
              price: priceOf(details),
              description: details.description,
              tags: tagsOf(details),
              idempotencyKey: got.key,
            },
            call,
          ),
      );
      if ('calendar' in done) return saved(c, calendarId, 'details');
      return refusedChange(c, signed, calendarId, done.error, 'details', { details });
    }),
  );

  app.post(
    '/:id/hours',
    page.signedIn(async (c, signed) => {
      const calendarId = c.req.param('id') ?? '';
      const tool = 'console_calendar_hours';
      const got = await posted(c, signed, purposeOf(calendarId, 'hours'), tool);
      if (!got) return page.refused(c, signed);
      const week = readWeek(got.form);
      if (first(got.form, 'do') === 'add')
        return showCalendar(c, signed, calendarId, { week, extraDay: dayOf(first(got.form, 'addDay')) });
      const done = await audited(tool, signed, { calendarId, idempotencyKey: got.key }, (call) =>
        replaceWeekAs(
          deps,
          signed.person,
          { calendarId, weekly: weeklyOf(week), idempotencyKey: got.key },
          call,
        ),
      );
      if ('calendar' in done) return saved(c, calendarId, 'hours');
      return refusedChange(c, signed, calendarId, done.error, 'hours', { week });
    }),
  );

  app.post(
    '/:id/overrides',
    page.signedIn(async (c, signed) => {
      const calendarId = c.req.param('id') ?? '';
      const got = await posted(c, signed, purposeOf(calendarId, 'override'), 'console_calendar_override');
      if (!got) return page.refused(c, signed);
      const remove = first(got.form, 'remove');
      const tool = remove ? 'console_calendar_override_remove' : 'console_calendar_override_set';
      const idempotencyKey = got.key;
      if (remove) {
        const done = await audited(tool, signed, { calendarId, idempotencyKey }, (call) =>
          removeOverrideAs(deps, signed.person, { calendarId, date: remove, idempotencyKey }, call),
        );
        if ('calendar' in done) return saved(c, calendarId, 'removed');
        return refusedChange(c, signed, calendarId, done.error, 'override', {});
      }
      const draft = readOverride(got.form);
      const done = await audited(tool, signed, { calendarId, idempotencyKey }, (call) =>
        setOverrideAs(deps, signed.person, { calendarId, override: overrideOf(draft), idempotencyKey }, call),
      );
      if ('calendar' in done) return saved(c, calendarId, 'override');
      return refusedChange(c, signed, calendarId, done.error, 'override', { override: draft });
    }),
  );

  app.post(
    '/:id/rules',
    page.signedIn(async (c, signed) => {
      const calendarId = c.req.param('id') ?? '';
      const tool = 'console_calendar_rules';
      const got = await posted(c, signed, purposeOf(calendarId, 'rules'), tool);
      if (!got) return page.refused(c, signed);
      const draft = readRules(got.form);
      const done = await audited(tool, signed, { calendarId, idempotencyKey: got.key }, (call) =>
        setRulesAs(
          deps,
          signed.person,
          { calendarId, rules: rulesFromDraft(draft), idempotencyKey: got.key },
          call,
        ),
      );
      if ('calendar' in done) return saved(c, calendarId, 'rules');
      return refusedChange(c, signed, calendarId, done.error, 'rules', { rules: draft });
    }),
  );
  return app;
}
