import type { BookingStatus } from '../../domain/booking/booking.js';
import type { Principal } from '../../domain/identity/principal.js';
import { invalidArgument } from '../../domain/errors.js';
import { parseInstant } from '../../domain/time/instant.js';
import { requireScope } from '../authorize.js';
import type { AppDeps } from '../deps.js';
import { decodeCursor, encodeCursor } from '../page-cursor.js';
import type { BookingSnapshot } from './snapshot.js';
import { loadOwnBooking, snapshotOf } from './snapshot.js';

export async function getBooking(
  deps: AppDeps,
  principal: Principal,
  bookingId: string,
): Promise<BookingSnapshot> {
  requireScope(principal, 'read');
  return deps.store.read(async (tx) => {
    const snapshot = await snapshotOf(tx, await loadOwnBooking(tx, principal, bookingId));
    // Only a confirmed booking can be overlapped (holds over busy time are refused): one indexed read.
    if (snapshot.booking.status !== 'CONFIRMED') return snapshot;
    const overlaps = await tx.caldav.overlapsOf(snapshot.booking.tenantId, bookingId);
    return overlaps.length > 0 ? { ...snapshot, overlaps } : snapshot;
  });
}

export interface ListBookingsInput {
  readonly calendarId?: string;
  readonly status?: BookingStatus;
  readonly from?: string;
  readonly to?: string;
  readonly limit: number;
  readonly cursor?: string;
}

export interface ListBookingsResult {
  readonly bookings: readonly BookingSnapshot[];
  readonly total: number;
  readonly nextCursor: string | null;
}

export async function listBookings(
  deps: AppDeps,
  principal: Principal,
  input: ListBookingsInput,
): Promise<ListBookingsResult> {
  requireScope(principal, 'read');
  const from = input.from === undefined ? undefined : parseInstant(input.from, 'from');
  const to = input.to === undefined ? undefined : parseInstant(input.to, 'to');
  if (from !== undefined && to !== undefined && to <= from) throw invalidArgument('to', 'must be after from');
  const { cursor, limit, ...filter } = input;
  const offset = decodeCursor(deps.digest, filter, cursor) ?? 0;
  const now = deps.clock.now();
  return deps.store.read(async (tx) => {
    const page = await tx.bookings.list(principal.tenantId, {
      ...filter,
      owner: principal.subject,
      from,
      to,
      now,
      offset,
      limit,
    });
    const bookings = await Promise.all(page.items.map((b) => snapshotOf(tx, b)));
    const next = offset + page.items.length;
    return {
      bookings,
      total: page.total,
      nextCursor: next < page.total ? encodeCursor(deps.digest, filter, next) : null,
    };
  });
}
