import { createHash } from 'node:crypto';
import canonicalize from 'canonicalize';
import type { Booking } from '../../../../domain/booking/booking.js';
import { DomainError, invalidArgument } from '../../../../domain/errors.js';
import type { Instant } from '../../../../domain/time/instant.js';

/**
 * expert-booking's own words for a slot and for what a person approves (seed 000): an opaque
 * `slotId` bound to calendar, start and end, and the v1 canonical intent with its hash.
 */

/** The seed's approval window: 120 s after the person's decision, with 5 s of clock skew. */
export const APPROVAL_WINDOW_MS = 120_000;
export const APPROVAL_SKEW_MS = 5_000;

export interface SlotRef {
  readonly calendarId: string;
  readonly start: Instant;
  readonly end: Instant;
}

const SLOT_PREFIX = 'slot_';

/** The same slot always gets the same id: its calendar, start and end, readable only by the server. */
export function slotIdOf(slot: SlotRef): string {
  const body = `${slot.calendarId}~${slot.start}~${slot.end}`;
  return SLOT_PREFIX + Buffer.from(body, 'utf8').toString('base64url');
}

/** The slot a slotId names, or INVALID_ARGUMENTS naming the field when it is not one. */
export function slotOfId(slotId: string, field = 'slotId'): SlotRef {
  const refused = invalidArgument(field, 'is not a slotId from booking.search_available_slots');
  if (!slotId.startsWith(SLOT_PREFIX)) throw refused;
  const body = Buffer.from(slotId.slice(SLOT_PREFIX.length), 'base64url').toString('utf8');
  const parts = body.split('~');
  if (parts.length !== 3) throw refused;
  const [calendarId, start, end] = [parts[0]!, Number(parts[1]), Number(parts[2])];
  if (
    !/^[A-Za-z0-9_-]{1,100}$/.test(calendarId) ||
    !Number.isSafeInteger(start) ||
    !Number.isSafeInteger(end)
  )
    throw refused;
  const slot = { calendarId, start, end };
  // Only the canonical form: one slot, one id.
  if (slotIdOf(slot) !== slotId || end <= start) throw refused;
  return slot;
}

/** The seed's six fields, in its canonical key order. */
export interface IntentV1 {
  readonly amount: string | null;
  readonly bookingId: string;
  readonly currency: string | null;
  readonly slotId: string;
  readonly startsAt: string;
  readonly version: number;
}

export const INTENT_FIELDS = ['amount', 'bookingId', 'currency', 'slotId', 'startsAt', 'version'] as const;

/** Times as the seed writes them: UTC with milliseconds. */
export const isoMillis = (instant: Instant): string => new Date(instant).toISOString();

export function intentV1(booking: Booking): IntentV1 {
  return {
    amount: booking.price?.amount ?? null,
    bookingId: booking.id,
    currency: booking.price?.currency ?? null,
    slotId: slotIdOf({ calendarId: booking.calendarIds[0]!, start: booking.start, end: booking.end }),
    startsAt: isoMillis(booking.start),
    version: booking.version,
  };
}

/** `sha256:` and the hex SHA-256 of the key-sorted, whitespace-free UTF-8 JSON (RFC 8785 for these values). */
export function intentHashOf(intent: unknown): string {
  return `sha256:${createHash('sha256')
    .update(canonicalize(intent) ?? 'null', 'utf8')
    .digest('hex')}`;
}

export interface HumanApproval {
  readonly approvalId: string;
  readonly decision: 'APPROVE';
  readonly approvedAt: string;
  readonly intent: Record<string, unknown>;
  readonly intentHash: string;
  readonly hostId?: string;
  readonly signature?: string;
}

/** A refusal in the seed's own code; the Holdfast code beside it is what the audit records. */
const refusal = (
  code: 'APPROVAL_MISMATCH' | 'APPROVAL_EXPIRED',
  contractCode: string,
  message: string,
  details: Record<string, unknown>,
) => new DomainError(code, message, { ...details, contractCode });

/**
 * The seed's checks of an approval, in its order, before any payment is asked: the hash
 * recomputed from the intent as sent, the six fields against the booking as it is now, then the
 * approval's age (120 s, 5 s of skew either way). Any failure confirms nothing.
 */
export function checkBinding(approval: HumanApproval, booking: Booking, now: Instant): void {
  const details = { approvalId: approval.approvalId, bookingId: booking.id };
  if (intentHashOf(approval.intent) !== approval.intentHash)
    throw refusal(
      'APPROVAL_MISMATCH',
      'APPROVAL_INTENT_HASH_MISMATCH',
      'humanApproval.intentHash is not the hash of humanApproval.intent: copy both from confirmationIntent unchanged.',
      { ...details, field: 'humanApproval.intentHash' },
    );
  const current = intentV1(booking);
  const differing = INTENT_FIELDS.filter(
    (field) => canonicalize(approval.intent[field] ?? null) !== canonicalize(current[field]),
  );
  const unknown = Object.keys(approval.intent).filter(
    (k) => !(INTENT_FIELDS as readonly string[]).includes(k),
  );
  if (differing.length > 0 || unknown.length > 0)
    throw refusal(
      'APPROVAL_MISMATCH',
      'APPROVAL_INTENT_MISMATCH',
      `The approved intent is not this booking as it is now (${[...differing, ...unknown].join(', ')}): show the current confirmationIntent (booking.get_booking) to the person and ask again.`,
      {
        ...details,
        fields: [...differing, ...unknown],
        confirmationIntent: { intent: current, intentHash: intentHashOf(current) },
      },
    );
  const approvedAt = Date.parse(approval.approvedAt);
  if (approvedAt > now + APPROVAL_SKEW_MS)
    throw refusal(
      'APPROVAL_EXPIRED',
      'HUMAN_APPROVAL_EXPIRED',
      'humanApproval.approvedAt lies in the future.',
      {
        ...details,
        field: 'humanApproval.approvedAt',
      },
    );
  if (approvedAt < now - APPROVAL_WINDOW_MS - APPROVAL_SKEW_MS)
    throw refusal(
      'APPROVAL_EXPIRED',
      'HUMAN_APPROVAL_EXPIRED',
      'The approval is older than 120 seconds: ask the person again.',
      { ...details, field: 'humanApproval.approvedAt' },
    );
}
