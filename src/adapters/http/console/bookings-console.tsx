import type { PageStatus } from '../page-status.js';
import type { Child } from 'hono/jsx';
import type { Context } from 'hono';
import type { ConsoleBookingAction } from '../../../app/console/bookings.js';
import {
  bookingHistory,
  bookingsOf,
  calendarChoices,
  consoleBooking,
  endBookingAs,
  reconciliationQueue,
  WEEK_VIEW_CAP,
} from '../../../app/console/bookings.js';
import { setKeysAs } from '../../../app/inbox/business-keys.js';
import { receiptIfAny } from '../../../app/booking/receipts.js';
import { eraseCustomerAs } from '../../../app/booking/erase-customers.js';
import { receiptKeysUrl } from '../../../domain/booking/receipt.js';
import type { SignedIn } from '../../../app/identity/sessions.js';
import type { KeyChange } from '../../../app/inbox/business-keys.js';
import type { Calendar } from '../../../domain/calendar.js';
import { isoDateOfDay, wallClockToInstant, weekdayIndex } from '../../../domain/time/zone.js';
import { localDay, zoneLabel } from '../../format/human-time.js';
import type { PageApp } from '../page-app.js';
import { csrfToken } from '../human-session.js';
import { epochDayOf, filterQuery, parseBookingFilter, todayIn } from './booking-filter.js';
import type { WeekDay } from './booking-lists.js';
import { BookingList, BookingTabs, FilterForm, WeekGrid } from './booking-lists.js';
import { BookingPage } from './booking-page.js';
import type { ConsoleContext } from './console-page.js';
import { audited, consoleArea, itemPost, refusedPost } from './console-page.js';
import { CONSOLE_HEADERS, Shell } from './shell.js';

const PAGE_SIZE = 50;
const MAX_OFFSET = 1_000_000;
const purpose = (id: string) => `console-booking:${id}`;
const DONE = new Map([
  ['cancel', 'Cancelled: the time is free again.'],
  ['release', 'Hold released: the time is free again.'],
  ['keys', 'Business keys saved.'],
  ['erased', "The customer's details are erased."],
]);

/** The zone dates are read in: the chosen calendar's, else the tenant's first calendar's, else UTC. */
function zoneOf(calendars: readonly Calendar[], chosen: string): string {
  return (calendars.find((c) => c.id === chosen) ?? calendars[0])?.timeZone ?? 'UTC';
}

/** Agenda, week, reconciliation, one booking's page, and ending a booking. */
export function bookingsConsole(ctx: ConsoleContext): PageApp {
  const { page, deps } = ctx;
  const app = consoleArea();

  const frame = (c: Context, signed: SignedIn, title: string, body: Child, status: 200 | 400 = 200) =>
    c.html(
      <Shell title={title} signed={signed} section="/console/bookings">
        {body}
      </Shell>,
      status,
      CONSOLE_HEADERS,
    );

  app.get(
    '/',
    page.signedIn(async (c, signed) => {
      const query = c.req.query();
      const calendars = await calendarChoices(deps, signed.person);
      const zone = zoneOf(calendars, query.calendar ?? '');
      // First visit: upcoming bookings. An emptied From field means all time.
      if (query.from === undefined) query.from = isoDateOfDay(todayIn(page.now(), zone));
      const parsed = parseBookingFilter(query, zone);
      const offset = Math.min(MAX_OFFSET, Math.max(0, Math.floor(Number(query.offset) || 0)));
      const found = parsed.problem
        ? { items: [], total: 0 }
        : await bookingsOf(deps, signed.person, parsed.filter, { offset, limit: PAGE_SIZE });
      const toReconcile = (await reconciliationQueue(deps, signed.person)).length;
      const link = (at: number) => `/console/bookings${filterQuery(parsed.form, { offset: String(at) })}`;
      return frame(
        c,
        signed,
        'Bookings',
        <>
          <h1>Bookings</h1>
          <BookingTabs current="agenda" query={filterQuery(parsed.form)} toReconcile={toReconcile} />
          <FilterForm action="/console/bookings" parsed={parsed} calendars={calendars} zone={zone} dates />
          <p class="muted" id="count" role="status">
            {found.total === 0
              ? 'No bookings match.'
              : `${found.total} booking${found.total === 1 ? '' : 's'}; showing ${offset + 1}–${offset + found.items.length}.`}
          </p>
          {found.total === 0 ? '' : <BookingList lines={found.items} empty="" />}
          <nav class="pager" aria-label="Pages">
            {offset > 0 ? <a href={link(Math.max(0, offset - PAGE_SIZE))}>← Earlier</a> : ''}
            {offset + found.items.length < found.total ? <a href={link(offset + PAGE_SIZE)}>Later →</a> : ''}
          </nav>
        </>,
        parsed.problem ? 400 : 200,
      );
    }),
  );

  app.get(
    '/week',
    page.signedIn(async (c, signed) => {
      const query = c.req.query();
      const calendars = await calendarChoices(deps, signed.person);
      const calendarZone = zoneOf(calendars, query.calendar ?? '');
      // The week is drawn in the calendar's zone unless the person asks for their own.
      const mine = query.zone === 'mine' && signed.zone ? signed.zone : null;
      const zone = mine ?? calendarZone;
      const asked = query.week ? epochDayOf(query.week) : null;
      const day = asked ?? todayIn(page.now(), zone);
      const monday = day - weekdayIndex(day);
      const parsed = parseBookingFilter({ ...query, from: '', to: '' }, zone);
      const start = wallClockToInstant(monday, 0, zone);
      const end = wallClockToInstant(monday + 7, 0, zone);
      const found = parsed.problem
        ? { items: [], total: 0 }
        : await bookingsOf(
            deps,
            signed.person,
            { ...parsed.filter, from: start, to: end },
            { offset: 0, limit: WEEK_VIEW_CAP },
          );
      const days: WeekDay[] = Array.from({ length: 7 }, (_, i) => {
        const from = wallClockToInstant(monday + i, 0, zone);
        const to = wallClockToInstant(monday + i + 1, 0, zone);
        return {
          start: from,
          lines: found.items.filter((l) => l.booking.start < to && l.booking.end > from),
        };
      });
      const toReconcile = (await reconciliationQueue(deps, signed.person)).length;
      const weekLink = (offsetDays: number) =>
        `/console/bookings/week${filterQuery({ ...parsed.form, from: '', to: '' }, { week: isoDateOfDay(monday + offsetDays), ...(mine ? { zone: 'mine' } : {}) })}`;
      const zoneLink = (which: 'calendar' | 'mine') =>
        `/console/bookings/week${filterQuery({ ...parsed.form, from: '', to: '' }, { week: isoDateOfDay(monday), ...(which === 'mine' ? { zone: 'mine' } : {}) })}`;
      const refused =
        parsed.problem !== null || (query.week !== undefined && query.week !== '' && asked === null);
      return frame(
        c,
        signed,
        'Bookings this week',
        <>
          <h1>Week of {localDay(wallClockToInstant(monday, 0, zone), zone)}</h1>
          <p id="week-zone" class="muted">
            Times in {zoneLabel(zone)} ({mine ? 'your time' : "the calendar's zone"}).{' '}
            {signed.zone && signed.zone !== calendarZone ? (
              mine ? (
                <a href={zoneLink('calendar')}>Show in {zoneLabel(calendarZone)}, the calendar's zone</a>
              ) : (
                <a href={zoneLink('mine')}>Show in your time ({zoneLabel(signed.zone)})</a>
              )
            ) : (
              ''
            )}
          </p>
          <BookingTabs
            current="week"
            query={filterQuery({ ...parsed.form, from: '', to: '' })}
            toReconcile={toReconcile}
          />
          <FilterForm
            action="/console/bookings/week"
            parsed={parsed}
            calendars={calendars}
            zone={zone}
            dates={false}
            week={isoDateOfDay(monday)}
          />
          {query.week && asked === null ? (
            <p class="notice" role="alert">
              Week must be a date like 2026-12-07; showing this week.
            </p>
          ) : (
            ''
          )}
          <nav class="pager" aria-label="Weeks">
            <a href={weekLink(-7)}>← Previous week</a>
            <a href={weekLink(7)}>Next week →</a>
          </nav>
          {found.total > found.items.length ? (
            <p class="notice" role="status">
              Showing the first {found.items.length} of {found.total}; filter by calendar or status to see the
              rest.
            </p>
          ) : (
            ''
          )}
          <WeekGrid days={days} zone={zone} />
        </>,
        refused ? 400 : 200,
      );
    }),
  );

  app.get(
    '/reconcile',
    page.signedIn(async (c, signed) => {
      const lines = await reconciliationQueue(deps, signed.person);
      return frame(
        c,
        signed,
        'Needs reconciling',
        <>
          <h1>Needs reconciling</h1>
          <BookingTabs current="reconcile" query="" toReconcile={lines.length} />
          <p>
            These holds lapsed before they were confirmed, and the payment provider reported the money paid
            afterwards. Their time was given back; refund the customer or book them again by hand.
          </p>
          <BookingList lines={lines} empty="Nothing to reconcile." />
        </>,
      );
    }),
  );

  const showBooking = async (
    c: Context,
    signed: SignedIn,
    id: string,
    status: 200 | PageStatus = 200,
    given = '',
    /** The action the address claims was taken: its notice shows only if the booking agrees. */
    claimed = '',
  ) => {
    const detail = await consoleBooking(deps, signed.person, id);
    if (!detail) return page.notFound(c, signed);
    const agrees =
      (claimed === 'cancel' && detail.status === 'CANCELLED') ||
      (claimed === 'release' && detail.status === 'RELEASED') ||
      (claimed === 'erased' && detail.booking.customerErased === true) ||
      // Keys saved: only at the version the save made.
      claimed === `keys@${detail.booking.version}`;
    const message = given || (agrees ? (DONE.get(claimed.split('@')[0]!) ?? '') : '');
    const [history, receipt] = await Promise.all([
      bookingHistory(deps, signed.person, id),
      receiptIfAny(deps, signed.person.tenantId, id),
    ]);
    return c.html(
      <Shell title={`Booking ${detail.booking.reference}`} signed={signed} section="/console/bookings">
        <BookingPage
          detail={detail}
          history={history}
          viewer={signed.person}
          viewerZone={signed.zone}
          csrf={csrfToken(signed.session, purpose(id))}
          message={message}
          receipt={receipt}
          receiptKeys={receiptKeysUrl(receipt?.claims.iss ?? deps.receipts.issuer)}
        />
      </Shell>,
      status,
      CONSOLE_HEADERS,
    );
  };

  // The receipt as a file, for keeping or handing to someone else (they check it against the published keys).
  app.get(
    '/:id/receipt.jws',
    page.signedIn(async (c, signed) => {
      const id = c.req.param('id') ?? '';
      const receipt = (await consoleBooking(deps, signed.person, id))
        ? await receiptIfAny(deps, signed.person.tenantId, id)
        : null;
      if (!receipt) return page.notFound(c, signed);
      return c.body(`${receipt.jws}\n`, 200, {
        ...CONSOLE_HEADERS,
        'Content-Type': 'application/jose; charset=utf-8',
        'Content-Disposition': `attachment; filename="receipt-${receipt.claims.reference.replace(/[^A-Za-z0-9_-]/g, '_')}.jws"`,
      });
    }),
  );

  app.get(
    '/:id',
    page.signedIn((c, signed) =>
      showBooking(c, signed, c.req.param('id') ?? '', 200, '', c.req.query('done') ?? ''),
    ),
  );

  app.post(
    '/:id',
    itemPost(page, {
      purpose,
      refused: refusedPost(ctx, 'console_booking', { action: 'refused' }),
      read(form) {
        const action: ConsoleBookingAction | null =
          form.action === 'cancel' || form.action === 'release' ? form.action : null;
        const version = Number(form.version);
        return action && Number.isSafeInteger(version) && version >= 1 ? { action, version } : null;
      },
      async act(id, { action, version }, signed) {
        await audited(
          ctx.audit(
            'console_booking',
            signed,
            { bookingId: id, action, expectedVersion: version },
            'approval',
          ),
          () => endBookingAs(deps, signed.person, id, action, version),
        );
        return `/console/bookings/${id}?done=${action}`;
      },
      rerender: showBooking,
    }),
  );

  app.post(
    '/:id/erase-customer',
    itemPost(page, {
      purpose,
      refused: refusedPost(ctx, 'console_erase_customer', { action: 'refused' }),
      read: (form) => (form.confirm === 'erase' ? { confirm: true } : null),
      async act(id, _asked, signed) {
        await audited(ctx.audit('console_erase_customer', signed, { bookingId: id }, 'admin'), () =>
          eraseCustomerAs(deps, signed.person, id),
        );
        return `/console/bookings/${id}?done=erased`;
      },
      rerender: showBooking,
    }),
  );

  app.post(
    '/:id/keys',
    itemPost(page, {
      purpose,
      refused: refusedPost(ctx, 'console_booking', { action: 'refused' }),
      read(form) {
        const version = Number(form.version);
        const text = (v: unknown) => (typeof v === 'string' ? v : undefined);
        const keys: KeyChange = {
          confirmationNumber: text(form.confirmationNumber),
          groupCode: text(form.groupCode),
          externalReservationNumber: text(form.externalReservationNumber),
        };
        const given = Object.fromEntries(
          Object.entries(keys).filter(([, v]) => v !== undefined),
        ) as KeyChange;
        return Number.isSafeInteger(version) && version >= 1 && Object.keys(given).length > 0
          ? { keys: given, version }
          : null;
      },
      async act(id, { keys, version }, signed) {
        const saved = await audited(
          ctx.audit(
            'console_booking_keys',
            signed,
            { bookingId: id, keys, expectedVersion: version },
            'admin',
          ),
          () => setKeysAs(deps, signed.person, id, keys, version),
        );
        return `/console/bookings/${id}?done=keys@${saved.version}`;
      },
      rerender: showBooking,
    }),
  );
  return app;
}
