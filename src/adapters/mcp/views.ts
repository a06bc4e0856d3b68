import { receiptUri } from './resources/resource-names.js';
import { maskContact } from '../../domain/booking/contact-mask.js';
import type { PendingApproval } from '../../app/approvals/approvals.js';
import type { Customer } from '../../domain/booking/booking.js';
import type { Principal } from '../../domain/identity/principal.js';
import { rulesOf } from '../../domain/calendar.js';
import type { FindSlotsResult } from '../../app/booking/find-slots.js';
import type { FindSlotsByNeedResult } from '../../app/booking/find-slots-by-need.js';
import type { BookingSnapshot, CalendarRef } from '../../app/booking/snapshot.js';
import type { AppDeps } from '../../app/deps.js';
import { confirmIntentOf } from '../../domain/approval/intent.js';
import type { Booking } from '../../domain/booking/booking.js';
import { effectiveStatus } from '../../domain/booking/booking.js';
import type { Calendar } from '../../domain/calendar.js';
import type { Instant } from '../../domain/time/instant.js';
import { formatInstant, formatLocal } from '../../domain/time/instant.js';
import type { Links } from './links.js';

/** Wire shapes: instants as UTC RFC 3339 plus each calendar's wall-clock form. */
function localForms(calendars: readonly CalendarRef[], start: Instant, end: Instant) {
  const zones = [...new Set(calendars.map((c) => c.timeZone))];
  return zones.map((timeZone) => ({
    timeZone,
    start: formatLocal(start, timeZone),
    end: formatLocal(end, timeZone),
  }));
}

export function calendarView(calendar: Calendar) {
  return {
    id: calendar.id,
    name: calendar.name,
    timeZone: calendar.timeZone,
    price: calendar.price,
    availability: calendar.availability,
    rules: rulesOf(calendar),
    ...(calendar.description ? { description: calendar.description } : {}),
    ...(calendar.tags && calendar.tags.length > 0 ? { tags: calendar.tags } : {}),
  };
}

/** HELD bookings carry the intent a human must approve to confirm them, and its hash. */
function confirmationIntentOf(
  booking: Booking,
  deps: Pick<AppDeps, 'digest'>,
  now: Instant,
  replaced: Booking | undefined,
) {
  // A series occurrence is confirmed with its series: hold_series answers the series' intent.
  if (effectiveStatus(booking, now) !== 'HELD' || (booking.seriesId && !booking.replaces)) return null;
  const intent = confirmIntentOf(booking, replaced);
  return { intent, intentHash: deps.digest.ofJson(intent) };
}

/** Contact data is shown whole only to a connection with the `sensitive` scope. */
export function customerFor(customer: Customer | null, principal: Principal | undefined): Customer | null {
  if (customer === null || principal?.scopes.includes('sensitive')) return customer;
  return maskContact(customer);
}

export function bookingView(
  { booking, calendars, replaced, overlaps }: BookingSnapshot,
  {
    deps,
    links,
    principal,
  }: { deps: Pick<AppDeps, 'clock' | 'digest'>; links: Links; principal?: Principal },
) {
  const now = deps.clock.now();
  return {
    id: booking.id,
    reference: booking.reference,
    status: effectiveStatus(booking, now),
    version: booking.version,
    calendarIds: [...booking.calendarIds],
    calendars: [...calendars],
    start: formatInstant(booking.start),
    end: formatInstant(booking.end),
    local: localForms(calendars, booking.start, booking.end),
    expiresAt: booking.expiresAt === null ? null : formatInstant(booking.expiresAt),
    customer: customerFor(booking.customer, principal),
    ...(booking.customerErased ? { customerErased: true } : {}),
    label: booking.label,
    price: booking.price,
    payment: booking.payment && {
      status: booking.payment.status,
      paidAt: booking.payment.paidAt === null ? null : formatInstant(booking.payment.paidAt),
      reconciliationRequired: booking.payment.reconciliationRequired ?? false,
      refund: booking.payment.refund
        ? {
            status: booking.payment.refund.status,
            amount: booking.payment.refund.amount,
            currency: booking.payment.refund.currency,
            dueAt: formatInstant(booking.payment.refund.dueAt),
            returnedAt:
              booking.payment.refund.returnedAt === undefined
                ? null
                : formatInstant(booking.payment.refund.returnedAt),
          }
        : null,
    },
    // A series is paid once, for the sum, under its id.
    paymentUrl: booking.price === null ? null : links.paymentUrl(booking.seriesId ?? booking.id),
    confirmationIntent: confirmationIntentOf(booking, deps, now, replaced),
    replaces: booking.replaces ?? null,
    seriesId: booking.seriesId ?? null,
    ...(overlaps && overlaps.length > 0
      ? {
          calendarOverlaps: overlaps.map((o) => ({
            start: formatInstant(o.start),
            end: formatInstant(o.end),
          })),
        }
      : {}),
    receiptUri: booking.status === 'CONFIRMED' ? receiptUri(booking.id) : null,
    owner: { subject: booking.owner.subject, clientId: booking.owner.clientId },
    externalKeys: { ...booking.externalKeys },
    createdAt: formatInstant(booking.createdAt),
    updatedAt: formatInstant(booking.updatedAt),
  };
}

/** A page of slots; the local form is only the start (the end is `durationMinutes` later), once per zone. */
export function slotsView(result: FindSlotsResult) {
  const zones = [...new Set(result.calendars.map((c) => c.timeZone))];
  return {
    slots: result.slots.map((slot) => ({
      start: formatInstant(slot.start),
      end: formatInstant(slot.end),
      local: Object.fromEntries(zones.map((zone) => [zone, formatLocal(slot.start, zone)])),
    })),
    total: result.total,
    nextCursor: result.nextCursor,
  };
}

/** A search by need: each slot names its calendar and is shown in that calendar's zone. */
export function slotsByNeedView(result: FindSlotsByNeedResult) {
  const byId = new Map(result.calendars.map((c) => [c.id, c]));
  return {
    slots: result.slots.map((slot) => {
      const zone = byId.get(slot.calendarId!)!.timeZone;
      return {
        start: formatInstant(slot.start),
        end: formatInstant(slot.end),
        calendarId: slot.calendarId!,
        local: { [zone]: formatLocal(slot.start, zone) },
      };
    }),
    total: result.total,
    nextCursor: result.nextCursor,
    calendars: result.calendars.map(({ id, name, timeZone }) => ({ id, name, timeZone })),
    calendarsMatched: result.calendarsMatched,
  };
}

/** A pending approval with how a person reaches it: the page link and the command line. */
export function pendingApprovalView(pending: PendingApproval, links: Links) {
  return {
    approvalId: pending.approvalId,
    intent: pending.intent,
    intentHash: pending.intentHash,
    summary: pending.summary,
    approveUrl: links.approveUrl(pending.approvalId),
    expiresAt: formatInstant(pending.expiresAt),
    cli: links.approvalCli(pending.approvalId),
  };
}
