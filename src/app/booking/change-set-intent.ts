import type { ConfirmIntent } from '../../domain/approval/intent.js';
import type { Booking } from '../../domain/booking/booking.js';
import type { ChangeSet } from '../../domain/booking/change-set.js';
import { sumPrices } from '../../domain/booking/money.js';
import { formatInstant } from '../../domain/time/instant.js';
import type { StoreTx } from '../../ports/store/index.js';

/** Every booking a change set names (the ones it ends and its holds), by id, as they are now. */
export async function bookingsOfSet(tx: StoreTx, set: ChangeSet): Promise<Map<string, Booking>> {
  const ids = set.changes.flatMap((c) => [c.targetId, c.holdId]).filter((id): id is string => id !== null);
  const found = await Promise.all(ids.map((id) => tx.bookings.get(set.tenantId, id)));
  return new Map(found.filter((b): b is Booking => b !== null).map((b) => [b.id, b]));
}

/**
 * What a person approves for a change set: each change with the versions it was taken at, and
 * what the new holds cost together. Any booking of it that moves on makes another intent.
 */
export function changeSetIntentOf(set: ChangeSet, bookings: ReadonlyMap<string, Booking>): ConfirmIntent {
  const lines = set.changes.map((c) => {
    const target = c.targetId ? bookings.get(c.targetId) : undefined;
    const hold = c.holdId ? bookings.get(c.holdId) : undefined;
    const main = (c.kind === 'hold' ? hold : target)!;
    const price = c.kind === 'hold' ? (hold?.price ?? null) : (target?.price ?? null);
    return {
      kind: c.kind,
      bookingId: main.id,
      reference: main.reference,
      calendarIds: [...c.calendarIds],
      start: formatInstant(c.start),
      end: formatInstant(c.end),
      from: c.from
        ? {
            start: formatInstant(c.from.start),
            end: formatInstant(c.from.end),
            calendarIds: [...c.from.calendarIds],
          }
        : null,
      holdId: c.kind === 'move' ? c.holdId : null,
      versions: [target?.version, hold?.version].filter((v): v is number => v !== undefined),
      amount: price?.amount ?? null,
      currency: price?.currency ?? null,
    };
  });
  const starts = set.changes.map((c) => c.start);
  const ends = set.changes.map((c) => c.end);
  const owed = newMoneyOf(set, bookings);
  return {
    action: 'confirm_booking',
    bookingId: lines[0]!.bookingId,
    calendarIds: [...new Set(set.changes.flatMap((c) => c.calendarIds))],
    start: formatInstant(Math.min(...starts)),
    end: formatInstant(Math.max(...ends)),
    amount: owed?.amount ?? null,
    currency: owed?.currency ?? null,
    version: set.version,
    changeSet: { changeSetId: set.id, changes: lines },
  };
}

/** What the set's new holds cost together: paid once, under the set's id. */
export function newMoneyOf(set: ChangeSet, bookings: ReadonlyMap<string, Booking>) {
  return sumPrices(
    set.changes.filter((c) => c.kind === 'hold').map((c) => bookings.get(c.holdId!)?.price ?? null),
  );
}
