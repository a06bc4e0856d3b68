import { DomainError } from '../errors.js';
import type { Booking, ExternalKeys } from './booking.js';
import { assertVersion } from './booking.js';
import type { Instant } from '../time/instant.js';

/** The business keys a hotel's systems know a booking by; stored with the booking, searchable. */
export const KEY_KINDS = ['confirmation', 'group', 'reservation'] as const;
export type KeyKind = (typeof KEY_KINDS)[number];

/** A confirmation number or reservation number names one booking; a group code many. */
export const isUniqueKind = (kind: KeyKind): boolean => kind !== 'group';

const fieldOf: Record<KeyKind, keyof ExternalKeys> = {
  confirmation: 'confirmationNumber',
  group: 'groupCode',
  reservation: 'externalReservationNumber',
};

const KEY = /^[\x21-\x7e](?:[\x20-\x7e]{0,62}[\x21-\x7e])?$/;

/** Trimmed, 1–64 printable ASCII characters: what reservation systems print on a voucher. */
export function businessKey(value: string, field: string): string {
  const key = value.trim();
  if (!KEY.test(key))
    throw new DomainError('INVALID_ARGUMENTS', `${field}: 1 to 64 printable ASCII characters`, { field });
  return key;
}

export interface KeyRow {
  readonly kind: KeyKind;
  readonly value: string;
}

export function keyRowsOf(keys: ExternalKeys): KeyRow[] {
  return KEY_KINDS.flatMap((kind) => {
    const value = keys[fieldOf[kind]];
    return value ? [{ kind, value }] : [];
  });
}

/** Keys given override the booking's; an empty string clears one. */
export function mergeKeys(
  current: ExternalKeys,
  change: Partial<Record<keyof ExternalKeys, string>>,
): ExternalKeys {
  const merged: Record<string, string> = { ...current } as Record<string, string>;
  for (const kind of KEY_KINDS) {
    const field = fieldOf[kind];
    const given = change[field];
    if (given === undefined) continue;
    if (given.trim() === '') delete merged[field];
    else merged[field] = businessKey(given, field);
  }
  return merged as ExternalKeys;
}

/** A booking with other keys: a change like any other (new version), only while it is live. */
export function withKeys(
  booking: Booking,
  keys: ExternalKeys,
  expectedVersion: number,
  now: Instant,
): Booking {
  assertVersion(booking, expectedVersion);
  if (booking.status !== 'HELD' && booking.status !== 'CONFIRMED')
    throw new DomainError('INVALID_STATE', `A ${booking.status} booking keeps the keys it had.`, {
      bookingId: booking.id,
      status: booking.status,
    });
  return { ...booking, externalKeys: keys, version: booking.version + 1, updatedAt: now };
}
