/**
 * What the running server can say about the audit chain's integrity: how far it has verified
 * the chain (every record's place, link and MAC under the audit key), since when, and the
 * checkpoint of the last record it verified. Installation-wide: the chain holds every tenant.
 */
export interface AuditChainStatus {
  /**
   * verified: every sealed record up to `through` verified (the chain's head when last looked);
   * checking: a walk is still under way, `through` is how far it got; broken: `broken` says
   * where; empty: nothing sealed yet; unavailable: the database could not be read just now.
   */
  readonly state: 'verified' | 'checking' | 'broken' | 'empty' | 'unavailable';
  /** The last seq that verified (0 for none). */
  readonly through: number;
  /** When the record at `through` was made. */
  readonly throughAt: number | null;
  /** When the walk last reached the chain's head. */
  readonly checkedAt: number | null;
  /** When this process began verifying: records before that were checked once, since then. */
  readonly since: number;
  readonly broken?: { readonly seq: number; readonly reason: string };
  /** The checkpoint line of the record at `through`, to keep outside the database. */
  readonly checkpoint?: string;
}

export interface AuditChainCheck {
  /** Verifies what was sealed since the last look, for a bounded time, and says where it stands. */
  status(): Promise<AuditChainStatus>;
}
