import type { Clock } from '../ports/clock.js';
import type { Credentials } from '../ports/credentials.js';
import type { PasskeyCeremonies } from '../ports/passkeys.js';
import type { RateLimits } from '../ports/rate-limits.js';
import type { ReceiptSigner } from '../ports/receipt-signer.js';
import type { Digest } from '../ports/digest.js';
import type { Ids } from '../ports/ids.js';
import type { PageTokens } from '../ports/page-tokens.js';
import type { PaymentQuery } from '../ports/payment-query.js';
import type { SlotCache } from '../ports/slot-cache.js';
import type { Store } from '../ports/store/index.js';
import type { CalendarCache } from './calendars/calendar-cache.js';

export interface AppConfig {
  /** How long a hold keeps its time before it expires. */
  readonly holdTtlMs: number;
  /** How long an idempotency record replays. */
  readonly idempotencyTtlMs: number;
  /** Quota: calendars per tenant. */
  readonly maxCalendarsPerTenant: number;
  /** Quota: approvals pending at once per tenant (each expires within the tenant's approval window). */
  readonly maxOpenApprovalsPerTenant: number;
  /** How long after a priced hold lapsed the provider is still asked whether money came. */
  readonly paymentFollowUpMs: number;
}

export const defaultAppConfig: AppConfig = {
  holdTtlMs: 5 * 60_000,
  idempotencyTtlMs: 24 * 60 * 60_000,
  maxCalendarsPerTenant: 1000,
  maxOpenApprovalsPerTenant: 200,
  paymentFollowUpMs: 24 * 60 * 60_000,
};

export interface AppDeps {
  readonly store: Store;
  readonly clock: Clock;
  readonly ids: Ids;
  /** Plain sha256 over RFC 8785: intent hashes (hosts recompute them), cursor bindings. */
  readonly digest: Digest;
  /** Keyed: digests stored beside personal data (idempotency records), not guessable without the key. */
  readonly requestDigest: Digest;
  readonly pageTokens: PageTokens;
  readonly payments: PaymentQuery;
  readonly slotCache: SlotCache;
  /** Calendars a hold may be planned with; checked against their stored version when it is placed. */
  readonly calendarCache: CalendarCache;
  /** Secrets, password hashes and host signatures. */
  readonly credentials: Credentials;
  /** WebAuthn: passkey registration and sign-in checks. */
  readonly webAuthn: PasskeyCeremonies;
  /** Calls per connection, sign-in attempts. */
  readonly rateLimits: RateLimits;
  /** Signs confirmed bookings' receipts (keys load on the first receipt). */
  readonly receipts: ReceiptSigner;
  /** Seals what the audit trail has written so far: a receipt names its confirmation's sealed record. */
  readonly flushAudit?: () => Promise<void>;
  readonly config: AppConfig;
}
