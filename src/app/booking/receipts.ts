import type { Booking } from '../../domain/booking/booking.js';
import type { ReceiptApproval, ReceiptClaims } from '../../domain/booking/receipt.js';
import { receiptClaims, receiptFacts } from '../../domain/booking/receipt.js';
import { DomainError } from '../../domain/errors.js';
import type { Principal } from '../../domain/identity/principal.js';
import type { EffectAudit } from '../../ports/audit.js';
import type { StoreTx } from '../../ports/store/index.js';
import { requireScope } from '../authorize.js';
import type { AppDeps } from '../deps.js';
import { loadOwnBooking } from './snapshot.js';

/**
 * In the confirming transaction: what the booking's receipt will attest. A confirmation with no
 * audited call (a test's direct use) gets none: a receipt always names its call's sealed record.
 */
export async function recordReceipt(
  tx: StoreTx,
  confirmed: Booking,
  intentHash: string,
  approval: ReceiptApproval,
  audit: EffectAudit | undefined,
  now: number,
): Promise<void> {
  if (!audit) return;
  const calendars = await tx.calendars.get(confirmed.tenantId, confirmed.calendarIds);
  const named = confirmed.calendarIds.map((id) => {
    const calendar = calendars.find((c) => c.id === id);
    return { id, name: calendar?.name ?? id, timeZone: calendar?.timeZone ?? 'UTC' };
  });
  await tx.receipts.insert(receiptFacts(confirmed, named, intentHash, approval, audit.operationId, now));
}

export interface IssuedReceipt {
  readonly bookingId: string;
  /** The compact JWS: header.payload.signature. */
  readonly jws: string;
  readonly kid: string;
  /** What it attests, as signed (decoded from the JWS: a reader need not parse it). */
  readonly claims: ReceiptClaims;
}

/**
 * The booking's receipt, signed the first time it is asked for (then the same bytes every time).
 * Signing waits for the confirming call's record to be sealed, so the receipt names its place.
 */
export async function issueReceipt(
  deps: AppDeps,
  tenantId: string,
  bookingId: string,
): Promise<IssuedReceipt> {
  const stored = await deps.store.read((tx) => tx.receipts.get(tenantId, bookingId));
  if (!stored)
    throw new DomainError(
      'NOT_FOUND',
      `Booking ${bookingId} has no receipt: only a confirmed booking has one.`,
      {
        bookingId,
      },
    );
  if (stored.jws) return describe(bookingId, stored.jws);
  const { facts } = stored;
  const seqOf = () => deps.store.read((tx) => tx.audit.seqOfOperation(tenantId, facts.operationId));
  let seq = await seqOf();
  if (seq === null) {
    await deps.flushAudit?.();
    seq = await seqOf();
  }
  if (seq === null)
    throw new DomainError(
      'INTERNAL',
      'The receipt waits for its audit record to be sealed; try again shortly.',
      {
        retryAfterMs: 1000,
      },
    );
  const jws = await deps.receipts.sign(receiptClaims(facts, deps.receipts.issuer, seq, deps.clock.now()));
  // Two readers racing: the first stored wins, and both answer with the stored one.
  if (await deps.store.write((tx) => tx.receipts.setSigned(tenantId, bookingId, jws)))
    return describe(bookingId, jws);
  return issueReceipt(deps, tenantId, bookingId);
}

/** The receipt of one of the caller's own bookings (anyone else's does not exist for them). */
export async function ownReceipt(
  deps: AppDeps,
  principal: Principal,
  bookingId: string,
): Promise<IssuedReceipt> {
  requireScope(principal, 'read');
  await deps.store.read((tx) => loadOwnBooking(tx, principal, bookingId));
  return issueReceipt(deps, principal.tenantId, bookingId);
}

function describe(bookingId: string, jws: string): IssuedReceipt {
  const [header, payload] = jws.split('.');
  const { kid } = JSON.parse(Buffer.from(header!, 'base64url').toString()) as { kid: string };
  const claims = JSON.parse(Buffer.from(payload!, 'base64url').toString()) as ReceiptClaims;
  return { bookingId, jws, kid, claims };
}

/**
 * The receipt for a page that shows it beside other things: null when the booking has none, or
 * when it cannot be signed right now (its audit record not sealed yet, its keys unreadable) —
 * the page still shows the booking.
 */
export async function receiptIfAny(
  deps: AppDeps,
  tenantId: string,
  bookingId: string,
): Promise<IssuedReceipt | null> {
  return issueReceipt(deps, tenantId, bookingId).catch(() => null);
}
