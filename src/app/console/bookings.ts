import type { ExternalOverlap } from '../../domain/calendar-sync/caldav.js';
import { askerOf, connectionWords } from './approvals.js';
import type { Booking, BookingStatus } from '../../domain/booking/booking.js';
import { cancelOwingRefund, effectiveStatus, owesRefund, releaseHold } from '../../domain/booking/booking.js';
import { maskContact } from '../../domain/booking/contact-mask.js';
import type { Calendar } from '../../domain/calendar.js';
import { DomainError } from '../../domain/errors.js';
import type { Person } from '../../domain/identity/identity.js';
import { mayApprove } from '../../domain/identity/identity.js';
import type { Instant } from '../../domain/time/instant.js';
import type { StoreTx } from '../../ports/store/index.js';
import type { AppDeps } from '../deps.js';
import type { CalendarRef } from '../booking/snapshot.js';
import { calendarRef } from '../booking/snapshot.js';
import { recordBookingEvent } from '../webhooks/record-booking-event.js';
import { deciderOf } from './approvals.js';

/**
 * Bookings as people see them in the console: the whole tenant's (people run it; agents see
 * only their person's), contact data in full for owners and approvers, masked for viewers.
 */
export interface BookingLine {
  readonly booking: Booking;
  /** What the booking is now: a lapsed hold reads EXPIRED before the sweeper marks it. */
  readonly status: BookingStatus;
  readonly calendars: readonly CalendarRef[];
}

export interface BookingFilter {
  readonly calendarId?: string;
  readonly status?: BookingStatus;
  readonly from?: Instant;
  readonly to?: Instant;
  readonly customer?: string;
}

/** More than a week view can show is a sign to filter; the agenda pages instead. */
export const WEEK_VIEW_CAP = 500;
/** Calendars offered in the filter; a tenant with more filters by id in the address. */
const CALENDAR_CHOICES = 200;

const seesContact = (person: Person) => person.role === 'owner' || person.role === 'approver';

export async function linesOf(
  deps: AppDeps,
  tx: StoreTx,
  person: Person,
  bookings: readonly Booking[],
): Promise<BookingLine[]> {
  const ids = [...new Set(bookings.flatMap((b) => b.calendarIds))];
  const calendars = new Map((await tx.calendars.get(person.tenantId, ids)).map((c) => [c.id, c]));
  const now = deps.clock.now();
  return bookings.map((booking) => ({
    booking:
      booking.customer && !seesContact(person)
        ? { ...booking, customer: maskContact(booking.customer) }
        : booking,
    status: effectiveStatus(booking, now),
    calendars: booking.calendarIds.flatMap((id) => {
      const calendar = calendars.get(id);
      return calendar ? [calendarRef(calendar)] : [];
    }),
  }));
}

/** A page of the tenant's bookings in start order, and how many match. */
export async function bookingsOf(
  deps: AppDeps,
  person: Person,
  filter: BookingFilter,
  page: { offset: number; limit: number },
): Promise<{ items: BookingLine[]; total: number }> {
  return deps.store.read(async (tx) => {
    const found = await tx.bookings.list(person.tenantId, {
      ...filter,
      // A masked email must not be found out by searching for it letter by letter.
      customerByEmail: seesContact(person),
      now: deps.clock.now(),
      ...page,
    });
    return { items: await linesOf(deps, tx, person, found.items), total: found.total };
  });
}

/** The calendars a person can filter by, oldest first. */
export async function calendarChoices(deps: AppDeps, person: Person): Promise<Calendar[]> {
  const { items } = await deps.store.read((tx) =>
    tx.calendars.list(person.tenantId, { offset: 0, limit: CALENDAR_CHOICES }),
  );
  return items;
}

/** A booking with who made it: the person (by email) and the connection they made it through, in words. */
export interface BookingDetail extends BookingLine {
  readonly madeBy: { readonly email: string | null; readonly connection: string };
  /** One occurrence of a recurring series: every booking of it, in time order. */
  readonly series:
    | readonly {
        readonly id: string;
        readonly reference: string;
        readonly start: number;
        readonly end: number;
        readonly status: string;
      }[]
    | null;
  /** Events of a connected CalDAV calendar that overlap this confirmed booking, with their titles. */
  readonly overlaps: readonly ExternalOverlap[];
}

/** One booking of the person's tenant, or null (another tenant's is as unknown as a made-up id). */
export async function consoleBooking(
  deps: AppDeps,
  person: Person,
  id: string,
): Promise<BookingDetail | null> {
  return deps.store.read(async (tx) => {
    const booking = await tx.bookings.get(person.tenantId, id);
    if (!booking) return null;
    const [line] = await linesOf(deps, tx, person, [booking]);
    const maker = await tx.people.getPerson(booking.owner.subject);
    const now = deps.clock.now();
    const series = booking.seriesId
      ? (await tx.bookings.ofSeries(person.tenantId, booking.seriesId)).map((b) => ({
          id: b.id,
          reference: b.reference,
          start: b.start,
          end: b.end,
          status: effectiveStatus(b, now),
        }))
      : null;
    const overlaps = booking.status === 'CONFIRMED' ? await tx.caldav.overlapsOf(person.tenantId, id) : [];
    return {
      ...line!,
      series,
      overlaps,
      madeBy: {
        email: maker?.tenantId === person.tenantId ? maker.email : null,
        connection: askerOf(booking.owner.clientId, maker?.tenantId === person.tenantId ? maker : null),
      },
    };
  });
}

/** Bookings paid after their hold lapsed: money came for time no longer held; a person settles them. */
export async function reconciliationQueue(deps: AppDeps, person: Person): Promise<BookingLine[]> {
  return deps.store.read(async (tx) =>
    linesOf(deps, tx, person, await tx.bookings.toReconcile(person.tenantId)),
  );
}

export type ConsoleBookingAction = 'cancel' | 'release';

/**
 * A person ends a booking from the console: owners and approvers only (the people who may say
 * yes to a booking may also call it off), at the version they were shown, so a booking that
 * changed since the page was drawn is not ended blind. Giving time back frees it at once.
 */
export async function endBookingAs(
  deps: AppDeps,
  person: Person,
  id: string,
  action: ConsoleBookingAction,
  expectedVersion: number,
): Promise<Booking> {
  if (!mayApprove(person))
    throw new DomainError('FORBIDDEN', 'Only owners and approvers may cancel bookings or release holds.');
  const ended = await deps.store.write(async (tx) => {
    const booking = await tx.bookings.get(person.tenantId, id);
    if (!booking) throw new DomainError('NOT_FOUND', `No booking ${id}.`, { bookingId: id });
    const now = deps.clock.now();
    const next =
      action === 'release'
        ? releaseHold(booking, expectedVersion, now)
        : cancelOwingRefund(booking, expectedVersion, now);
    await tx.bookings.update(next);
    if (owesRefund(next)) await recordBookingEvent(tx, deps.ids, 'booking.refund_due', next, now);
    return next;
  });
  deps.slotCache.invalidate(person.tenantId, ended.calendarIds);
  return ended;
}

/** Calls a booking's history shows at most; older ones are in the Activity section. */
const HISTORY_LIMIT = 200;

export interface BookingHistoryEntry {
  readonly at: number;
  /** The call's tool, or what a person or the system did: decision, payment, refund, lapse. */
  readonly kind: string;
  /** What happened, in words: "Asked a person to approve confirming it", "Approved — Olga Petrova (owner), with a passkey". */
  readonly words: string;
  readonly tone: 'plain' | 'good' | 'warn' | 'bad';
  /** Who: a person's email, or null for the system. */
  readonly who: string | null;
  /** Through what: the connection, or null. */
  readonly via: string | null;
}

const ACTION_WORDS: Readonly<Record<string, string>> = {
  confirm_booking: 'confirming it',
  cancel_booking: 'cancelling it',
};

/** One call of the trail in words; an approval asked for is a step, not an error. */
function callWords(
  tool: string,
  outcome: string,
  code: string | null,
): Pick<BookingHistoryEntry, 'words' | 'tone'> {
  const asked = ACTION_WORDS[tool];
  if (asked && code === 'APPROVAL_REQUIRED')
    return { words: `Asked a person to approve ${asked}`, tone: 'plain' };
  if (outcome !== 'ok') return { words: `${tool} refused${code ? ` (${code})` : ''}`, tone: 'bad' };
  const done: Readonly<Record<string, Pick<BookingHistoryEntry, 'words' | 'tone'>>> = {
    hold_slot: { words: 'Held', tone: 'plain' },
    confirm_booking: { words: 'Confirmed', tone: 'good' },
    cancel_booking: { words: 'Cancelled', tone: 'warn' },
    release_hold: { words: 'Hold released', tone: 'warn' },
    request_approval: { words: 'Asked a person to approve', tone: 'plain' },
    reschedule_booking: { words: 'A move to another time was held', tone: 'plain' },
    console_booking: { words: 'Ended by a person in the console', tone: 'warn' },
    console_refund: { words: 'Money owed back recorded as returned', tone: 'good' },
  };
  return done[tool] ?? { words: `Read or changed (${tool})`, tone: 'plain' };
}

/**
 * A booking's story, oldest first: every sealed call that names it (the hold that made it, the
 * approvals asked for, confirmations, console actions), every person's decision about it with
 * their name and how they signed in, its payment, money owed back and returned, and a hold that
 * lapsed. Shown to owners and approvers, who run the tenant; a viewer gets null.
 */
export async function bookingHistory(
  deps: AppDeps,
  person: Person,
  bookingId: string,
): Promise<BookingHistoryEntry[] | null> {
  if (!mayApprove(person)) return null;
  const now = deps.clock.now();
  return deps.store.read(async (tx) => {
    const booking = await tx.bookings.get(person.tenantId, bookingId);
    const records = await tx.audit.search(
      person.tenantId,
      { mentions: `"${bookingId}"` },
      { limit: HISTORY_LIMIT },
    );
    const emails = new Map<string, string>();
    for (const subject of new Set(records.map((r) => r.subject))) {
      const someone = await tx.people.getPerson(subject);
      if (someone?.tenantId === person.tenantId) emails.set(subject, someone.email);
    }
    const story: BookingHistoryEntry[] = records.map((r) => ({
      at: r.at,
      kind: r.tool,
      ...callWords(r.tool, r.outcome, r.errorCode),
      who: emails.get(r.subject) ?? r.subject,
      via: connectionWords(r.clientId),
    }));
    for (const approval of await tx.approvals.ofBooking(person.tenantId, bookingId)) {
      const action = ACTION_WORDS[approval.action] ?? approval.action;
      if (approval.decidedAt !== null && approval.decidedBy !== null)
        story.push({
          at: approval.decidedAt,
          kind: 'decision',
          words: `${approval.status === 'DENIED' ? 'Denied' : 'Approved'} ${action} — ${await deciderOf(tx, approval.decidedBy)}`,
          tone: approval.status === 'DENIED' ? 'bad' : 'good',
          who: null,
          via: null,
        });
      else if (approval.status === 'PENDING' && approval.expiresAt <= now)
        story.push({
          at: approval.expiresAt,
          kind: 'lapse',
          words: `Nobody decided about ${action} in time; the approval lapsed`,
          tone: 'warn',
          who: null,
          via: null,
        });
    }
    if (booking) story.push(...moneyAndLapse(booking, now));
    return story.sort((a, b) => a.at - b.at);
  });
}

/** What the booking itself records: its payment, money owed back and returned, a hold that lapsed. */
function moneyAndLapse(booking: Booking, now: number): BookingHistoryEntry[] {
  const entries: BookingHistoryEntry[] = [];
  const system = { who: null, via: null };
  const price = booking.price ? `${booking.price.amount} ${booking.price.currency}` : '';
  const payment = booking.payment;
  if (payment?.paidAt)
    entries.push({ at: payment.paidAt, kind: 'payment', words: `Paid ${price}`, tone: 'good', ...system });
  const refund = payment?.refund;
  if (refund) {
    const money = `${refund.amount} ${refund.currency}`;
    const customer = booking.customer?.name ?? 'the customer';
    entries.push({
      at: refund.dueAt,
      kind: 'refund',
      words: `${money} owed back to ${customer}`,
      tone: 'warn',
      ...system,
    });
    if (refund.returnedAt !== undefined)
      entries.push({
        at: refund.returnedAt,
        kind: 'refund',
        words: `${money} returned to ${customer}${refund.returnedBy ? `, recorded by ${refund.returnedBy}` : ''}${refund.providerReference ? ` (provider reference ${refund.providerReference})` : ''}`,
        tone: 'good',
        ...system,
      });
  }
  if (effectiveStatus(booking, now) === 'EXPIRED' && booking.expiresAt !== null)
    entries.push({
      at: booking.expiresAt,
      kind: 'lapse',
      words: 'The hold lapsed: nobody confirmed it in time, and its time was freed',
      tone: 'warn',
      ...system,
    });
  return entries;
}
