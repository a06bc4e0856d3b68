import type { ChangeSetLines, ConfirmIntent, IntentSummary } from '../../domain/approval/intent.js';
import type { Booking } from '../../domain/booking/booking.js';
import type { Money } from '../../domain/booking/money.js';
import { sumPrices } from '../../domain/booking/money.js';
import { zonedSpan } from '../../domain/time/human-time.js';
import { parseInstant } from '../../domain/time/instant.js';
import type { StoreTx } from '../../ports/store/index.js';

type Line = ChangeSetLines['changes'][number];

const at = (start: string, end: string, zone: string) =>
  zonedSpan(parseInstant(start, 'intent.start'), parseInstant(end, 'intent.end'), zone);

/**
 * A change set as a person decides on it: each change old → new in words (names, local times
 * with their zone), and together what happens to the time, the money and the customers.
 */
export async function describeChanges(
  tx: StoreTx,
  tenantId: string,
  intent: ConfirmIntent & { changeSet: ChangeSetLines },
  anchor: Booking,
): Promise<IntentSummary> {
  const lines = intent.changeSet.changes;
  const calendarIds = [...new Set(lines.flatMap((l) => [...l.calendarIds, ...(l.from?.calendarIds ?? [])]))];
  const calendars = await tx.calendars.get(tenantId, calendarIds);
  const names = (ids: readonly string[]) =>
    ids.map((id) => calendars.find((c) => c.id === id)?.name ?? id).join(' and ');
  const zoneOf = (ids: readonly string[]) => calendars.find((c) => c.id === ids[0])?.timeZone ?? 'UTC';
  const bookings = new Map<string, Booking>();
  for (const l of lines) {
    const b = await tx.bookings.get(tenantId, l.bookingId);
    if (b) bookings.set(b.id, b);
  }
  const customerOf = (l: Line) => bookings.get(l.bookingId)?.customer?.name ?? 'the customer';
  const words = lines.map((l) => {
    const zone = zoneOf(l.calendarIds);
    if (l.kind === 'hold')
      return `Book ${names(l.calendarIds)} for ${customerOf(l)} on ${at(l.start, l.end, zone)}.`;
    if (l.kind === 'cancel')
      return `Cancel ${customerOf(l)}'s booking ${l.reference} on ${at(l.start, l.end, zone)} (${names(l.calendarIds)}); the time becomes free.`;
    const from = l.from!;
    return `Move ${customerOf(l)}'s booking ${l.reference} from ${at(from.start, from.end, zoneOf(from.calendarIds))} (${names(from.calendarIds)}) to ${at(l.start, l.end, zone)} (${names(l.calendarIds)}).`;
  });
  const owedBack = sumPrices(
    lines
      .filter((l) => l.kind === 'cancel' && bookings.get(l.bookingId)?.payment?.status === 'PAID')
      .map((l) => bookings.get(l.bookingId)!.price),
  );
  const charged: Money | null =
    intent.amount !== null && intent.currency !== null
      ? { amount: intent.amount, currency: intent.currency }
      : null;
  const money = [
    charged
      ? `The new bookings cost ${charged.amount} ${charged.currency}, paid once before anything happens.`
      : 'Nothing new is charged.',
    lines.some((l) => l.kind === 'move') ? 'Moved bookings keep their payment.' : '',
    owedBack ? `Cancelling makes ${owedBack.amount} ${owedBack.currency} owed back.` : '',
  ]
    .filter(Boolean)
    .join(' ');
  const zone = zoneOf(intent.calendarIds);
  return {
    action: 'Confirm changes',
    reference: anchor.reference,
    calendars: calendars
      .filter((c) => intent.calendarIds.includes(c.id))
      .map((c) => ({ name: c.name, timeZone: c.timeZone, start: intent.start, end: intent.end })),
    startUtc: intent.start,
    endUtc: intent.end,
    amount: intent.amount,
    currency: intent.currency,
    customer: anchor.customer,
    label: anchor.label,
    version: intent.version,
    changes: words,
    consequence: {
      time: `Makes ${lines.length} changes at once, all or none, between ${at(intent.start, intent.end, zone)}: each is listed below.`,
      money,
      customer: 'Each customer keeps, gains or loses the booking as listed; nobody is left with half of it.',
      refundDue: owedBack,
    },
    stale: null,
  };
}
