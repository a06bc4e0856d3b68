import type { Approval, ApprovalStatus } from '../../domain/approval/approval.js';
import type { BoundToken } from '../../domain/approval/bound-token.js';
import type { Instant } from '../../domain/time/instant.js';

/** People's decisions about exact actions, and the host attestations already used. */
export interface ApprovalStore {
  /** Adds a pending approval with the digest of its one-time page token. */
  insert(approval: Approval, pageTokenHash: string | null): Promise<void>;
  /** The tenant's approval with this id; null when there is none in the tenant. */
  get(tenantId: string, id: string): Promise<Approval | null>;
  /** The approval a one-time page token opens, if the token is still unspent. */
  getByPageToken(pageTokenHash: string): Promise<Approval | null>;
  /** Writes `next` only if the stored status is still `expected`; false when it moved. */
  update(next: Approval, expected: ApprovalStatus): Promise<boolean>;
  /** Keeps why the last run of an executing approval's write failed (null: it did not). */
  recordFailure(tenantId: string, id: string, reason: string | null): Promise<void>;
  /** Moves an approval's expiry later (never earlier); false when it already lasted as long. */
  extendExpiry(tenantId: string, id: string, until: Instant): Promise<boolean>;
  /** Spends a page token so the URL cannot be used again. */
  spendPageToken(tenantId: string, approvalId: string): Promise<void>;
  /** The newest 200 approvals, of one tenant or all, optionally of one status. */
  list(tenantId: string | null, status?: ApprovalStatus): Promise<Approval[]>;
  /** Every approval asked about one booking, oldest first (at most 100). */
  ofBooking(tenantId: string, bookingId: string): Promise<Approval[]>;
  /** Approvals still PENDING and not expired at `now` in the tenant, or of one person in it (quotas). */
  countOpen(tenantId: string, now: Instant, subject?: string): Promise<number>;
  /** The approvals these standing rules made, decided in [from, to) (a rule's per-day limits count them). */
  usesOfRules(tenantId: string, ruleIds: readonly string[], from: Instant, to: Instant): Promise<Approval[]>;
  /** Keeps a token bound to one tool and its exact arguments (bookings-mcp's approval tokens). */
  insertToken(token: BoundToken): Promise<void>;
  /**
   * Spends a token in one step, whatever comes of the use: the token as it was before (its
   * usedAt still null when this use was the first), or null when there is no such token.
   */
  spendToken(tokenHash: string, now: Instant, by: string): Promise<BoundToken | null>;
  /** Remembers a host-attested approval id; false when it was seen before (a replay). */
  recordAttestation(tenantId: string, approvalId: string, now: Instant): Promise<boolean>;
  /** Whether a host-attested approval id was used before. */
  attestationSeen(tenantId: string, approvalId: string): Promise<boolean>;
}
