import type { Instant } from '../time/instant.js';
import { formatInstant } from '../time/instant.js';
import { zonedDateTime, zonedSpan } from '../time/human-time.js';
import type { Booking } from './booking.js';

/** How the confirmation was allowed: by whom, and through which kind of proof. */
export interface ReceiptApproval {
  /** person: decided on Holdfast's page, CLI or the host's own prompt; host_attested: a registered host signed it. */
  readonly how: 'person' | 'host_attested' | 'standing_rule' | 'not_required';
  readonly approvalId: string | null;
  /** The person, as recorded ("Olga Petrova <olga@example.com>"); null when a host attested. */
  readonly by: string | null;
  readonly at: Instant | null;
  readonly standingRuleId: string | null;
}

/**
 * What a receipt attests, fixed when the booking is confirmed. Holds no customer details: a
 * receipt is meant to be kept and shown to others, and must survive a customer's erasure.
 */
export interface ReceiptFacts {
  readonly tenantId: string;
  readonly bookingId: string;
  readonly reference: string;
  readonly calendars: readonly { readonly id: string; readonly name: string; readonly timeZone: string }[];
  readonly start: Instant;
  readonly end: Instant;
  readonly amount: { readonly value: string; readonly currency: string } | null;
  /** sha256 over RFC 8785 of the approved intent: the exact change a person said yes to. */
  readonly intentHash: string;
  readonly approval: ReceiptApproval;
  readonly confirmedAt: Instant;
  /** The confirming call's audit operation: its sealed record's seq is signed into the receipt. */
  readonly operationId: string;
}

export function receiptFacts(
  booking: Booking,
  calendars: ReceiptFacts['calendars'],
  intentHash: string,
  approval: ReceiptApproval,
  operationId: string,
  now: Instant,
): ReceiptFacts {
  return {
    tenantId: booking.tenantId,
    bookingId: booking.id,
    reference: booking.reference,
    calendars,
    start: booking.start,
    end: booking.end,
    amount: booking.price ? { value: booking.price.amount, currency: booking.price.currency } : null,
    intentHash,
    approval,
    confirmedAt: now,
    operationId,
  };
}

/** The JWT claims signed: times as RFC 3339 strings (a reader needs no epoch arithmetic), `iat` as JWT has it. */
export function receiptClaims(facts: ReceiptFacts, issuer: string, auditSeq: number, now: Instant) {
  const { approval } = facts;
  return {
    iss: issuer,
    sub: facts.bookingId,
    iat: Math.floor(now / 1000),
    tenant: facts.tenantId,
    reference: facts.reference,
    calendars: facts.calendars.map(({ id, name, timeZone }) => ({ id, name, timeZone })),
    start: formatInstant(facts.start),
    end: formatInstant(facts.end),
    amount: facts.amount,
    intentHash: facts.intentHash,
    approval: {
      how: approval.how,
      approvalId: approval.approvalId,
      by: approval.by,
      at: approval.at === null ? null : formatInstant(approval.at),
      standingRuleId: approval.standingRuleId,
    },
    confirmedAt: formatInstant(facts.confirmedAt),
    audit: { operationId: facts.operationId, seq: auditSeq },
  };
}

export type ReceiptClaims = ReturnType<typeof receiptClaims>;

/** The JOSE `typ` of a receipt: a verifier refuses any other token signed by the same key. */
export const RECEIPT_TYPE = 'holdfast-receipt+jwt';

/** Where a server publishes its receipt keys (JWKS), beside the issuer it names in every receipt. */
export const RECEIPT_KEYS_PATH = '/receipts/jwks.json';
export const receiptKeysUrl = (issuer: string) => `${issuer.replace(/\/+$/, '')}${RECEIPT_KEYS_PATH}`;

const HOW: Record<ReceiptApproval['how'], string> = {
  person: 'a person approved it',
  host_attested: "the agent host attested its user's approval",
  standing_rule: 'a standing approval allowed it',
  not_required: 'no approval was required (the connection may confirm directly)',
};

/** A receipt's claims in words, one fact a line, every time with its zone. */
export function describeReceipt(claims: ReceiptClaims): string[] {
  const zone = claims.calendars[0]?.timeZone ?? 'UTC';
  const { approval } = claims;
  return [
    `Booking ${claims.reference} (${claims.sub})`,
    `Calendars: ${claims.calendars.map((c) => c.name).join(', ')}`,
    `Time: ${zonedSpan(Date.parse(claims.start), Date.parse(claims.end), zone)}`,
    `Amount: ${claims.amount ? `${claims.amount.value} ${claims.amount.currency}` : 'free'}`,
    `Approval: ${HOW[approval.how]}${approval.by ? ` — ${approval.by}` : ''}${
      approval.at ? `, ${zonedDateTime(Date.parse(approval.at), zone)}` : ''
    }`,
    `Confirmed: ${zonedDateTime(Date.parse(claims.confirmedAt), zone)}`,
    `Approved intent: ${claims.intentHash}`,
    `Audit record: #${claims.audit.seq} (operation ${claims.audit.operationId})`,
    `Issued by: ${claims.iss}`,
  ];
}
