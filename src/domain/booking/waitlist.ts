import { invalidArgument } from '../errors.js';
import type { Instant } from '../time/instant.js';
import { MINUTE_MS } from '../time/instant.js';
import type { Owner } from './booking.js';

/**
 * WAITING: in the queue. OFFERED: a hold was placed for it (`offerBookingId`) and waits for its
 * agent to confirm it. ACCEPTED: the offer was confirmed. LAPSED: the offer's hold ended unconfirmed
 * (the time passed to the next entry). LEFT: its agent took it off. EXPIRED: its window passed.
 */
export type WaitlistStatus = 'WAITING' | 'OFFERED' | 'ACCEPTED' | 'LAPSED' | 'LEFT' | 'EXPIRED';

/** A wanted window: any free time of this length on every listed calendar, between earliest and latest. */
export interface WaitlistEntry {
  readonly id: string;
  readonly tenantId: string;
  readonly owner: Owner;
  readonly calendarIds: readonly string[];
  readonly durationMinutes: number;
  readonly earliest: Instant;
  readonly latest: Instant;
  /** A free-text note for people (never customer details: those go on the booking when it is confirmed). */
  readonly label: string | null;
  readonly status: WaitlistStatus;
  readonly offerBookingId: string | null;
  readonly offerExpiresAt: Instant | null;
  readonly version: number;
  /** The queue's order: given by the store when the entry is added (0 before). */
  readonly seq: number;
  readonly createdAt: Instant;
  readonly updatedAt: Instant;
}

/** How long an offer's hold waits for its agent to confirm it, unless the tenant's hold time is longer. */
export const OFFER_TTL_MS = 15 * MINUTE_MS;
/** The most entries one person may have waiting at once. */
export const MAX_WAITING_PER_PERSON = 20;
/** The widest window an entry may wait for. */
export const MAX_WINDOW_DAYS = 90;

export function checkWindow(
  window: { earliest: Instant; latest: Instant; durationMinutes: number },
  now: Instant,
): void {
  if (
    !Number.isInteger(window.durationMinutes) ||
    window.durationMinutes < 5 ||
    window.durationMinutes > 24 * 60
  )
    throw invalidArgument('durationMinutes', 'must be whole minutes from 5 to 1440');
  if (window.latest <= now) throw invalidArgument('latest', 'must be in the future');
  if (window.latest - window.earliest < window.durationMinutes * MINUTE_MS)
    throw invalidArgument('latest', 'must leave room for durationMinutes after earliest');
  if (window.latest - window.earliest > MAX_WINDOW_DAYS * 24 * 60 * MINUTE_MS)
    throw invalidArgument('latest', `a window may span at most ${MAX_WINDOW_DAYS} days`);
}

export function moveTo(
  entry: WaitlistEntry,
  status: WaitlistStatus,
  now: Instant,
  offer?: { bookingId: string; expiresAt: Instant },
): WaitlistEntry {
  return {
    ...entry,
    status,
    offerBookingId: offer?.bookingId ?? entry.offerBookingId,
    offerExpiresAt: offer?.expiresAt ?? entry.offerExpiresAt,
    version: entry.version + 1,
    updatedAt: now,
  };
}

/** Whether the entry still asks for time now: waiting, and its window not passed. */
export const stillWaiting = (entry: WaitlistEntry, now: Instant) =>
  entry.status === 'WAITING' && entry.latest - entry.durationMinutes * MINUTE_MS > now;
